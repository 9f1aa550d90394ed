# sobel: golden images for every strategy, launch shapes, streams, pipes,
# batches, and the tool's own bad options.  Sourced by tests/run.sh.

. ./tests/cases_sobel.sh

base() { n=${1##*/}; echo "${n%.*}"; }

# Runs one strategy over every sample in one batch per configuration and
# compares each output with its golden file, byte for byte.
sobel_golden() {
	m=$1
	sobel_configs | while IFS='|' read -r cfg opt8 opt16; do
		d=$TMP/sobel-$m-$cfg
		mkdir -p "$d"
		for s in $SOBEL_SAMPLES; do
			case $s in astro16*) o=$opt16 ;; *) o=$opt8 ;; esac
			# shellcheck disable=SC2086
			limited "$BIN/sobel" -q -m "$m" $o -o "$d" "$SAMPLES/$s" 2>"$d.err" ||
				echo "run $s: $(cat "$d.err")"
		done
		for s in $SOBEL_SAMPLES; do
			g=$GOLDEN/sobel/$(base "$s").$cfg.pgm
			if cmp -s "$d/$(base "$s").pgm" "$g"; then echo "ok $s.$cfg"; else
				echo "bad $s.$cfg"; fi
		done
	done >"$TMP/golden-$m.log"
	while read -r what rest; do
		case $what in
		ok) pass "sobel/golden/$m/$rest" ;;
		bad) fail "sobel/golden/$m/$rest" "differs from $GOLDEN/sobel" ;;
		run) fail "sobel/golden/$m/run" "$rest" ;;
		esac
	done <"$TMP/golden-$m.log"
}

for m in $(strategies sobel); do
	if [ "$m" = cpu ] || [ "$m" = auto ] || have_gpu; then
		sobel_golden "$m"
	else
		skip "sobel/golden/$m" "no GPU"
	fi
done

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
while read -r what rest; do
	case $what in
	ok) pass "sobel/shape/$rest" ;;
	skip) skip "sobel/shape/$rest" "no GPU" ;;
	*) fail "sobel/shape/$rest" "differs from golden or failed" ;;
	esac
done <"$TMP/shapes.log"

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

