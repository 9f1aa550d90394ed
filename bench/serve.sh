#!/bin/sh
# make bench-serve: the rows of issue 42's table, each against its
# baseline in the same run, whole processes as a user runs them:
#
#   one     sobel -t 60 on one 1920x1080 JPEG and one 4000x3000 JPEG:
#           a cold GPU (no server, the small-run rule off), no server
#           (the rule on: the default), --cpu, and a warm server;
#           median of REPS runs each
#   pipe    conv2d -k gauss:1.4 | sobel -t 60 | edge --auto on the
#           1080p JPEG, the same four ways
#   xargs   xargs -P 16 over RUNS single-image sobel runs of 1080p JPEGs:
#           no server (the GPU: rule off), --cpu, a warm server (its
#           first burst, which grows its workers' buffers, shown apart)
#   batch   edge --auto -o DIR over PHOTOS 4000x3000 JPEGs and BIG times
#           as many: in process and through a warm server, against the
#           JPEG engines decoding them alone (build/bench/jpegdec) and
#           the host copying their outputs (cp); PNG and PGM batches of
#           the same photos the same two ways
#   stream  FRAMES 1080p JPEG frames (MJPEG) and PGM frames through a
#           pipe: cat | cat, in process, through a warm server
#   large   one 12288x12288 PGM: in process, through a warm server
#   gpus    on a host of several GPUs, through a warm server: one GPU
#           against all, on the JPEG batch and on conv2d 25x25
#
# The server is this run's own (its socket in WORK), started before the
# rows that use it and warmed by one run; -v of one served run says where
# the time goes.  Usage: sh bench/serve.sh [one pipe xargs batch stream
# large ...]
cd "$(dirname "$0")/.." || exit 1
REPS=${REPS:-15}
RUNS=${RUNS:-1000}
PHOTOS=${PHOTOS:-200}
BIG=${BIG:-4}
FRAMES=${FRAMES:-1000}
WORK=${WORK:-/dev/shm/gpufilt-bench-serve}
mkdir -p "$WORK" && chmod 700 "$WORK"
GPUFILT_SOCKET=$WORK/server
export GPUFILT_SOCKET

BENCH=bench-serve
. bench/timing.sh
ms() { echo "$1" | awk '{ printf "%8.1f ms", $1 * 1000 }'; }
ratio() { echo "$1 $2" | awk '{ printf "%6.2fx", $1 / $2 }'; }

serve_up() {
	bin/gpufiltd -q -i 0 2>/dev/null || bin/gpufiltd -s >/dev/null || exit 1
	# Until it has opened its JPEG engines and made its first workers
	# (gpufiltd -s: "warming up"), as a server up for a while has.
	k=0
	while [ $k -lt 100 ] && bin/gpufiltd -s | grep -q ", warming up;"; do
		sleep 0.2
		k=$((k + 1))
	done
	GPUFILT_SERVER=require bin/sobel -t 60 samples/coins.pgm "$WORK/warm.pgm"
	# A JPEG too: the JPEG path of a worker grows its buffers at its first.
	[ ! -e "$WORK/hd.jpg" ] || GPUFILT_SERVER=require GPUFILT_SERVED_SMALL_PIXELS=0 \
	    bin/sobel -t 60 "$WORK/hd.jpg" "$WORK/warm.pgm"
}
serve_down() { bin/gpufiltd -k >/dev/null 2>&1; }
# The warm server's CPU seconds so far, and the time now.
server_cpu() {
	echo "$(bin/gpufiltd -s 2>/dev/null | sed -n 's/.*; \([0-9.]*\) s of CPU time;.*/\1/p') $(date +%s.%N)"
}
# The cores the server used since server_cpu said $1.
server_cores() {
	echo "$1 $(server_cpu)" | awk '{ printf "%.1f", ($3 - $1) / ($4 - $2) }'
}

