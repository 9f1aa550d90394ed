# Bad input, one table for every tool (issue 11): malformed images, an
# unwritable output, bad option values and usage mistakes.  Each case is
# checked for its exit status (1 for a failed run, 2 for a usage error:
# never a crash), a "tool: " message (containing the row's text, if
# any), an existing output left exactly as it was and nothing else left
# beside it.  A case that every tool runs must also give every tool the
# same message, but for the tool's name.  Sourced by tests/run.sh.

BAD=$TMP/badin
BAD_DIR=$TMP/bad
OUT=$BAD_DIR/out.pgm
C=$SAMPLES/coins.pgm
mkdir -p "$BAD/dir.pgm" "$BAD_DIR"
: >"$BAD/empty.pgm"
printf 'P5\n12' >"$BAD/trunc-header.pgm"
printf 'P5\n4 4\n255\nabc' >"$BAD/trunc-pixels.pgm"
printf 'P5\n0 5\n255\n' >"$BAD/width0.pgm"
printf 'P5\n5 0\n255\n' >"$BAD/height0.pgm"
printf 'P5\n-3 5\n255\n' >"$BAD/negative.pgm"
printf 'P5\n4294967296 4294967296\n255\n' >"$BAD/overflow.pgm"
printf 'P5\n200000 200000\n255\n' >"$BAD/toobig.pgm"
printf 'P6\n262144 262144\n65535\n' >"$BAD/toobig16.ppm"
printf 'P5\n2 2\n0\n\0\0\0\0' >"$BAD/maxval0.pgm"
printf 'P5\n2 2\n70000\n\0\0\0\0\0\0\0\0' >"$BAD/maxval70000.pgm"
printf 'P2\n2 2\n10\n1 2 3 11\n' >"$BAD/above-maxval.pgm"
printf 'P5\n2 2\n15\n\0\1\2\3' >"$BAD/maxval15.pgm"
printf 'P6\n2 2\n15\n\0\1\2\3\4\5\6\7\10\11\12\13' >"$BAD/maxval15.ppm"
printf '\003\177\201\377\020\042\333\300\001\017\200\100\377\376\375\374' >"$BAD/random.bin"
head -c 1000 "$SAMPLES/chelsea.png" >"$BAD/trunc.png"
head -c 600 "$SAMPLES/small.jpg" >"$BAD/trunc.jpg"
cat "$SAMPLES/px2x3.pgm" "$BAD/trunc-pixels.pgm" >"$BAD/stream-then-garbage.pnm"
printf '1 2\n3 oops\n' >"$BAD/bad.k"

# What a tool needs besides the case's arguments to run at all.
bad_needs() {
	case $1 in conv2d) echo "-k box:3" ;; esac
}

# bad_case TOOL NAME STATUS STDIN NEEDLE ARGS...: runs TOOL ARGS with
# STDIN (a file piped in; empty: none) beside an existing $OUT, and
# checks the case; stderr is kept in $BAD_DIR.err.TOOL.
bad_case() {
	tool=$1 name=$2 want=$3 stdin=$4 needle=$5
	shift 5
	rm -rf "$BAD_DIR"
	mkdir -p "$BAD_DIR"
	printf 'precious\n' >"$OUT"
	err=$TMP/bad.err.$tool
	cat "${stdin:-/dev/null}" | limited "$BIN/$tool" "$@" >"$TMP/bad.stdout" 2>"$err"
	st=$?
	if [ "$st" -ge 128 ]; then
		fail "bad/$tool/$name" "died of signal $((st - 128)): $(head -c 200 "$err")"
	elif [ "$st" -ne "$want" ]; then
		fail "bad/$tool/$name" "exit $st, expected $want: $(head -c 200 "$err")"
	elif ! grep -q "^$tool: " "$err"; then
		fail "bad/$tool/$name" "no '$tool:' message: $(head -c 200 "$err")"
	elif [ -n "$needle" ] && ! grep -q -- "$needle" "$err"; then
		fail "bad/$tool/$name" "message lacks '$needle': $(head -c 200 "$err")"
	elif [ "$(cat "$OUT")" != precious ]; then
		fail "bad/$tool/$name" "the existing output was clobbered"
	elif [ "$(ls -A "$BAD_DIR" | wc -l)" -ne 1 ]; then
		fail "bad/$tool/$name" "left files behind: $(ls -A "$BAD_DIR")"
	else
		pass "bad/$tool/$name"
	fi
}

