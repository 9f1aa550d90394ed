#!/bin/sh
# The kernels of one tool's bench under ncu (GPU machine): each
# strategy's pipeline on the bench image, with each kernel's duration,
# memory and SM throughput, registers, achieved occupancy and the stall
# that takes most of its warps' time, so that tuning starts from what
# limits each kernel.  Full reports go to $OUT (or build/gpu-logs); a
# digest, one line a kernel launch, to stdout.
#
# Usage, on the GPU machine after make build/bench/bench:
#   sh scripts/prof.sh tool [WxH [strategy ...]]      (tool: sobel, conv2d, edge)
#   KERNELS='^conv8' sh scripts/prof.sh conv2d        (some kernels only)
OUT=${OUT:-build/gpu-logs}
mkdir -p "$OUT"
tool=${1:?usage: prof.sh sobel|conv2d|edge [WxH [strategy ...]]}
size=${2:-12288x12288}
[ $# -ge 2 ] && shift 2 || shift $#
for m in ${*:-shared sliding}; do
	log=$OUT/ncu-$tool-$m-$size.txt
	# Our kernels only (NPP's, which the bench also times, are not ours
	# to tune); KERNELS narrows them (a regex).
	ncu --clock-control none -k "regex:${KERNELS:-^(conv|sobel|edge|otsu|copy)}" \
	    --section SpeedOfLight --section Occupancy --section LaunchStats \
	    --section WarpStateStats \
	    build/bench/bench -r 1 -w 0 -m "$m" -z "$size" "$tool" >"$log" 2>&1
	echo "== $tool $m $size"
	# The stall: the first WarpStateStats rule that names one ("... being
	# stalled waiting for X.  ...  This stall type represents about N% ...").
	awk '
	function flush() {
		if (k != "")
			printf "%-24s %9s us  mem %5s%%  sm %5s%%  regs %3s  occ %5s%%  %s\n",
			    k, d, mt, sm, rg, oc, st
		k = d = mt = sm = rg = oc = st = ""
		grab = 0
	}
	/^  [a-z].*, Context [0-9]+, Stream/ {
		flush()
		k = $0
		sub(/^  (void )?/, "", k)
		sub(/\(.*/, "", k)
		gsub(/unsigned char/, "u8", k)
		gsub(/unsigned short/, "u16", k)
		next
	}
	k == "" { next }
	$1 == "Duration" { d = $NF }
	$1 == "Memory" && $2 == "Throughput" && $3 == "%" { mt = $NF }
	$1 == "Compute" && $2 == "(SM)" { sm = $NF }
	/Registers Per Thread/ { rg = $NF }
	/Achieved Occupancy/ { oc = $NF }
	st == "" && /being stalled/ { buf = $0; grab = 1; next }
	grab {
		buf = buf " " $0
		if (buf ~ /represents about/) {
			grab = 0
			gsub(/  +/, " ", buf)
			s = buf
			sub(/.*being stalled /, "", s)
			sub(/\..*/, "", s)
			p = buf
			sub(/.*represents about /, "", p)
			sub(/ of.*/, "", p)
			st = p " " s
		}
	}
	END { flush() }' "$log"
done
