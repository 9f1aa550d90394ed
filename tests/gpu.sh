#!/bin/sh
# Everything the GPU machine checks, in one command (device time is
# scarce): build, the whole test suite (its GPU half runs there),
# compute-sanitizer memcheck and racecheck on every kernel path of every
# tool, then the bench.  Logs go to $OUT when it is set (the device tool's
# return folder), else to build/gpu-logs.
#
# Usage, on the GPU machine from the project root:
#   . .deps/env.sh; sh tests/gpu.sh [test|sanitize|bench ...]
OUT=${OUT:-build/gpu-logs}
mkdir -p "$OUT"
steps=${*:-test sanitize bench}
nproc=$(nproc 2>/dev/null || echo 4)
make -j"$nproc" all build/bench build/tests/gpu_probe \
    $(ls tests/*_test.c | sed 's#tests/\(.*\)\.c#build/tests/\1#') \
    >"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
status=0

for step in $steps; do
case $step in
test)
	sh tests/run.sh >"$OUT/test.log" 2>&1 || status=1
	grep -E '^(GPU|FAIL)' "$OUT/test.log" | head -n 40
	tail -n 1 "$OUT/test.log"
	;;
sanitize)
	# tool|arguments: every strategy of each is run under both tools.
	: >"$OUT/sanitize.log"
	cat <<'END' | while IFS='|' read -r tool args; do
sobel|
sobel|-t 60 --border zero
sobel|--norm l1 --border reflect
conv2d|-k gauss:1.4
conv2d|-k gauss:1.4 --no-separable --border wrap
conv2d|-k "1 2 1; 2 4 2; 1 2 1" --border zero
conv2d|-k box:5 --no-separable
edge|
edge|--auto --sigma 0
END
		[ -x "bin/$tool" ] || continue
		case " ${SAN_TOOLS:-sobel conv2d edge} " in *" $tool "*) ;; *) continue ;; esac
		for m in global texture shared sliding; do
			# memcheck on odd, 16-bit and 8-bit images; racecheck on one.
			for run in "memcheck samples/retina1023x517.pgm" \
			    "memcheck samples/px2x3.pgm" "memcheck samples/astro16.pgm" \
			    "racecheck samples/retina1023x517.pgm"; do
				set -- $run
				t=$1 img=$2
				eval "set -- $args"
				if compute-sanitizer --tool $t --error-exitcode 9 \
				    "bin/$tool" -q -m $m "$@" "$img" /tmp/san.pnm \
				    >/tmp/san.log 2>&1; then
					echo "clean $t $tool $m $args $img"
				else
					echo "DIRTY $t $tool $m $args $img"
					tail -n 20 /tmp/san.log
				fi
			done
		done
	done >>"$OUT/sanitize.log" 2>&1
	# The unit tests run every strategy over many shapes and sizes.
	for u in build/tests/*_test; do
		for t in memcheck racecheck; do
			if compute-sanitizer --tool $t --error-exitcode 9 "$u" \
			    >/tmp/san.log 2>&1; then
				echo "clean $t $u"
			else
				echo "DIRTY $t $u"
				tail -n 20 /tmp/san.log
			fi
		done
	done >>"$OUT/sanitize.log" 2>&1
	echo "sanitizer: $(grep -c '^clean' "$OUT/sanitize.log") clean," \
	    "$(grep -c '^DIRTY' "$OUT/sanitize.log") dirty"
	grep -A5 '^DIRTY' "$OUT/sanitize.log" | head -n 40
	grep -q '^DIRTY' "$OUT/sanitize.log" && status=1
	;;
bench)
	build/bench >"$OUT/bench.log" 2>&1 || status=1
	cat "$OUT/bench.log"
	;;
esac
done
exit $status
