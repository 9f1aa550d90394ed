#!/bin/sh
# The kernels of one tool's bench under ncu (GPU machine): each
# strategy's pipeline on the bench image, with each kernel's duration,
# memory throughput, registers, achieved occupancy and the stall that
# takes most of its warps' time, so that tuning starts from what limits
# each kernel.  Full reports go to $OUT (or build/gpu-logs); a digest,
# one line a kernel, to stdout.
#
# Usage, on the GPU machine after make build/bench/bench:
#   sh scripts/prof.sh tool [WxH [strategy ...]]      (tool: sobel, conv2d, edge)
#   KERNELS='^conv8' sh scripts/prof.sh conv2d        (some kernels only)
OUT=${OUT:-build/gpu-logs}
mkdir -p "$OUT"
tool=${1:?usage: prof.sh sobel|conv2d|edge [WxH [strategy ...]]}
size=${2:-12288x12288}
shift 2 2>/dev/null || shift $#
for m in ${*:-shared sliding}; do
	log=$OUT/ncu-$tool-$m-$size.txt
	# Our kernels only (NPP's, which the bench also times, are not ours
	# to tune); KERNELS narrows them (a regex).
	ncu --clock-control none -k "regex:${KERNELS:-^(conv|sobel|edge|otsu|copy)}" \
	    --section SpeedOfLight --section Occupancy --section LaunchStats \
	    --section WarpStateStats \
	    build/bench/bench -r 1 -w 0 -m "$m" -z "$size" "$tool" >"$log" 2>&1
	echo "== $tool $m $size"
	# The stall: the WarpStateStats rule names the largest reason ("...
	# stalled waiting for X.  This stall type represents about N% ...").
	awk '/^  [a-z_0-9]+(<[^>]*>)? *\(/ { k = $1 }
	    /Duration/ { d = $NF " " $(NF-1) }
	    /Memory Throughput/ && $2 == "Throughput" && $(NF-1) == "%" { mt = $NF }
	    /Registers Per Thread/ { rg = $NF }
	    /Achieved Occupancy/ { oc = $NF }
	    /being stalled/ { st = $0; sub(/.*being stalled /, "", st); grab = 1; next }
	    grab { st = st " " $0; if (/represents about/) { grab = 0
		sub(/\. This stall type represents about /, ": ", st)
		sub(/ of the total.*/, "", st); gsub(/  +/, " ", st)
		printf "%-26s %10s  mem %5s%%  regs %3s  occ %5s%%  %s\n", k, d, mt, rg, oc, st
		st = "" } }' "$log"
done