# The four ways of a command $1 (its output to $WORK), in REPS runs each.
four() {
	cold=$(med "$REPS" "GPUFILT_SERVER=off GPUFILT_SMALL_PIXELS=0 $1")
	# The ways compared run in turn, run by run (meds): a target is
	# their ratio, and blocks of runs one after the other let the host's
	# drift between them (its clocks, its caches) pass for a difference.
	meds "$REPS" "unset GPUFILT_SMALL_PIXELS; GPUFILT_SERVER=off $1" \
	    "GPUFILT_SERVER=off $(echo "$1" | sed 's#bin/\([a-z0-9]*\) #bin/\1 --cpu #g')" \
	    >"$WORK/meds"
	{ read -r dflt; read -r cpu; } <"$WORK/meds"
	serve_up
	meds "$REPS" "GPUFILT_SERVER=require $1" \
	    "GPUFILT_SERVER=require GPUFILT_SERVED_SMALL_PIXELS=0 $1" >"$WORK/meds"
	{ read -r warm; read -r forced; } <"$WORK/meds"
	serve_down
	printf '    cold GPU %s   no server %s   --cpu %s   server warm %s   (every image served %s)\n' \
	    "$(ms "$cold")" "$(ms "$dflt")" "$(ms "$cpu")" "$(ms "$warm")" "$(ms "$forced")"
	printf '    no server / --cpu %s   server warm / --cpu %s   cold / warm %s\n' \
	    "$(ratio "$dflt" "$cpu")" "$(ratio "$warm" "$cpu")" "$(ratio "$cold" "$warm")"
}

