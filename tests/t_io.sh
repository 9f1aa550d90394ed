# Image input of every tool, against issue 10: each reproducer that
# tests/fuzz/seeds.py writes (regress-*) is refused with exit 1 and its
# message, within 10 seconds and 300 MB of address space; the seeds
# themselves are read; the input options refuse bad values at parse time.
# Sourced by tests/run.sh.

python3 tests/fuzz/seeds.py "$TMP/seeds" 2>"$TMP/seeds.err" ||
	fail io/seeds "seeds.py failed: $(cat "$TMP/seeds.err")"
S=$TMP/seeds/img

# Runs tool args... with 10 s and (outside ASan, which maps terabytes of
# shadow) 300 MB of address space; status in $st, stderr in $TMP/io.err.
io_run() {
	(
		[ -n "$GF_ASAN" ] || ulimit -v 300000
		exec timeout 10 "$@"
	) >"$TMP/io.out" 2>"$TMP/io.err" </dev/null
	st=$?
}

# io_expect NAME STATUS NEEDLE TOOL ARGS...: the status, a "tool: " message
# containing NEEDLE, and no byte outside printable ASCII on stderr.
io_expect() {
	name=$1 want=$2 needle=$3 tool=$4
	shift 4
	io_run "$BIN/$tool" "$@"
	if [ "$st" -ne "$want" ]; then
		fail "io/$name" "exit $st, expected $want: $(head -c 300 "$TMP/io.err")"
	elif [ "$want" -ne 0 ] && ! grep -q "^$tool: .*$needle" "$TMP/io.err"; then
		fail "io/$name" "message lacks '$needle': $(head -c 300 "$TMP/io.err")"
	elif LC_ALL=C grep -q '[^ -~]' "$TMP/io.err"; then
		fail "io/$name" "raw bytes on stderr: $(od -c "$TMP/io.err" | head -3)"
	else
		pass "io/$name"
	fi
}

while IFS='|' read -r file needle; do
	io_expect "$file" 1 "$needle" sobel -q --cpu "$S/$file" "$TMP/io-out.pgm"
done <<'END'
regress-tga-header-26000.tga|more than the limit of 268435456; --max-pixels
regress-tga-truncated.tga|TGA image is truncated: .* implies 3000018 bytes, the file has 18
regress-tga-rle-truncated.tga|TGA image is truncated: .* implies at least
regress-bmp-header-20000.bmp|more than the limit of 268435456; --max-pixels
regress-bmp-truncated.bmp|BMP image is truncated: .* implies 3000054 bytes
regress-png-30000.png|30000 x 30000 = 900000000 pixels, more than the limit
regress-gif-23170.gif|23170 x 23170 = 536848900 pixels, more than the limit
regress-jpeg-30000.jpg|30000 x 30000 = 900000000 pixels, more than the limit
regress-jpeg-huffman-257.jpg|cannot decode the JPEG image: Bogus Huffman table
regress-jpeg-cmyk.jpg|JPEG image is CMYK, which is not read
regress-png-escape-chunk.png|cannot decode the PNG image: .*invalid chunk type
regress-png-nul-chunk.png|cannot decode the PNG image: .*00.*ABC
regress-pgm-stray-byte.pgm|garbage after image 1: byte 78
regress-psd.psd|not an image this tool reads
regress-hdr.hdr|not an image this tool reads
regress-tiff-huge.tif|100000 x 100000 = 10000000000 pixels, more than the limit
regress-tiff-sides-4g.tif|image is 2248147360 x 4261512864 pixels; the largest side supported is 262144
regress-tiff-12bit.tif|TIFF page 1 has 12 bits per sample; 8 and 16 are read
regress-tiff-float24.tif|TIFF page 1 has floating-point samples of 24 bits; 16, 32 and 64 are read
regress-tiff-signed.tif|TIFF page 1 has sample format 2 (signed integer); unsigned integer and floating-point
regress-tiff-float-huge.tif|100000 x 100000 = 10000000000 pixels, more than the limit
regress-tiff-float-truncated.tif|TIFF page 1: strip 1 of 1 is 6400 bytes at offset 146, past the end of the file
regress-tiff-float-tile-bomb.tif|TIFF page 1 has tiles of 4096 x 4096 pixels for a 4 x 4 image
regress-tiff-float-deflate-bomb.tif|TIFF page 1 is 8192 x 8192 pixels of 1 samples (268435456 bytes), more than its 84 bytes of compression 8 can give
regress-tiff-float-deflate-cut.tif|TIFF page 1: cannot decode strip 1 (rows 1 to 64): Decoding error
regress-tiff-planar.tif|TIFF page 1 stores each channel in a plane of its own
regress-tiff-truncated.tif|TIFF page 1: strip 1 of 1 is 1600 bytes at offset 146, past the end of the file
regress-tiff-ifd-loop.tif|cannot read TIFF page 2: its directory
regress-webp-20000.webp|20000 x 20000 = 400000000 pixels, more than the limit
regress-webp-truncated.webp|WebP is cut short: its header says
regress-webp-no-frame.webp|bad WebP
regress-webp-odd-chunk-end.webp|bad WebP animation: its chunks do not parse
regress-webp-anim-canvas-16384.webp|the WebP animation's canvas is 16384 x 16384 pixels
regress-webp-vp8l-blank-16384.webp|a lossless WebP of 16384 x 16384 = 268435456 pixels
regress-webp-vp8-16383.webp|a lossy WebP of 16383 x 16383 pixels has 1048576 macroblocks
regress-webp-alph-16383.webp|a lossy WebP of 16383 x 16383 pixels has 1048576 macroblocks
regress-png-surplus-4m.png|its image data goes on past its last row
regress-bmp-negative-compression.bmp|BMP image is truncated: .* implies 3000054 bytes, the file has 56
regress-pam-line-253.pam|bad PNM header in image 1: line 3 is too long
regress-pam-nul.pam|bad PNM header in image 1: line 3 has a control byte
regress-bmp-palette-negative.bmp|the BMP's pixels begin at byte 52, inside its headers
regress-bmp-palette-short.bmp|the BMP's pixels use colour 200 of a palette of 4
regress-bmp-short-read.bmp|the BMP's pixels begin at byte 0, inside its headers
regress-bmp-short-header.bmp|the BMP's pixels begin at byte 9, inside its headers
regress-bmp-core-palette.bmp|a BMP of the OS/2 core header whose pixels use colour 0: the reader (stb) takes only the first 0 colours
regress-jpeg-fill-ff.jpg|cannot decode the JPEG image: Premature end of input file
END

