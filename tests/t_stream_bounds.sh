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
