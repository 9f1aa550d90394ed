#!/bin/sh
# make bench-io: what a user waits for, on the GPU machine.  Each figure is
# a ratio to a reference measured in the same run; the inputs are made
# once, before any timing, into files that then sit in the page cache.
#
#   stream   N frames of 1920x1080 through a pipe, against cat | cat
#   jstream  N colour JPEG frames of 1920x1080 concatenated (MJPEG, as
#            ffmpeg -f image2pipe -vcodec mjpeg writes) through a pipe,
#            against cat | cat moving the same bytes; each tool also with
#            the frames decoded one after another by the stream's reader
#            (GPUFILT_SPLIT=0), not side by side
#   large    one 12288x12288 PGM file to a file, against creating a CUDA
#            context (build/tests/gpu_probe) plus cp of the same file
#   batch    P photos of about 12 MP, JPEG, PNG and PGM, edge --auto -o
#            DIR, against an OpenCV script on as many processes as cores
#            (PGM: against cp); for the JPEGs also the GPU's JPEG engines
#            decoding them alone (build/bench/jpegdec, the ceiling), and
#            edge --auto and sobel -t 60 with the engines, with them off
#            (GPUFILT_GPU_DECODE=0) and by default, each as a fraction of
#            that ceiling, on the P photos and on BIG times as many
#
# Usage: sh bench/io.sh [stream|jstream|large|batch ...]   (after make and
# build/bench/framegen; FRAMES and PHOTOS set the sizes; WORK the scratch
# dir, in memory by default so that no disk write-back lands in the times)
cd "$(dirname "$0")/.." || exit 1
FRAMES=${FRAMES:-1000}
PHOTOS=${PHOTOS:-200}
BIG=${BIG:-4}
WORK=${WORK:-/dev/shm/gpufilt-bench-io}
mkdir -p "$WORK"

BENCH=bench-io
. bench/timing.sh
med3() { med 3 "$1"; }

stream() {
	f=$WORK/frames.pgm
	[ -s "$f" ] || build/bench/framegen "$FRAMES" 1920 1080 >"$f"
	cat "$f" >/dev/null
	base=$(med3 "cat $f | cat > /dev/null")
	echo "stream: $FRAMES frames 1920x1080 through a pipe (median of 3)"
	printf '  %-34s %7.3f s %8.1f frames/s\n' "cat | cat" "$base" \
	    "$(echo "$FRAMES $base" | awk '{ print $1 / $2 }')"
	for cmd in "sobel -q -t 60" "conv2d -q -k gauss:1.4" "edge -q --auto"; do
		s=$(med3 "cat $f | bin/$cmd > /dev/null")
		echo "$FRAMES $s $base" | awk -v c="$cmd" '{ printf "  %-34s %7.3f s %8.1f frames/s  %5.1f%% of cat\n", c, $2, $1 / $2, 100 * $3 / $2 }'
		# The same without reading ahead while the GPU opens, and what -v says.
		s=$(med3 "cat $f | GPUFILT_READ_AHEAD=0 bin/$cmd > /dev/null")
		echo "$FRAMES $s $base" | awk '{ printf "    without read-ahead               %7.3f s %8.1f frames/s  %5.1f%% of cat\n", $2, $1 / $2, 100 * $3 / $2 }'
		cat "$f" | bin/$(echo "$cmd" | sed 's/ -q//') -v 2>&1 >/dev/null | grep 'busy' |
		    sed 's/^/    -v: /'
	done
}

# ---- jstream: the JPEG frame stream (issue 32).  The frames are made
# once by bench/make_mjpeg.py (OpenCV) from the sample photos.
jstream() {
	f=$WORK/frames.mjpeg
	if [ ! -s "$f" ]; then
		python3 bench/make_mjpeg.py "$FRAMES" 1920 1080 samples/chelsea.png \
		    samples/small.jpg >"$f.tmp" && mv "$f.tmp" "$f" || return 1
	fi
	cat "$f" >/dev/null
	base=$(med3 "cat $f | cat > /dev/null")
	echo "jstream: $FRAMES JPEG frames 1920x1080 (4:2:0, quality 90, $(($(wc -c <"$f") / 1048576)) MiB) through a pipe (median of 3)"
	printf '  %-34s %7.3f s %8.1f frames/s\n' "cat | cat" "$base" \
	    "$(echo "$FRAMES $base" | awk '{ print $1 / $2 }')"
	for cmd in "sobel -q -t 60" "edge -q --auto" "conv2d -q -k gauss:1.4"; do
		s=$(med3 "cat $f | bin/$cmd > /dev/null")
		echo "$FRAMES $s $base" | awk -v c="$cmd" '{ printf "  %-34s %7.3f s %8.1f frames/s  %5.1f%% of cat\n", c, $2, $1 / $2, 100 * $3 / $2 }'
		cat "$f" | bin/$(echo "$cmd" | sed 's/ -q//') -v 2>&1 >/dev/null | grep 'busy' |
		    sed 's/^/    -v: /'
		# The same with the frames decoded one after another by the reader.
		s=$(med3 "cat $f | GPUFILT_SPLIT=0 bin/$cmd > /dev/null")
		echo "$FRAMES $s $base" | awk '{ printf "    frames decoded one by one        %7.3f s %8.1f frames/s  %5.1f%% of cat\n", $2, $1 / $2, 100 * $3 / $2 }'
	done
}

