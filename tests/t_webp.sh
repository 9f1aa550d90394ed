# WebP through the tools (issue 34): .webp and -f webp written lossless
# by default (read back, the result is the PNM's), lossy with --quality,
# and a 16-bit result refused, naming what holds 16 bits.  The reader
# and writer themselves are tests/webp_test.c.  Sourced by tests/run.sh.

W=$TMP/webp
mkdir -p "$W"
# The four bytes of file $1 from offset $2.
chunk_at() { dd if="$1" bs=1 skip="$2" count=4 2>/dev/null; }

"$BIN/conv2d" -q --cpu -k identity "$SAMPLES/coins.pgm" "$W/coins.webp" 2>"$W/err" &&
    "$BIN/sobel" -q --cpu "$W/coins.webp" "$W/from-webp.pgm" 2>>"$W/err" &&
    "$BIN/sobel" -q --cpu "$SAMPLES/coins.pgm" "$W/from-pgm.pgm" 2>>"$W/err"
st=$?
why="exit $st: $(cat "$W/err")"
check webp/lossless-by-extension eval '[ $st -eq 0 ] &&
    [ "$(chunk_at "$W/coins.webp" 12)" = VP8L ] && cmp -s "$W/from-webp.pgm" "$W/from-pgm.pgm"'

"$BIN/sobel" -q --cpu -f webp "$SAMPLES/coins.pgm" >"$W/stdout.webp" 2>"$W/err"
st=$?
why="exit $st: $(cat "$W/err")"
check webp/f-webp-stdout eval '[ $st -eq 0 ] && [ "$(chunk_at "$W/stdout.webp" 0)" = RIFF ] &&
    [ "$(chunk_at "$W/stdout.webp" 8)" = WEBP ]'

"$BIN/sobel" -q --cpu --quality 40 "$SAMPLES/coins.pgm" "$W/lossy.webp" 2>"$W/err"
st=$?
why="exit $st: $(cat "$W/err")"
check webp/quality-lossy eval '[ $st -eq 0 ] && [ "$(chunk_at "$W/lossy.webp" 12)" = "VP8 " ]'

"$BIN/sobel" -q --cpu "$SAMPLES/astro16.pgm" "$W/astro.webp" 2>"$W/err"
st=$?
why="exit $st: $(cat "$W/err")"
check webp/16bit-refused eval '[ $st -eq 1 ] && [ ! -e "$W/astro.webp" ] &&
    grep -q "16 bit (maxval 65535) and WebP holds 8; write PNG (.png), TIFF (.tif) or PNM" "$W/err"'
