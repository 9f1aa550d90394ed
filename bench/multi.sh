#!/bin/sh
# Several GPUs of one host (issues 12 and 36), in one command on the GPU
# machine; each step prints how long it took, and the whole is meant to fit a
# 10-minute call on two H200s and 32 cores:
#
#   build   the tools, tests and bench helpers
#   test    the whole suite with --device all before every tool's own
#           options (wrappers in build/multi/bin; a test's own --device
#           comes later and wins), so every GPU case runs on all GPUs:
#           t_multi.sh's --device all against --device 0 byte for byte,
#           and t_jpeg_gpu.sh's JPEG engines against the CPU's decode;
#           stopped after TEST_LIMIT seconds (240) so that the bench
#           still runs
#   bench   images/s on GPU 0 and on all GPUs, the ratio, and under each
#           row what bounds the runs, from the -v summary: the busy
#           fraction of every stage (read, filter, write), each GPU's
#           images and busy fraction, the images each decoder took and
#           how busy each GPU's JPEG engines were; "busiest" names the
#           stage nearest 100%.  In order:
#           - the JPEG engines alone on each GPU (bench/jpegdec -d N,
#             decode only: a JPEG batch's ceiling per GPU)
#           - a batch of PHOTOS photos of 4000x3000 to -o DIR: edge
#             --auto and sobel -t 60 on JPEG quality 90 with the GPU's
#             JPEG engines forced on (GPUFILT_GPU_DECODE=1) and off (0),
#             with the engines' rows as a fraction of their ceiling; on
#             PNG; on PGM of the same pixels, whose reading costs
#             nothing; then conv2d 25x25 on the PGMs, which the GPU
#             bounds.  This table also goes to $OUT/batch.md (Markdown)
#           - a stream of FRAMES 3840x2160 frames through a pipe
#           - the host's copy bandwidth by threads and GPUs (bench/hostbw:
#             a batch's copies come from plain memory)
#
# Usage, from the project root:  . .deps/env.sh; sh bench/multi.sh [build test bench]
# (PHOTOS=500, FRAMES=300; TESTS, the test files, all by default; WORK,
# the scratch dir, is in memory by default; logs go to $OUT when set,
# else build/multi-logs.  DRY=1 needs no GPU: the tools run on --cpu in
# both columns, jpegdec and hostbw do not run; it checks the script and
# its tables, and measures nothing.)
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
OUT=${OUT:-build/multi-logs}
PHOTOS=${PHOTOS:-500}
FRAMES=${FRAMES:-300}
TEST_LIMIT=${TEST_LIMIT:-240}
DRY=${DRY:-0}
WORK=${WORK:-/dev/shm/gpufilt-multi}
# The tools, each with the options of a typical run (cmd/tools).
tool_runs() { grep -v '^#' cmd/tools; }
mkdir -p "$OUT" "$WORK" || exit 1
rm -f "$OUT/failed"

