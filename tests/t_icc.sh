# ICC profiles (issue 43, point 7): an input's embedded profile comes out
# byte for byte in every output format that holds one (PNG, JPEG, TIFF,
# WebP), from every input format that does; only where it describes the
# output (GRAY on gray, RGB on colour: the gray outputs of sobel and edge
# leave a colour input's out, --colour channels keeps it); never in PNM,
# which has no place for it; in a batch and from a pipe each image's own;
# on the GPU, and from the GPU's JPEG engines, as on the CPU; and hostile
# profiles (JPEG markers that lie about their numbers, a PNG iCCP that
# inflates past 16 MiB, a profile that is no profile) are dropped, the
# image read as if it had none.  Profiles are made and read back by
# tests/iccmake.c through the reference libraries (libjpeg-turbo's
# jpeg_read_icc_profile, libpng, libtiff, libwebpdemux), never through
# gpufilt's readers.  The reader and writer units are tests/icc_test.c.
# Sourced by tests/run.sh.

I=$TMP/icc
mkdir -p "$I"
ICCMAKE=$ROOT/$BUILD/tests/iccmake
ID="0 0 0; 0 1 0; 0 0 0"
# Whether file $1 holds exactly the profile in file $2 (reference readers).
has_icc() { "$ICCMAKE" extract "$1" 2>/dev/null | cmp -s - "$2"; }
# Whether file $1 holds no profile.
no_icc() { "$ICCMAKE" extract "$1" >/dev/null 2>&1; [ $? -eq 1 ]; }

# An RGB profile of 200000 bytes (four JPEG markers), smaller ones, a
# GRAY one and a CMYK one.
"$ICCMAKE" profile rgb 200000 >"$I/rgb.icc" &&
    "$ICCMAKE" profile rgb 1000 >"$I/rgb2.icc" &&
    "$ICCMAKE" profile rgb 60000 >"$I/mid.icc" &&
    "$ICCMAKE" profile gray 3000 >"$I/gray.icc" &&
    "$ICCMAKE" profile cmyk >"$I/cmyk.icc" &&
    "$BIN/conv2d" -q --cpu -k "$ID" "$SAMPLES/chelsea.png" "$I/c.ppm" &&
    "$BIN/conv2d" -q --cpu -k "$ID" "$I/c.ppm" "$I/plain.jpg" &&
    "$BIN/conv2d" -q --cpu -k "$ID" "$SAMPLES/coins.pgm" "$I/g.pgm" 2>"$I/err"
st=$?
why="exit $st: $(cat "$I/err")"
check icc/setup eval '[ $st -eq 0 ]'

# Every format pair that holds a profile, colour: conv2d keeps colour.
(
	for i in png jpg tif webp; do
		"$ICCMAKE" embed "$I/c.ppm" "$I/rgb.icc" "$I/c.$i" || echo "run embed $i"
	done
	for i in png jpg tif webp; do
		for o in png jpg tif webp; do
			if "$BIN/conv2d" -q --cpu -k "$ID" "$I/c.$i" "$I/c-$i.$o" &&
			    has_icc "$I/c-$i.$o" "$I/rgb.icc"; then
				echo "ok $i-$o"
			else
				echo "lost $i-$o"
			fi
		done
	done
) >"$I/pairs.log" 2>&1
tally icc/colour "$I/pairs.log" "the RGB profile did not come out whole"

# Gray in, gray out: the GRAY profile stays (WebP stores gray as RGB: none).
(
	for i in png jpg tif; do
		"$ICCMAKE" embed "$I/g.pgm" "$I/gray.icc" "$I/g.$i" || echo "run embed $i"
		for o in png jpg tif; do
			if "$BIN/sobel" -q --cpu "$I/g.$i" "$I/g-$i.$o" &&
			    has_icc "$I/g-$i.$o" "$I/gray.icc"; then
				echo "ok $i-$o"
			else
				echo "lost $i-$o"
			fi
		done
		if "$BIN/sobel" -q --cpu "$I/g.$i" "$I/g-$i.webp" && no_icc "$I/g-$i.webp"; then
			echo "ok $i-webp-none"
		else
			echo "kept $i-webp-none"
		fi
	done
) >"$I/gray.log" 2>&1
tally icc/gray "$I/gray.log" "the GRAY profile of a gray image was not kept (or kept in WebP)"

# Colour in, gray out (sobel, edge, conv2d of a gray input's): the RGB
# profile describes no gray image, and is left out.
(
	for i in png jpg tif webp; do
		for t in sobel edge; do
			if "$BIN/$t" -q --cpu "$I/c.$i" "$I/gt-$t-$i.png" &&
			    no_icc "$I/gt-$t-$i.png"; then
				echo "ok $t-$i"
			else
				echo "kept $t-$i"
			fi
		done
	done
	"$BIN/sobel" -q --cpu "$I/c.jpg" "$I/gt.tif" && no_icc "$I/gt.tif" &&
	    echo "ok sobel-tif" || echo "kept sobel-tif"
) >"$I/colour-gray.log" 2>&1
tally icc/colour-to-gray "$I/colour-gray.log" "an RGB profile was written on a gray output"

