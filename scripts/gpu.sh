#!/bin/sh
# Everything the GPU machine checks, in one command (device time is
# scarce): build, the whole test suite (its GPU half runs there),
# compute-sanitizer memcheck and racecheck on every kernel path of every
# tool (and synccheck on the engine's streams), then the kernel bench and
# the end-to-end bench (bench/io.sh).  Logs go to $OUT when it is set (the device tool's
# return folder), else to build/gpu-logs.
#
# Usage, on the GPU machine from the project root:
#   . .deps/env.sh; sh scripts/gpu.sh [test|sanitize|bench|io|multi ...]
# (GPU_TESTS="unit t_sobel ...": test and served run only those.)
# (.deps: ../shared/device/fetch-deps.sh, then scripts/device-deps.sh, on
# your own machine; the device tool carries it.)
# (multi, not in the default steps: bench/multi.sh, every GPU against one,
# on a host of several GPUs; it takes most of a 10-minute call alone:
#   . .deps/env.sh; sh scripts/gpu.sh multi)
OUT=${OUT:-build/gpu-logs}
mkdir -p "$OUT"
# A single image under -m auto would take the small-run rule (the CPU,
# no CUDA at all): every run here is meant for the GPU.
GPUFILT_SMALL_PIXELS=0
GPUFILT_SERVED_SMALL_PIXELS=0
export GPUFILT_SMALL_PIXELS GPUFILT_SERVED_SMALL_PIXELS
# Dozens of harnesses side by side wait for the driver to make their
# contexts: a run's time limit (tests/run.sh's limited) of 60 s killed
# runs that were only waiting.
LIMIT_S=${LIMIT_S:-300}
export LIMIT_S
steps=${*:-test sanitize sanitize-server bench io}
# The tools, each with the options of a typical run (cmd/tools);
# SAN_TOOLS may name fewer for the sanitizers, and SAN_ONLY (an extended
# regular expression) keep only the sanitizer jobs whose lines match it.
tool_runs() { grep -v '^#' cmd/tools; }
# The strategies of the GPU: the table's rows after auto and cpu, as
# tool $1's --help lists them (tests/run.sh's gpu_strategies).
gpu_strategies() {
	"bin/$1" --help | sed -n '/^strategies/,/^$/p' | awk 'NR > 3 && NF { print $1 }'
}
SAN_TOOLS=${SAN_TOOLS:-$(tool_runs | cut -d' ' -f1 | tr '\n' ' ')}
nproc=$(nproc 2>/dev/null || echo 4)
make -j"$nproc" test-bins build/bench/bench build/bench/pnmcopy \
    >"$OUT/build.log" 2>&1 || { tail -n 30 "$OUT/build.log"; exit 1; }
sh tests/golden/unpack.sh || exit 1
status=0

for step in $steps; do
case $step in
test)
	# The unit tests and each tests/t_*.sh side by side (run.sh -P), or
	# those GPU_TESTS names (the suite is longer than one 10-minute call:
	# every GPU case starts a CUDA context, and the driver makes them one
	# at a time).  Each harness's log is in $OUT/test-logs.tgz.
	rm -rf build/gpu-test
	# shellcheck disable=SC2086
	sh tests/run.sh -P "$nproc" build/gpu-test $GPU_TESTS >"$OUT/test.log" 2>&1 || status=1
	tar czf "$OUT/test-logs.tgz" -C build gpu-test
	head -n 40 "$OUT/test.log" | grep -v ' passed, '
	tail -n 1 "$OUT/test.log"
	;;
