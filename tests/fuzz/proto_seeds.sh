#!/bin/sh
# proto_seeds.sh - fuzz_proto's seeds: what real clients send.  Starts a
# server (gpufiltd, on the CPU where there is no GPU) and, for each run
# below, the proxy proto_record in front of it; each run goes through
# the proxy (GPUFILT_SERVER=require, the small-run rule off), which
# writes each of its connections to OUT/NAME-K.  Small images keep the
# windows' images within what fuzz_proto maps.
#
# usage: sh tests/fuzz/proto_seeds.sh PROTO_RECORD BIN OUT
set -u
rec=$1 bin=$2 out=$3
kernels=$(dirname "$0")/../kernels
tmp=$(mktemp -d "${TMPDIR:-/tmp}/proto_seeds.XXXXXX") || exit 1
server=$tmp/server.sock proxy=$tmp/proxy.sock
trap '"$bin/gpufiltd" -k -S "$server" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
rm -rf "$out" && mkdir -p "$out" || exit 1

# Small images of each kind the server meets: gray, colour, colour with
# alpha, 16 bits, and 12 bits (a maxval below the samples' range).
python3 - "$tmp" <<'PY' || exit 1
import sys
d = sys.argv[1]
def px(w, h, c, maxval):
    wide = maxval > 255
    out = bytearray()
    for y in range(h):
        for x in range(w):
            for k in range(c):
                v = (x * 37 + y * 91 + k * 53 + (x * y) % 29) * 257 % (maxval + 1)
                out += v.to_bytes(2, 'big') if wide else bytes([v])
    return bytes(out)
def pnm(name, magic, w, h, c, maxval):
    with open(d + '/' + name, 'wb') as f:
        f.write(b'%s\n%d %d\n%d\n' % (magic, w, h, maxval) + px(w, h, c, maxval))
pnm('g.pgm', b'P5', 64, 48, 1, 255)
pnm('c.ppm', b'P6', 40, 30, 3, 255)
pnm('a16.pgm', b'P5', 32, 24, 1, 65535)
pnm('b12.pgm', b'P5', 24, 20, 1, 4095)
with open(d + '/rgba.pam', 'wb') as f:
    f.write(b'P7\nWIDTH 20\nHEIGHT 16\nDEPTH 4\nMAXVAL 255\n'
            b'TUPLTYPE RGB_ALPHA\nENDHDR\n' + px(20, 16, 4, 255))
PY
cat "$tmp/g.pgm" "$tmp/g.pgm" >"$tmp/stream.pgm"
"$bin/gpufiltd" -q -i 0 -S "$server" || exit 1

# record NAME COMMAND...: runs COMMAND through a fresh proxy.
record() {
	name=$1
	shift
	"$rec" "$proxy" "$server" "$out" "$name" 2>"$tmp/$name.rec" &
	pid=$!
	i=0
	while [ ! -S "$proxy" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	GPUFILT_SOCKET=$proxy GPUFILT_SERVER=require GPUFILT_SERVED_SMALL_PIXELS=0 \
	    "$@" >/dev/null 2>"$tmp/$name.err" ||
	    echo "proto_seeds: $name: $* failed: $(cat "$tmp/$name.err")" >&2
	kill "$pid" 2>/dev/null
	wait "$pid"
}

record sobel-t "$bin/sobel" -t 60 "$tmp/g.pgm" "$tmp/o1.pgm"
record sobel-x "$bin/sobel" --gradient x --border wrap "$tmp/g.pgm" "$tmp/o2.tif"
record sobel-max "$bin/sobel" --colour max --operator scharr "$tmp/c.ppm" "$tmp/o2.png"
record sobel-alpha "$bin/sobel" --colour channels -t 40 "$tmp/rgba.pam" "$tmp/o2.pam"
record sobel-12 "$bin/sobel" --depth 16 "$tmp/b12.pgm" "$tmp/o3.pgm"
record sobel-16 "$bin/sobel" -q -t auto --norm l1 "$tmp/a16.pgm" "$tmp/o3.pgm"
record conv2d-gauss "$bin/conv2d" -k gauss:1.4 "$tmp/c.ppm" "$tmp/o4.png"
record conv2d-12 "$bin/conv2d" -k box:3 --abs "$tmp/b12.pgm" "$tmp/o4.pgm"
record conv2d-file "$bin/conv2d" -k "@$kernels/nonsep9x9.txt" "$tmp/g.pgm" "$tmp/o5.pgm"
record edge-auto "$bin/edge" --auto "$tmp/g.pgm" "$tmp/o6.pgm"
mkdir -p "$tmp/batch"
record edge-batch "$bin/edge" -o "$tmp/batch" "$tmp/g.pgm" "$tmp/c.ppm" "$tmp/a16.pgm" \
    "$tmp/b12.pgm"
record sobel-stream sh -c '"$1/sobel" -t 60 - - <"$2"' sh "$bin" "$tmp/stream.pgm"
record status "$bin/gpufiltd" -s -S "$proxy"
record stop "$bin/gpufiltd" -k -S "$proxy"
find "$out" -type f -empty -delete    # -k's polls after the server ended
n=$(ls "$out" | wc -l)
echo "proto_seeds: $n connections recorded in $out"
[ "$n" -gt 0 ]