# --colour channels: a colour output, which keeps the RGB profile.
(
	for t in sobel edge; do
		if "$BIN/$t" -q --cpu --colour channels "$I/c.jpg" "$I/cc-$t.png" &&
		    has_icc "$I/cc-$t.png" "$I/rgb.icc"; then
			echo "ok $t"
		else
			echo "lost $t"
		fi
	done
) >"$I/channels.log" 2>&1
tally icc/colour-channels "$I/channels.log" "a colour output lost its RGB profile"

# PNM holds none: the output is the same bytes as without a profile.
"$BIN/conv2d" -q --cpu -k "$ID" "$I/c.png" "$I/c-icc.ppm" 2>"$I/err" &&
    "$BIN/conv2d" -q --cpu -k "$ID" "$I/c.ppm" "$I/c-plain.ppm" 2>>"$I/err"
st=$?
why="exit $st: $(cat "$I/err")"
check icc/pnm-dropped eval '[ $st -eq 0 ] && cmp -s "$I/c-icc.ppm" "$I/c-plain.ppm"'

# The PNG iCCP's name comes through PNG to PNG; a JPEG's gets the default.
"$ICCMAKE" png "$I/c.png" "$I/rgb2.icc" "$I/named.png" "Display P3 test" 2>"$I/err" &&
    "$BIN/conv2d" -q --cpu -k "$ID" "$I/named.png" "$I/named-out.png" 2>>"$I/err" &&
    "$BIN/conv2d" -q --cpu -k "$ID" "$I/c.jpg" "$I/jpg-out.png" 2>>"$I/err"
st=$?
why="exit $st: $(cat "$I/err") name $("$ICCMAKE" name "$I/named-out.png" 2>&1)"
check icc/png-name eval '[ $st -eq 0 ] && has_icc "$I/named-out.png" "$I/rgb2.icc" &&
    [ "$("$ICCMAKE" name "$I/named-out.png")" = "Display P3 test" ] &&
    [ "$("$ICCMAKE" name "$I/jpg-out.png")" = "ICC profile" ]'

# A batch: each output its own input's profile, and none for none.
"$ICCMAKE" embed "$I/c.ppm" "$I/rgb2.icc" "$I/b2.png" 2>"$I/err" &&
    cp "$I/c.jpg" "$I/b1.jpg" && cp "$I/c.ppm" "$I/b3.ppm" &&
    mkdir -p "$I/batch" &&
    "$BIN/conv2d" -q --cpu -k "$ID" -f png -o "$I/batch" "$I/b1.jpg" "$I/b2.png" \
    "$I/b3.ppm" 2>>"$I/err"
st=$?
why="exit $st: $(cat "$I/err"); $(ls "$I/batch")"
check icc/batch eval '[ $st -eq 0 ] && has_icc "$I/batch/b1.png" "$I/rgb.icc" &&
    has_icc "$I/batch/b2.png" "$I/rgb2.icc" && no_icc "$I/batch/b3.png"'

# From a pipe, one image at a time: a JPEG (whose frames a stream's
# decode pool may decode), a PNG and a WebP.
(
	for i in jpg png webp; do
		if "$BIN/conv2d" -q --cpu -k "$ID" -f png <"$I/c.$i" >"$I/pipe-$i.png" &&
		    has_icc "$I/pipe-$i.png" "$I/rgb.icc"; then
			echo "ok $i"
		else
			echo "lost $i"
		fi
	done
) >"$I/pipe.log" 2>&1
tally icc/pipe "$I/pipe.log" "the profile of a piped image was lost"

# JPEG markers as libjpeg-turbo joins them: in any order when their
# numbers are whole; none when they repeat, miss, disagree or lie.  The
# output's profile must be jpeg_read_icc_profile's of the input.
(
	for spec in 1/3,2/3,3/3 3/3,1/3,2/3 1/1 1/3,3/3 1/2,1/2 1/2,2/3 \
	    0/1 2/1 1/0 1/1,1/1 2/2,1/2,2/2 1/255; do
		f=$I/spec-$(echo "$spec" | tr ',/' '_-')
		"$ICCMAKE" jpeg "$I/plain.jpg" "$I/mid.icc" "$f.jpg" "$spec" ||
		    { echo "run jpeg $spec"; continue; }
		"$ICCMAKE" extract "$f.jpg" >"$f.want" 2>/dev/null
		"$BIN/conv2d" -q --cpu -k "$ID" "$f.jpg" "$f.png" || { echo "fail $spec"; continue; }
		"$ICCMAKE" extract "$f.png" >"$f.got" 2>/dev/null
		if cmp -s "$f.want" "$f.got"; then echo "ok $spec"; else echo "differ $spec"; fi
	done
) >"$I/jpeg.log" 2>&1
tally icc/jpeg-markers "$I/jpeg.log" "not libjpeg-turbo's profile for these markers"
check icc/jpeg-markers-whole eval 'has_icc "$I/spec-3-3_1-3_2-3.png" "$I/mid.icc" &&
    no_icc "$I/spec-1-2_1-2.png"'

