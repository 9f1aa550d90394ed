# edge: golden images for every strategy, the smoothing stage against
# conv2d, streams, batches, and the bad inputs.  Sourced by tests/run.sh.

. ./tests/cases_edge.sh

ebase() { n=${1##*/}; echo "${n%.*}"; }

# One strategy over every sample and option set, against the golden files.
edge_golden() {
	m=$1
	edge_configs | while IFS='|' read -r cfg opt8 opt16; do
		d=$TMP/edge-$m-$cfg
		mkdir -p "$d"
		for s in $EDGE_SAMPLES; do
			case $s in astro16*) o=$opt16 ;; *) o=$opt8 ;; esac
			# shellcheck disable=SC2086
			limited "$BIN/edge" -q -m "$m" $o -o "$d" "$SAMPLES/$s" 2>"$d.err" ||
				echo "run $s.$cfg: $(cat "$d.err")"
			if cmp -s "$d/$(ebase "$s").pgm" "$GOLDEN/edge/$(ebase "$s").$cfg.pgm"
			then echo "ok $s.$cfg"; else echo "bad $s.$cfg"; fi
		done
	done >"$TMP/edge-golden-$m.log"
	while read -r what rest; do
		case $what in
		ok) pass "edge/golden/$m/$rest" ;;
		bad) fail "edge/golden/$m/$rest" "differs from $GOLDEN/edge" ;;
		run) fail "edge/golden/$m/run" "$rest" ;;
		esac
	done <"$TMP/edge-golden-$m.log"
}

for m in $(strategies edge); do
	if [ "$m" = cpu ] || [ "$m" = auto ] || have_gpu; then
		edge_golden "$m"
	else
		skip "edge/golden/$m" "no GPU"
	fi
done

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

# Bad input: an "edge:" message, the exit status, an existing output untouched.
edge_bad() {
	name=$1 want=$2
	shift 2
	mkdir -p "$TMP/ebad"
	rm -f "$TMP/ebad/"* "$TMP/ebad/".out* 2>/dev/null
	printf 'precious\n' >"$TMP/ebad/out.pgm"
	limited "$@" >"$TMP/ebad.stdout" 2>"$TMP/ebad.err" </dev/null
	st=$?
	if [ "$st" -ne "$want" ]; then
		fail "edge/bad/$name" "exit $st, expected $want: $(head -c 200 "$TMP/ebad.err")"
	elif ! grep -q '^edge: ' "$TMP/ebad.err"; then
		fail "edge/bad/$name" "no 'edge:' message: $(head -c 200 "$TMP/ebad.err")"
	elif [ "$(cat "$TMP/ebad/out.pgm")" != precious ]; then
		fail "edge/bad/$name" "the existing output was clobbered"
	elif [ "$(ls -A "$TMP/ebad" | wc -l)" -ne 1 ]; then
		fail "edge/bad/$name" "left files behind: $(ls -A "$TMP/ebad")"
	else
		pass "edge/bad/$name"
	fi
}

EB=$TMP/ebadin
mkdir -p "$EB"
: >"$EB/empty.pgm"
printf 'P5\n12' >"$EB/trunc-header.pgm"
printf 'P5\n4 4\n255\nabc' >"$EB/trunc-pixels.pgm"
printf 'P5\n0 5\n255\n' >"$EB/width0.pgm"
printf 'P5\n-3 5\n255\n' >"$EB/negative.pgm"
printf 'P5\n4294967296 4294967296\n255\n' >"$EB/overflow.pgm"
printf 'P5\n2 2\n0\n\0\0\0\0' >"$EB/maxval0.pgm"
printf 'P5\n2 2\n70000\n\0\0\0\0\0\0\0\0' >"$EB/maxval70000.pgm"
printf '\003\177\201\377\020\042\333\300\001\017\200\100\377\376\375\374' >"$EB/random.bin"
head -c 1000 "$SAMPLES/chelsea.png" >"$EB/trunc.png"
mkdir -p "$EB/dir.pgm"
for f in empty.pgm trunc-header.pgm trunc-pixels.pgm width0.pgm negative.pgm \
    overflow.pgm maxval0.pgm maxval70000.pgm random.bin trunc.png dir.pgm; do
	edge_bad "$f" 1 "$BIN/edge" --cpu "$EB/$f" "$TMP/ebad/out.pgm"
done
edge_bad missing-file 1 "$BIN/edge" --cpu "$EB/nonexistent.pgm" "$TMP/ebad/out.pgm"
edge_bad unwritable 1 "$BIN/edge" --cpu "$SAMPLES/coins.pgm" "$EB/no/such/dir/out.pgm"
C=$SAMPLES/coins.pgm O=$TMP/ebad/out.pgm
edge_bad low-above-high 2 "$BIN/edge" --low 100 --high 50 "$C" "$O"
edge_bad low-without-high 2 "$BIN/edge" --low 10 "$C" "$O"
edge_bad auto-and-high 2 "$BIN/edge" --auto --high 50 "$C" "$O"
edge_bad low-abc 2 "$BIN/edge" --low abc --high 9 "$C" "$O"
edge_bad high-negative 2 "$BIN/edge" --high -5 "$C" "$O"
edge_bad sigma-too-large 2 "$BIN/edge" --sigma 11 "$C" "$O"
edge_bad m-bogus 2 "$BIN/edge" -m bogus "$C" "$O"
edge_bad border-bogus 2 "$BIN/edge" --border bogus "$C" "$O"
edge_bad unknown-option 2 "$BIN/edge" --frobnicate "$C" "$O"
edge_bad outdir-not-dir 2 "$BIN/edge" -o "$O" "$C"
edge_bad too-many-operands 2 "$BIN/edge" "$C" "$O" "$TMP/ebad/x"

if "$BIN/edge" --help >/dev/null && "$BIN/edge" -V | grep -q gpufilt; then
	pass edge/help-version
else
	fail edge/help-version "--help or -V failed"
fi
