# Hostile files and names, round two (issue 31): every reproducer that
# tests/fuzz/seeds.py writes for it (regress-* of regressions31) is
# refused by every tool with exit 1 and its message, within 3 seconds
# and 400 MB of address space (30 s and no memory limit under ASan),
# leaving no output; and no input's pixels reach another's output.
# Sourced by tests/run.sh.

H=$TMP/hostile
mkdir -p "$H"
python3 tests/fuzz/seeds.py "$H/seeds" 2>"$H/seeds.err" ||
	fail hostile/seeds "seeds.py failed: $(cat "$H/seeds.err")"
HS=$H/seeds/img
HTOOLS=$TOOLS

# What a tool needs besides its operands to run at all.
hostile_needs() {
	case $1 in conv2d) echo "-k box:3" ;; esac
}

# Runs args... with the time and memory limits; status in $st, stderr in
# $H/err, in the empty directory $H/run (nothing may be left there).
hostile_run() {
	rm -rf "$H/run"
	mkdir -p "$H/run"
	(
		if [ -n "$GF_ASAN" ]; then
			exec timeout 30 "$@"
		fi
		ulimit -v 400000
		exec timeout 3 "$@"
	) >"$H/out" 2>"$H/err" </dev/null
	st=$?
}

# hostile_expect NAME NEEDLE TOOL ARGS...: exit 1, a "tool: " message
# holding NEEDLE (a grep pattern), nothing left in $H/run.
hostile_expect() {
	name=$1 needle=$2 tool=$3
	shift 3
	hostile_run "$BIN/$tool" "$@"
	if [ "$st" -ne 1 ]; then
		fail "hostile/$name" "exit $st, expected 1: $(head -c 300 "$H/err")"
	elif ! grep -q "^$tool: .*$needle" "$H/err"; then
		fail "hostile/$name" "message lacks '$needle': $(head -c 300 "$H/err")"
	elif [ -n "$(ls -A "$H/run")" ]; then
		fail "hostile/$name" "left behind: $(ls -A "$H/run")"
	else
		pass "hostile/$name"
	fi
}

# Every tool refuses every reproducer, from a file.
while IFS='|' read -r file needle; do
	for tool in $HTOOLS; do
		hostile_expect "$tool/$file" "$needle" "$tool" -q --cpu \
		    $(hostile_needs "$tool") "$HS/$file" "$H/run/out.pgm"
	done
done <<'END'
regress-tiff-jpeg-small-strip.tif|TIFF page 1: cannot decode strip 1 .*Improper JPEG strip/tile size
regress-tiff-jpeg-page2-small.tif|TIFF page 2: cannot decode strip 1 .*Improper JPEG strip/tile size
regress-jpeg-photo-truncated-eoi.jpg|cannot decode the JPEG image: Corrupt JPEG data: premature end of data segment
regress-jpeg-truncated-eoi.jpg|256 x 256, and its first scan needs at least 256 bytes of coded data, more than the file holds
regress-jpeg-sos-eoi-16384.jpg|16384 x 16384, and its first scan needs at least 1048576 bytes
regress-jpeg-sos-eoi-65500x4098.jpg|65500 x 4098, and its first scan needs at least 3150333 bytes
regress-jpeg-scans-500.jpg|16384 x 16384, and its first scan needs at least 524288 bytes
regress-jpeg-scans-883.jpg|cannot decode the JPEG image: by scan 25 its scans pass over 6553600 blocks, more than 16 times the image's 262144 blocks
regress-gif-screen-16384.gif|the GIF's screen is 16384 x 16384 pixels, and its first frame shows 1 of them
regress-gif-frame-16384.gif|the GIF's first frame shows 268435456 pixels of the screen from 2 bytes of LZW data
regress-tiff-jpeg-nodata.tif|TIFF page 1 is 16384 x 16384 pixels of 3 samples (805306368 bytes), more than its 150 bytes of compression 7 can give
regress-tiff-shared-strip-20.tif|TIFF pages 1 to 6 need at least 24384 bytes of the file .*the file has 6374 (a strip that pages share counts once)
regress-tiff-shared-strip-1000.tif|TIFF pages 1 to 10 need at least 162560 bytes of the file .*the file has 130324
regress-tiff-few-offsets.tif|TIFF page 1: strip 2 of 4 is 1024 bytes at offset 0, inside the file's header
regress-webp-anim-canvas-16384.webp|the WebP animation's canvas is 16384 x 16384 pixels, and its first frame shows 1 of them
regress-webp-vp8l-blank-16384.webp|a lossless WebP of 16384 x 16384 = 268435456 pixels from 8 bytes of data, which code at most 16986928
regress-webp-vp8-16383.webp|a lossy WebP of 16383 x 16383 pixels has 1048576 macroblocks, and its 90 bytes of data code at most 514
regress-webp-alph-16383.webp|a lossy WebP of 16383 x 16383 pixels has 1048576 macroblocks, and its 70 bytes of data code at most 414
regress-png-surplus-4m.png|cannot decode the PNG image: its image data goes on past its last row
END

