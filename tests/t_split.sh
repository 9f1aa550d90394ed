# A stream's JPEG frames decoded side by side (lib/engine/engine_split.c): a
# long stream of JPEG frames of every kind, PNG and PNM among them, gives
# the same bytes, exit status and messages as with the decode pool off
# (GPUFILT_SPLIT=0, the one reader decoding every image), from a file
# and through a pipe, for every tool, on the CPU and by default; so does
# one with a bad frame in its middle (one the pool fails, one the reader
# must judge, garbage, a frame over the pixel limit) or a bad end.
# Sourced by tests/run.sh.

SP=$TMP/split
mkdir -p "$SP"
JPEGGEN=$ROOT/build/bench/jpeggen
# Ten images: JPEG 4:2:0, 4:4:4 with restarts (odd size), gray,
# progressive, arithmetic, 4:1:1 turned by EXIF, 4:4:0 with restarts
# every MCU, the 4:2:0 sample; a PNG and a PGM.
{
	"$JPEGGEN" -s 420 -q 90 -S 1 320 240 >"$SP/f1.jpg" &&
	    "$JPEGGEN" -s 444 -q 75 -r 7 -S 2 161 97 >"$SP/f2.jpg" &&
	    "$JPEGGEN" -s gray -q 60 -S 3 200 150 >"$SP/f3.jpg" &&
	    "$JPEGGEN" -p -s 422 -S 4 240 180 >"$SP/f4.jpg" &&
	    "$JPEGGEN" -a -s 420 -S 5 128 96 >"$SP/f5.jpg" &&
	    "$JPEGGEN" -s 411 -o 6 -S 6 300 200 >"$SP/f6.jpg" &&
	    "$JPEGGEN" -s 440 -r 1 -o 3 -S 7 99 77 >"$SP/f7.jpg" &&
	    "$JPEGGEN" -s 420 -q 100 -S 8 2000 2000 >"$SP/big.jpg" &&
	    cp "$SAMPLES/small.jpg" "$SP/f8.jpg" &&
	    cp "$SAMPLES/chelsea.png" "$SP/f9.png" &&
	    cp "$SAMPLES/coins.pgm" "$SP/f10.pgm"
} 2>"$SP/gen.err" || fail split/inputs "cannot make the frames: $(cat "$SP/gen.err")"

# 200 images (20 rounds of the ten), with a newline after some.
split_frames() {
	r=0
	while [ $r -lt 20 ]; do
		cat "$SP/f1.jpg" "$SP/f2.jpg" "$SP/f3.jpg" "$SP/f4.jpg" "$SP/f5.jpg" \
		    "$SP/f6.jpg" "$SP/f7.jpg" "$SP/f8.jpg" "$SP/f9.png" "$SP/f10.pgm"
		[ $((r % 3)) -ne 0 ] || echo
		r=$((r + 1))
	done
}
split_frames >"$SP/good"
# Bad frames: f1 cut in its coded data, its EOI kept (the walk takes it,
# the decoder fails it); a 2000x2000 header with a few hundred bytes of
# data and an EOI (too short alone: the reader judges it in the stream);
# f1 with zeros over part of its coded data (which libjpeg decodes, to
# other pixels); garbage.
n=$(wc -c <"$SP/f1.jpg")
{ head -c $((n / 2)) "$SP/f1.jpg"; printf '\377\331'; } >"$SP/cut.jpg"
{ head -c 1000 "$SP/big.jpg"; printf '\377\331'; } >"$SP/short.jpg"
cp "$SP/f1.jpg" "$SP/zeros.jpg"
head -c 64 /dev/zero | dd of="$SP/zeros.jpg" bs=1 seek=$((n / 2)) conv=notrunc 2>/dev/null
printf 'garbage' >"$SP/garbage.jpg"
# The middle of the stream: after the first 10 rounds (100 images).
half=$(($(cat "$SP/f1.jpg" "$SP/f2.jpg" "$SP/f3.jpg" "$SP/f4.jpg" "$SP/f5.jpg" \
    "$SP/f6.jpg" "$SP/f7.jpg" "$SP/f8.jpg" "$SP/f9.png" "$SP/f10.pgm" | wc -c) * 10 + 4))
