# sobel: golden images for every strategy, launch shapes, streams, pipes
# and batches (bad input: t_bad.sh).  Sourced by tests/run.sh.

. ./tests/cases_sobel.sh
. ./tests/golden_run.sh

golden_all sobel

# Launch shapes that do not divide the image, on every GPU strategy.
sobel_shapes() {
	cat <<'END'
global|--block 13x7
global|--block 1024x1
texture|--block 1x64
texture|--block 5x3
shared|--block 8x2 --rows 3
shared|--block 3x1 --rows 1
shared|--block 32x16 --rows 1
sliding|--block 7x3 --rows 5
sliding|--block 64x1 --rows 1
sliding|--block 2x2 --rows 700
END
}
sobel_shapes | while IFS='|' read -r m opts; do
	for s in retina1023x517 px1x700 px700x1 px2x3; do
		# shellcheck disable=SC2086
		if ! have_gpu; then echo "skip $m:$opts:$s"
		elif limited "$BIN/sobel" -m "$m" $opts "$SAMPLES/$s.pgm" "$TMP/shape.pgm" &&
		    cmp -s "$TMP/shape.pgm" "$GOLDEN/sobel/$s.mag.pgm"; then
			echo "ok $m:$opts:$s"
		else
			echo "bad $m:$opts:$s"
		fi
	done
done >"$TMP/shapes.log" 2>&1
tally sobel/shape "$TMP/shapes.log" "differs from golden or failed"

# Shapes the device cannot run are refused with a message, exit 1.
if have_gpu; then
	if ! "$BIN/sobel" -m shared --block 32x32 --rows 64 "$SAMPLES/coins.pgm" \
	    "$TMP/x.pgm" 2>"$TMP/err" && grep -q 'shared memory' "$TMP/err"; then
		pass sobel/shape/too-much-shared-memory
	else
		fail sobel/shape/too-much-shared-memory "$(cat "$TMP/err")"
	fi
	if ! "$BIN/sobel" -m sliding --block 32x32 "$SAMPLES/coins.pgm" \
	    "$TMP/x.pgm" 2>"$TMP/err" &&
	    grep -Eq 'this kernel can run|bytes of shared memory' "$TMP/err"; then
		pass sobel/shape/too-many-registers
	else
		fail sobel/shape/too-many-registers "$(cat "$TMP/err")"
	fi
	if ! "$BIN/sobel" -m global --block 64x32 "$SAMPLES/coins.pgm" \
	    "$TMP/x.pgm" 2>"$TMP/err" && grep -q '2048 threads' "$TMP/err"; then
		pass sobel/shape/too-many-threads
	else
		fail sobel/shape/too-many-threads "$(cat "$TMP/err")"
	fi
else
	skip sobel/shape/refused "no GPU"
fi

# Streams: three PNM images of different sizes, through standard input
# and output, come out as the three golden images in order, on the CPU and
# on every GPU strategy.
cat "$SAMPLES/coins.pgm" "$SAMPLES/px2x3.pgm" "$SAMPLES/astro16.pgm" >"$TMP/stream.pnm"
cat "$GOLDEN/sobel/coins.mag.pgm" "$GOLDEN/sobel/px2x3.mag.pgm" \
    "$GOLDEN/sobel/astro16.mag.pgm" >"$TMP/stream.want"
for m in $(strategies sobel); do
	[ "$m" = auto ] && continue
	if [ "$m" != cpu ] && ! have_gpu; then skip "sobel/stream/$m" "no GPU"; continue; fi
	if limited "$BIN/sobel" -m "$m" <"$TMP/stream.pnm" >"$TMP/stream.got" &&
	    cmp -s "$TMP/stream.got" "$TMP/stream.want"; then
		pass "sobel/stream/$m"
	else
		fail "sobel/stream/$m" "three-image stream differs from the goldens"
	fi
done

# The 16-bit outputs (--gradient x, y, --depth 16) in a stream of 8- and
# 16-bit images of different sizes, on the CPU and every GPU strategy:
# the goldens in order (one lane changes sample types between images).
cat "$GOLDEN/sobel/coins.gx.pgm" "$GOLDEN/sobel/px2x3.gx.pgm" \
    "$GOLDEN/sobel/astro16.gx.pgm" >"$TMP/stream16.want"
cat "$GOLDEN/sobel/coins.mag16.pgm" "$GOLDEN/sobel/px2x3.mag16.pgm" \
    "$GOLDEN/sobel/astro16.mag16.pgm" >"$TMP/stream16d.want"
