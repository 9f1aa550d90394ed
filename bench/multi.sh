#!/bin/sh
# Several GPUs of one host (issue 12), in one command on the GPU machine:
#
#   build   the tools, tests and bench helpers
#   test    the whole suite with --device all before every tool's own
#           options (wrappers in build/multi/bin; a test's own --device
#           comes later and wins), so every GPU case, and t_multi.sh's
#           --device all against --device 0 byte for byte, runs on all GPUs
#   bench   the host's copy bandwidth by threads and GPUs (bench/hostbw:
#           a batch's copies come from plain memory), then
#           images/s on GPU 0 and on all GPUs: a batch of PHOTOS photos of
#           4000x3000 (JPEG, and the same pixels as PGM, whose reading
#           costs nothing) and a stream of FRAMES 3840x2160 frames through
#           a pipe; two tables, each row with the busy fraction of every
#           stage of the all-GPU run (read, gpu, write: the bound one is
#           near 100%) and of each GPU
#
# Usage, from the project root:  . .deps/env.sh; sh bench/multi.sh [build test bench]
# (PHOTOS=500, FRAMES=300; TESTS, the test files, all by default; WORK,
# the scratch dir, is in memory by default; logs go to $OUT when set,
# else build/multi-logs.)
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-build/multi-logs}
PHOTOS=${PHOTOS:-500}
FRAMES=${FRAMES:-300}
WORK=${WORK:-/dev/shm/gpufilt-multi}
# The tools, each with the options of a typical run (cmd/tools).
tool_runs() { grep -v '^#' cmd/tools; }
mkdir -p "$OUT" "$WORK" || exit 1
rm -f "$OUT/failed"