photos() {
	d=$WORK/photos
	if [ ! -e "$d/.done" ]; then
		python3 bench/make_photos.py -f jpg,png,pgm "$PHOTOS" "$d" samples/chelsea.png \
		    samples/small.jpg samples/coins.pgm samples/retina1023x517.pgm || exit 1
		touch "$d/.done"
	fi
	[ -s "$WORK/hd.jpg" ] || python3 -c '
import cv2, sys
im = cv2.imread(sys.argv[1])
cv2.imwrite(sys.argv[2], cv2.resize(im, (1920, 1080), interpolation=cv2.INTER_AREA),
            [cv2.IMWRITE_JPEG_QUALITY, 90])' "$d/p0000.jpg" "$WORK/hd.jpg" || exit 1
	cat "$d"/*.* "$WORK/hd.jpg" >/dev/null
}

one() {
	photos
	for f in "$WORK/hd.jpg:1920x1080" "$WORK/photos/p0000.jpg:4000x3000"; do
		echo "one: sobel -t 60 on one ${f#*:} JPEG (median of $REPS)"
		four "bin/sobel -t 60 ${f%%:*} $WORK/one.pgm"
	done
	serve_up
	GPUFILT_SERVER=require GPUFILT_SERVED_SMALL_PIXELS=0 bin/sobel -v -t 60 \
	    "$WORK/hd.jpg" "$WORK/one.pgm" 2>&1 | sed 's/^/    -v: /'
	serve_down
}

pipe() {
	photos
	echo "pipe: conv2d -k gauss:1.4 | sobel -t 60 | edge --auto, one 1080p JPEG (median of $REPS)"
	four "bin/conv2d -k gauss:1.4 $WORK/hd.jpg - | bin/sobel -t 60 - - | bin/edge --auto - $WORK/pipe.pgm"
}

xargs_runs() {
	photos
	mkdir -p "$WORK/many" "$WORK/many-out"
	i=0
	while [ $i -lt "$RUNS" ]; do
		[ -e "$WORK/many/$i.jpg" ] || ln "$WORK/hd.jpg" "$WORK/many/$i.jpg"
		i=$((i + 1))
	done
	echo "xargs: xargs -P 16 over $RUNS runs of sobel -t 60 on one 1080p JPEG each"
	# The settings go to xargs, whose runs inherit them.
	run="ls $WORK/many/*.jpg | env \$E xargs -P 16 -I{} sh -c 'bin/sobel -q -t 60 \$1 $WORK/many-out/\$(basename \$1 .jpg).pgm' sh {}"
	cold=$(secs "E='GPUFILT_SERVER=off GPUFILT_SMALL_PIXELS=0'; $run")
	dflt=$(secs "E='GPUFILT_SERVER=off'; $run")
	cpu=$(secs "E='GPUFILT_SERVER=off'; $(echo "$run" | sed 's#bin/sobel #bin/sobel --cpu #')")
	# The server's first burst of 16 clients at once grows its first
	# workers' buffers to the image (serve_up's runs grew one's): shown
	# apart, as a batch's first is.
	serve_up
	first=$(secs "E='GPUFILT_SERVER=require'; $run")
	warm=$(secs "E='GPUFILT_SERVER=require'; $run")
	forced=$(secs "E='GPUFILT_SERVER=require GPUFILT_SERVED_SMALL_PIXELS=0'; $run")
	serve_down
	for w in "no server, GPU:$cold" "no server:$dflt" "--cpu:$cpu" \
	    "server, first burst:$first" "server warm:$warm" "every image served:$forced"; do
		echo "${w##*:}" | awk -v n="$RUNS" -v what="${w%:*}" \
		    '{ printf "    %-20s %7.2f s %8.1f runs/s\n", what, $1, n / $1 }'
	done
	printf '    server warm: %s faster than no server, %s faster than --cpu\n' \
	    "$(ratio "$cold" "$warm")" "$(ratio "$cpu" "$warm")"
}

# bench/trace.py's report, read for a run's fixed costs.
fixed_costs() {
	awk '/teardown began/ { b = $1 } /teardown ended/ { t = $1 - b }
	    /first told at/ { for (i = 1; i < NF; i++) if ($i == "told" || $i == "last")
		v[$i] = $(i + 2) + 0 }
	    /steady middle/ { m = $(NF - 1) }
	    /images in flight/ { f = $7 }
	    /readers between jobs/ { r = $9 }
	    END { printf "    traced, served: first image told at %.1f ms, last at %.1f; " \
		"teardown %.1f ms; steady middle %s images/s, %s in flight, " \
		"%s readers waiting for a slot or marker\n", v["told"], v["last"], t, m, f, r }'
}

# What a JPEG cost the server's queues, from gpufiltd -s on standard
# input: a queue's one thread spends it for each image (nvJPEG's calls,
# then waiting for the GPU), so it bounds the engines' share of a served
# batch; bench/jpegdec -x gives the same calls' cost with nothing else
# running.  Nothing when the engines decoded none.
queue_costs() {
	sed -n 's/.*(\([0-9]*\) JPEGs decoded on its engines in \([0-9]*\) batches ([0-9]* images padding them; \([0-9]*\) ms reading headers, \([0-9]*\) ms in nvJPEG.s calls, \([0-9]*\) ms waiting for the GPU).*/\1 \2 \3 \4 \5/p' |
	    awk '$1 > 0 && $2 > 0 { printf "    the JPEG queues: %.1f images a call; an image: %.2f ms reading its header, %.2f ms of nvJPEG'"'"'s calls, %.2f ms waiting for the GPU\n", $1 / $2, $3 / $1, $4 / $1, $5 / $1 }'
}

