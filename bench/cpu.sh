#!/bin/sh
# bench/cpu.sh - the CPU path (--cpu) against its peers on one 4096x4096
# 8-bit photograph: whole processes, file to file, the median of RUNS
# runs, ours and the peer's interleaved so that a change of machine load
# hits both.  Peers: libvips (vips sobel, vips conv --precision integer,
# vips canny) and Netpbm's pamedge; a peer that is not installed is
# skipped and said so.  Then, where Python's cv2 imports, OpenCV in
# process (Sobel + magnitude + threshold, GaussianBlur, filter2D,
# GaussianBlur + Canny, Canny) against the same operations of ours in
# process (build/bench/cpuops), compute only, on 1, 2 and all threads.
# Targets are ratios for a 2-core machine; the load average is printed
# with every whole-process row.
#
# Usage: sh bench/cpu.sh [RUNS]        (make bench-cpu; RUNS default 5,
#                                       ROUNDS=3 and GF_BENCH_SRC=IMAGE
#                                       in the environment)
case ${GF_BENCH_SRC:-} in ""|/*) ;; *) GF_BENCH_SRC=$PWD/$GF_BENCH_SRC ;; esac
cd "$(dirname "$0")/.." || exit 1
BIN=$PWD/bin
RUNS=${1:-5}
# The photograph: GF_BENCH_SRC, any image the tools read, else the
# tree's own (samples/chelsea.png, CC0), so that every machine times the
# same pixels.
SRC=${GF_BENCH_SRC:-samples/chelsea.png}
[ -f "$SRC" ] || { echo "bench-cpu: $SRC: no such file" >&2; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpufilt-bench.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT INT TERM
IN=$TMP/in.pgm
K5="0 -1 -2 -1 0; -1 2 4 2 -1; -2 4 12 4 -2; -1 2 4 2 -1; 0 -1 -2 -1 0"

# Tiles the gray photograph $SRC to 4096x4096 into $IN, outside the
# timing, with Gaussian noise of sigma 3 levels where numpy imports.
make_input() {
	"$BIN/conv2d" --cpu -q -k identity "$SRC" "$TMP/src.ppm" || return 1
	python3 - "$TMP/src.ppm" "$IN" <<'EOF'
import sys
data = open(sys.argv[1], 'rb').read()
tok, pos = [], 0
while len(tok) < 4:                     # magic, width, height, maxval
    while data[pos:pos + 1].isspace():
        pos += 1
    end = pos
    while not data[end:end + 1].isspace():
        end += 1
    tok.append(data[pos:end])
    pos = end
w, h, ch = int(tok[1]), int(tok[2]), 3 if tok[0] == b'P6' else 1
px = data[pos + 1:]
rows = [bytes(px[(y * w + x) * ch + 1 if ch == 3 else y * w + x]
        for x in range(w)) for y in range(h)]   # green as gray
out = bytearray()
for y in range(4096):
    r = rows[y % h]
    out += (r * (4096 // w + 1))[:4096]
try:                                    # a little sensor noise, as a photo has
    import numpy as np
    px = np.frombuffer(bytes(out), np.uint8).astype(np.float64)
    px += np.random.default_rng(1).normal(0, 3, px.size)
    out = bytearray(np.clip(px, 0, 255).astype(np.uint8).tobytes())
except ImportError:
    pass
open(sys.argv[2], 'wb').write(b'P5\n4096 4096\n255\n' + out)
EOF
}

# Microseconds of one run of "$@" (a command or a shell function).
usec() {
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 || { echo fail; return; }
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}

median() { sort -n | sed -n "$(((RUNS + 1) / 2))p"; }
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }

peer_pamedge() { pamedge "$IN" >"$TMP/peer.pgm" 2>/dev/null; }

# One row: name, target ratio, our command, the peer's command (after --).
row() {
	name=$1 target=$2
	shift 2
	ours= peer=
	while [ "$1" != -- ]; do ours="$ours '$1'"; shift; done
	shift
	: >"$TMP/a"
	: >"$TMP/b"
	l0=$(load)
	for i in $(seq "$RUNS"); do
		eval usec "$ours" >>"$TMP/a"
		usec "$@" >>"$TMP/b"
	done
	a=$(median <"$TMP/a") b=$(median <"$TMP/b")
	if grep -q fail "$TMP/a" "$TMP/b"; then
		printf '%-34s a run failed\n' "$name"
		return
	fi
	awk -v n="$name" -v a="$a" -v b="$b" -v t="$target" -v l="$l0/$(load)" \
	    'BEGIN { r = a / b; printf "%-34s %8.1f %8.1f %7.2f %5s  %-4s %s\n",
	    n, a / 1000, b / 1000, r, t, r <= t ? "ok" : "OVER", l }'
}

have() { command -v "$1" >/dev/null 2>&1; }

make_input || { echo "bench-cpu: cannot make the input from $SRC" >&2; exit 1; }
printf '%s\n' "input: $SRC tiled to 4096x4096 8-bit (noise where numpy imports); $(nproc) CPUs; median of $RUNS"
printf '%-34s %8s %8s %7s %5s  %-4s %s\n' "ours vs peer (whole process)" \
    "ours ms" "peer ms" ratio target "" "load before/after"
if have vips; then
	printf '5 5 16 0\n0 -1 -2 -1 0\n-1 2 4 2 -1\n-2 4 12 4 -2\n-1 2 4 2 -1\n0 -1 -2 -1 0\n' \
	    >"$TMP/mask5.txt"
	row "sobel -t 100 / vips sobel" 1.0 \
	    "$BIN/sobel" --cpu -t 100 "$IN" "$TMP/ours.pgm" -- \
	    vips sobel "$IN" "$TMP/peer.pgm"
	row "conv2d 5x5 int / vips conv" 1.0 \
	    "$BIN/conv2d" --cpu -k "$K5" --divisor 16 "$IN" "$TMP/ours.pgm" -- \
	    vips conv "$IN" "$TMP/peer.pgm" "$TMP/mask5.txt" --precision integer
	row "edge --sigma 1.4 / vips canny" 1.5 \
	    "$BIN/edge" --cpu --sigma 1.4 "$IN" "$TMP/ours.pgm" -- \
	    vips canny "$IN" "$TMP/peer.pfm" --sigma 1.4
else
	echo "vips: not installed (apt-get install libvips-tools): skipped"
fi
if have pamedge; then
	row "sobel -t 100 / pamedge" 0.5 \
	    "$BIN/sobel" --cpu -t 100 "$IN" "$TMP/ours.pgm" -- peer_pamedge
else
	echo "pamedge: not installed (apt-get install netpbm): skipped"
fi

# OpenCV in process against ours in process (bench/cpuops), compute only:
# each operation RUNS times in one process, ours then cv2's, in ROUNDS
# rounds so that a change of load hits both; the median of the rounds'
# medians, on 1, 2 and all threads.
if ! python3 -c 'import cv2, numpy' 2>/dev/null; then
	echo "cv2: Python OpenCV does not import (pip install opencv-python-headless): skipped"
	exit 0
fi
python3 - "$IN" "$RUNS" "${ROUNDS:-3}" "$PWD/build/bench/cpuops" "$(nproc)" <<'EOF'
import statistics, subprocess, sys, time
import cv2, numpy as np
path, runs, rounds, cpuops, ncpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
B = cv2.BORDER_REPLICATE
k5 = np.array([[0, -1, -2, -1, 0], [-1, 2, 4, 2, -1], [-2, 4, 12, 4, -2],
               [-1, 2, 4, 2, -1], [0, -1, -2, -1, 0]], np.float32) / 16
box5 = np.ones((5, 5), np.float32) / 25

def sobel():
    gx = cv2.Sobel(img, cv2.CV_32F, 1, 0, borderType=B)
    gy = cv2.Sobel(img, cv2.CV_32F, 0, 1, borderType=B)
    return cv2.threshold(cv2.magnitude(gx, gy), 100, 255,
                         cv2.THRESH_BINARY)[1].astype(np.uint8)

# Our operation (bench/cpuops's name), what it is set against, cv2's call.
ops = [("sobel -t 100", "Sobel x2, magnitude, threshold", sobel),
       ("conv2d gauss:1.4", "GaussianBlur sigma 1.4",
        lambda: cv2.GaussianBlur(img, (0, 0), 1.4, borderType=B)),
       ("conv2d box:5 --no-separable", "filter2D 5x5 ones / 25",
        lambda: cv2.filter2D(img, -1, box5, borderType=B)),
       ("conv2d 5x5 int /16", "filter2D the same 5x5 / 16",
        lambda: cv2.filter2D(img, -1, k5, borderType=B)),
       ("edge --sigma 1.4 30/60", "GaussianBlur 1.4, Canny 30 60 L2",
        lambda: cv2.Canny(cv2.GaussianBlur(img, (0, 0), 1.4, borderType=B),
                          30, 60, L2gradient=True)),
       ("edge --sigma 0 40/100", "Canny 40 100 L2",
        lambda: cv2.Canny(img, 40, 100, L2gradient=True))]

def ours(name, threads):
    out = subprocess.run([cpuops, path, str(threads), str(runs), name],
                         capture_output=True, text=True, check=True).stdout
    return float(out.split('\t')[1])

def theirs(f, threads):
    cv2.setNumThreads(threads)
    t = []
    for i in range(runs):
        t0 = time.perf_counter()
        f()
        t.append((time.perf_counter() - t0) * 1000)
    return statistics.median(t)

print("%-28s %-32s %3s %8s %8s %6s" % ("ours (in process)",
      "cv2 " + cv2.__version__ + " (in process)", "thr", "ours ms", "cv2 ms", "ratio"))
for threads in sorted({1, 2, ncpu}):
    for name, what, f in ops:
        a, b = [], []
        for r in range(rounds):
            a.append(ours(name, threads))
            b.append(theirs(f, threads))
        a, b = statistics.median(a), statistics.median(b)
        print("%-28s %-32s %3d %8.1f %8.1f %6.2f %s" % (name, what, threads,
              a, b, a / b, "ok" if a <= b else "OVER"))
EOF