# A batch of one process and one slot (-j 1): the hostile page after a
# good image fails alone, and the good image's output is the one it
# gets without the hostile file beside it.
for f in regress-tiff-jpeg-small-strip.tif regress-tiff-jpeg-page2-small.tif; do
	rm -rf "$H/b" "$H/b1"
	"$BIN/sobel" -q --cpu -j 1 -o "$H/b1" "$SAMPLES/coins.pgm" 2>/dev/null
	"$BIN/sobel" -q --cpu -j 1 -o "$H/b" "$SAMPLES/coins.pgm" "$HS/$f" \
	    2>"$H/err"
	st=$?
	base=${f%.tif}
	if [ "$st" -ne 1 ] || [ -e "$H/b/$base.pgm" ]; then
		fail "hostile/batch/$f" "exit $st, output $(ls "$H/b"): $(head -c 300 "$H/err")"
	elif ! cmp -s "$H/b/coins.pgm" "$H/b1/coins.pgm"; then
		fail "hostile/batch/$f" "the good image's output differs"
	else
		pass "hostile/batch/$f"
	fi
done

# One input's pixels must never reach another's output: a batch of one
# thread (-j 1) decodes a bright 5x3 BMP, then a BMP of the same size
# whose palette stb would fill from its stack, where the first one's
# colours lay.  The second is refused, and no output of it holds them.
python3 -c "
import struct, sys
w, h = 5, 3
row = bytes([0xab, 0xcd, 0xef]) * w + bytes(1)
data = row * h
sys.stdout.buffer.write(b'BM' + struct.pack('<IHHI', 54 + len(data), 0, 0, 54) +
    struct.pack('<IiiHHIIiiII', 40, w, h, 1, 24, 0, len(data), 0, 0, 0, 0) + data)
" >"$H/bright.bmp"
for f in regress-bmp-palette-negative regress-bmp-palette-short regress-bmp-core-palette \
    regress-bmp-short-header; do
	rm -rf "$H/leak"
	"$BIN/conv2d" -q --cpu -j 1 -k identity -f pnm -o "$H/leak" "$H/bright.bmp" \
	    "$HS/$f.bmp" 2>"$H/err"
	st=$?
	if [ "$st" -ne 1 ] || [ -e "$H/leak/$f.ppm" ] || [ ! -s "$H/leak/bright.ppm" ]; then
		fail "hostile/no-leak/$f" "exit $st, outputs: $(ls "$H/leak" | tr '\n' ' ')$(head -c 200 "$H/err")"
	else
		pass "hostile/no-leak/$f"
	fi
done

# From a pipe, the JPEG of no coded data is refused as well (its bytes
# are read ahead, not taken from the file's size).
for f in regress-jpeg-sos-eoi-16384.jpg regress-jpeg-scans-500.jpg; do
	rm -rf "$H/run" && mkdir -p "$H/run"
	if cat "$HS/$f" | "$BIN/sobel" -q --cpu - "$H/run/out.pgm" 2>"$H/err"; then
		fail "hostile/pipe/$f" "read"
	elif ! grep -q "first scan needs at least" "$H/err" || [ -n "$(ls -A "$H/run")" ]; then
		fail "hostile/pipe/$f" "$(head -c 300 "$H/err")"
	else
		pass "hostile/pipe/$f"
	fi