build() {
	make -j"$(nproc)" all build/bench/framegen build/bench/hostbw build/tests/gpu_probe \
	    build/bench/jpeggen build/bench/jpegdec \
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
	# Side by side (run.sh -P); TESTS picks the files.  timeout stops
	# the harnesses' whole process group.
	GF_BUILD=build/multi timeout "$TEST_LIMIT" sh tests/run.sh -P "$(nproc)" "$OUT" $TESTS \
	    >"$OUT/test.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] || touch "$OUT/failed"
	head -n 40 "$OUT/test.log" | grep -v ' passed, '
	if [ "$rc" = 124 ]; then
		echo "test (--device all): stopped after $TEST_LIMIT s (TEST_LIMIT); the logs so far are in $OUT/test-*.log"
	else
		echo "test (--device all): $(tail -n 1 "$OUT/test.log")"
	fi
	# The JPEG engines' own cases, and why they were skipped if they were.
	l=$OUT/test-t_jpeg_gpu.log
	if [ -e "$l" ]; then
		echo "  of which t_jpeg_gpu: $(tail -n 1 "$l")"
		grep -m 1 '^jpeg-gpu:' "$l" | sed 's/^/  /'
	fi
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

# What bounds a run, on one line, from the summary of its -v (its stderr
# in $1): the stages' busy fractions; each GPU's images and busy
# fraction; the images each decoder took and each GPU's engines' busy
# fraction (engN), or why no engines decoded.
busy() {
	{
		sed -n 's/.*busy: read \([0-9]*%\).*[gc]pu \([0-9]*%\).*write \([0-9]*%\).*/read \1 filter \2 write \3/p' "$1"
		sed -n 's/^[a-z0-9]*: GPU \([0-9]*\) (.*): \([0-9]*\) images, busy \([0-9]*%\)$/GPU\1 \2 img \3/p' "$1"
		sed -n "s/^[a-z0-9]*: decoders: \([0-9]*\) images on the GPUs' JPEG engines, \([0-9]*\) on the CPU/decoded: engines \1 CPU \2/p" "$1" |
		    sed "s/ (\([0-9]*\) of them refused or failed by the engines)/ (\1 refused or failed)/
			s/; GPU \([0-9]*\)'s engines busy \([0-9]*%\)/ eng\1 \2/g"
		sed -n 's/^[a-z0-9]*: JPEGs decoded on the CPU: \(.*\)/no engines: \1/p' "$1"
	} | tr '\n' ' ' | sed 's/ *$//'
}

# The stage of busy's line $1 nearest 100%: read, filter, write or JPEG
# engines (the busiest GPU's), with its figure.
busiest() {
	echo "$1" | awk '{ max = -1; best = "-"
		for (i = 1; i < NF; i++) {
			if ($(i + 1) !~ /^[0-9]+%$/ || ($i != "read" && $i != "filter" &&
			    $i != "write" && $i !~ /^eng[0-9]+$/))
				continue
			if ($(i + 1) + 0 > max) {
				max = $(i + 1) + 0
				best = $i ~ /^eng/ ? "JPEG engines" : $i
			}
		}
		printf "%s", (max < 0 ? "-" : best " " max "%") }'
}

# n / seconds, one decimal (0 for no time).
rate() { echo "$1 $2" | awk '{ printf "%.1f", ($2 > 0 ? $1 / $2 : 0) }'; }

# One table row: label, count, the command (with -v) with @DEV@ for its
# --device, and "ceil" where the row is to be set against the engines'
# decode-only rates ($ceil1 for GPU 0, $ceiln for the sum of all GPUs'
# rates); under it, what bounds each run.  The row goes to $md too.
row() {
	label=$1 n=$2 cmd=$3
	if [ "$DRY" = 1 ]; then
		c1=$(echo "$cmd" | sed 's/--device @DEV@/--cpu/g')
		cn=$c1
	else
		c1=$(echo "$cmd" | sed 's/@DEV@/0/g')
		cn=$(echo "$cmd" | sed 's/@DEV@/all/g')
	fi
	secs "$c1" >/dev/null           # warm: page cache, driver
	s1=$(secs "$c1")
	b1=$(busy "$WORK/err")
	sn=$(secs "$cn")
	bn=$(busy "$WORK/err")
	r1=$(rate "$n" "$s1") rn=$(rate "$n" "$sn")
	x=$(echo "$s1 $sn" | awk '{ printf "%.2fx", ($2 > 0 ? $1 / $2 : 0) }')
	of=
	if [ "$4" = ceil ] && [ -n "$ceil1" ] && [ -n "$ceiln" ]; then
		of=$(echo "$r1 $ceil1 $rn $ceiln" | awk '{ printf "%.0f%% / %.0f%% of the engines alone",
		    ($2 > 0 ? 100 * $1 / $2 : 0), ($4 > 0 ? 100 * $3 / $4 : 0) }')
	fi
	printf '  %-34s %8s %8s %6s%s\n' "$label" "$r1" "$rn" "$x" "${of:+  $of}"
	printf '      1 GPU, busiest %s: %s\n      all,   busiest %s: %s\n' \
	    "$(busiest "$b1")" "$b1" "$(busiest "$bn")" "$bn"
	printf '| %s | %s | %s | %s | %s | %s: %s | %s: %s |\n' "$label" "$r1" "$rn" \
	    "$x" "${of:--}" "$(busiest "$b1")" "$b1" "$(busiest "$bn")" "$bn" >>"$md"
}

