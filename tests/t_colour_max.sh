# sobel and edge --colour max (the largest-gradient channel): every
# strategy over the golden cases of tests/cases_max.sh (16-bit RGB, RGBA
# with tied channels, 16-bit RGBA; the samples' cases run in t_sobel.sh
# and t_edge.sh), strips of a tall image, gray and gray+alpha input
# equal to --colour gray, and the output's one channel.  GPU cases skip
# without a GPU.  Sourced by tests/run.sh.

. ./tests/cases_max.sh
CM=$TMP/colour-max
MD=$GOLDEN/max
mkdir -p "$CM"

# Strategy $1 over every case, one batch per case (two where the 16-bit
# inputs' options differ), into $CM/golden-$1.log as tally reads it.
max_golden_one() {
	m=$1
	max_configs | while IFS='|' read -r tool cfg opt8 opt16; do
		d=$CM/$m-$tool-$cfg
		mkdir -p "$d"
		i8= i16=
		for s in $MAX_INPUTS; do
			if max_wide "$s"; then i16="$i16 $MD/$s"; else i8="$i8 $MD/$s"; fi
		done
		[ "$opt16" != "$opt8" ] || { i8="$i8 $i16" i16=; }
		# shellcheck disable=SC2086
		[ -z "$i8" ] || limited "$BIN/$tool" -q -m "$m" $opt8 -o "$d" $i8 \
		    2>>"$d.err" || echo "run $tool $cfg: $(head -c 300 "$d.err")"
		# shellcheck disable=SC2086
		[ -z "$i16" ] || limited "$BIN/$tool" -q -m "$m" $opt16 -o "$d" $i16 \
		    2>>"$d.err" || echo "run $tool $cfg, 16-bit: $(head -c 300 "$d.err")"
		for s in $MAX_INPUTS; do
			n=${s%.*}
			if cmp -s "$d/$n.pgm" "$MD/$n.$tool.$cfg.pgm"; then
				echo "ok $n.$tool.$cfg"
			else
				echo "bad $n.$tool.$cfg"
			fi
		done
	done >"$CM/golden-$m.log"
}
for m in $(strategies sobel); do
	if [ "$m" = cpu ] || [ "$m" = auto ] || have_gpu; then
		max_golden_one "$m" &
	fi
done
wait
for m in $(strategies sobel); do
	if [ "$m" = cpu ] || [ "$m" = auto ] || have_gpu; then
		tally "colour-max/golden/$m" "$CM/golden-$m.log" "differs from $MD"
	else
		skip "colour-max/golden/$m" "no GPU"
	fi
done

# Gray input: --colour max gives --colour gray's bytes; gray and alpha
# (its alpha ignored) too, on the CPU and every GPU strategy.
printf 'P7\nWIDTH 23\nHEIGHT 19\nDEPTH 2\nMAXVAL 255\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n' >"$CM/ga.pam"
awk 'BEGIN { for (i = 0; i < 23 * 19 * 2; i++) printf "%c", 16 + (i * 53 + int(i / 46) * 7) % 230 }' >>"$CM/ga.pam"
for m in $(strategies sobel); do
	if [ "$m" != cpu ] && [ "$m" != auto ] && ! have_gpu; then
		skip "colour-max/gray/$m" "no GPU"
		continue
	fi
	bad=
	for c in "sobel" "sobel -t auto" "sobel --operator sobel7 --gradient direction" \
	    "edge" "edge --sigma 0 --high q0.8"; do
		for f in "$SAMPLES/coins.pgm" "$SAMPLES/astro16.pgm" "$CM/ga.pam"; do
			# shellcheck disable=SC2086
			"$BIN"/$c -q -m "$m" --colour gray "$f" "$CM/g-$m.pgm" &&
			    "$BIN"/$c -q -m "$m" --colour max "$f" "$CM/x-$m.pgm" &&
			    cmp -s "$CM/g-$m.pgm" "$CM/x-$m.pgm" || bad="$bad $c:$(basename "$f")"
		done
	done
	if [ -z "$bad" ]; then pass "colour-max/gray/$m"; else fail "colour-max/gray/$m" "$bad"; fi
done

