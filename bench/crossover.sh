#!/bin/sh
# bench/crossover.sh - the small-run rule's crossover (issue 42 item 3):
# for one image of each size, as PGM and as colour JPEG, whole processes
# of each tool of cmd/tools (sobel -t 60, conv2d -k gauss:1.4, edge
# --auto), file to file, timed three ways, interleaved so that a change
# of load hits all three, the median of RUNS each:
#
#   gpu    GPUFILT_SMALL_PIXELS=0: the GPU, cold, as before the rule
#   cpu    --cpu
#   rule   as a user runs it (the default GF_SMALL_PIXELS, or
#          GPUFILT_SMALL_PIXELS when set): the better of the two, if the
#          default is right, at no more than --cpu's time where it is small
#
# Then, per tool and format, the crossover: the largest size at which
# the CPU still wins at every size up to it, in pixels (conv2d filters
# a colour JPEG's three channels: its crossover is the lowest of its
# own), and the smallest of them all, which the default GF_SMALL_PIXELS
# should not exceed.  On the GPU
# machine; without a GPU the gpu column is the CPU fallback, and the
# figures say nothing (a line says so).  The inputs are made once,
# before any timing, with bench's generators (framegen, jpeggen -q 90).
#
# With SERVED=1 the same against a warm server of the bench's own: the
# gpu column is the server's (GPUFILT_SERVED_SMALL_PIXELS=0), the rule
# column the served rule's default, and the crossover is the one
# GF_SERVED_SMALL_PIXELS should not exceed.
#
# Usage: sh bench/crossover.sh [RUNS]   (make bench-crossover; RUNS
#        default 7; SIZES="WxH ..." the sizes, 256x256 to 8192x8192 by
#        default (an estimated 4 minutes on the H100 host; 12288x12288 adds
#        about as much again); WORK the scratch dir, in memory by default)
cd "$(dirname "$0")/.." || exit 1
RUNS=${1:-7}
SIZES=${SIZES:-256x256 1024x1024 1920x1080 4000x3000 6000x4000 8192x8192}
WORK=${WORK:-/dev/shm/gpufilt-crossover}
BIN=$PWD/bin
mkdir -p "$WORK" && chmod 700 "$WORK" || exit 1
SETTING=GF_SMALL_PIXELS
GPU_ENV="GPUFILT_SERVER=off GPUFILT_SMALL_PIXELS=0"
RULE_ENV="GPUFILT_SERVER=off"
if [ "${SERVED:-0}" = 1 ]; then
	SETTING=GF_SERVED_SMALL_PIXELS
	GPUFILT_SOCKET=$WORK/server
	export GPUFILT_SOCKET
	GPU_ENV="GPUFILT_SERVER=require GPUFILT_SERVED_SMALL_PIXELS=0"
	RULE_ENV="GPUFILT_SERVER=require"
	"$BIN/gpufiltd" -q -i 0 || exit 1
	trap '"$BIN/gpufiltd" -k >/dev/null 2>&1' EXIT
fi
for f in build/bench/framegen build/bench/jpeggen build/tests/gpu_probe $BIN/sobel; do
	[ -x "$f" ] || { echo "crossover: $f is missing: run make and make build/bench/framegen build/bench/jpeggen" >&2; exit 1; }
done

# Milliseconds of one run of the command "$@", to the tenth, its output
# thrown away (cpu.sh's usec, in ms).
msec() {
	t0=$(date +%s%N)
	"$@" >/dev/null 2>"$WORK/err" || { echo fail; return; }
	t1=$(date +%s%N)
	echo "$t0 $t1" | awk '{ printf "%.1f\n", ($2 - $1) / 1e6 }'
}
median() { sort -n | sed -n "$(((RUNS + 1) / 2))p"; }
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }

if gpu=$(build/tests/gpu_probe 2>&1); then
	echo "GPU: $gpu; $(nproc) CPUs; median of $RUNS; $SETTING" \
	    "$(sed -n "s/^#define $SETTING \\(.*\\)/\\1/p" lib/tool/opts.h)" \
	    "${SERVED:+(a warm server)}"
