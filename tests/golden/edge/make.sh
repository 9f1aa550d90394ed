#!/bin/sh
# Writes the edge golden files that do not exist yet, from the CPU
# reference (bin/edge --cpu); never rewrites one.  Run from the project
# root after make, through tests/golden/make.sh.  How they were checked:
# tests/golden/edge/README.
SAMPLES=samples
. ./tests/cases_edge.sh
. ./tests/golden/keep.sh
mkdir -p build/golden/edge
edge_configs | while IFS='|' read -r cfg opt8 opt16; do
	for s in $EDGE_SAMPLES; do
		case $s in astro16*) o=$opt16 ;; *) o=$opt8 ;; esac
		g=edge/${s%.*}.$cfg.$(edge_ext "$s" "$cfg")
		golden_new "$g" || continue
		# shellcheck disable=SC2086
		bin/edge --cpu $o "$SAMPLES/$s" "build/golden/$g" && golden_keep "$g"
	done
done
