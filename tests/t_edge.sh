# edge: golden images for every strategy, launch shapes, streams and
# batches (bad input: t_bad.sh).  Sourced by tests/run.sh.

. ./tests/cases_edge.sh
. ./tests/golden_run.sh

golden_all edge

# Launch shapes that do not divide the image, on every GPU strategy.
for shape in "global|--block 13x7" "texture|--block 5x3" \
    "shared|--block 3x1 --rows 1" "shared|--block 8x2 --rows 5" \
    "sliding|--block 7x3 --rows 5" "sliding|--block 2x2 --rows 700"; do
	m=${shape%%|*} opts=${shape#*|}
	if ! have_gpu; then skip "edge/shape/$m $opts" "no GPU"; continue; fi
	for s in retina1023x517 px1x700 px700x1; do
		# shellcheck disable=SC2086
		if limited "$BIN/edge" -q -m "$m" $opts --sigma 0 --low 40 --high 100 \
		    "$SAMPLES/$s.pgm" "$TMP/shape.pgm" &&
		    cmp -s "$TMP/shape.pgm" "$GOLDEN/edge/$s.s0.pgm"; then
			pass "edge/shape/$m $opts/$s"
		else
			fail "edge/shape/$m $opts/$s" "differs from golden or failed"
		fi
	done
done

# A noisy frame (bench/framegen), where at sigma 0 a third of the pixels
# are local maxima and nearly all of them candidates: hysteresis joins
# pending runs in nearly every tile and across most tile borders.  Each
# GPU strategy against the CPU reference on the same frame.
"$ROOT/build/bench/framegen" 1 700 500 >"$TMP/noise.pgm"
for cfg in "--sigma 0 --auto" "--sigma 0 --low 20 --high 60 --l1"; do
	# shellcheck disable=SC2086
	"$BIN/edge" -q --cpu $cfg "$TMP/noise.pgm" "$TMP/noise-want.pgm" ||
	    fail "edge/noise/cpu $cfg" "the CPU reference failed"
	for m in $(strategies edge); do
		case $m in cpu|auto) continue ;; esac
		if ! have_gpu; then skip "edge/noise/$m $cfg" "no GPU"; continue; fi
		# shellcheck disable=SC2086
		if limited "$BIN/edge" -q -m "$m" $cfg "$TMP/noise.pgm" "$TMP/noise-got.pgm" &&
		    cmp -s "$TMP/noise-got.pgm" "$TMP/noise-want.pgm"; then
			pass "edge/noise/$m $cfg"
		else
			fail "edge/noise/$m $cfg" "differs from --cpu or failed"
		fi
	done
done

# Three images in one PNM stream come out as three golden images in order.
cat "$SAMPLES/coins.pgm" "$SAMPLES/px2x3.pgm" "$SAMPLES/astro16.pgm" >"$TMP/estream.pnm"
cat "$GOLDEN/edge/coins.s0auto.pgm" "$GOLDEN/edge/px2x3.s0auto.pgm" \
    "$GOLDEN/edge/astro16.s0auto.pgm" >"$TMP/estream.want"
for m in $(strategies edge); do
	[ "$m" = auto ] && continue
	if [ "$m" != cpu ] && ! have_gpu; then skip "edge/stream/$m" "no GPU"; continue; fi
	if limited "$BIN/edge" -q -m "$m" --sigma 0 --auto <"$TMP/estream.pnm" \
	    >"$TMP/estream.got" && cmp -s "$TMP/estream.got" "$TMP/estream.want"; then
		pass "edge/stream/$m"
	else
		fail "edge/stream/$m" "three-image stream differs from the goldens"
	fi
done

# Batch: -o DIR, one output per input.
mkdir -p "$TMP/ebatch"
if "$BIN/edge" -q --sigma 0 --low 40 --high 100 -o "$TMP/ebatch" \
    "$SAMPLES/coins.pgm" "$SAMPLES/chelsea.png" &&
    cmp -s "$TMP/ebatch/coins.pgm" "$GOLDEN/edge/coins.s0.pgm" &&
    cmp -s "$TMP/ebatch/chelsea.pgm" "$GOLDEN/edge/chelsea.s0.pgm"; then
	pass edge/batch
else
	fail edge/batch "outputs missing or different"
fi

# -v names the thresholds; Otsu's are printed when chosen.
if "$BIN/edge" -q -v --cpu --sigma 0 --auto "$SAMPLES/coins.pgm" "$TMP/v.pgm" \
    2>"$TMP/v.err" && grep -q '^edge: .*low [0-9.]* high [0-9]* (Otsu)' "$TMP/v.err"; then
	pass edge/verbose-threshold
