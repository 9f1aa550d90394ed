# Streams of JPEG and PNG images, alone and mixed with PNM (issue 32), as
# `ffmpeg -f image2pipe -vcodec mjpeg -` and MJPEG cameras send them:
# every image of a file or of standard input is filtered, each into the
# bytes that the image alone gives; bytes after an image that are not an
# image fail the run, after the images before them are written.  Every
# strategy; GPU ones are skipped without a GPU.  Sourced by tests/run.sh.

ST=$TMP/stream
mkdir -p "$ST"
# The images: colour JPEG 4:4:4 (quality 95) and 4:2:0 (60), the 4:2:0
# sample, 8-bit RGB, 16-bit gray and 1x1 PNG, and an 8-bit PGM.
"$BIN/conv2d" -q --cpu -k identity "$SAMPLES/chelsea.png" "$ST/c.jpg" &&
    "$BIN/conv2d" -q --cpu -k identity --quality 60 "$SAMPLES/chelsea.png" "$ST/c60.jpg" &&
    "$BIN/conv2d" -q --cpu -k identity "$SAMPLES/astro16.pgm" "$ST/a16.png" &&
    "$BIN/conv2d" -q --cpu -k identity "$SAMPLES/px1x1.pgm" "$ST/p1.png" ||
    fail stream/inputs "cannot make the stream's images"
cp "$SAMPLES/small.jpg" "$ST/s.jpg"
cp "$SAMPLES/chelsea.png" "$ST/c.png"
cp "$SAMPLES/coins.pgm" "$ST/k.pgm"

# name|images, in order
stream_cases() {
	cat <<'END'
jpeg|c.jpg s.jpg c60.jpg c.jpg
png|c.png a16.png p1.png c.png
mixed|k.pgm c.jpg c.png s.jpg k.pgm a16.png c60.jpg p1.png
alternate|s.jpg k.pgm c60.jpg k.pgm s.jpg p1.png k.pgm c.jpg k.pgm
END
}

# Tool $1 (its options in $2, a name for files in $3) on every stream,
# from a file and through a pipe, with strategy $4: one line per case.
stream_tool() {
	t=$1 opts=$2 n=$3 m=$4
	stream_cases | while IFS='|' read -r name imgs; do
		D=$ST/$n-$m-$name
		mkdir -p "$D"
		: >"$D/want"
		: >"$D/in"
		for i in $imgs; do
			# shellcheck disable=SC2086
			"$BIN/$t" -q --cpu $opts "$ST/$i" - >>"$D/want" 2>>"$D/err"
			cat "$ST/$i" >>"$D/in"
		done
		# shellcheck disable=SC2086
		"$BIN/$t" -q -m "$m" $opts "$D/in" - >"$D/file" 2>>"$D/err" ||
		    echo "exit $?" >>"$D/err"
		# shellcheck disable=SC2086
		cat "$D/in" | "$BIN/$t" -q -m "$m" $opts - - >"$D/pipe" 2>>"$D/err" ||
		    echo "exit $?" >>"$D/err"
		for how in file pipe; do
			if [ ! -s "$D/err" ] && [ -s "$D/want" ] && cmp -s "$D/want" "$D/$how"; then
				echo "ok $n/$m/$name/$how"
			else
				echo "bad $n/$m/$name/$how $(cat "$D/err" | tr '\n' ' ')"
			fi
		done
	done
}

for tool in "sobel|" "edge|--auto" "conv2d|-k box:3"; do
	t=${tool%%|*} opts=${tool#*|}
	for m in $(strategies "$t"); do
		case $m in
		cpu|auto) ;;
		*) have_gpu || { skip "stream/$t/$m" "no GPU"; continue; } ;;
		esac
		stream_tool "$t" "$opts" "$t" "$m" >"$ST/$t-$m.log" 2>&1
		tally stream "$ST/$t-$m.log" "differs from the images filtered one by one"
	done
done

# Bytes after the last image: garbage, a truncated JPEG, a BMP (which a
# stream cannot hold), each from a file and through a pipe.  Exit 1,
# the images before written, the message names the image they follow.
D=$ST/trail
mkdir -p "$D"
cat "$ST/c.jpg" "$ST/c.png" "$ST/k.pgm" >"$D/three"
: >"$D/want"
for i in c.jpg c.png k.pgm; do
	"$BIN/sobel" -q --cpu "$ST/$i" - >>"$D/want"
done
printf 'garbage' >"$D/garbage"
head -c 1000 "$ST/c.jpg" >"$D/truncated"
printf 'BM\066\000\000\000\000\000\000\000\066\000\000\000' >"$D/bmp"
for tail in garbage:"garbage after image 3: byte 67" \
    truncated:"the JPEG image" bmp:"garbage after image 3: byte 42"; do
	tn=${tail%%:*} msg=${tail#*:}
	cat "$D/three" "$D/$tn" >"$D/in-$tn"
	for how in file pipe; do
		if [ $how = file ]; then
			"$BIN/sobel" -q --cpu "$D/in-$tn" - >"$D/out" 2>"$D/err"
		else
			cat "$D/in-$tn" | "$BIN/sobel" -q --cpu - - >"$D/out" 2>"$D/err"
		fi
		st=$?
		why="exit $st, $(cmp "$D/want" "$D/out" 2>&1), $(cat "$D/err")"
		check "stream/trailing-$tn/$how" eval '[ $st -eq 1 ] &&
		    cmp -s "$D/want" "$D/out" && grep -q "$msg" "$D/err"'
	done
done

# A JPEG stream written whole to a JPEG or PNG file is refused, as a
# PNM stream is: such a file holds one image.
cat "$ST/c.jpg" "$ST/s.jpg" >"$D/two.jpg"
"$BIN/sobel" -q --cpu "$D/two.jpg" "$D/two-out.png" 2>"$D/err"
st=$?
why="exit $st: $(cat "$D/err")"
check stream/one-image-output eval '[ $st -eq 1 ] && [ ! -e "$D/two-out.png" ] &&
    grep -q "write PNM for a stream" "$D/err"'

# A batch of streams: each output holds its input's images.
mkdir -p "$D/batch"
cat "$ST/c.jpg" "$ST/s.jpg" >"$D/js.jpg"
cat "$ST/c.png" "$ST/k.pgm" "$ST/c60.jpg" >"$D/mix.png"
"$BIN/edge" -q --cpu --auto "$ST/c.jpg" - >"$D/js.want" &&
    "$BIN/edge" -q --cpu --auto "$ST/s.jpg" - >>"$D/js.want" &&
    "$BIN/edge" -q --cpu --auto "$ST/c.png" - >"$D/mix.want" &&
    "$BIN/edge" -q --cpu --auto "$ST/k.pgm" - >>"$D/mix.want" &&
    "$BIN/edge" -q --cpu --auto "$ST/c60.jpg" - >>"$D/mix.want"
"$BIN/edge" -q --auto -j 2 -o "$D/batch" "$D/js.jpg" "$D/mix.png" 2>"$D/err"
st=$?
why="exit $st: $(cat "$D/err")"
check stream/batch eval '[ $st -eq 0 ] && cmp -s "$D/batch/js.pgm" "$D/js.want" &&
    cmp -s "$D/batch/mix.pgm" "$D/mix.want"'