else
	echo "GPU: none ($gpu): the gpu column is the CPU's fallback; these figures say nothing"
fi

# The inputs, made once.
for s in $SIZES; do
	w=${s%x*} h=${s#*x}
	[ -s "$WORK/$s.pgm" ] || build/bench/framegen 1 "$w" "$h" >"$WORK/$s.pgm"
	[ -s "$WORK/$s.jpg" ] || build/bench/jpeggen -q 90 "$w" "$h" >"$WORK/$s.jpg"
	cat "$WORK/$s.pgm" "$WORK/$s.jpg" >/dev/null
done

# One row: the tool's three timings on input $1; prints
# "tool fmt WxH gpu cpu rule" into $WORK/rows.
row() {
	in=$1 tool=$2
	shift 2
	: >"$WORK/g"; : >"$WORK/c"; : >"$WORK/r"
	for _ in $(seq "$RUNS"); do
		# shellcheck disable=SC2086
		(export $GPU_ENV; msec "$BIN/$tool" "$@" "$in" "$WORK/out.pnm") >>"$WORK/g"
		(export GPUFILT_SERVER=off; msec "$BIN/$tool" --cpu "$@" "$in" "$WORK/out.pnm") >>"$WORK/c"
		# shellcheck disable=SC2086
		(export $RULE_ENV; msec "$BIN/$tool" "$@" "$in" "$WORK/out.pnm") >>"$WORK/r"
	done
	if grep -q fail "$WORK/g" "$WORK/c" "$WORK/r"; then
		echo "crossover: $tool $* $in failed: $(tail -n 2 "$WORK/err")" >&2
		return
	fi
	printf '%s %s %s %s %s %s\n' "$tool" "${in##*.}" "$(basename "${in%.*}")" \
	    "$(median <"$WORK/g")" "$(median <"$WORK/c")" "$(median <"$WORK/r")" \
	    >>"$WORK/rows"
}

: >"$WORK/rows"
printf '%-8s %-4s %-12s %9s %9s %9s %6s  %s\n' tool fmt size "gpu ms" "cpu ms" \
    "rule ms" "rule/" "load"
grep -v '^#' cmd/tools | while read -r tool args; do
	for fmt in pgm jpg; do
		for s in $SIZES; do
			l0=$(load)
			# shellcheck disable=SC2086
			row "$WORK/$s.$fmt" "$tool" $args
			tail -n 1 "$WORK/rows" | awk -v l="$l0/$(load)" '{ b = $4 < $5 ? $4 : $5
			    printf "%-8s %-4s %-12s %9.1f %9.1f %9.1f %5.2fx  %s%s\n", $1, $2, $3,
			    $4, $5, $6, $6 / b, l, $5 < $4 ? "  cpu wins" : "" }'
		done
	done
done

# The crossovers, from the rows in size order: per tool and format, the
# largest size up to which the CPU wins at every size, in pixels, and
# the smallest over all.
echo
awk '{ split($3, d, "x"); px = d[1] * d[2]; k = $1 " " $2
       if (!(k in last)) { last[k] = 0; over[k] = 0; keys[++n] = k }
       if (over[k]) next
       if ($5 < $4) last[k] = px; else { over[k] = px } }
     END { min = -1
       for (i = 1; i <= n; i++) { k = keys[i]
         printf "crossover %-12s cpu wins up to %11.0f pixels%s\n", k, last[k],
           over[k] ? sprintf(", the GPU from %.0f", over[k]) : " and beyond: the CPU won at every size"
         if (min < 0 || last[k] < min) { min = last[k]; open = !over[k] } }
       printf "smallest crossover: %s%.0f pixels (%.1f MP): %s should not exceed it\n",
         open ? "above " : "", min, min / 1e6, setting }' \
    setting="$SETTING" "$WORK/rows"
