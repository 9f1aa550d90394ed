# A stream's time and memory have bounds whatever its bytes (issue 45):
# the JPEG frame walk is linear (a run of fill bytes is not walked again
# on every chunk read), a JPEG's APP1 markers are not all held (the
# first EXIF one alone, for its orientation), and the decode pool's
# frames in memory have a cap whatever -j is.  Each case is run through
# python3, which tells its exit status, seconds and largest resident
# size.  Sourced by tests/run.sh.

SB=$TMP/bounds
mkdir -p "$SB"
JPEGGEN=$ROOT/build/bench/jpeggen
# bounds_run FILE CMD...: runs CMD with standard input and output as
# they are; writes "status seconds max-RSS-in-KB" to FILE.
bounds_run() {
	python3 -c '
import resource, subprocess, sys, time
t = time.monotonic()
st = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    print(st, "%.2f" % (time.monotonic() - t),
          resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=f)' "$@"
}
# The time a case may take: 3 s, 10 under ASan.
if [ -n "$GF_ASAN" ]; then SB_SECONDS=10; else SB_SECONDS=3; fi

# ---- The frame walk: SOI then 48 MiB of fill bytes (0xff), from a pipe
# and from a file.  The walk of 64 KiB chunks that began again at the
# run's start took 3.5 s for 32 MiB (8 s for 48) on two cores; a linear
# one, 0.1 s.  Refused (no image), well within the bound.
python3 -c 'import sys; sys.stdout.buffer.write(b"\xff\xd8" + b"\xff" * (48 << 20))' \
    >"$SB/fill.jpg"
for how in pipe file; do
	if [ $how = pipe ]; then
		cat "$SB/fill.jpg" | bounds_run "$SB/res" "$BIN/sobel" -q --cpu - \
		    "$SB/o.pgm" 2>"$SB/err"
	else
		bounds_run "$SB/res" "$BIN/sobel" -q --cpu "$SB/fill.jpg" \
		    "$SB/o.pgm" 2>"$SB/err"
	fi
	read -r st secs rss <"$SB/res"
	why="exit $st, $secs s, $rss KB: $(head -c 300 "$SB/err")"
	check "bounds/fill-walk/$how" eval '[ "$st" = 1 ] && [ ! -e "$SB/o.pgm" ] &&
	    awk -v s="$secs" -v m="$SB_SECONDS" "BEGIN { exit !(s < m) }" &&
	    grep -q "^sobel: standard input\|^sobel: $SB/fill.jpg" "$SB/err"'
done
rm -f "$SB/fill.jpg"

# ---- APP1 markers: a JPEG whose EXIF APP1 says orientation 6, then 600
# MiB of APP1 markers (EXIF ones saying 1 among them), through a pipe.
# Every APP1 was kept (670 MB); now the first EXIF one alone: the image
# is read turned as that one says, the same as the JPEG with it alone,
# in well under 400 MB.
"$JPEGGEN" -s 420 -S 3 64 48 >"$SB/base.jpg" 2>"$SB/err" ||
    fail bounds/inputs "jpeggen: $(cat "$SB/err")"
# The JPEG $1 with an XMP APP1, an EXIF APP1 of orientation 6, and $2 MiB
# of APP1 markers after its SOI, on stdout.
app1_jpeg() {
	python3 -c '
import struct, sys
def seg(data):
    return b"\xff\xe1" + struct.pack(">H", len(data) + 2) + data
def exif(o):
    return b"Exif\0\0MM\0*\0\0\0\x08\0\x01\x01\x12\0\x03\0\0\0\x01" + \
        struct.pack(">H", o) + bytes(6)
jpg = open(sys.argv[1], "rb").read()
out = sys.stdout.buffer
out.write(b"\xff\xd8" + seg(b"http://ns.adobe.com/xap/1.0/\0" + bytes(100)) +
          seg(exif(6)))
big = seg(exif(1) + bytes(65533 - len(exif(1)))) + seg(bytes(65533))
for _ in range(int(sys.argv[2]) * 8):
    out.write(big)
out.write(jpg[2:])' "$@"
}
app1_jpeg "$SB/base.jpg" 0 >"$SB/one.jpg"
"$BIN/sobel" -q --cpu "$SB/one.jpg" "$SB/one.pgm" 2>"$SB/err"
why="$(cat "$SB/err")"
check bounds/app1/turned eval '[ "$(head -n 2 "$SB/one.pgm" | tail -n 1)" = "48 64" ]'
app1_jpeg "$SB/base.jpg" 600 | bounds_run "$SB/res" "$BIN/sobel" -q --cpu - \
    "$SB/many.pgm" 2>"$SB/err"
read -r st secs rss <"$SB/res"
why="exit $st, $secs s, $rss KB, $(cmp "$SB/one.pgm" "$SB/many.pgm" 2>&1): $(head -c 300 "$SB/err")"
check bounds/app1/600-mib eval '[ "$st" = 0 ] && cmp -s "$SB/one.pgm" "$SB/many.pgm" &&
    { [ -n "$GF_ASAN" ] || [ "$rss" -lt 400000 ]; }'

# ---- The decode pool: 40 frames of 4096 x 4096 through a pipe at -j 64
# were 851 MB (128 slots filling, each with its frame, image and output);
# the frames in flight are capped at 256 MB, in well under 400 MB.  The
# output is the frame's, 40 times.
"$JPEGGEN" -s gray -q 90 4096 4096 >"$SB/g4k.jpg" 2>"$SB/err" ||
    fail bounds/inputs "jpeggen: $(cat "$SB/err")"
bounds_frames() {
	i=0
	while [ $i -lt 40 ]; do
		cat "$SB/g4k.jpg"
		i=$((i + 1))
	done
}
bounds_frames | bounds_run "$SB/res" "$BIN/sobel" -q --cpu -j 64 - - \
    2>"$SB/err" | cksum >"$SB/j64.sum"
read -r st secs rss <"$SB/res"
"$BIN/sobel" -q --cpu "$SB/g4k.jpg" "$SB/g4k.pgm" 2>>"$SB/err"
i=0
while [ $i -lt 40 ]; do
	cat "$SB/g4k.pgm"
	i=$((i + 1))
done | cksum >"$SB/j2.sum"
why="exit $st, $secs s, $rss KB: $(head -c 300 "$SB/err")"
check bounds/pool-j64 eval '[ "$st" = 0 ] && cmp -s "$SB/j64.sum" "$SB/j2.sum" &&
    [ ! -s "$SB/err" ] && { [ -n "$GF_ASAN" ] || [ "$rss" -lt 400000 ]; }'
rm -f "$SB/g4k.jpg" "$SB/g4k.pgm"