# PHOTOS photos in $WORK/photos as JPEG, PNG and PGM, made once.
photos() {
	d=$WORK/photos
	want="$PHOTOS jpg,png,pgm"
	if [ "$(cat "$d/.done" 2>/dev/null)" != "$want" ]; then
		rm -rf "$d"
		python3 bench/make_photos.py -f jpg,png,pgm "$PHOTOS" "$d" samples/chelsea.png \
		    samples/small.jpg samples/coins.pgm samples/retina1023x517.pgm \
		    >"$OUT/photos.log" 2>&1 || { tail -n 3 "$OUT/photos.log"; return 1; }
		echo "$want" >"$d/.done"
	fi
	cat "$d"/*.jpg "$d"/*.png "$d"/*.pgm >/dev/null
}

# The JPEG engines alone on each GPU, one GPU at a time: their
# decode-only rate on the first 256 JPEGs of $1 (a rate, which more files
# would not change; jpegdec first decodes each once on the CPU), the
# ceiling of a JPEG batch there.  Sets ceil1 (GPU 0's rate) and ceiln
# (the sum over the GPUs).
ceiling() {
	ceil1='' ceiln=''
	echo "JPEG engines alone, decode only, one GPU at a time (bench/jpegdec -d GPU -b 0: its best call, up to 256 files, best of 3 rounds):"
	if [ "$DRY" = 1 ]; then
		echo "  not run (DRY=1)"
		return
	fi
	i=0 sum=0
	while [ "$i" -lt "$ngpu" ]; do
		l=$OUT/jpegdec-$i.log
		# shellcheck disable=SC2046  # make_photos.py's names: p0000.jpg...
		build/bench/jpegdec -d "$i" -b 0 $(ls "$1"/*.jpg | head -n 256) >"$l" 2>&1 ||
		    touch "$OUT/failed"
		r=$(tail -n 1 "$l" | sed -n 's/.*: \([0-9.]*\) images\/s.*/\1/p')
		printf '  GPU %d: %s\n' "$i" "$(head -n 1 "$l")"
		[ "$(wc -l <"$l")" -lt 2 ] || printf '         %s\n' "$(tail -n 1 "$l")"
		[ -n "$r" ] || { sum=; break; }
		[ "$i" -gt 0 ] || ceil1=$r
		sum=$(echo "$sum $r" | awk '{ print $1 + $2 }')
		i=$((i + 1))
	done
	ceiln=$sum
	[ -z "$ceiln" ] || echo "  sum over the $ngpu GPUs: $ceiln images/s"
	printf '\nJPEG engines alone (bench/jpegdec, decode only): GPU 0 %s images/s, sum over %d GPUs %s images/s\n\n' \
	    "${ceil1:--}" "$ngpu" "${ceiln:--}" >>"$md"
}