# One channel out, whatever comes in: a PGM of the input's size.
"$BIN/sobel" -q --cpu --colour max "$MD/rgba16.pam" "$CM/one.pnm"
check colour-max/one-channel sh -c '[ "$(head -c 2 "$1")" = P5 ] &&
    [ "$(sed -n 2p "$1")" = "33 27" ] && [ "$(sed -n 3p "$1")" = 65535 ]' sh "$CM/one.pnm"

# GPU: strips of 7 rows (a hidden knob) equal the CPU on every strategy,
# 8 and 16 bit; edge and -t auto take the whole image (no strips).
for m in $(gpu_strategies sobel); do
	if ! have_gpu; then skip "colour-max/strips/$m" "no GPU"; continue; fi
	bad=
	for c in "sobel --colour max" "sobel --colour max --operator sobel7 -t 9000 --border reflect" \
	    "sobel --colour max --gradient direction --border zero" "edge --colour max"; do
		for f in "$SAMPLES/chelsea.png" "$MD/rgb16.ppm" "$MD/rgba8.pam"; do
			# shellcheck disable=SC2086
			"$BIN"/$c -q --cpu "$f" "$CM/ref.pgm" &&
			    GPUFILT_STRIP_ROWS=7 "$BIN"/$c -q -m "$m" "$f" "$CM/strip.pgm" 2>"$CM/strip.err" &&
			    cmp -s "$CM/ref.pgm" "$CM/strip.pgm" ||
			    bad="$bad $c:$(basename "$f"):$(head -c 200 "$CM/strip.err")"
		done
	done
	if [ -z "$bad" ]; then pass "colour-max/strips/$m"; else fail "colour-max/strips/$m" "$bad"; fi
done

# A stream of colour and gray images of both depths, -j 1 and -j 4, is
# the images one by one, in order, on the CPU and every GPU strategy.
cat "$MD/rgb16.ppm" "$SAMPLES/coins.pgm" "$MD/rgba8.pam" "$MD/rgba16.pam" >"$CM/stream.pnm"
for m in $(strategies sobel); do
	if [ "$m" != cpu ] && [ "$m" != auto ] && ! have_gpu; then
		skip "colour-max/stream/$m" "no GPU"
		continue
	fi
	bad=
	for c in "sobel --colour max -t auto" "edge --colour max"; do
		: >"$CM/each.pnm"
		for f in "$MD/rgb16.ppm" "$SAMPLES/coins.pgm" "$MD/rgba8.pam" "$MD/rgba16.pam"; do
			# shellcheck disable=SC2086
			"$BIN"/$c -q -m "$m" "$f" - >>"$CM/each.pnm" || bad="$bad $c:each"
		done
		for j in 1 4; do
			# shellcheck disable=SC2086
			"$BIN"/$c -q -m "$m" -j $j "$CM/stream.pnm" "$CM/s$j.pnm" &&
			    cmp -s "$CM/s$j.pnm" "$CM/each.pnm" || bad="$bad $c:-j$j"
		done
	done
	if [ -z "$bad" ]; then pass "colour-max/stream/$m"; else fail "colour-max/stream/$m" "$bad"; fi
done

# A stream of colour JPEG frames, split over the decode pool
# (engine_split.c, colour decoded for --colour max): each frame's bytes.
cat "$SAMPLES/small.jpg" "$SAMPLES/small.jpg" "$SAMPLES/small.jpg" >"$CM/mjpeg.jpg"
bad=
for c in "sobel --colour max" "edge --colour max"; do
	# shellcheck disable=SC2086
	"$BIN"/$c -q "$SAMPLES/small.jpg" - >"$CM/one.pnm" &&
	    cat "$CM/one.pnm" "$CM/one.pnm" "$CM/one.pnm" >"$CM/three.pnm" &&
	    "$BIN"/$c -q -j 3 - - <"$CM/mjpeg.jpg" >"$CM/split.pnm" &&
	    cmp -s "$CM/three.pnm" "$CM/split.pnm" || bad="$bad $c"
done
if [ -z "$bad" ]; then pass colour-max/jpeg-stream; else fail colour-max/jpeg-stream "$bad"; fi