# Without the pixel limit the truncated headers are still refused, by length.
io_expect tga-header-26000-no-limit 1 "truncated" sobel -q --cpu --max-pixels 0 \
    "$S/regress-tga-header-26000.tga" "$TMP/io-out.pgm"
io_expect bmp-header-20000-no-limit 1 "truncated" sobel -q --cpu --max-pixels 0 \
    "$S/regress-bmp-header-20000.bmp" "$TMP/io-out.pgm"
io_expect max-pixels-lowered 1 "more than the limit of 100; --max-pixels" \
    edge -q --cpu --max-pixels 100 "$SAMPLES/coins.pgm" "$TMP/io-out.pgm"
io_expect max-pixels-bad 2 "--max-pixels '-1' is not\|--max-pixels is -1" \
    conv2d -k box:3 --max-pixels -1 "$SAMPLES/coins.pgm" "$TMP/io-out.pgm"
# An endless stream of zeros: refused from its first bytes, not read whole.
io_expect dev-zero 1 "not an image this tool reads" sobel -q --cpu /dev/zero \
    "$TMP/io-out.pgm"
# Values that would fail on every image are refused while parsing (exit 2).
io_expect sigma-underflow 2 "--sigma 1e-200 is too small" edge --sigma 1e-200 \
    "$SAMPLES/coins.pgm" "$TMP/io-out.pgm"
io_expect sigma-zero 0 "" edge -q --cpu --sigma 0 "$SAMPLES/coins.pgm" "$TMP/io-out.pgm"
io_expect sigma-smallest 0 "" edge -q --cpu --sigma 0.001 "$SAMPLES/px2x3.pgm" \
    "$TMP/io-out.pgm"
io_expect divisor-tiny 2 "--divisor 1e-300 is too small" conv2d -k box:3 \
    --divisor 1e-300 "$SAMPLES/coins.pgm" "$TMP/io-out.pgm"

# Every seed that is not a reproducer is read (and filtered).
for f in "$S"/*; do
	case ${f##*/} in regress-*) continue ;; esac
	io_expect "seed/${f##*/}" 0 "" sobel -q --cpu "$f" "$TMP/io-out.pgm"
done

# Whitespace after the last image of a stream is not an error.
if printf 'P5\n1 1\n255\n\007\n \n' | "$BIN/sobel" -q --cpu >"$TMP/io-ws.pgm" &&
    [ "$(head -c 2 "$TMP/io-ws.pgm")" = P5 ]; then
	pass io/trailing-whitespace
else
	fail io/trailing-whitespace "a newline after the image was refused"
fi

# 16-bit PNG out and back in is the 16-bit PGM (astro16 has maxval 65535).
if "$BIN/conv2d" -q --cpu -k identity "$SAMPLES/astro16.pgm" "$TMP/a16.png" &&
    [ "$(od -An -tu1 -j24 -N1 "$TMP/a16.png" | tr -d ' ')" = 16 ] &&
    "$BIN/conv2d" -q --cpu -k identity "$TMP/a16.png" "$TMP/a16.pgm" &&
    cmp -s "$TMP/a16.pgm" "$SAMPLES/astro16.pgm"; then
	pass io/png-16bit-round-trip
else
	fail io/png-16bit-round-trip "astro16 through a 16-bit PNG differs"
fi

# An input file cut short while it is read (PNG and TIFF are read whole
# or in place from the file) ends in a clean error or a clean image,
# never a signal.  Best effort: each run truncates at another moment.
R=$TMP/io-race
mkdir -p "$R"
{ printf 'P6 4000 3000 255\n'; head -c 36000000 /dev/urandom; } >"$R/noise.ppm"
for ext in png tif; do
	"$BIN/conv2d" -q --cpu -k identity "$R/noise.ppm" "$R/noise.$ext" ||
		fail "io/shrinking-input/$ext" "cannot make the $ext input"
	crashed=
	for d in 01 02 03 05 08 13; do
		cp "$R/noise.$ext" "$R/in.$ext"
		"$BIN/sobel" -q --cpu -j 1 "$R/in.$ext" "$R/out.pgm" 2>"$R/err" &
		pid=$!
		sleep "0.$d"
		truncate -s 5000 "$R/in.$ext"
		wait "$pid"
		s=$?
		[ "$s" -lt 128 ] || crashed="$crashed $d:$s"
	done
	if [ -z "$crashed" ]; then
		pass "io/shrinking-input/$ext"
	else
		fail "io/shrinking-input/$ext" "killed by a signal (delay:status):$crashed"
	fi
done
