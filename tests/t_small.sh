# The small-run rule (issue 42, lib/engine/engine_small.c): with -m auto,
# no --device and one input that is not a batch, an input of one image
# of at most GPUFILT_SMALL_PIXELS pixels (divided by the tool's weight)
# runs on the CPU without opening a GPU, and -v's notice says so with
# its size; its bytes are --cpu's.  A stream of two images, a batch, a
# --device, a named strategy, a larger image, a costlier kernel or sigma,
# and GPUFILT_SMALL_PIXELS=0 each leave the run to the GPU (here, without
# one, to the fallback whose notice gives another reason; with one, -v
# names GPU 0 and the bytes are still --cpu's).  run.sh sets
# GPUFILT_SMALL_PIXELS=0 for every other test; these set it themselves.
# Sourced by tests/run.sh.

SM=$TMP/small
mkdir -p "$SM"
# The rule is for runs in process: a server (GF_SERVED=1, make
# test-served) has its GPUs open and takes every run, the small too
# (small/served).  These cases run in process; the setting is restored
# at the end.
small_server=${GPUFILT_SERVER-unset}
GPUFILT_SERVER=off
export GPUFILT_SERVER
cat "$SAMPLES/coins.pgm" "$SAMPLES/coins.pgm" >"$SM/two.pgm"
cat "$SAMPLES/small.jpg" "$SAMPLES/small.jpg" >"$SM/two.jpg"

# Whether $1 (a -v stderr) holds the rule's notice for a W x H image ($2)
# of tool $3.
small_said() { grep -q "^$3: running on the CPU (one image of $2, at most " "$1"; }
# Whether $1 holds a notice that is not the rule's, or an image line of a
# GPU: the run went to the GPU (or, without one, to the fallback).
not_small() {
	! grep -q "running on the CPU (one image of" "$1" &&
	    { grep -q "running on the CPU (" "$1" || grep -q "GPU [0-9]*: upload" "$1"; }
}