# A batch row: edge --auto -o over the files of $1 ($2 of them), in
# process and through the warm server (median of 3 each), against $3
# images/s (the engines' rate, or 0).  The server's first batch of the
# kind, which fills its pool of buffers, is shown apart, and a JPEG
# batch once more with its JPEGs decoded by the client's cores
# (GPUFILT_GPU_DECODE=0), not by the server's engines.  The outputs of
# the run before are removed off the clock (PREP).
batch_row() {
	PREP="rm -rf $WORK/out"
	p=$(med 3 "GPUFILT_SERVER=off bin/edge -q --auto -o $WORK/out $1")
	serve_up
	f=$(secs "GPUFILT_SERVER=require bin/edge -q --auto -o $WORK/out $1")
	sleep 1         # the pool's thread makes what the first asked for
	# Served as users run it, and for a JPEG batch, the client decoding
	# every JPEG and the engines decoding every one (no readers' share),
	# in turn.
	run="GPUFILT_SERVER=require bin/edge -q --auto -o $WORK/out $1"
	if [ "$3" != 0 ]; then
		meds 3 "$run" "GPUFILT_GPU_DECODE=0 $run" "GPUFILT_JPEG_SHARE=0 $run" >"$WORK/meds"
		{ read -r s; read -r c; read -r o; } <"$WORK/meds"
	else
		s=$(med 3 "$run") c=0 o=0
	fi
	PREP=
	# One run more, traced: a short batch's fixed costs, its ramp and
	# its teardown (the slots' windows), beside its steady rate.
	rm -rf "$WORK/out"
	GPUFILT_TRACE=$WORK/trace GPUFILT_SERVER=require bin/edge -q --auto \
	    -o "$WORK/out" $1 && python3 bench/trace.py "$WORK/trace" | fixed_costs
	bin/gpufiltd -s >"$WORK/status"
	sed 's/^/    gpufiltd -s: /' "$WORK/status"
	queue_costs <"$WORK/status"
	serve_down
	echo "$2 $p $s $3 $f $c $o" | awk -v w="$4" '{ printf "    %-22s in process %7.1f images/s   server warm %7.1f images/s (its first batch %.1f)", w, $1 / $2, $1 / $3, $1 / $5;
	    if ($4 > 0) printf "   (%.1f%% and %.1f%% of the engines; decoded by the client %.1f; by the engines alone, no readers'"'"' share, %.1f)", 100 * $1 / $2 / $4, 100 * $1 / $3 / $4, $1 / $6, $1 / $7; printf "\n" }'
}

batch() {
	photos
	d=$WORK/photos
	big=$((PHOTOS * BIG))
	mkdir -p "$d/big"
	for f in "$d"/*.jpg; do
		for k in $(seq "$BIG"); do
			[ -e "$d/big/$(basename "$f" .jpg)-$k.jpg" ] || ln "$f" "$d/big/$(basename "$f" .jpg)-$k.jpg"
		done
	done
	ceil=$(build/bench/jpegdec -b 0 "$d"/*.jpg 2>&1 | tail -n 1)
	echo "batch: edge --auto -o DIR, 4000x3000 photos ($(nproc) cores); engines alone: $ceil"
	# The server's way to them: one thread per GPU takes what its
	# connections posted as a batch (jpeg_gpu_queue.c).  A served batch
	# beats this only by the readers' share (the client's cores).
	echo "  through one JPEG queue, as the server calls them: $(build/bench/jpegdec \
	    -q 64 "$d"/*.jpg 2>&1 | tail -n 1)"
	ceil=$(echo "$ceil" | sed -n 's/.*: \([0-9.]*\) images\/s.*/\1/p')
	batch_row "$d/*.jpg" "$PHOTOS" "${ceil:-0}" "$PHOTOS JPEG"
	# What the host allows any batch that writes these outputs: the
	# last run's copied by cp, as many at once as there are cores.
	n=$(find "$WORK/out" -name '*.pgm' | wc -l)
	PREP="rm -rf $WORK/copy"
	t=$(med 3 "mkdir $WORK/copy && find $WORK/out -name '*.pgm' | xargs -P $(nproc) -n 4 cp -t $WORK/copy")
	PREP=
	rm -rf "$WORK/copy"
	echo "$n $t" | awk '{ printf "    %-22s cp, a process a core: %7.1f images/s (the host'"'"'s ceiling for a batch writing them)\n", $1 " outputs copied", $1 / $2 }'
	batch_row "$d/big/*.jpg" "$big" "${ceil:-0}" "$big JPEG"
	batch_row "$d/*.png" "$PHOTOS" 0 "$PHOTOS PNG"
	batch_row "$d/*.pgm" "$PHOTOS" 0 "$PHOTOS PGM"
}

