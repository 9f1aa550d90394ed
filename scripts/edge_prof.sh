#!/bin/sh
# edge's kernels under ncu (GPU machine): one pipeline per strategy and
# option set on the bench image, each kernel's duration, memory
# throughput, achieved occupancy and warp stall reasons, so that tuning
# starts from what limits each kernel.  Full reports go to $OUT (or
# build/gpu-logs); a one-line digest per kernel to stdout.
#
# Usage, on the GPU machine after make build/bench/bench:
#   sh scripts/edge_prof.sh [WxH [strategy ...]]
OUT=${OUT:-build/gpu-logs}
mkdir -p "$OUT"
size=${1:-12288x12288}
shift 2>/dev/null
for m in ${*:-sliding shared}; do
	log=$OUT/ncu-edge-$m-$size.txt
	ncu --clock-control none -k 'regex:edge|otsu|conv' \
	    --section SpeedOfLight --section Occupancy --section LaunchStats \
	    --section WarpStateStats --section SchedulerStats \
	    build/bench/bench -r 1 -w 0 -m "$m" -z "$size" edge >"$log" 2>&1
	echo "== $m $size"
	awk '/^  [a-z_0-9<>:, ]+\(/ { k = $1 }
	    /Duration/ { d = $NF " " $(NF-1) }
	    /Memory Throughput/ && $2 == "Throughput" { mt = $NF }
	    /Achieved Occupancy/ { printf "%-28s %10s  mem %5s%%  occ %s%%\n", k, d, mt, $NF }' "$log"
done