for m in $(strategies sobel); do
	[ "$m" = auto ] && continue
	if [ "$m" != cpu ] && ! have_gpu; then skip "sobel/stream16/$m" "no GPU"; continue; fi
	if limited "$BIN/sobel" -m "$m" --gradient x <"$TMP/stream.pnm" >"$TMP/stream16.got" &&
	    cmp -s "$TMP/stream16.got" "$TMP/stream16.want" &&
	    limited "$BIN/sobel" -m "$m" --depth 16 <"$TMP/stream.pnm" >"$TMP/stream16d.got" &&
	    cmp -s "$TMP/stream16d.got" "$TMP/stream16d.want"; then
		pass "sobel/stream16/$m"
	else
		fail "sobel/stream16/$m" "--gradient x or --depth 16 stream differs from the goldens"
	fi
done

# The signed gradient as PNG is the PGM's samples (g + 32768); as TIFF,
# signed 16-bit samples, which the tools then refuse to read as input,
# naming them.  --depth 16 of a 16-bit image of maxval 65535 is its
# magnitude.
if command -v pngtopam >/dev/null 2>&1; then
	"$BIN/sobel" -q --gradient y "$SAMPLES/coins.pgm" "$TMP/gy.png"
	check sobel/gradient/png sh -c 'pngtopam "$1" | cmp -s - "$2"' sh \
	    "$TMP/gy.png" "$GOLDEN/sobel/coins.gy.pgm"
else
	skip sobel/gradient/png "pngtopam is not installed"
fi
"$BIN/sobel" -q --gradient x "$SAMPLES/coins.pgm" "$TMP/gx.tif"
"$BIN/sobel" -q "$TMP/gx.tif" "$TMP/gx-back.pgm" 2>"$TMP/gx-back.err"
why="$(cat "$TMP/gx-back.err")"
check sobel/gradient/tiff-signed grep -q 'sample format 2 (signed integer)' "$TMP/gx-back.err"
check sobel/depth16/16-bit-input cmp -s "$GOLDEN/sobel/astro16.mag16.pgm" \
    "$GOLDEN/sobel/astro16.mag.pgm"

# A pipeline: sobel | sobel -t, equal to the same two steps through files.
"$BIN/sobel" -q "$SAMPLES/coins.pgm" "$TMP/p1.pgm" &&
    "$BIN/sobel" -q -t 100 "$TMP/p1.pgm" "$TMP/p2.pgm"
if "$BIN/sobel" -q - - <"$SAMPLES/coins.pgm" | "$BIN/sobel" -q -t 100 >"$TMP/p3.pgm" &&
    cmp -s "$TMP/p2.pgm" "$TMP/p3.pgm"; then
	pass sobel/pipe
else
	fail sobel/pipe "pipeline output differs from the file-to-file result"
fi

# Batch: -o DIR, one output per input, named after it.
mkdir -p "$TMP/batch"
if "$BIN/sobel" -q -t 90 -o "$TMP/batch" "$SAMPLES/coins.pgm" "$SAMPLES/chelsea.png" &&
    cmp -s "$TMP/batch/coins.pgm" "$GOLDEN/sobel/coins.thr.pgm" &&
    cmp -s "$TMP/batch/chelsea.pgm" "$GOLDEN/sobel/chelsea.thr.pgm"; then
	pass sobel/batch
else
	fail sobel/batch "outputs missing or different"
fi
if "$BIN/sobel" -q -f png -o "$TMP/batch" "$SAMPLES/coins.pgm" &&
    [ "$(head -c 4 "$TMP/batch/coins.png" | od -An -c | tr -d ' ')" = '211PNG' ]; then
	pass sobel/batch-png
else
	fail sobel/batch-png "no PNG in the batch directory"
fi

# Without a GPU: auto falls back silently, -v gives one notice, and -q
# silences it (an explicit GPU strategy: t_fallback.sh).
if ! have_gpu; then
	"$BIN/sobel" "$SAMPLES/px2x3.pgm" "$TMP/x.pgm" 2>"$TMP/err"
	if [ -s "$TMP/x.pgm" ] && [ ! -s "$TMP/err" ]; then
		pass sobel/nogpu/auto-silent
	else
		fail sobel/nogpu/auto-silent "expected no message: $(cat "$TMP/err")"
	fi
	"$BIN/sobel" -v "$SAMPLES/px2x3.pgm" "$TMP/x.pgm" 2>"$TMP/err"
	if [ "$(grep -c 'running on the CPU' "$TMP/err")" -eq 1 ]; then
		pass sobel/nogpu/auto-notice-v
	else
		fail sobel/nogpu/auto-notice-v "expected one notice line: $(cat "$TMP/err")"
	fi
	"$BIN/sobel" -q -v "$SAMPLES/px2x3.pgm" "$TMP/x.pgm" 2>"$TMP/err"
	grep -q 'running on the CPU' "$TMP/err" &&
	    fail sobel/nogpu/quiet "-q printed: $(cat "$TMP/err")" ||
		pass sobel/nogpu/quiet
fi

# --help and --version succeed.
if "$BIN/sobel" --help >/dev/null && "$BIN/sobel" -V | grep -q gpufilt; then
	pass sobel/help-version
else
	fail sobel/help-version "--help or -V failed"
fi