stream() {
	f=$WORK/frames.mjpeg g=$WORK/frames.pgm
	if [ ! -s "$f" ]; then
		python3 bench/make_mjpeg.py "$FRAMES" 1920 1080 samples/chelsea.png \
		    samples/small.jpg >"$f.tmp" && mv "$f.tmp" "$f" || exit 1
	fi
	[ -s "$g" ] || build/bench/framegen "$FRAMES" 1920 1080 >"$g"
	cat "$f" "$g" >/dev/null
	for x in "$f:JPEG" "$g:PGM"; do
		in=${x%:*}
		base=$(med 3 "cat $in | cat >/dev/null")
		p=$(med 3 "cat $in | GPUFILT_SERVER=off bin/sobel -q -t 60 >/dev/null")
		serve_up
		c0=$(server_cpu)
		s=$(med 3 "cat $in | GPUFILT_SERVER=require bin/sobel -q -t 60 >/dev/null")
		cores=$(server_cores "$c0")
		serve_down
		echo "$FRAMES $base $p $s $cores" | awk -v w="${x#*:}" '{ printf "stream: %d 1080p %s frames through sobel -t 60: cat | cat %.0f frames/s; in process %.0f (%.1f%% of cat); server warm %.0f (%.1f%% of cat; the server busy on %.1f cores)\n",
		    $1, w, $1 / $2, $1 / $3, 100 * $2 / $3, $1 / $4, 100 * $2 / $4, $5 }'
	done
}

# Two GPUs and more (issue 42's last row): through the warm server, one
# GPU (--device 0) against all (--device all), on the JPEG batch, the
# PGM batch and a batch that the GPU bounds (conv2d 25x25), median of 3
# each.
gpus() {
	photos
	d=$WORK/photos
	n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
	if [ "${n:-0}" -lt 2 ]; then
		echo "gpus: one GPU here: the row needs a host of several"
		return
	fi
	serve_up
	PREP="rm -rf $WORK/out"
	# The PGM batch writes the same outputs and decodes nothing: what
	# the host allows a batch of these photos, whatever decodes them.
	for run in "edge -q --auto|$PHOTOS JPEG|$d/*.jpg" \
	    "edge -q --auto|$PHOTOS PGM|$d/*.pgm" \
	    "conv2d -q -k gauss:4 --no-separable|$PHOTOS PGM, conv2d 25x25|$d/*.pgm"; do
		cmd=${run%%|*} rest=${run#*|}
		what=${rest%%|*} files=${rest#*|}
		# One GPU, all, and all with four lanes each (a batch's
		# LANES_BATCH lanes are shared among its GPUs), in turn after
		# a run of each that warms the server's pool.
		one="GPUFILT_SERVER=require bin/$cmd --device 0 -o $WORK/out $files"
		all="GPUFILT_SERVER=require bin/$cmd --device all -o $WORK/out $files"
		wide="GPUFILT_LANES=4 $all"
		meds 1 "$one" "$all" "$wide" >/dev/null
		meds 3 "$one" "$all" "$wide" >"$WORK/meds"
		{ read -r one; read -r all; read -r wide; } <"$WORK/meds"
		echo "$PHOTOS $one $all $wide" | awk -v w="$what" -v n="$n" '{ printf "gpus: %-26s server warm, one GPU %7.1f images/s, %d GPUs %7.1f images/s (%.2fx), 4 lanes a GPU %7.1f (%.2fx)\n",
		    w, $1 / $2, n, $1 / $3, $2 / $3, $1 / $4, $2 / $4 }'
	done
	PREP=
	serve_down
}

large() {
	f=$WORK/large.pgm
	[ -s "$f" ] || build/bench/framegen 1 12288 12288 >"$f"
	cat "$f" >/dev/null
	p=$(med 3 "GPUFILT_SERVER=off GPUFILT_SMALL_PIXELS=0 bin/sobel -q -t 60 $f $WORK/large.out.pgm")
	serve_up
	s=$(med 3 "GPUFILT_SERVER=require bin/sobel -q -t 60 $f $WORK/large.out.pgm")
	serve_down
	echo "$p $s" | awk '{ printf "large: one 12288x12288 PGM, sobel -t 60: in process %.3f s, server warm %.3f s (%.2fx)\n", $1, $2, $1 / $2 }'
}

for step in ${*:-one pipe xargs batch stream large gpus}; do
	case $step in
	xargs) xargs_runs ;;
	one|pipe|batch|stream|large|gpus) $step ;;
	*) echo "bench/serve.sh: no step '$step'" >&2; exit 2 ;;
	esac
done
serve_down
