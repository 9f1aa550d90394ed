#!/bin/sh
# Writes the --colour max golden files of tests/golden/max/ that do not
# exist yet, from the CPU reference (bin/sobel --cpu, bin/edge --cpu);
# never rewrites one.  Run from the project root after make, through
# tests/golden/make.sh.  How they were checked: README here.
. ./tests/cases_max.sh
D=tests/golden/max
max_configs | while IFS='|' read -r tool cfg opt8 opt16; do
	for s in $MAX_INPUTS; do
		if max_wide "$s"; then o=$opt16; else o=$opt8; fi
		g=$D/${s%.*}.$tool.$cfg.pgm
		[ -e "$g" ] && continue
		# shellcheck disable=SC2086
		bin/$tool --cpu $o "$D/$s" "$g" && echo "wrote $g"
	done
done