done

# A batch whose output would be one of its inputs, by any path and in
# any format, is refused (exit 2) before anything runs: the inputs are
# left as they were and nothing is written.
G=$H/guard
# guard_case NAME NEEDLE TOOL ARGS...: exit 2, the message, $G unchanged.
guard_case() {
	name=$1 needle=$2 tool=$3
	shift 3
	(cd "$G" && find . | sort | xargs cksum 2>/dev/null) >"$H/guard.before"
	"$BIN/$tool" -q --cpu "$@" >/dev/null 2>"$H/err"
	st=$?
	(cd "$G" && find . | sort | xargs cksum 2>/dev/null) >"$H/guard.after"
	if [ "$st" -ne 2 ]; then
		fail "hostile/guard/$name" "exit $st, expected 2: $(head -c 300 "$H/err")"
	elif ! grep -q "^$tool: .*$needle" "$H/err"; then
		fail "hostile/guard/$name" "message lacks '$needle': $(head -c 300 "$H/err")"
	elif ! cmp -s "$H/guard.before" "$H/guard.after"; then
		fail "hostile/guard/$name" "the files changed"
	else
		pass "hostile/guard/$name"
	fi
}
rm -rf "$G"
mkdir -p "$G/d" "$G/a" "$G/b"
"$BIN/conv2d" -q --cpu -k identity "$SAMPLES/coins.pgm" "$G/d/x.tif"
printf 'P7\nWIDTH 2\nHEIGHT 1\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n\001\377\002\377' >"$G/d/y.pam"
cp "$SAMPLES/px2x3.pgm" "$G/d/z.pgm"
ln -s d "$G/link"
cp "$SAMPLES/coins.pgm" "$G/a/v.pgm"
cp "$SAMPLES/chelsea.png" "$G/b/u.png"
ln "$G/a/v.pgm" "$G/d/u.ppm"
guard_case tiff "x.tif would be replaced by its own output .*x.tif" conv2d \
    -k box:3 -f tiff -o "$G/d" "$G/d/x.tif"
guard_case pam "y.pam would be replaced by its own output .*y.pam" sobel \
    -o "$G/d" "$G/d/y.pam"
guard_case symlink-dir "z.pgm would be replaced by its own output .*link/z.pgm" \
    edge -o "$G/link" "$G/d/z.pgm"
guard_case symlink-dir-slash "y.pam would be replaced by its own output" \
    sobel -o "$G/link/" "$G/link/../d/y.pam"
guard_case hard-link "a/v.pgm would be replaced by the output of .*b/u.png, .*d/u.ppm" \
    sobel -o "$G/d" "$G/a/v.pgm" "$G/b/u.png"

# -o '' (an unset $OUTDIR) is a usage error, not the root directory.
for tool in $HTOOLS; do
	rm -rf "$H/run" && mkdir -p "$H/run"
	(cd "$H/run" && "$BIN/$tool" -q --cpu $(hostile_needs "$tool") -o '' \
	    "$SAMPLES/px2x3.pgm") >/dev/null 2>"$H/err"
	st=$?
	if [ "$st" -ne 2 ] || ! grep -q "^$tool: -o '' names no directory" "$H/err"; then
		fail "hostile/outdir-empty/$tool" "exit $st: $(head -c 300 "$H/err")"
	else
		pass "hostile/outdir-empty/$tool"
	fi
done

