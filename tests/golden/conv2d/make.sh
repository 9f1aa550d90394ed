#!/bin/sh
# Writes the conv2d golden files that do not exist yet, from the CPU
# reference (bin/conv2d --cpu).  Never rewrites one: a failing comparison
# is a bug to find.  Run from the project root (tests/golden/make.sh does).
. ./tests/cases_conv2d.sh
. ./tests/golden/keep.sh
mkdir -p build/golden/conv2d
conv2d_configs | while IFS='|' read -r cfg opts; do
	for s in $CONV2D_SAMPLES; do
		n=${s%.*}
		case $s in chelsea*) ext=ppm ;; *) ext=pgm ;; esac
		g=conv2d/$n.$cfg.$ext
		golden_new "$g" || continue
		# shellcheck disable=SC2086
		bin/conv2d -q --cpu $opts "samples/$s" "build/golden/$g" && golden_keep "$g"
	done
done
