# conv2d: golden images for every strategy and the separable path, launch
# shapes, streams, a pipeline, batches and the named kernels (malformed
# kernels and other bad input: t_bad.sh).  Sourced by tests/run.sh.

. ./tests/cases_conv2d.sh
. ./tests/golden_run.sh

golden_all conv2d

# Launch shapes that do not divide the images, 2D and separable.
conv2d_shapes() {
	cat <<'END'
global|--block 13x7|k9wrap
texture|--block 5x3|k9wrap
shared|--block 8x2 --rows 3|k9wrap
shared|--block 32x32 --rows 1|gauss14-2d
shared|--block 8x32 --rows 3|k9wrap
shared|--block 8x16 --rows 1|sharpen
shared|--block 8x16 --rows 5|laplace-abs
sliding|--block 7x3 --rows 5|k9wrap
sliding|--block 64x1 --rows 1|gauss14-2d
sliding|--block 2x2 --rows 700|sharpen
global|--block 16x4 --rows 9|gauss14
shared|--block 1x1 --rows 1|gauss4reflect
END
}
conv2d_shapes | while IFS='|' read -r m shape cfg; do
	opts=$(conv2d_configs | sed -n "s/^$cfg|//p")
	for s in retina1023x517 px1x700 px700x1 px2x3; do
		if ! have_gpu; then echo "skip $m:$shape:$cfg:$s"; continue; fi
		# shellcheck disable=SC2086
		if limited "$BIN/conv2d" -q -m "$m" $shape $opts "$SAMPLES/$s.pgm" \
		    "$TMP/c2shape.pgm" && cmp -s "$TMP/c2shape.pgm" "$GOLDEN/conv2d/$s.$cfg.pgm"; then
			echo "ok $m:$shape:$cfg:$s"
		else
			echo "bad $m:$shape:$cfg:$s"
		fi
	done
done >"$TMP/c2shapes.log" 2>&1
tally conv2d/shape "$TMP/c2shapes.log" "differs from golden or failed"

# A shape the device cannot run is refused with a message, exit 1.
if have_gpu; then
	if ! "$BIN/conv2d" -k gauss:4 --no-separable -m shared --block 32x32 --rows 64 \
	    "$SAMPLES/coins.pgm" "$TMP/x.pgm" 2>"$TMP/err" && grep -q 'shared memory' "$TMP/err"; then
		pass conv2d/shape/too-much-shared-memory
	else
		fail conv2d/shape/too-much-shared-memory "$(cat "$TMP/err")"
	fi
else
	skip conv2d/shape/refused "no GPU"
fi

# Streams: three images through standard input and output, in order.
cat "$SAMPLES/coins.pgm" "$SAMPLES/px2x3.pgm" "$SAMPLES/astro16.pgm" >"$TMP/c2stream.pnm"
cat "$GOLDEN/conv2d/coins.gauss14.pgm" "$GOLDEN/conv2d/px2x3.gauss14.pgm" \
    "$GOLDEN/conv2d/astro16.gauss14.pgm" >"$TMP/c2stream.want"
for m in $(strategies conv2d); do
	[ "$m" = auto ] && continue
	if [ "$m" != cpu ] && ! have_gpu; then skip "conv2d/stream/$m" "no GPU"; continue; fi
	if limited "$BIN/conv2d" -q -m "$m" -k gauss:1.4 <"$TMP/c2stream.pnm" \
	    >"$TMP/c2stream.got" && cmp -s "$TMP/c2stream.got" "$TMP/c2stream.want"; then
		pass "conv2d/stream/$m"
	else
		fail "conv2d/stream/$m" "three-image stream differs from the goldens"
	fi
done

# A pipeline: a blur before sobel equals the same two steps through files.
"$BIN/conv2d" -q -k gauss:1.4 "$SAMPLES/coins.pgm" "$TMP/c2p1.pgm" &&
    "$BIN/sobel" -q -t 60 "$TMP/c2p1.pgm" "$TMP/c2p2.pgm"