# A file name holding a newline and terminal escapes reaches stderr
# escaped: one line per message, printable ASCII only, no forged line.
nasty=$(printf 'n\n\033[2K\033[1Asobel: every image was written\r.pgm')
rm -rf "$H/names" && mkdir -p "$H/names"
printf 'P5\n2 2\n255\nab' >"$H/names/$nasty"
for tool in $HTOOLS; do
	for args in "missing" "truncated" "batch"; do
		case $args in
		missing) set -- "$H/names/x$nasty" "$H/run/out.pgm" ;;
		truncated) set -- "$H/names/$nasty" "$H/run/out.pgm" ;;
		batch) set -- -o "$H/names/" "$H/names/$nasty" ;;
		esac
		rm -rf "$H/run" && mkdir -p "$H/run"
		"$BIN/$tool" -q --cpu $(hostile_needs "$tool") "$@" >/dev/null 2>"$H/err"
		st=$?
		if [ "$st" -eq 0 ]; then
			fail "hostile/escaped-name/$tool/$args" "exit 0"
		elif [ "$(wc -l <"$H/err")" -ne 1 ] && [ "$args" != batch ]; then
			fail "hostile/escaped-name/$tool/$args" "$(wc -l <"$H/err") lines: $(od -c "$H/err" | head -5)"
		elif LC_ALL=C grep -q '[^ -~]' "$H/err"; then
			fail "hostile/escaped-name/$tool/$args" "raw bytes: $(od -c "$H/err" | head -5)"
		elif ! grep -q '^'"$tool"': .*n\\x0a\\x1b\[2K\\x1b\[1Asobel: every image was written\\x0d' "$H/err"; then
			fail "hostile/escaped-name/$tool/$args" "$(head -c 300 "$H/err")"
		else
			pass "hostile/escaped-name/$tool/$args"
		fi
	done
done

# The minor items, each with a message that says what is true.
# A PNG past what its header (a 1x1 image: its rows and 16 MiB of other
# chunks) or the pixel limit (a 16-bit RGBA image of 1000x1000 pixels at
# --max-pixels 1000000: 8 MB and 16 MiB) lets be held in memory: refused
# from a file as from a pipe, and the message does not send one to the
# other.
python3 - "$H" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + \
        struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
def png(name, w, h, depth, color, pad):
    with open(sys.argv[1] + '/' + name, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n' +
                chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, depth, color, 0, 0, 0)) +
                chunk(b'zzZz', bytes(pad)) + chunk(b'IDAT', zlib.compress(b'\0\0')) +
                chunk(b'IEND', b''))
png('chunky.png', 1, 1, 8, 0, 17 << 20)
png('chunky-limit.png', 1000, 1000, 16, 6, 25 << 20)
PY
while IFS='|' read -r file opt needle; do
	for how in file pipe; do
		if [ $how = file ]; then
			"$BIN/sobel" -q --cpu $opt "$H/$file" "$H/o.pgm" 2>"$H/err"
		else
			"$BIN/sobel" -q --cpu $opt - "$H/o.pgm" <"$H/$file" 2>"$H/err"
		fi
		st=$?
		if [ "$st" -ne 1 ] || ! grep -q "$needle" "$H/err" ||
		    grep -q "read it from a file" "$H/err"; then
			fail "hostile/png-held-whole/$file/$how" "exit $st: $(head -c 300 "$H/err")"
		else
			pass "hostile/png-held-whole/$file/$how"
		fi
	done
done <<'END'
chunky.png|--max-pixels 10|a PNG of 1 x 1 pixels holds at most 16777218 bytes (its rows deflated, and 16 MiB of other chunks), and this one is
chunky-limit.png|--max-pixels 1000000|a PNG is held in memory whole, and this one is .* the pixel limit allows
END

# Issue 45: what follows an image in a stream, and what a stream's image
# may make the reader hold.  A WebP knows its length: the images after
# it are read, from a file and through a pipe; a WebP then JUNK fails
# after the WebP is written.  A BMP, TGA or GIF cannot tell where it
# ends: whatever follows it but whitespace fails the run, the image
# before written; whitespace does not.
W45=$H/i45
mkdir -p "$W45"
"$BIN/sobel" -q --cpu "$SAMPLES/small.jpg" - >"$W45/jpg.pgm"
for f in lossless-rgb.webp lossy-rgba.webp anim.webp rgb24.bmp rgb24.tga rle24.tga \
    index0.gif; do
	"$BIN/sobel" -q --cpu "$HS/$f" - >"$W45/$f.pgm"