# The messages of the last case of every tool are the same, each tool's
# name aside (the synopsis that follows a usage error is the tool's own).
bad_same_message() {
	for tool in $TOOLS; do
		grep "^$tool: " "$TMP/bad.err.$tool" | sed "s/^$tool: //" >"$TMP/bad.msg.$tool"
	done
	if cmp -s "$TMP/bad.msg.sobel" "$TMP/bad.msg.conv2d" &&
	    cmp -s "$TMP/bad.msg.sobel" "$TMP/bad.msg.edge"; then
		pass "bad/same-message/$1"
	else
		fail "bad/same-message/$1" "$(for tool in $TOOLS; do
			printf '%s: %s; ' "$tool" "$(cat "$TMP/bad.msg.$tool")"; done)"
	fi
}

# tool|name|status|stdin|message|arguments.  Tool * is every tool, with
# what bad_needs adds; the arguments are split as the shell splits them.
bad_cases() {
	for f in empty.pgm trunc-header.pgm trunc-pixels.pgm width0.pgm \
	    height0.pgm negative.pgm overflow.pgm toobig.pgm toobig16.ppm \
	    maxval0.pgm maxval70000.pgm above-maxval.pgm random.bin trunc.png \
	    trunc.jpg dir.pgm missing.pgm stream-then-garbage.pnm; do
		echo "*|$f|1|||--cpu \"\$BAD/$f\" \"\$OUT\""
	done
	cat <<'END'
*|stream-then-garbage-stdin|1|$BAD/stream-then-garbage.pnm||--cpu - "$OUT"
*|unwritable|1|||--cpu "$C" "$BAD/no/such/dir/out.pgm"
*|m-bogus|2|||-m bogus "$C" "$OUT"
*|border-bogus|2|||--border bogus "$C" "$OUT"
*|block-bogus|2|||--block 32 "$C" "$OUT"
*|rows-zero|2|||--rows 0 "$C" "$OUT"
*|j-zero|2|||-j 0 "$C" "$OUT"
*|quality-101|2|||--quality 101 "$C" "$OUT"
*|format-bogus|2|||-f gif "$C" "$OUT"
*|extension-bogus|2|||"$C" "$BAD_DIR/out.gif"
*|unknown-option|2|||--frobnicate "$C" "$OUT"
*|missing-value|2|||"$C" "$OUT" --border
*|too-many-operands|2|||"$C" "$OUT" "$BAD_DIR/x"
*|outdir-not-dir|2|||-o "$OUT" "$C"
*|outdir-no-input|2|||-o "$BAD_DIR"
sobel|t-abc|2|||-t abc "$C" "$OUT"
sobel|t-negative|2|||-t -5 "$C" "$OUT"
sobel|norm-bogus|2||not a norm|--norm l3 "$C" "$OUT"
sobel|operator-bogus|2||'laplace' is not an operator; choose sobel, prewitt, scharr, sobel5 or sobel7|--operator laplace "$C" "$OUT"
sobel|operator-auto|2||-t auto takes Otsu's threshold of the 3x3 Sobel gradient only, not of --operator scharr|--operator scharr -t auto "$C" "$OUT"
sobel|colour-bogus|2||--colour 'rgb' is not a colour mode; choose gray, channels or max|--colour rgb "$C" "$OUT"
sobel|gradient-bogus|2||--gradient 'z' is not an output; choose magnitude, direction, x or y|--gradient z "$C" "$OUT"
sobel|gradient-x-t|2||--gradient x writes the signed gradient, which takes no threshold; leave out -t|--gradient x -t 5 "$C" "$OUT"
sobel|gradient-y-t-auto|2||--gradient y writes the signed gradient, which takes no threshold|--gradient y -t auto "$C" "$OUT"
sobel|gradient-x-channels|2||--gradient x writes 16-bit samples of the gray; --colour channels is not taken with it|--gradient x --colour channels "$C" "$OUT"
sobel|gradient-x-jpeg|1||the image is 16 bit (maxval 65535) and JPEG holds 8|--cpu --gradient x "$C" "$BAD_DIR/out.jpg"
sobel|gradient-y-webp|1||the image is 16 bit (maxval 65535) and WebP holds 8|--cpu --gradient y "$C" "$BAD_DIR/out.webp"
sobel|depth-8|2||--depth '8' is not a depth sobel writes; --depth 16 writes the magnitude at 16 bits|--depth 8 "$C" "$OUT"
sobel|depth16-t|2||--depth 16 writes the magnitude at 16 bits; an edge map (-t) is 0 or maxval at the input's depth|--depth 16 -t 5 "$C" "$OUT"
sobel|depth16-direction|2||--depth 16 writes the magnitude at 16 bits; the direction's bins are 0 to 255|--depth 16 --gradient direction "$C" "$OUT"
sobel|depth16-channels|2||--depth 16 writes 16-bit samples of the gray|--depth 16 --colour channels "$C" "$OUT"
sobel|gradient-x-max|2||--gradient x writes 16-bit samples of the gray; --colour max is not taken with it|--gradient x --colour max "$C" "$OUT"
sobel|gradient-direction-t|2||--gradient direction writes the direction, which takes no threshold; leave out -t|--gradient direction -t 5 "$C" "$OUT"
sobel|direction-maxval15|1||the direction's bins 0 to 255 need a maxval of 255 or more; this image's is 15|--cpu --gradient direction "$BAD/maxval15.pgm" "$OUT"
sobel|direction-max-maxval15|1||the direction's bins 0 to 255 need a maxval of 255 or more; this image's is 15|--gradient direction --colour max "$BAD/maxval15.ppm" "$OUT"
edge|colour-bogus|2||--colour 'rgb' is not a colour mode; choose gray, channels or max|--colour rgb "$C" "$OUT"
conv2d|no-kernel|2||no kernel|"$C" "$OUT"
conv2d|ragged|2||row 2 has 2 values; row 1 has 3|-k "1 2 1; 2 4" "$C" "$OUT"
conv2d|not-a-number|2||row 1, value 2: 'x'|-k "1 x 1" "$C" "$OUT"
conv2d|empty-kernel|2||empty|-k "" "$C" "$OUT"
conv2d|empty-row|2||row 2 is empty|-k "1 2;;3 4" "$C" "$OUT"
conv2d|too-big|2||1 to 63|-k box:64 "$C" "$OUT"
conv2d|gauss-too-big|2||more than 63|-k gauss:12 "$C" "$OUT"
conv2d|unknown-kernel|2||not a kernel|-k blur "$C" "$OUT"
conv2d|kernel-file-missing|2||cannot open|-k @"$BAD/none.k" "$C" "$OUT"
conv2d|kernel-file-bad|2||line 2: kernel row 2, value 2|-k @"$BAD/bad.k" "$C" "$OUT"
conv2d|divisor-zero|2||divisor|-k box:3 --divisor 0 "$C" "$OUT"
conv2d|divisor-abc|2||divisor|-k box:3 --divisor abc "$C" "$OUT"
conv2d|bias-abc|2||bias|-k box:3 --bias abc "$C" "$OUT"
conv2d|normalize-and-divisor|2||exclude|-k box:3 --normalize --divisor 3 "$C" "$OUT"
edge|low-above-high|2||greater than|--low 100 --high 50 "$C" "$OUT"
edge|low-without-high|2||needs --high|--low 10 "$C" "$OUT"
edge|auto-and-high|2||--auto|--auto --high 50 "$C" "$OUT"
edge|low-abc|2||not a number|--low abc --high 9 "$C" "$OUT"
edge|high-negative|2|||--high -5 "$C" "$OUT"
edge|sigma-too-large|2|||--sigma 11 "$C" "$OUT"
edge|sigma-too-small|2||too small|--sigma 1e-9 "$C" "$OUT"
END
}

bad_cases >"$TMP/bad.cases"
while IFS='|' read -r tool name want stdin needle args; do
	eval "stdin=$stdin"
	if [ "$tool" != '*' ]; then
		eval "bad_case $tool \"\$name\" $want \"\$stdin\" \"\$needle\" $args"
		continue
	fi
	for t in $TOOLS; do
		eval "bad_case $t \"\$name\" $want \"\$stdin\" \"\$needle\" $(bad_needs $t) $args"
	done
	bad_same_message "$name"
done <"$TMP/bad.cases"