# One small image, each tool, each kind of reader (PNM, PNG whole, a
# JPEG's frame split off, a pipe): the rule's notice with its size, the
# image on the CPU, the bytes of --cpu; nothing on stderr without -v.
tool_runs | while read -r tool args; do
	for f in coins.pgm:384x303 chelsea.png:451x300 small.jpg:160x160; do
		in=$SAMPLES/${f%%:*} size=${f#*:} n=$tool-${f%%.*}
		# shellcheck disable=SC2086
		"$BIN/$tool" -q --cpu $args "$in" "$SM/$n.cpu.pnm"
		# shellcheck disable=SC2086
		GPUFILT_SMALL_PIXELS=1000000 "$BIN/$tool" -v $args "$in" "$SM/$n.pnm" \
		    2>"$SM/$n.err"; st=$?
		if [ $st = 0 ] && small_said "$SM/$n.err" "$size" "$tool" &&
		    ! grep -q 'GPU [0-9]*: upload' "$SM/$n.err" &&
		    cmp -s "$SM/$n.pnm" "$SM/$n.cpu.pnm"; then
			echo "ok small/$n/cpu"
		else
			echo "bad small/$n/cpu exit $st, no notice of $size, a GPU, or not --cpu's bytes: $(head -c 300 "$SM/$n.err" | tr '\n' ' ')"
		fi
		# shellcheck disable=SC2086
		GPUFILT_SMALL_PIXELS=1000000 "$BIN/$tool" $args "$in" "$SM/$n.q.pnm" \
		    2>"$SM/$n.qerr"
		if [ ! -s "$SM/$n.qerr" ] && cmp -s "$SM/$n.q.pnm" "$SM/$n.cpu.pnm"; then
			echo "ok small/$n/silent"
		else
			echo "bad small/$n/silent said something without -v: $(head -c 300 "$SM/$n.qerr" | tr '\n' ' ')"
		fi
	done
	# shellcheck disable=SC2086
	GPUFILT_SMALL_PIXELS=1000000 "$BIN/$tool" -v $args <"$SAMPLES/coins.pgm" \
	    >"$SM/$tool.pipe.pnm" 2>"$SM/$tool.pipe.err"
	if small_said "$SM/$tool.pipe.err" 384x303 "$tool" &&
	    cmp -s "$SM/$tool.pipe.pnm" "$SM/$tool-coins.cpu.pnm"; then
		echo "ok small/$tool/pipe"
	else
		echo "bad small/$tool/pipe one image through a pipe was not the rule's: $(head -c 300 "$SM/$tool.pipe.err" | tr '\n' ' ')"
	fi
done >"$SM/log"
tally small "$SM/log" "see above"

# Runs that the rule must leave to the GPU: name, then the command (the
# tool sobel -t 60, -v, under GPUFILT_SMALL_PIXELS=1000000 unless the
# command sets another), its stderr in $SM/NAME.err.
small_not() {
	name=$1
	shift
	env GPUFILT_SMALL_PIXELS=1000000 "$@" 2>"$SM/$name.err"
	st=$?
	if have_gpu; then
		if [ $st = 0 ] && ! grep -q "running on the CPU" "$SM/$name.err" &&
		    grep -q 'GPU [0-9]*: upload' "$SM/$name.err"; then
			pass "small/not/$name"
		else
			fail "small/not/$name" "exit $st, or not on the GPU: $(head -c 300 "$SM/$name.err")"
		fi
	elif [ $st = 0 ] && not_small "$SM/$name.err" ||
	    { [ $st = 1 ] && grep -q -- "needs a GPU" "$SM/$name.err"; }; then
		pass "small/not/$name"
	else
		fail "small/not/$name" "the rule took it, or it failed otherwise: exit $st: $(head -c 300 "$SM/$name.err")"
	fi
}
"$BIN/sobel" -q --cpu -t 60 "$SM/two.pgm" "$SM/two.cpu.pnm"
"$BIN/sobel" -q --cpu -t 60 "$SM/two.jpg" "$SM/two.jpg.cpu.pnm"
small_not stream-pnm "$BIN/sobel" -v -t 60 "$SM/two.pgm" "$SM/stream-pnm.pnm"
small_not stream-pipe sh -c "cat '$SM/two.pgm' | '$BIN/sobel' -v -t 60 >'$SM/stream-pipe.pnm'"
small_not stream-jpeg "$BIN/sobel" -v -t 60 "$SM/two.jpg" "$SM/stream-jpeg.pnm"
mkdir -p "$SM/batch.out"
small_not batch "$BIN/sobel" -v -t 60 -o "$SM/batch.out" "$SAMPLES/coins.pgm"
small_not device "$BIN/sobel" -v -t 60 --device 0 "$SAMPLES/coins.pgm" "$SM/device.pnm"
small_not strategy "$BIN/sobel" -v -t 60 -m shared "$SAMPLES/coins.pgm" "$SM/strategy.pnm"
small_not large env GPUFILT_SMALL_PIXELS=100000 "$BIN/sobel" -v -t 60 "$SAMPLES/coins.pgm" \
    "$SM/large.pnm"
small_not off env GPUFILT_SMALL_PIXELS=0 "$BIN/sobel" -v -t 60 "$SAMPLES/coins.pgm" "$SM/off.pnm"
# A 25x25 kernel in 2D weighs 625 / 18 taps of gauss:1.4's: coins'
# 116352 pixels count as some 4 million.
small_not weight "$BIN/conv2d" -v -k box:25 --no-separable "$SAMPLES/coins.pgm" \
    "$SM/weight.pnm"
small_not sigma "$BIN/edge" -v --auto --sigma 10 "$SAMPLES/retina1023x517.pgm" "$SM/sigma.pnm"
if have_gpu; then
	# The first image was read while the rule waited, its output buffer
	# left to the lane (slot_take_work): the bytes are still --cpu's.
	for n in stream-pnm stream-pipe; do
		check "small/not/$n/bytes" cmp -s "$SM/$n.pnm" "$SM/two.cpu.pnm"
	done
	check "small/not/stream-jpeg/bytes" cmp -s "$SM/stream-jpeg.pnm" "$SM/two.jpg.cpu.pnm"
fi
# ... and the same runs that fit take the rule; a colour image counts its
# pixels, not its samples (bench/crossover.sh measures conv2d's colour
# JPEGs among the rest): chelsea is 135300 pixels, 405900 samples.
GPUFILT_SMALL_PIXELS=200000 "$BIN/conv2d" -v -k gauss:1.4 "$SAMPLES/chelsea.png" \
    "$SM/colour.pnm" 2>"$SM/colour.err"
why="conv2d on chelsea (colour) under 200000: $(head -c 300 "$SM/colour.err")"
check small/colour small_said "$SM/colour.err" 451x300 conv2d
GPUFILT_SMALL_PIXELS=5000000 "$BIN/conv2d" -v -k box:25 --no-separable "$SAMPLES/coins.pgm" \
    "$SM/w5.pnm" 2>"$SM/w5.err"
why="conv2d 25x25 on coins under 5000000: $(head -c 300 "$SM/w5.err")"
check small/weight-fits small_said "$SM/w5.err" 384x303 conv2d

# The opener waits for the first image's header, not its pixels: a
# larger image's GPUs are decided (trace step G) before it is decoded
# (step R), whether the reader decodes it (PNG) or its pool (a JPEG's
# frame).  Only without a GPU, whose opening (a failed dlopen) is quick.
if have_gpu; then
	skip small/header/png "a GPU's opening takes longer than the decode"
	skip small/header/jpeg "a GPU's opening takes longer than the decode"
else
	"$ROOT/build/bench/framegen" 1 4000 3000 >"$SM/big.pgm"
	"$BIN/conv2d" -q --cpu -k identity "$SM/big.pgm" "$SM/big.png"
	"$ROOT/build/bench/jpeggen" 6000 4000 >"$SM/big.jpg"
	for x in png jpeg; do
		f=$SM/big.$x
		[ $x = png ] || f=$SM/big.jpg
		GPUFILT_SMALL_PIXELS=1000 GPUFILT_TRACE="$SM/trace.$x" "$BIN/sobel" -q "$f" \
		    "$SM/big.$x.pnm"
		g=$(awk '$2 == "G" { print $1 }' "$SM/trace.$x")
		r=$(awk '$2 == "R" { print $1; exit }' "$SM/trace.$x")
		why="the GPUs were decided at ${g:-never} ms, the image read at ${r:-never} ms"
		check small/header/$x awk -v g="$g" -v r="$r" 'BEGIN { exit !(g != "" && r != "" && g + 0 < r + 0) }'
	done
fi

# No CUDA at all: the rule's run opens neither libcuda nor a device
# node, where the same run with the rule off does (strace's openat).
if ! command -v strace >/dev/null 2>&1; then
	skip small/no-cuda "strace is not installed"
else
	cuda_opens() {
		env GPUFILT_SMALL_PIXELS="$1" strace -f -e trace=openat "$BIN/sobel" -t 60 \
		    "$SAMPLES/coins.pgm" "$SM/strace.pnm" 2>&1 >/dev/null |
		    grep -c -e libcuda -e /dev/nvidia
	}
	on=$(cuda_opens 1000000) off=$(cuda_opens 0)
	why="openat of libcuda or /dev/nvidia*: $on with the rule, $off without"
	check small/no-cuda awk -v on="$on" -v off="$off" 'BEGIN { exit !(on == 0 && off > 0) }'
fi

# The setting: unset, the default (16 MP) takes coins; a value that is
# not a count is ignored with a warning (none with -q), and the default holds.
env -u GPUFILT_SMALL_PIXELS "$BIN/sobel" -v "$SAMPLES/coins.pgm" "$SM/d.pnm" 2>"$SM/d.err"
why="unset: $(head -c 300 "$SM/d.err")"
check small/env/default small_said "$SM/d.err" 384x303 sobel
GPUFILT_SMALL_PIXELS=lots "$BIN/sobel" -v "$SAMPLES/coins.pgm" "$SM/b.pnm" 2>"$SM/b.err"
why="lots: $(head -c 300 "$SM/b.err")"
small_warned() {
	grep -q "^sobel: ignoring the environment: GPUFILT_SMALL_PIXELS 'lots' is not an integer" "$1" &&
	    small_said "$1" 384x303 sobel
}
check small/env/bad small_warned "$SM/b.err"
GPUFILT_SMALL_PIXELS=-1 "$BIN/sobel" -q "$SAMPLES/coins.pgm" "$SM/b.pnm" 2>"$SM/bq.err"
why="-q said: $(head -c 300 "$SM/bq.err")"
check small/env/bad-quiet [ ! -s "$SM/bq.err" ]

if [ -z "$GF_SERVED" ]; then
	skip small/served "no server of the harness's (GF_SERVED=1 starts one)"
else
	GPUFILT_SERVER=require GPUFILT_SMALL_PIXELS=1000000 "$BIN/sobel" -v -t 60 \
	    "$SAMPLES/coins.pgm" "$SM/served.pnm" 2>"$SM/served.err"; st=$?
	why="exit $st, the rule's notice, or not the server's: $(head -c 300 "$SM/served.err")"
	served_ok() { [ "$1" = 0 ] && ! small_said "$2" 384x303 sobel && grep -q "(filtered by gpufiltd)" "$2"; }
	check small/served served_ok "$st" "$SM/served.err"
fi
if [ "$small_server" = unset ]; then unset GPUFILT_SERVER; else GPUFILT_SERVER=$small_server; fi