done
# i45_case NAME WANT STATUS NEEDLE FILES...: the FILES one after another,
# from a file and a pipe: exit STATUS, stdout the file WANT, NEEDLE in
# the message (none if empty).
i45_case() {
	name=$1 want=$2 status=$3 needle=$4
	shift 4
	cat "$@" >"$W45/in"
	for how in file pipe; do
		if [ $how = file ]; then
			"$BIN/sobel" -q --cpu "$W45/in" - >"$W45/out" 2>"$H/err"
		else
			cat "$W45/in" | "$BIN/sobel" -q --cpu - - >"$W45/out" 2>"$H/err"
		fi
		st=$?
		if [ "$st" -ne "$status" ] || ! cmp -s "$W45/out" "$want"; then
			fail "hostile/i45-stream/$name/$how" "exit $st, $(cmp "$W45/out" "$want" 2>&1): $(head -c 300 "$H/err")"
		elif [ -n "$needle" ] && ! grep -q "$needle" "$H/err"; then
			fail "hostile/i45-stream/$name/$how" "message lacks '$needle': $(head -c 300 "$H/err")"
		elif [ -z "$needle" ] && [ -s "$H/err" ]; then
			fail "hostile/i45-stream/$name/$how" "$(head -c 300 "$H/err")"
		else
			pass "hostile/i45-stream/$name/$how"
		fi
	done
}
printf 'JUNK' >"$W45/junk"
printf '\n \n' >"$W45/space"
cat "$W45/lossless-rgb.webp.pgm" "$W45/jpg.pgm" "$W45/lossy-rgba.webp.pgm" \
    "$W45/anim.webp.pgm" >"$W45/want-webp"
i45_case webp-jpeg-webp "$W45/want-webp" 0 "" "$HS/lossless-rgb.webp" \
    "$SAMPLES/small.jpg" "$HS/lossy-rgba.webp" "$HS/anim.webp"
i45_case webp-junk "$W45/lossless-rgb.webp.pgm" 1 \
    "garbage after image 1: byte 4a where the next PNM, WebP, PNG or JPEG image" \
    "$HS/lossless-rgb.webp" "$W45/junk"
# A TIFF from a pipe ends where its pages do (a file is a TIFF whole).
"$BIN/sobel" -q --cpu "$HS/pages3.tif" - >"$W45/pages3.tif.pgm"
cat "$HS/pages3.tif" "$SAMPLES/small.jpg" | "$BIN/sobel" -q --cpu - - \
    >"$W45/out" 2>"$H/err"
st=$?
why="exit $st, $(cmp "$W45/out" "$W45/pages3.tif.pgm" 2>&1): $(head -c 300 "$H/err")"
check hostile/i45-stream/tiff-jpeg/pipe eval '[ $st -eq 1 ] &&
    cmp -s "$W45/out" "$W45/pages3.tif.pgm" &&
    grep -q "garbage after image 3: byte ff where the end of the stream should be (a TIFF cannot tell" "$H/err"'
(cat "$HS/pages3.tif"; printf '\n') | "$BIN/sobel" -q --cpu - - >"$W45/out" 2>"$H/err"
st=$?
why="exit $st: $(head -c 300 "$H/err")"
check hostile/i45-stream/tiff-space/pipe eval '[ $st -eq 0 ] &&
    cmp -s "$W45/out" "$W45/pages3.tif.pgm"'