if "$BIN/conv2d" -q -k gauss:1.4 <"$SAMPLES/coins.pgm" | "$BIN/sobel" -q -t 60 \
    >"$TMP/c2p3.pgm" && cmp -s "$TMP/c2p2.pgm" "$TMP/c2p3.pgm"; then
	pass conv2d/pipe
else
	fail conv2d/pipe "pipeline output differs from the file-to-file result"
fi

# Batch: -o DIR, colour kept as PPM.
mkdir -p "$TMP/c2batch"
if "$BIN/conv2d" -q -k sharpen -o "$TMP/c2batch" "$SAMPLES/coins.pgm" "$SAMPLES/chelsea.png" &&
    cmp -s "$TMP/c2batch/coins.pgm" "$GOLDEN/conv2d/coins.sharpen.pgm" &&
    cmp -s "$TMP/c2batch/chelsea.ppm" "$GOLDEN/conv2d/chelsea.sharpen.ppm"; then
	pass conv2d/batch
else
	fail conv2d/batch "outputs missing or different"
fi

# The named kernels run, and inline text equals the same kernel from a file.
printf '# blur\n1 2 1\n2 4 2   # middle\n1 2 1\n' >"$TMP/blur.k"
if "$BIN/conv2d" -q --cpu -k @"$TMP/blur.k" --normalize "$SAMPLES/coins.pgm" "$TMP/c2f.pgm" &&
    cmp -s "$TMP/c2f.pgm" "$GOLDEN/conv2d/coins.blur3.pgm"; then
	pass conv2d/kernel-file
else
	fail conv2d/kernel-file "@file kernel differs from the inline one"
fi
for k in box:3 gauss:2 gauss:1:3 sharpen laplace emboss sobelx sobely identity \
    laplacian laplacian:4 laplacian:8 prewitt prewittx prewitty scharrx scharry \
    log:1 dog:1,1.6 unsharp:1,1; do
	if "$BIN/conv2d" -q --cpu -k "$k" "$SAMPLES/px2x3.pgm" "$TMP/c2n.pgm"; then
		pass "conv2d/named/$k"
	else
		fail "conv2d/named/$k" "failed"
	fi
done
if "$BIN/conv2d" -q --cpu -k identity "$SAMPLES/coins.pgm" "$TMP/c2i.pgm" &&
    cmp -s "$TMP/c2i.pgm" "$SAMPLES/coins.pgm"; then
	pass conv2d/identity
else
	fail conv2d/identity "identity changed the image"
fi

# The classic named kernels and ImageMagick's kernel strings against a
# computation of their own in plain Python (tests/kernels_ref.py), from
# the definitions (OpenCV's and ImageMagick's taps, the man page's fixed
# point), on a 48x40 corner of coins with a gradient row; signed
# responses seen through --bias 128.  log:SIGMA is real, computed in
# double there: one level apart at most.  Then every GPU strategy
# against the CPU on the same kernels.
c2ref_cases() {
	cat <<'END'
laplacian|laplacian|128
laplacian:4|laplacian:4|128
laplace|laplace|128
prewitt|prewitt|128
prewittx|prewittx|128
prewitty|prewitty|128
scharrx|scharrx|128
scharry|scharry|128
dog:1,2|dog:1,2|128
dog:2,1|dog:2,1|128
unsharp:1,0.5|unsharp:1,0.5|0
unsharp:2.5,1.75|unsharp:2.5,1.75|0
log:1.4|log:1.4|128
log:0.5|log:0.5|128
-1,-1,-1,-1,8,-1,-1,-1,-1|laplacian|128
3x3: -1,-1,-1,-1,8,-1,-1,-1,-1|laplacian|128
3x3+1+1: 0 -1 0 -1 4 -1 0 -1 0|laplacian:4|128
2x2: 1 2 3 4|2x2: 1 2 3 4|0
3x2+2+0: 1 -2 3 -4 5 6|3x2+2+0: 1 -2 3 -4 5 6|128
END
}
if command -v python3 >/dev/null 2>&1; then
	python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