build() {
	make -j"$(nproc)" all build/bench/framegen build/bench/hostbw build/tests/gpu_probe \
	    $(ls tests/*_test.c | sed 's#tests/\(.*\)\.c#build/tests/\1#') \
	    >"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; touch "$OUT/failed"; }
	echo "build: ok"
}

suite() {
	mkdir -p build/multi/bin
	ln -sfn ../tests build/multi/tests
	for t in $(tool_runs | cut -d' ' -f1); do
		printf '#!/bin/sh\nexec "%s/bin/%s" --device all "$@"\n' "$ROOT" "$t" \
		    >build/multi/bin/$t
		chmod +x build/multi/bin/$t
	done
	# Side by side (run.sh -P); TESTS picks the files.
	GF_BUILD=build/multi sh tests/run.sh -P "$(nproc)" "$OUT" $TESTS \
	    >"$OUT/test.log" 2>&1 || touch "$OUT/failed"
	head -n 40 "$OUT/test.log" | grep -v ' passed, '
	echo "test (--device all): $(tail -n 1 "$OUT/test.log")"
	nvidia-smi -L 2>/dev/null | sed 's/^/  /'
}

# Wall seconds of a shell command (stdout thrown away, stderr to $WORK/err).
secs() {
	t0=$(date +%s.%N)
	sh -c "$1" >/dev/null 2>"$WORK/err" || {
		echo "multi: '$1' failed: $(tail -n 2 "$WORK/err")" >&2
		touch "$OUT/failed"
	}
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }'
}

# The stage busy figures of a -v run's summary (its stderr in $1), short.
busy() {
	sed -n 's/.*busy: read \([0-9]*%\).*[gc]pu \([0-9]*%\).*write \([0-9]*%\).*/read \1 filter \2 write \3/p' "$1"
	sed -n 's/^[a-z0-9]*: GPU \([0-9]*\) (.*): \([0-9]*\) images, busy \([0-9]*%\)$/GPU\1 \2 img \3/p' "$1" |
	    tr '\n' ' '
}

# One table row: label, count, the command (with -v) with @DEV@ for its
# --device; then, under it, the stage and GPU busy figures of both runs.
row() {
	label=$1 n=$2 cmd=$3
	c1=$(echo "$cmd" | sed 's/@DEV@/0/g')
	cn=$(echo "$cmd" | sed 's/@DEV@/all/g')
	secs "$c1" >/dev/null           # warm: page cache, driver
	s1=$(secs "$c1")
	busy "$WORK/err" >"$WORK/busy1"
	sn=$(secs "$cn")
	busy "$WORK/err" >"$WORK/busyn"
	printf '  %-30s %8s %8s %6s\n' "$label" \
	    "$(echo "$n $s1" | awk '{ printf "%.1f", $1 / $2 }')" \
	    "$(echo "$n $sn" | awk '{ printf "%.1f", $1 / $2 }')" \
	    "$(echo "$s1 $sn" | awk '{ printf "%.2fx", $1 / $2 }')"
	printf '      busy, 1 GPU: %s\n      busy, all:   %s\n' \
	    "$(tr '\n' ' ' <"$WORK/busy1")" "$(tr '\n' ' ' <"$WORK/busyn")"
}

bench() {
	ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
	if [ "$ngpu" -lt 1 ]; then
		echo "bench: no GPU (nvidia-smi -L lists none)"
		touch "$OUT/failed"
		return
	fi
	echo "host copies, 12 MB each (bench/hostbw):"
	build/bench/hostbw | sed 's/^/  /'
	d=$WORK/photos
	if [ ! -s "$d/.done" ]; then
		python3 bench/make_photos.py -f jpg,pgm "$PHOTOS" "$d" samples/chelsea.png \
		    samples/small.jpg samples/coins.pgm samples/retina1023x517.pgm \
		    >"$OUT/photos.log" 2>&1 || { tail -n 3 "$OUT/photos.log"; return 1; }
		touch "$d/.done"
	fi
	cat "$d"/*.jpg "$d"/*.pgm >/dev/null
	mkdir -p "$WORK/out"
	echo
	echo "batch: $PHOTOS photos of 4000x3000 to -o DIR, $(nproc) cores, $ngpu GPUs"
	printf '  %-30s %8s %8s %6s\n' "images/s" "1 GPU" "all" "ratio"
	for fmt in jpg pgm; do
		src="$d/*.$fmt"
		for tool in "edge --auto" "sobel -t 60"; do
			row "$tool, $fmt" "$PHOTOS" "bin/$tool -v --device @DEV@ -o $WORK/out $src"
		done
	done
	# Where the GPU bounds the run (a 25x25 kernel, not separated: about
	# 16 ms an image on an H200), the row that shows what a second GPU adds.
	row "conv2d 25x25, pgm" "$PHOTOS" \
	    "bin/conv2d -k gauss:4 --no-separable -v --device @DEV@ -o $WORK/out $d/*.pgm"
	f=$WORK/frames.pgm
	[ -s "$f" ] || build/bench/framegen "$FRAMES" 3840 2160 >"$f"
	cat "$f" >/dev/null
	echo
	echo "stream: $FRAMES frames of 3840x2160 through a pipe, $ngpu GPUs"
	printf '  %-30s %8s %8s %6s\n' "frames/s" "1 GPU" "all" "ratio"
	base=$(secs "cat $f | cat >/dev/null")
	printf '  %-30s %8s\n' "cat | cat" "$(echo "$FRAMES $base" | awk '{ printf "%.1f", $1 / $2 }')"
	while read -r tool <&3; do
		row "$tool" "$FRAMES" "cat $f | bin/$tool -v --device @DEV@"
	done 3<<EOF
$(tool_runs)
EOF
}

for step in ${*:-build test bench}; do
	case $step in
	build)
		build 2>&1 | tee -a "$OUT/multi.log"
		[ ! -e "$OUT/failed" ] || exit 1
		;;
	bench) bench 2>&1 | tee -a "$OUT/multi.log" ;;
	test) suite 2>&1 | tee -a "$OUT/multi.log" ;;
	*) echo "multi.sh: unknown step '$step' (build, test, bench)" >&2; exit 2 ;;
	esac
done
[ ! -e "$OUT/failed" ]