for bad in cut short zeros garbage big; do
	{
		head -c "$half" "$SP/good"
		cat "$SP/$bad.jpg"
		tail -c +$((half + 1)) "$SP/good"
	} >"$SP/mid-$bad"
done
# Bad ends: a truncated last frame, trailing garbage.
{ cat "$SP/good"; head -c $((n / 2)) "$SP/f1.jpg"; } >"$SP/end-truncated"
{ cat "$SP/good"; printf 'garbage'; } >"$SP/end-garbage"

# split_run TOOL-AND-OPTS IN HOW SPLIT TAG: the run from a file or a
# pipe (HOW) with GPUFILT_SPLIT=SPLIT, its output, status and messages
# in $SP/TAG.out, .st, .err.
split_run() {
	if [ "$3" = file ]; then
		# shellcheck disable=SC2086
		GPUFILT_SPLIT=$4 "$BIN"/$1 "$2" - >"$SP/$5.out" 2>"$SP/$5.err"
	else
		# shellcheck disable=SC2086
		cat "$2" | GPUFILT_SPLIT=$4 "$BIN"/$1 - - >"$SP/$5.out" 2>"$SP/$5.err"
	fi
	echo $? >"$SP/$5.st"
}

# split_same NAME TOOL-AND-OPTS IN HOW WANT-STATUS [SPLIT]: the pool
# (default size, or SPLIT threads) and the reader alone give the same.
split_same() {
	want=$5
	split_run "$2" "$3" "$4" 0 off
	split_run "$2" "$3" "$4" "${6:-}" on
	why="exit $(cat "$SP/off.st") and $(cat "$SP/on.st") (want $5);
	    $(cmp "$SP/off.out" "$SP/on.out" 2>&1); off: $(head -c 300 "$SP/off.err");
	    on: $(head -c 300 "$SP/on.err")"
	check "split/$1" eval '[ "$(cat "$SP/off.st")" = "$want" ] &&
	    [ "$(cat "$SP/on.st")" = "$want" ] && [ -s "$SP/on.out" ] &&
	    cmp -s "$SP/off.out" "$SP/on.out" && cmp -s "$SP/off.err" "$SP/on.err"'
}

tool_runs | while read -r t opts; do
	for m in cpu default; do
		mo=""
		[ $m = default ] || mo="-m $m"
		for how in file pipe; do
			echo "$t|$opts $mo|$m|$how"
		done
	done
done >"$SP/cases"
while IFS='|' read -r t opts m how; do
	split_same "$t/$m/$how" "$t -q $opts" "$SP/good" "$how" 0
	for bad in cut:1 short:1 garbage:1 zeros:0; do
		split_same "$t/$m/$how/mid-${bad%:*}" "$t -q $opts" \
		    "$SP/mid-${bad%:*}" "$how" "${bad#*:}"
	done
	for bad in truncated garbage; do
		split_same "$t/$m/$how/end-$bad" "$t -q $opts" "$SP/end-$bad" "$how" 1
	done
done <"$SP/cases"
# A frame over the pixel limit, mid-stream; other pool sizes; -j 1.
split_same sobel/max-pixels "sobel -q --cpu -t 60 --max-pixels 1000000" \
    "$SP/mid-big" pipe 1
split_same sobel/big-ok "sobel -q --cpu -t 60" "$SP/mid-big" pipe 0
split_same edge/one-thread "edge -q --cpu --auto" "$SP/good" pipe 0 1
split_same conv2d/five-threads "conv2d -q --cpu -k gauss:1.4" "$SP/mid-cut" \
    file 1 5
split_same sobel/j1 "sobel -q --cpu -t 60 -j 1" "$SP/mid-cut" pipe 1
# The pool is in use: -v counts its threads among the readers.
cat "$SP/good" | GPUFILT_SPLIT=3 "$BIN/sobel" -v --cpu -t 60 - - 2>"$SP/v.err" >/dev/null
why="$(grep busy "$SP/v.err")"
check split/in-use grep -q 'read [0-9]*% (4 threads)' "$SP/v.err"