w, h = 384, 303
px = d[len(d) - w * h:]
rows = [px[y * w + 100:y * w + 148] for y in range(120, 160)]
rows[0] = bytes(range(0, 240, 5))
sys.stdout.buffer.write(b"P5\n48 40\n255\n" + b"".join(rows))' \
	    "$SAMPLES/coins.pgm" >"$TMP/c2ref.pgm"
	c2ref_cases | while IFS='|' read -r k ref bias; do
		if ! "$BIN/conv2d" -q --cpu -k "$k" --bias "$bias" "$TMP/c2ref.pgm" \
		    "$TMP/c2ref.got.pgm" 2>"$TMP/c2ref.err"; then
			echo "bad $k: $(cat "$TMP/c2ref.err")"
			continue
		fi
		python3 tests/kernels_ref.py "$TMP/c2ref.pgm" "$ref" --bias "$bias" \
		    >"$TMP/c2ref.want.pgm"
		case $k in
		log:*)
			python3 -c '
import sys
a, b = (open(f, "rb").read()[-1920:] for f in sys.argv[1:3])
worst = max(abs(x - y) for x, y in zip(a, b))
print("ok" if worst <= 1 and len(set(a)) > 20 else "bad", sys.argv[3], "differs by", worst)' \
			    "$TMP/c2ref.got.pgm" "$TMP/c2ref.want.pgm" "$k" ;;
		*)
			if cmp -s "$TMP/c2ref.got.pgm" "$TMP/c2ref.want.pgm"; then
				echo "ok $k"
			else
				echo "bad $k: differs from tests/kernels_ref.py"
			fi ;;
		esac
	done >"$TMP/c2ref.log" 2>&1
	tally conv2d/named-ref "$TMP/c2ref.log" "differs from the Python computation"
else
	skip conv2d/named-ref "python3 is not installed"
fi
for k in laplacian log:1.4 dog:1,2 unsharp:1,0.5 scharrx "3x2+2+0: 1 -2 3 -4 5 6"; do
	"$BIN/conv2d" -q --cpu -k "$k" --bias 100 "$SAMPLES/coins.pgm" "$TMP/c2g.cpu.pgm"
	for m in $(strategies conv2d); do
		case $m in auto|cpu) continue ;; esac
		if ! have_gpu; then skip "conv2d/named-gpu/$k/$m" "no GPU"; continue; fi
		if "$BIN/conv2d" -q -m "$m" -k "$k" --bias 100 "$SAMPLES/coins.pgm" \
		    "$TMP/c2g.pgm" && cmp -s "$TMP/c2g.pgm" "$TMP/c2g.cpu.pgm"; then
			pass "conv2d/named-gpu/$k/$m"
		else
			fail "conv2d/named-gpu/$k/$m" "differs from the CPU"
		fi
	done
done

# A row of an odd square count of values is read as a square, with a
# note in -v; ending it with ';' keeps it one row.
if "$BIN/conv2d" -v --cpu -k "-1,-1,-1,-1,8,-1,-1,-1,-1" "$SAMPLES/px2x3.pgm" \
    "$TMP/sq.pgm" 2>"$TMP/sq.err" && grep -q 'read as 3x3 rows' "$TMP/sq.err" &&
    grep -q 'kernel 3x3' "$TMP/sq.err" &&
    "$BIN/conv2d" -v --cpu -k "1 1 1 1 1 1 1 1 1;" "$SAMPLES/px2x3.pgm" \
    "$TMP/sq.pgm" 2>"$TMP/sq.err" && grep -q 'kernel 9x1' "$TMP/sq.err" &&
    ! grep -q 'read as' "$TMP/sq.err"; then
	pass conv2d/odd-square-row
else
	fail conv2d/odd-square-row "$(cat "$TMP/sq.err")"
fi


if "$BIN/conv2d" --help >/dev/null && "$BIN/conv2d" -V | grep -q gpufilt; then
	pass conv2d/help-version
else
	fail conv2d/help-version "--help or -V failed"
fi