bench() {
	ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
	if [ "$DRY" = 1 ]; then
		echo "DRY=1: the tools on --cpu in both columns; no figure below is a GPU's"
	elif [ "$ngpu" -lt 1 ]; then
		echo "bench: no GPU (nvidia-smi -L lists none)"
		touch "$OUT/failed"
		return
	fi
	md=$OUT/batch.md
	printf '# batch: %s photos of 4000x3000 to -o DIR, %s cores, %s GPUs%s\n' "$PHOTOS" \
	    "$(nproc)" "$ngpu" "$([ "$DRY" = 1 ] && echo ', DRY=1 (--cpu)')" >"$md"
	nvidia-smi -L 2>/dev/null | sed 's/^/    /' >>"$md"
	photos || { touch "$OUT/failed"; return; }
	d=$WORK/photos
	mkdir -p "$WORK/out"
	ceiling "$d"
	echo
	echo "batch: $PHOTOS photos of 4000x3000 to -o DIR, $(nproc) cores, $ngpu GPUs"
	printf '  %-34s %8s %8s %6s\n' "images/s" "1 GPU" "all" "ratio"
	printf '| images/s | 1 GPU | all | ratio | of the engines alone (1 GPU / all) | 1 GPU: busiest: -v | all: busiest: -v |\n' >>"$md"
	printf '| --- | --- | --- | --- | --- | --- | --- |\n' >>"$md"
	for tool in "edge --auto" "sobel -t 60"; do
		row "$tool, jpg, engines on" "$PHOTOS" \
		    "GPUFILT_GPU_DECODE=1 bin/$tool -v --device @DEV@ -o $WORK/out $d/*.jpg" ceil
		row "$tool, jpg, engines off" "$PHOTOS" \
		    "GPUFILT_GPU_DECODE=0 bin/$tool -v --device @DEV@ -o $WORK/out $d/*.jpg"
	done
	for fmt in png pgm; do
		for tool in "edge --auto" "sobel -t 60"; do
			row "$tool, $fmt" "$PHOTOS" "bin/$tool -v --device @DEV@ -o $WORK/out $d/*.$fmt"
		done
	done
	# Where the GPU bounds the run (a 25x25 kernel, not separated: about
	# 16 ms an image on an H200), the row that shows what a second GPU adds.
	row "conv2d 25x25, pgm" "$PHOTOS" \
	    "bin/conv2d -k gauss:4 --no-separable -v --device @DEV@ -o $WORK/out $d/*.pgm"
	echo "  (the Markdown of this table: $md)"
	f=$WORK/frames.pgm
	if [ "$(cat "$f.n" 2>/dev/null)" != "$FRAMES" ]; then
		build/bench/framegen "$FRAMES" 3840 2160 >"$f" && echo "$FRAMES" >"$f.n"
	fi
	cat "$f" >/dev/null
	echo
	echo "stream: $FRAMES frames of 3840x2160 through a pipe, $ngpu GPUs"
	printf '  %-34s %8s %8s %6s\n' "frames/s" "1 GPU" "all" "ratio"
	base=$(secs "cat $f | cat >/dev/null")
	printf '  %-34s %8s\n' "cat | cat" "$(rate "$FRAMES" "$base")"
	md=$OUT/stream.md
	printf '# stream: %s frames of 3840x2160 through a pipe\n\n' "$FRAMES" >"$md"
	printf '| frames/s | 1 GPU | all | ratio | - | 1 GPU: busiest: -v | all: busiest: -v |\n' >>"$md"
	printf '| --- | --- | --- | --- | --- | --- | --- |\n' >>"$md"
	while read -r tool <&3; do
		row "$tool" "$FRAMES" "cat $f | bin/$tool -v --device @DEV@"
	done 3<<END
$(tool_runs)
END
	[ "$DRY" = 1 ] && return
	echo
	echo "host copies, 12 MB each (bench/hostbw):"
	build/bench/hostbw | sed 's/^/  /'
}

for step in ${*:-build test bench}; do
	t=$(date +%s)
	case $step in
	build)
		build 2>&1 | tee -a "$OUT/multi.log"
		[ ! -e "$OUT/failed" ] || exit 1
		;;
	bench) bench 2>&1 | tee -a "$OUT/multi.log" ;;
	test) suite 2>&1 | tee -a "$OUT/multi.log" ;;
	*) echo "multi.sh: unknown step '$step' (build, test, bench)" >&2; exit 2 ;;
	esac
	echo "multi: $step took $(($(date +%s) - t)) s" | tee -a "$OUT/multi.log"
done
[ ! -e "$OUT/failed" ]
