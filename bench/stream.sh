#!/bin/sh
# Stream throughput: N frames of 1920x1080 PGM through a pipe, into sobel,
# against programs that only read and write the same stream.  Prints
# frames per second and sobel's fraction of each baseline.
# Usage: sh bench/stream.sh [N]     (make build/bench/framegen build/bench/pnmcopy first)
n=${1:-1000}
gen="build/bench/framegen $n 1920 1080"
secs() {
	t0=$(date +%s.%N)
	sh -c "$1" >/dev/null || echo "stream: '$1' failed" >&2
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.3f", $2 - $1 }'
}
gen_s=$(secs "$gen")
net_s=$(secs "$gen | build/bench/pnmcopy")
raw_s=$(secs "$gen | build/bench/pnmcopy -r")
sob_s=$(secs "$gen | bin/sobel -q -t 60")
mag_s=$(secs "$gen | bin/sobel -q")
echo "$n frames 1920x1080 through a pipe (seconds, frames/s):"
for x in "generator alone:$gen_s" "libnetpbm read+write (pnmcopy):$net_s" \
    "gpufilt read+write (pnmcopy -r):$raw_s" "sobel -t 60:$sob_s" "sobel (magnitude):$mag_s"; do
	echo "$x" | awk -F: -v n="$n" '{ printf "  %-34s %7.2f s  %7.1f frames/s\n", $1, $2, n / $2 }'
done
echo "$net_s $raw_s $sob_s" | awk '{ printf "sobel -t 60 throughput: %.0f%% of libnetpbm read+write, %.0f%% of gpufilt read+write\n", 100 * $1 / $3, 100 * $2 / $3 }'