# Without a GPU: auto falls back with one notice, -q silences it, and an
# explicit GPU strategy is an error that names --cpu.
if ! have_gpu; then
	"$BIN/sobel" "$SAMPLES/px2x3.pgm" "$TMP/x.pgm" 2>"$TMP/err"
	if [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q 'CPU' "$TMP/err"; then
		pass sobel/nogpu/auto-notice
	else
		fail sobel/nogpu/auto-notice "expected one notice line: $(cat "$TMP/err")"
	fi
	"$BIN/sobel" -q "$SAMPLES/px2x3.pgm" "$TMP/x.pgm" 2>"$TMP/err"
	[ -s "$TMP/err" ] && fail sobel/nogpu/quiet "-q printed: $(cat "$TMP/err")" ||
		pass sobel/nogpu/quiet
	"$BIN/sobel" -m shared "$SAMPLES/px2x3.pgm" "$TMP/x.pgm" 2>"$TMP/err"
	if [ $? -eq 1 ] && grep -q -- '--cpu' "$TMP/err"; then
		pass sobel/nogpu/explicit
	else
		fail sobel/nogpu/explicit "expected exit 1 naming --cpu: $(cat "$TMP/err")"
	fi
fi

# Bad input: a "sobel:" message, the expected exit status, and an existing
# output file left exactly as it was, with no temporary file beside it.
sobel_bad() {
	name=$1 want=$2
	shift 2
	mkdir -p "$TMP/bad"
	rm -f "$TMP/bad/"* "$TMP/bad/".out*
	printf 'precious\n' >"$TMP/bad/out.pgm"
	limited "$@" >"$TMP/bad.stdout" 2>"$TMP/bad.err" </dev/null
	st=$?
	if [ "$st" -ne "$want" ]; then
		fail "sobel/bad/$name" "exit $st, expected $want: $(head -c 200 "$TMP/bad.err")"
	elif ! grep -q '^sobel: ' "$TMP/bad.err"; then
		fail "sobel/bad/$name" "no 'sobel:' message: $(head -c 200 "$TMP/bad.err")"
	elif [ "$(cat "$TMP/bad/out.pgm")" != precious ]; then
		fail "sobel/bad/$name" "the existing output was clobbered"
	elif [ "$(ls -A "$TMP/bad" | wc -l)" -ne 1 ]; then
		fail "sobel/bad/$name" "left files behind: $(ls -A "$TMP/bad")"
	else
		pass "sobel/bad/$name"
	fi
}

B=$TMP/badin
mkdir -p "$B"
: >"$B/empty.pgm"
printf 'P5\n12' >"$B/trunc-header.pgm"
printf 'P5\n4 4\n255\nabc' >"$B/trunc-pixels.pgm"
printf 'P5\n0 5\n255\n' >"$B/width0.pgm"
printf 'P5\n5 0\n255\n' >"$B/height0.pgm"
printf 'P5\n-3 5\n255\n' >"$B/negative.pgm"
printf 'P5\n4294967296 4294967296\n255\n' >"$B/overflow.pgm"
printf 'P5\n200000 200000\n255\n' >"$B/toobig.pgm"
printf 'P6\n262144 262144\n65535\n' >"$B/toobig16.ppm"
printf 'P5\n2 2\n0\n\0\0\0\0' >"$B/maxval0.pgm"
printf 'P5\n2 2\n70000\n\0\0\0\0\0\0\0\0' >"$B/maxval70000.pgm"
printf 'P2\n2 2\n10\n1 2 3 11\n' >"$B/above-maxval.pgm"
printf '\003\177\201\377\020\042\333\300\001\017\200\100\377\376\375\374' >"$B/random.bin"
head -c 1000 "$SAMPLES/chelsea.png" >"$B/trunc.png"
head -c 600 "$SAMPLES/small.jpg" >"$B/trunc.jpg"
mkdir -p "$B/dir.pgm"

for f in empty.pgm trunc-header.pgm trunc-pixels.pgm width0.pgm height0.pgm \
    negative.pgm overflow.pgm toobig.pgm toobig16.ppm maxval0.pgm \
    maxval70000.pgm above-maxval.pgm random.bin trunc.png trunc.jpg dir.pgm; do
	sobel_bad "$f" 1 "$BIN/sobel" --cpu "$B/$f" "$TMP/bad/out.pgm"
done
sobel_bad missing-file 1 "$BIN/sobel" --cpu "$B/nonexistent.pgm" "$TMP/bad/out.pgm"
sobel_bad unwritable 1 "$BIN/sobel" --cpu "$SAMPLES/coins.pgm" "$B/no/such/dir/out.pgm"
sobel_bad stream-then-garbage 1 sh -c "cat '$SAMPLES/px2x3.pgm' '$B/trunc-pixels.pgm' |
    '$BIN/sobel' --cpu - '$TMP/bad/out.pgm'"
sobel_bad t-abc 2 "$BIN/sobel" -t abc "$SAMPLES/coins.pgm" "$TMP/bad/out.pgm"
sobel_bad t-negative 2 "$BIN/sobel" -t -5 "$SAMPLES/coins.pgm" "$TMP/bad/out.pgm"
sobel_bad m-bogus 2 "$BIN/sobel" -m bogus "$SAMPLES/coins.pgm" "$TMP/bad/out.pgm"
sobel_bad border-bogus 2 "$BIN/sobel" --border bogus "$SAMPLES/coins.pgm" "$TMP/bad/out.pgm"
sobel_bad norm-bogus 2 "$BIN/sobel" --norm l3 "$SAMPLES/coins.pgm" "$TMP/bad/out.pgm"
sobel_bad block-bogus 2 "$BIN/sobel" --block 32 "$SAMPLES/coins.pgm" "$TMP/bad/out.pgm"
sobel_bad rows-zero 2 "$BIN/sobel" --rows 0 "$SAMPLES/coins.pgm" "$TMP/bad/out.pgm"
sobel_bad format-bogus 2 "$BIN/sobel" -f gif "$SAMPLES/coins.pgm" "$TMP/bad/out.pgm"
sobel_bad unknown-option 2 "$BIN/sobel" --frobnicate "$SAMPLES/coins.pgm" "$TMP/bad/out.pgm"
sobel_bad too-many-operands 2 "$BIN/sobel" "$SAMPLES/coins.pgm" "$TMP/bad/out.pgm" "$TMP/bad/x"
sobel_bad outdir-not-dir 2 "$BIN/sobel" -o "$TMP/bad/out.pgm" "$SAMPLES/coins.pgm"

# --help and --version succeed; the man page is lint-clean.
if "$BIN/sobel" --help >/dev/null && "$BIN/sobel" -V | grep -q gpufilt; then
	pass sobel/help-version
else
	fail sobel/help-version "--help or -V failed"
fi