sanitize)
	# Every kernel path of every tool under memcheck (odd, 16-bit and 8-bit
	# images) and racecheck, plus the unit tests, which run every strategy
	# over many shapes and sizes; eight sanitizer processes at a time.
	mkdir -p /tmp/san
	rm -f /tmp/san/*
	{
		# Each tool's option sets (tests/cases_TOOL.sh, TOOL_sanitize) on
		# every GPU strategy of the table.
		for tool in $SAN_TOOLS; do
			[ -x "bin/$tool" ] || continue
			. "tests/cases_$tool.sh"
			"${tool}_sanitize" | while IFS= read -r args; do
				for m in $(gpu_strategies "$tool"); do
					for img in retina1023x517 px2x3 astro16; do
						echo "memcheck bin/$tool -q -m $m $args samples/$img.pgm /tmp/san/out.pgm"
					done
					echo "racecheck bin/$tool -q -m $m $args samples/retina1023x517.pgm /tmp/san/out.pgm"
				done
			done
		done
		# The engine: several images in flight on four streams, strips
		# of 64 rows, colour split on the device; synccheck too.
		cat samples/retina1023x517.pgm samples/astro16.pgm samples/coins.pgm \
		    samples/px2x3.pgm >/tmp/san/stream.pnm
		tool_runs | while read -r tool; do
			case " $SAN_TOOLS " in *" ${tool%% *} "*) ;; *) continue ;; esac
			for t in memcheck racecheck synccheck; do
				echo "$t env GPUFILT_STRIP_ROWS=64 bin/$tool -q /tmp/san/stream.pnm /tmp/san/out.pnm"
				echo "$t env GPUFILT_STRIP_ROWS=64 bin/$tool -q samples/chelsea.png /tmp/san/out.ppm"
			done
		done
		# Alpha: RGBA and 16-bit gray+alpha, whole and in strips (conv2d
		# carries alpha; sobel and edge drop it).
		{ printf 'P7\nWIDTH 67\nHEIGHT 45\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n'
		  head -c $((67 * 45 * 4)) /dev/urandom; } >/tmp/san/rgba.pam
		{ printf 'P7\nWIDTH 67\nHEIGHT 45\nDEPTH 2\nMAXVAL 65535\nTUPLTYPE GRAYSCALE_ALPHA\nENDHDR\n'
		  head -c $((67 * 45 * 4)) /dev/urandom; } >/tmp/san/ga16.pam
		tool_runs | while read -r tool; do
			case " $SAN_TOOLS " in *" ${tool%% *} "*) ;; *) continue ;; esac
			for img in rgba ga16; do
				echo "memcheck env GPUFILT_STRIP_ROWS=16 bin/$tool -q /tmp/san/$img.pam /tmp/san/out.pam"
				echo "racecheck bin/$tool -q /tmp/san/$img.pam /tmp/san/out.pam"
			done
		done
		# --colour max's kernels (the gray samples above take the gray
		# path): colour, 8 and 16 bit, every strategy, whole and in strips.
		for tool in sobel edge; do
			case " $SAN_TOOLS " in *" $tool "*) ;; *) continue ;; esac
			for m in $(gpu_strategies "$tool"); do
				for args in "--colour max" "--colour max -t auto --operator sobel" \
				    "--colour max --operator sobel7 --gradient direction"; do
					[ "$tool" = edge ] && [ "$args" != "--colour max" ] && continue
					echo "memcheck env GPUFILT_STRIP_ROWS=16 bin/$tool -q -m $m $args /tmp/san/rgba.pam /tmp/san/out.pgm"
					echo "memcheck bin/$tool -q -m $m $args build/golden/max/rgba16.pam /tmp/san/out.pgm"
					echo "racecheck bin/$tool -q -m $m $args samples/chelsea.png /tmp/san/out.pgm"
				done
			done
		done
		# The decode stage on the GPU's JPEG engines (opened for these few
		# inputs by GPUFILT_GPU_DECODE, beside the context: the first is a
		# JPEG), a batch on the engines while the next is made ready:
		# EXIF-turned, gray with restarts, one the engines refuse (4:1:1),
		# and one they fail on purpose (decoded on the CPU instead); with
		# =1, the readers' share too.
		mkdir -p /tmp/san/jpg
		for o in 1 6; do build/bench/jpeggen -o $o 333 257 >/tmp/san/jpg/a$o.jpg; done
		build/bench/jpeggen -s gray -r 7 1001 999 >/tmp/san/jpg/g.jpg
		build/bench/jpeggen -s 411 64 64 >/tmp/san/jpg/r.jpg
		build/bench/jpeggen -s 444 -q 100 17 33 >/tmp/san/jpg/s.jpg
		tool_runs | while read -r tool; do
			case " $SAN_TOOLS " in *" ${tool%% *} "*) ;; *) continue ;; esac
			for t in memcheck racecheck; do
				echo "$t env GPUFILT_GPU_DECODE=2 GPUFILT_JPEG_FAIL=2 GPUFILT_JPEG_BATCH=2 bin/$tool -q -o /tmp/san/out-jpg /tmp/san/jpg/a1.jpg /tmp/san/jpg/a6.jpg /tmp/san/jpg/g.jpg /tmp/san/jpg/r.jpg /tmp/san/jpg/s.jpg"
				echo "$t env GPUFILT_GPU_DECODE=1 GPUFILT_JPEG_BATCH=1 bin/$tool -q -o /tmp/san/out-jpg /tmp/san/jpg/a1.jpg /tmp/san/jpg/a6.jpg /tmp/san/jpg/g.jpg /tmp/san/jpg/r.jpg /tmp/san/jpg/s.jpg"
			done
		done
		# (only those that use the GPU: the others have nothing to check)
		for u in $(grep -l gpu_open tests/*_test.c | sed 's#tests/\(.*\)\.c#build/tests/\1#'); do
			echo "memcheck $u"
			echo "racecheck $u"
		done
	} | grep -E -- "${SAN_ONLY:-.}" | awk '{ printf "%d %s\n", NR, $0 }' >/tmp/san/jobs
	# A job line: its number, the sanitizer tool, the command (shell words;
	# "out" is made unique per job).  xargs -d passes lines untouched.
	xargs -d '\n' -P 8 -n 1 sh -c 'set -f; set -- $1; n=$1 t=$2; shift 2
		cmd=$(echo "$*" | sed "s#/tmp/san/out#/tmp/san/$n.out#")
		if eval "compute-sanitizer --tool $t --error-exitcode 9 $cmd" \
		    >/tmp/san/$n.log 2>&1; then echo "clean $t $*"
		else echo "DIRTY $t $*"; tail -n 20 /tmp/san/$n.log; fi' sh \
	    </tmp/san/jobs >"$OUT/sanitize.log" 2>&1
	echo "sanitizer: $(grep -c '^clean' "$OUT/sanitize.log") clean," \
	    "$(grep -c '^DIRTY' "$OUT/sanitize.log") dirty"
	grep -A5 '^DIRTY' "$OUT/sanitize.log" | head -n 40
	grep -q '^DIRTY' "$OUT/sanitize.log" && status=1
	;;
sanitize-server)
	mkdir -p /tmp/san
	cat samples/retina1023x517.pgm samples/astro16.pgm samples/coins.pgm \
	    samples/px2x3.pgm >/tmp/san/stream.pnm
	# 12-bit: the server filters a checked copy, not the client's window.
	{ printf 'P5\n67 45\n4095\n'; head -c $((67 * 45 * 2)) /dev/urandom |
	    od -An -v -tu2 | tr -s ' ' '\n' | LC_ALL=C awk 'NF { v = $1 % 4096
		printf "%c%c", int(v / 256), v % 256 }'; } >/tmp/san/b12.pgm
	: >"$OUT/sanitize-server.log"
	# The server under each sanitizer with SAN_CLIENTS clients (8) in
	# flight at once (every tool; gray, colour, 16-bit, a stream in
	# strips), then stopped: its exit status is the sanitizer's verdict.
	# (SAN_SERVER names fewer: racecheck alone is slow.)  A client
	# still running SAN_SERVER_S seconds after the server started (240)
	# is killed and counted as a failure, so that a server that hangs
	# under a sanitizer says so within the call.
	# Known: under racecheck, a server with edge clients eight at once
	# has never finished them, nor has it finished this step's mixed
	# clients four or two at once.  The GPU stays busy, and each worker
	# thread waits inside the driver (a stream's sync, cudaMalloc,
	# cudaFree, cudaMallocHost, a launch, nvjpegJpegStateCreate), none
	# on a lock of ours; nvJPEG's calls take tens of seconds there, and
	# once the sanitizer said it failed to track a launch.  Two edge
	# clients at once finish clean, as do eight clients of conv2d, of
	# sobel (gray or colour) or of JPEGs through the engines; so do one
	# edge process with eight lanes and eight racechecked edge processes
	# at once.  Without a sanitizer, t_server's 32 clients at once (edge
	# among them) match their runs in process.
	clients=${SAN_CLIENTS:-8}
	for t in ${SAN_SERVER:-memcheck racecheck}; do
		sock=/tmp/san/srv-$t
		srv="gpufiltd -f -q -i 0 -S $sock"     # also what pkill finds
		# A server left by a run cut short (hung, say) would answer in
		# its place.
		pkill -9 -f "$srv"
		end=$(($(date +%s) + ${SAN_SERVER_S:-240}))
		# shellcheck disable=SC2086
		compute-sanitizer --tool $t --error-exitcode 9 bin/$srv \
		    >/tmp/san/srv-$t.log 2>&1 &
		spid=$!
		i=0
		until bin/gpufiltd -s -S $sock >/dev/null 2>&1 || [ $i -gt 600 ]; do
			sleep 0.2; i=$((i + 1)); done
		# Racecheck weighs each launch far more (edge's hysteresis makes
		# many, a strip its own): the small images alone, which did not
		# finish in 340 s with the others.
		# JPEGs: a gray tool's go to the server's engines as their bytes
		# (GPUFILT_GPU_DECODE=server below).
		# A stream of JPEG frames goes as their bytes too, on lanes
		# that widen at its first frame.
		build/bench/jpeggen -s 420 -q 90 640 480 >/tmp/san/j420.jpg
		for k in 1 2 3 4 5 6; do cat /tmp/san/j420.jpg samples/small.jpg; done \
		    >/tmp/san/frames.mjpeg
		imgs="samples/coins.pgm samples/chelsea.png samples/astro16.pgm /tmp/san/b12.pgm
		    /tmp/san/j420.jpg samples/small.jpg /tmp/san/frames.mjpeg"
		[ "$t" = memcheck ] && imgs="$imgs samples/retina1023x517.pgm /tmp/san/stream.pnm"
		for k in $(seq "${SERVER_ROUNDS:-2}"); do
			tool_runs | while read -r tool args; do
				for img in $imgs; do
					echo "$tool $args $img"
				done
			done
		done | awk '{ print NR, $0 }' | xargs -P "$clients" -L 1 sh -c 'n=$1; shift
			f=$(eval echo \${$#}); set -- $(echo "$@" | sed "s# [^ ]*\$##")
			t=$1; shift
			left=$(('"$end"' - $(date +%s)))
			[ $left -gt 0 ] || { echo "client $n failed: not run, out of time"; exit 0; }
			GPUFILT_SERVER=require GPUFILT_SOCKET='"$sock"' GPUFILT_STRIP_ROWS=64 \
			    GPUFILT_GPU_DECODE=server \
			    timeout $left bin/$t -q "$@" "$f" /tmp/san/srv.$n.pnm ||
			    echo "client $n failed (status $?): $t $* $f"' sh \
		    >>/tmp/san/srv-$t.log 2>&1
		# Timed out: what the server and its threads were doing.
		if grep -q -e "status 124" -e "out of time" /tmp/san/srv-$t.log; then
			{ echo "timed out; the server then (threads: count, name, wait, state):"
			timeout 5 bin/gpufiltd -s -S $sock
			for p in $(pgrep -f "^[^ ]*$srv"); do
				for th in /proc/$p/task/*; do
					echo "$(cat $th/comm) $(cat $th/wchan) $(cut -d' ' -f3 $th/stat)"
				done | sort | uniq -c | sort -rn
				# Where each thread waits, when a debugger is
				# here (the toolkit's cuda-gdb is a gdb).
				gdb=$(command -v gdb || command -v cuda-gdb)
				# Whole stacks: the sanitizer's frames alone
				# can fill the first sixteen.
				[ -z "$gdb" ] || timeout 90 "$gdb" -batch -nx -p "$p" \
				    -ex 'thread apply all bt' \
				    >"$OUT/sanitize-server-$t-bt.txt" 2>&1
			done; } >>/tmp/san/srv-$t.log 2>&1
		fi
		bin/gpufiltd -k -S $sock >/dev/null 2>&1
		i=0
		while kill -0 $spid 2>/dev/null && [ $i -lt 60 ]; do
			sleep 0.5; i=$((i + 1)); done
		if kill -0 $spid 2>/dev/null; then
			echo "the server did not stop in 30 s" >>/tmp/san/srv-$t.log
			pkill -9 -f "$srv"
			kill -9 $spid 2>/dev/null
		fi
		if wait $spid && ! grep -q -e "client .* failed" -e "did not stop" \
		    /tmp/san/srv-$t.log; then
			echo "clean $t gpufiltd with $clients clients" >>"$OUT/sanitize-server.log"
		else
			echo "DIRTY $t gpufiltd with $clients clients" >>"$OUT/sanitize-server.log"
			tail -n 40 /tmp/san/srv-$t.log >>"$OUT/sanitize-server.log"
		fi
	done
	cat "$OUT/sanitize-server.log"
	grep -q '^DIRTY' "$OUT/sanitize-server.log" && status=1
	;;
served)
	# The whole suite again, every run through one server that the
	# harnesses share (make test-served; run.sh -P).
	rm -rf build/gpu-served
	# shellcheck disable=SC2086
	GF_SERVED=1 sh tests/run.sh -P "$nproc" build/gpu-served $GPU_TESTS >"$OUT/served.log" 2>&1 || status=1
	tar czf "$OUT/served-logs.tgz" -C build gpu-served
	head -n 40 "$OUT/served.log" | grep -v ' passed, '
	tail -n 1 "$OUT/served.log"
	;;
serve)
	# The server's targets (issue 42): bench/serve.sh.
	sh bench/serve.sh >"$OUT/serve.log" 2>&1 || status=1
	cat "$OUT/serve.log"
	;;
crossover)
	sh bench/crossover.sh >"$OUT/crossover.log" 2>&1 || status=1
	cat "$OUT/crossover.log"
	;;
stream)
	sh bench/stream.sh 1000 >"$OUT/stream.log" 2>&1 || status=1
	cat "$OUT/stream.log"
	;;
io)
	# End to end: stream, large image, batch (make bench-io).
	sh bench/io.sh >"$OUT/io.log" 2>&1 || status=1
	cat "$OUT/io.log"
	;;
bench)
	build/bench/bench >"$OUT/bench.log" 2>&1 || status=1
	cat "$OUT/bench.log"
	;;
multi)
	# Several GPUs: the suite with --device all, then one GPU against all
	# (its build step too: the build above lacks bench/hostbw).
	OUT="$OUT/multi" sh bench/multi.sh build test bench || status=1
	;;
esac
done
exit $status