for f in rgb24.bmp rgb24.tga rle24.tga index0.gif; do
	ext=${f##*.}
	fmt=$(echo "$ext" | tr a-z A-Z)
	i45_case "$f-jpeg" "$W45/$f.pgm" 1 \
	    "garbage after image 1: byte ff where the end of the stream should be (a $fmt cannot tell where it ends" \
	    "$HS/$f" "$SAMPLES/small.jpg"
	i45_case "$f-space" "$W45/$f.pgm" 0 "" "$HS/$f" "$W45/space"
done

# The WebP, PNG reproducers whose bytes are many, made here: each
# refused within the limits, from a file and a pipe, nothing left.
python3 - "$W45" <<'PY'
import struct, sys, zlib
sys.path.insert(0, 'tests/fuzz')
import seeds
d = sys.argv[1]
# 5: a 1x1 PNG whose IDAT says 300 MiB (its first 64 MiB here).
ihdr = struct.pack('>IIBBBBB', 1, 1, 8, 0, 0, 0, 0)
with open(d + '/png-idat-300m.png', 'wb') as f:
    f.write(b'\x89PNG\r\n\x1a\n' + seeds.png_chunk(b'IHDR', ihdr) +
            struct.pack('>I', 300 << 20) + b'IDAT')
    for i in range(64):
        f.write(bytes(1 << 20))
# 9: an 8x8 PNG of 3.1 MB whose image data inflates to 3 GiB.
with open(d + '/png-surplus-3g.png', 'wb') as f:
    f.write(seeds.png_surplus(3 << 30))
# 5: a WebP whose RIFF header says 500 MiB; a WebP then 64 MiB of zeros.
w = bytearray(seeds.webp_seeds()['lossless-rgb.webp'])
struct.pack_into('<I', w, 4, 500 << 20)
with open(d + '/webp-riff-500m.webp', 'wb') as f:
    f.write(w)
with open(d + '/webp-zeros.webp', 'wb') as f:
    f.write(seeds.webp_seeds()['lossless-rgb.webp'] + bytes(64 << 20))
PY
while IFS='|' read -r file needle; do
	for tool in $HTOOLS; do
		hostile_expect "$tool/$file" "$needle" "$tool" -q --cpu \
		    $(hostile_needs "$tool") "$W45/$file" "$H/run/out.pgm"
		rm -rf "$H/run" && mkdir -p "$H/run"
		cat "$W45/$file" | (
			[ -n "$GF_ASAN" ] || ulimit -v 400000
			exec timeout 30 "$BIN/$tool" -q --cpu $(hostile_needs "$tool") - \
			    "$H/run/out.pgm"
		) >/dev/null 2>"$H/err"
		st=$?
		if [ "$st" -ne 1 ] || ! grep -q "^$tool: .*$needle" "$H/err" ||
		    [ -n "$(ls -A "$H/run")" ]; then
			fail "hostile/pipe/$tool/$file" "exit $st: $(head -c 300 "$H/err")"
		else
			pass "hostile/pipe/$tool/$file"
		fi
	done
done <<'END'
png-idat-300m.png|a PNG of 1 x 1 pixels holds at most 16777218 bytes
png-surplus-3g.png|its image data goes on past its last row (more than 65536 bytes of it)
webp-riff-500m.webp|a 4 x 3 WebP needs at most 16777312 bytes, and its RIFF header says 524288008
webp-zeros.webp|garbage after image 1: byte 00 where the next
END
# A tap below double's smallest normal is too close to 0, one above
# double's range too large: neither is "not a number".
while IFS='|' read -r tap needle; do
	"$BIN/conv2d" -q --cpu -k "1 $tap 1" "$SAMPLES/px2x3.pgm" "$H/o.pgm" 2>"$H/err"
	st=$?
	if [ "$st" -ne 2 ] || ! grep -q "^conv2d: kernel row 1, value 2: $needle" "$H/err"; then
		fail "hostile/tap/$tap" "exit $st: $(head -c 300 "$H/err")"
	else
		pass "hostile/tap/$tap"
	fi
done <<'END'
1e-320|'1e-320' is too close to 0 to be represented (give 0, or at least 2.22507e-308)
1e999|1e999 is too large; taps must be within
nan|'nan' is not a number
END
# A PNM header of 10000 comment lines (170 KB) is read; one that runs
# past 1 MB is refused, saying so.
python3 -c "import sys; sys.stdout.buffer.write(b'P5\n' + b'# a comment line\n' * 10000 + b'2 2\n255\n\1\2\3\4')" >"$H/comments.pgm"
python3 -c "import sys; sys.stdout.buffer.write(b'P5\n' + b'# a comment line\n' * 70000 + b'2 2\n255\n\1\2\3\4')" >"$H/comments-1m.pgm"
if "$BIN/sobel" -q --cpu "$H/comments.pgm" "$H/o.pgm" 2>"$H/err"; then
	pass hostile/pnm-10000-comments
else
	fail hostile/pnm-10000-comments "$(head -c 300 "$H/err")"
fi
if ! "$BIN/sobel" -q --cpu "$H/comments-1m.pgm" "$H/o.pgm" 2>"$H/err" &&
    grep -q "bad PNM header in image 1: it is too long: it does not end within 1048576 bytes" "$H/err"; then
	pass hostile/pnm-header-past-1m
else
	fail hostile/pnm-header-past-1m "$(head -c 300 "$H/err")"
fi