else
	fail edge/verbose-threshold "$(cat "$TMP/v.err")"
fi

# Percentages and quantiles of the gradient, worked by hand: a 10x6
# image of two halves, 0 and 50, has (--sigma 0, replicate) the Sobel
# magnitude 200 in the two columns at the step and 0 in the other
# eight: 80% of the pixels at 0, 20% at 200.  So q0.7 is 0, q0.85 is
# 200, 50% of the range is 100, --high alone halves it.
python3 -c 'import sys; sys.stdout.buffer.write(b"P5\n10 6\n255\n" + (b"\0" * 5 + b"2" * 5) * 6)' \
    >"$TMP/step.pgm" 2>/dev/null || printf 'P5\n10 6\n255\n' >"$TMP/step.pgm"
edge_thr_case() {
	want=$1
	shift
	"$BIN/edge" -v --cpu --sigma 0 "$@" "$TMP/step.pgm" "$TMP/step.out.pgm" \
	    2>"$TMP/step.err" || return 1
	grep -q "low $want," "$TMP/step.err"
}
if ! command -v python3 >/dev/null 2>&1; then
	skip edge/thresholds-of-histogram "python3 is not installed"
elif edge_thr_case "0 high 200" --low q0.7 --high q0.85 &&
    edge_thr_case "100 high 200" --low 50% --high 100% &&
    edge_thr_case "50 high 100" --high 50% &&
    edge_thr_case "0 high 0" --quantiles --high 0.8 &&
    edge_thr_case "100 high 200" --quantiles --high 0.81 &&
    edge_thr_case "20 high 200" --low 20 --high q1; then
	pass edge/thresholds-of-histogram
else
	fail edge/thresholds-of-histogram "$(cat "$TMP/step.err")"
fi

# The same thresholds as numbers give the same edges; each GPU strategy
# gives the CPU's with percentages and quantiles.
for t in "--high q0.9" "--low q0.8 --high q0.95" "--high 30%" "--low 5% --high q0.9"; do
	# shellcheck disable=SC2086
	"$BIN/edge" -v --cpu $t "$SAMPLES/retina1023x517.pgm" "$TMP/eq.cpu.pgm" \
	    2>"$TMP/eq.err"
	lh=$(sed -n 's/.* low \([0-9.]*\) high \([0-9.]*\),.*/--low \1 --high \2/p' "$TMP/eq.err")
	# shellcheck disable=SC2086
	if [ -n "$lh" ] && "$BIN/edge" -q --cpu $lh "$SAMPLES/retina1023x517.pgm" \
	    "$TMP/eq.num.pgm" && cmp -s "$TMP/eq.cpu.pgm" "$TMP/eq.num.pgm"; then
		pass "edge/thresholds-as-numbers/$t"
	else
		fail "edge/thresholds-as-numbers/$t" "'$lh' differs"
	fi
	for m in $(strategies edge); do
		case $m in auto|cpu) continue ;; esac
		if ! have_gpu; then skip "edge/thresholds-gpu/$t/$m" "no GPU"; continue; fi
		# shellcheck disable=SC2086
		if "$BIN/edge" -q -m "$m" $t "$SAMPLES/retina1023x517.pgm" "$TMP/eq.gpu.pgm" &&
		    cmp -s "$TMP/eq.gpu.pgm" "$TMP/eq.cpu.pgm"; then
			pass "edge/thresholds-gpu/$t/$m"
		else
			fail "edge/thresholds-gpu/$t/$m" "differs from the CPU"
		fi
	done
done
for bad in "--high 101%" "--high q1.5" "--high qx" "--low 20% --high 10%" \
    "--quantiles --high 2" "--quantiles" "--low q0.5"; do
	# shellcheck disable=SC2086
	"$BIN/edge" --cpu $bad "$SAMPLES/px2x3.pgm" "$TMP/x.pgm" 2>"$TMP/bad.err"
	if [ $? = 2 ] && grep -q '^edge: ' "$TMP/bad.err"; then
		pass "edge/thresholds-refused/$bad"
	else
		fail "edge/thresholds-refused/$bad" "$(cat "$TMP/bad.err")"
	fi
done

if "$BIN/edge" --help >/dev/null && "$BIN/edge" -V | grep -q gpufilt; then
	pass edge/help-version
else
	fail edge/help-version "--help or -V failed"
fi