# No profile: a CMYK one on colour, and bytes that are not a profile.
head -c 5000 /dev/zero >"$I/zeros.icc"
"$ICCMAKE" jpeg "$I/plain.jpg" "$I/cmyk.icc" "$I/cmyk.jpg" 1/1 2>"$I/err" &&
    "$ICCMAKE" jpeg "$I/plain.jpg" "$I/zeros.icc" "$I/zeros.jpg" 1/1 2>>"$I/err" &&
    "$BIN/conv2d" -q --cpu -k "$ID" "$I/cmyk.jpg" "$I/cmyk.png" 2>>"$I/err" &&
    "$BIN/conv2d" -q --cpu -k "$ID" "$I/zeros.jpg" "$I/zeros.tif" 2>>"$I/err" &&
    "$BIN/conv2d" -q --cpu -k "$ID" "$I/zeros.jpg" "$I/zeros-out.jpg" 2>>"$I/err"
st=$?
why="exit $st: $(cat "$I/err")"
check icc/not-a-profile eval '[ $st -eq 0 ] && no_icc "$I/cmyk.png" && no_icc "$I/zeros.tif" &&
    no_icc "$I/zeros-out.jpg"'

# A PNG's iCCP that inflates past 16 MiB (a 17 MB profile of zeros, 17
# KB deflated) is dropped, the image read; one of 16 MiB less 4 is kept.
"$ICCMAKE" profile rgb 17000000 zero >"$I/bomb.icc" &&
    "$ICCMAKE" profile rgb 16777212 zero >"$I/edge.icc" &&
    "$ICCMAKE" png "$I/c.png" "$I/bomb.icc" "$I/bomb.png" 2>"$I/err" &&
    "$ICCMAKE" png "$I/c.png" "$I/edge.icc" "$I/edge.png" 2>>"$I/err" &&
    "$BIN/conv2d" -q --cpu -k "$ID" "$I/bomb.png" "$I/bomb-out.png" 2>>"$I/err" &&
    "$BIN/conv2d" -q --cpu -k "$ID" "$I/edge.png" "$I/edge-out.tif" 2>>"$I/err" &&
    "$BIN/conv2d" -q --cpu -k "$ID" "$I/c.png" "$I/plain-out.png" 2>>"$I/err"
st=$?
why="exit $st: $(cat "$I/err")"
check icc/png-bomb eval '[ $st -eq 0 ] && [ $(wc -c <"$I/bomb.png") -lt 400000 ] &&
    no_icc "$I/bomb-out.png" && has_icc "$I/edge-out.tif" "$I/edge.icc"'
rm -f "$I/bomb.icc" "$I/edge.icc" "$I/edge-out.tif"

# On the GPU: every strategy's output keeps it, and a batch of JPEGs
# decoded by the GPU's JPEG engines (their profile read from the bytes'
# header, not by the CPU's decoder) keeps each file's.
if have_gpu; then
	(
		for m in $(gpu_strategies conv2d); do
			if "$BIN/conv2d" -q -m "$m" -k "$ID" "$I/c.jpg" "$I/gpu-$m.png" &&
			    has_icc "$I/gpu-$m.png" "$I/rgb.icc"; then
				echo "ok $m"
			else
				echo "lost $m"
			fi
		done
		# GPUFILT_GPU_DECODE=2: readers wait for the engines (t_jpeg_gpu).
		mkdir -p "$I/jdec" "$I/jdec-out" && cp "$I/g.jpg" "$I/jdec/g1.jpg" &&
		    cp "$I/g.jpg" "$I/jdec/g2.jpg" && cp "$I/c.jpg" "$I/jdec/c3.jpg" &&
		    cp "$I/plain.jpg" "$I/jdec/p4.jpg" || echo "run copy"
		if ! GPUFILT_GPU_DECODE=2 "$BIN/sobel" -v -o "$I/jdec-out" -f png \
		    "$I/jdec"/*.jpg 2>"$I/jdec.err"; then
			echo "run sobel: $(tail -n 1 "$I/jdec.err")"
		elif ! grep -q "decoders: [1-9]" "$I/jdec.err"; then
			echo "skip jpeg-engines"        # none on this GPU, or no libnvjpeg
		elif has_icc "$I/jdec-out/g1.png" "$I/gray.icc" &&
		    has_icc "$I/jdec-out/g2.png" "$I/gray.icc" &&
		    no_icc "$I/jdec-out/c3.png" && no_icc "$I/jdec-out/p4.png"; then
			echo "ok jpeg-engines"
		else
			echo "lost jpeg-engines"
		fi
	) >"$I/gpu.log" 2>&1
	tally icc/gpu "$I/gpu.log" "a GPU run lost the profile"
else
	skip icc/gpu "no GPU"
fi