large() {
	f=$WORK/big.pgm
	[ -s "$f" ] || build/bench/framegen 1 12288 12288 >"$f"
	cat "$f" >/dev/null
	base=$(med3 "build/tests/gpu_probe && cp $f $WORK/copy.pgm")
	s=$(med3 "bin/sobel -q -t 60 $f $WORK/big-out.pgm")
	m=$(med3 "bin/sobel -q $f $WORK/big-out.pgm")
	c=$(med3 "bin/conv2d -q -k gauss:1.4 $f $WORK/big-out.pgm")
	echo "large: one 12288x12288 PGM, file to file (median of 3)"
	echo "$base $s $m $c" | awk '{ printf "  context + cp            %7.3f s\n  sobel -t 60             %7.3f s  %.2fx\n  sobel (magnitude)       %7.3f s  %.2fx\n  conv2d -k gauss:1.4     %7.3f s  %.2fx\n", $1, $2, $2 / $1, $3, $3 / $1, $4, $4 / $1 }'
	bin/sobel -v -t 60 "$f" "$WORK/big-out.pgm" 2>&1 | sed 's/^/  -v: /'
}

batch() {
	d=$WORK/photos
	if [ ! -s "$d/.done" ]; then
		python3 bench/make_photos.py -f jpg,png,pgm "$PHOTOS" "$d" samples/chelsea.png \
		    samples/small.jpg samples/coins.pgm samples/retina1023x517.pgm || return 1
		touch "$d/.done"
	fi
	# A larger batch of the same JPEGs under BIG times as many names
	# (links): the engines' opening weighs less on it.
	big=$((PHOTOS * BIG))
	mkdir -p "$d/big"
	for f in "$d"/*.jpg; do
		for k in $(seq "$BIG"); do
			[ -e "$d/big/$(basename "$f" .jpg)-$k.jpg" ] || ln "$f" "$d/big/$(basename "$f" .jpg)-$k.jpg"
		done
	done
	cat "$d"/*.* >/dev/null
	n=$(nproc)
	echo "batch: $PHOTOS photos of 4000x3000, edge maps to PGM ($n cores)"
	ceil=$(build/bench/jpegdec -b 0 "$d"/*.jpg 2>&1 | tail -n 1)
	echo "  JPEG engines alone: $ceil"
	ceil=$(echo "$ceil" | sed -n 's/.*: \([0-9.]*\) images\/s.*/\1/p')
	# Each JPEG run: engines on (GPUFILT_GPU_DECODE=1), off (0), and as
	# a user runs it (the engines open for a batch of 640 inputs or more).
	for set in "$PHOTOS $d" "$big $d/big"; do
		cnt=${set%% *} dir=${set#* }
		for cmd in "edge --auto" "sobel -t 60"; do
			for dec in 1 0 default; do
				rm -rf "$WORK/out-dec"
				mkdir -p "$WORK/out-dec"
				env=$([ $dec = default ] || echo "GPUFILT_GPU_DECODE=$dec")
				s=$(secs "$env bin/$cmd -q -o $WORK/out-dec $dir/*.jpg")
				echo "$cnt $s ${ceil:-0}" | awk -v c="$cmd" -v d="$dec" '{ r = $1 / $2
				    printf "  %4d jpg %-12s engines %-7s %6.1f images/s", $1, c, d == 1 ? "on" : d == 0 ? "off" : "default", r
				    if ($3 > 0) printf "   %5.1f%% of the engines alone", 100 * r / $3
				    printf "\n" }'
				env $env bin/$cmd -v -o "$WORK/out-dec" "$dir"/*.jpg 2>&1 |
				    grep -e 'busy' -e 'decoders:' | sed 's/^/        /'
			done
		done
	done
	for ext in jpg png; do
		rm -rf "$WORK/out-$ext" "$WORK/cv-$ext"
		mkdir -p "$WORK/out-$ext" "$WORK/cv-$ext"
		s=$(secs "bin/edge -q --auto -o $WORK/out-$ext $d/*.$ext")
		cv=$(secs "python3 bench/opencv_batch.py $n $WORK/cv-$ext $d/*.$ext")
		echo "$PHOTOS $s $cv" | awk -v x="$ext" '{ printf "  %-4s edge --auto -o: %6.1f images/s   OpenCV x%d: %6.1f images/s   ratio %.2f\n", x, $1 / $2, '"$n"', $1 / $3, $3 / $2 }'
		bin/edge -v --auto -o "$WORK/out-$ext" "$d"/*."$ext" 2>&1 | tail -n 2 | sed 's/^/        /'
		# PNG's colour made gray on the GPU only, not by the readers (a
		# JPEG's gray is its luma, from the decoder either way).
		[ $ext = png ] || continue
		s=$(secs "GPUFILT_READER_GRAY=0 bin/edge -q --auto -o $WORK/out-$ext $d/*.$ext")
		echo "$PHOTOS $s" | awk '{ printf "        gray on the GPU only: %6.1f images/s\n", $1 / $2 }'
	done
	# PGM, whose reading costs nothing: the host's copies and the GPU's
	# pace, against cp of the same files.
	rm -rf "$WORK/out-pgm" "$WORK/cp-pgm"
	mkdir -p "$WORK/out-pgm" "$WORK/cp-pgm"
	for cmd in "edge --auto" "sobel -t 60"; do
		s=$(secs "bin/$cmd -q -o $WORK/out-pgm $d/*.pgm")
		echo "$PHOTOS $s" | awk -v c="$cmd" '{ printf "  pgm  %-12s -o: %6.1f images/s\n", c, $1 / $2 }'
	done
	s=$(secs "cp $d/*.pgm $WORK/cp-pgm")
	echo "$PHOTOS $s" | awk '{ printf "  pgm  cp of the inputs:     %6.1f images/s\n", $1 / $2 }'
	bin/edge -v --auto -o "$WORK/out-pgm" "$d"/*.pgm 2>&1 | grep busy | sed 's/^/        /'
}

for step in ${*:-stream jstream large batch}; do
	$step
done
