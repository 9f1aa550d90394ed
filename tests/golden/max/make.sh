#!/bin/sh
# Writes the --colour max golden files of tests/golden/max/ that do not
# exist yet, from the CPU reference (bin/sobel --cpu, bin/edge --cpu);
# never rewrites one.  Run from the project root after make, through
# tests/golden/make.sh.  How they were checked: README here.
. ./tests/cases_max.sh
. ./tests/golden/keep.sh
D=build/golden/max
mkdir -p "$D"
max_configs | while IFS='|' read -r tool cfg opt8 opt16; do
	for s in $MAX_INPUTS; do
		if max_wide "$s"; then o=$opt16; else o=$opt8; fi
		g=max/${s%.*}.$tool.$cfg.pgm
		golden_new "$g" || continue
		# shellcheck disable=SC2086
		bin/$tool --cpu $o "$D/$s" "build/golden/$g" && golden_keep "$g"
	done
done
