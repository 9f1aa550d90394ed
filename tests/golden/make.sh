#!/bin/sh
# Writes the golden files that do not exist yet, from the CPU reference.
# Run once when a case is added; an existing golden file is never
# rewritten: a failing comparison is a bug to find, not a file to renew.
# A new file is written to build/golden (where the tests read the
# goldens) and kept here as its gzip -9n (golden_keep, also used by the
# make.sh of each directory).
# Usage (from the project root, after make): sh tests/golden/make.sh
SAMPLES=samples
. ./tests/cases_sobel.sh
. ./tests/golden/keep.sh
mkdir -p build/golden/sobel
sobel_configs | while IFS='|' read -r cfg opt8 opt16; do
	for s in $SOBEL_SAMPLES; do
		case $s in astro16*) o=$opt16 ;; *) o=$opt8 ;; esac
		n=${s%.*}
		g=sobel/$n.$cfg.$(sobel_ext "$s" "$cfg")
		golden_new "$g" || continue
		# shellcheck disable=SC2086
		bin/sobel --cpu $o "$SAMPLES/$s" "build/golden/$g" && golden_keep "$g"
	done
done
for f in tests/golden/*/make.sh; do
	[ -f "$f" ] && sh "$f"
done
true
