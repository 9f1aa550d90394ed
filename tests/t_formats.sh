# The formats and habits users bring from ImageMagick, libvips and OpenCV
# (issue 13): -o DIR made as mkdir -p makes it, output names that say
# what is written, JPEG out, -q over -v, and the no-GPU notice.  Sourced
# by tests/run.sh.

F=$TMP/formats
mkdir -p "$F"
FPX=$SAMPLES/px2x3.pgm
FPXMAG=$GOLDEN/sobel/px2x3.mag.pgm

# Passes or fails case $1 on the exit status of the rest of the line.
fcheck() {
	name=$1
	shift
	if "$@"; then pass "formats/$name"; else fail "formats/$name" "${why:-condition false}"; fi
	why=
}

# ---- -o DIR that does not exist is made, parents too, mode 0777 & ~umask.
rm -rf "$F/made"
(umask 022 && "$BIN/sobel" -q --cpu -o "$F/made/a/b" "$FPX") 2>"$F/err"
st=$?
why="exit $st: $(cat "$F/err")"
fcheck outdir-made eval '[ $st -eq 0 ] && cmp -s "$F/made/a/b/px2x3.pgm" "$FPXMAG" &&
    [ "$(stat -c %a "$F/made/a/b")" = 755 ]'

# A path through a file cannot be made: exit 1, the directory and why.
: >"$F/plain"
"$BIN/sobel" -q --cpu -o "$F/plain/sub" "$FPX" 2>"$F/err"
st=$?
why="exit $st: $(cat "$F/err")"
fcheck outdir-cannot-make eval '[ $st -eq 1 ] && grep -q "^sobel: -o $F/plain/sub: cannot create the directory $F/plain: Not a directory$" "$F/err"'

# An existing file is still a usage error, and nothing is made for a
# batch refused before it runs.
"$BIN/sobel" -q --cpu -o "$F/plain" "$FPX" 2>"$F/err"
st=$?
why="exit $st: $(cat "$F/err")"
fcheck outdir-file eval '[ $st -eq 2 ] && grep -q "it is not a directory" "$F/err"'
"$BIN/sobel" -q --cpu -o "$F/refused" "$FPX" "$FPX" 2>"$F/err"
st=$?
why="exit $st: $(cat "$F/err")"
fcheck outdir-refused-not-made eval '[ $st -eq 2 ] && [ ! -e "$F/refused" ]'
