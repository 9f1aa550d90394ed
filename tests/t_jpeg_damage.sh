# Damaged JPEGs and the GPU's JPEG engines (issue 40).  build/bench/
# jpegdamage makes 2000 damaged files from good ones of every subsampling
# the engines take, gray, with and without restart intervals (flipped
# bits, cuts, zeros, truncation, markers in the wrong place, Huffman and
# quantisation tables changed, restart intervals that lie, EXIF damage).
#
# On every machine: the walk that stands before the engines
# (img_reader_set_check) is never clean where libjpeg-turbo's full decode
# warns or fails, on any of them, and clean on every good file
# (build/tests/jpegcheck); the same walk in pieces (jpeg_walk.h, the
# server's, on the CPU here) gives the walk's verdict or is unsure.
#
# On a GPU: the pieced walk on it (kernels/jpeg_walk.cu) does the same.
#
# On a GPU with engines: the whole corpus in one batch, engines on
# (GPUFILT_GPU_DECODE=2) and off (=0), gives the same files refused, the
# same messages and the same bytes; and a stress run, where lanes busy on
# a heavy filter share the buffer pool with the engines decoding, writes
# exactly the CPU decoder's bytes round after round.
# Sourced by tests/run.sh.

D=$TMP/jdamage
mkdir -p "$D/good" "$D/bad"
JPEGGEN=$ROOT/build/bench/jpeggen
for ss in 420 422 444 440 gray; do
	for r in 0 4; do
		"$JPEGGEN" -s $ss -r $r -q 90 -S 3 640 480 >"$D/good/g${ss}r${r}a.jpg" &&
		    "$JPEGGEN" -s $ss -r $r -q 75 -S 5 517 389 >"$D/good/g${ss}r${r}b.jpg"
	done
done
"$JPEGGEN" -s 420 -r 0 -q 95 -S 9 1920 1080 >"$D/good/g420r0c.jpg"
"$ROOT/build/bench/jpegdamage" -S 40 2000 "$D/bad" "$D"/good/*.jpg >"$D/list" 2>"$D/gen.err"
why="jpegdamage: $(cat "$D/gen.err")"
check jpeg-damage/corpus [ "$(wc -l <"$D/list")" -eq 2000 ]

# The check against the full decode, file by file, and the check walked
# in pieces (jpeg_walk.h, on the CPU as the GPU's threads go) against
# the check: never clean where the check is not, the same count of
# blocks outside where it is sure.
"$BUILD/tests/jpegcheck" -w "$D"/bad/*.jpg "$D"/good/*.jpg >"$D/check.log" 2>"$D/check.err"
why="$(tail -n 1 "$D/check.err")"
check jpeg-damage/check-count [ "$(grep -c '^ok ' "$D/check.log")" -eq \
    "$(($(ls "$D/bad" | wc -l) + $(ls "$D/good" | wc -l)))" ]
grep -v '^ok ' "$D/check.log" | head -n 5 | sed 's/^bad /bad check /' >"$D/check.bad"
tally jpeg-damage "$D/check.bad" "the walk is clean where the decode is not"

# Every good file is clean and within the engines' range: the check sends
# no photograph to the CPU.
why="$(tail -n 1 "$D/check.err")"
"$BUILD/tests/jpegcheck" "$D"/good/*.jpg >/dev/null 2>"$D/good.err"
check jpeg-damage/good-clean grep -q ": $(ls "$D/good" | wc -l) clean," "$D/good.err"
# The pieced walk decides every good file without restarts (those with
# restarts are not planned: the CPU decodes them).
"$BUILD/tests/jpegcheck" -w "$D"/good/*r0*.jpg >/dev/null 2>"$D/good-w.err"
why="$(cat "$D/good-w.err")"
check jpeg-damage/pieced-decides grep -q "pieced walk unsure of 0 the walk" "$D/good-w.err"

if ! have_gpu; then
	for c in gpu-walk gpu-walk-decides verdicts bytes engines served-verdicts served-bytes served-engines stress; do skip "jpeg-damage/$c" "no GPU"; done
else
	# The pieced walk on the GPU (kernels/jpeg_walk.cu), as on the CPU.
	"$BUILD/tests/jpegcheck" -g "$D"/bad/*.jpg "$D"/good/*.jpg >"$D/gcheck.log" 2>"$D/gcheck.err"
	why="$(grep -v '^ok ' "$D/gcheck.log" | head -n 3 | tr '\n' ' ') $(tail -n 2 "$D/gcheck.err" | tr '\n' ' ')"
	check jpeg-damage/gpu-walk [ "$(grep -c '^ok ' "$D/gcheck.log")" -eq \
	    "$(($(ls "$D/bad" | wc -l) + $(ls "$D/good" | wc -l)))" ]
	"$BUILD/tests/jpegcheck" -g "$D"/good/*r0*.jpg >/dev/null 2>"$D/good-g.err"
	why="$(cat "$D/good-g.err")"
	check jpeg-damage/gpu-walk-decides grep -q "pieced walk unsure of 0 the walk" "$D/good-g.err"

	# One batch, engines on and off; the messages compared are the
	# failed files' ("NAME: why") and the count of failures.
	mkdir -p "$D/on" "$D/off"
	GPUFILT_GPU_DECODE=2 "$BIN/sobel" -v -t 60 -o "$D/on" "$D"/bad/*.jpg \
	    2>"$D/on.err"
	GPUFILT_GPU_DECODE=0 "$BIN/sobel" -v -t 60 -o "$D/off" "$D"/bad/*.jpg \
	    2>"$D/off.err"
	for how in on off; do
		grep -e '\.jpg: ' -e 'inputs failed$' "$D/$how.err" | sort >"$D/$how.msg"
	done
	why="messages differ: $(diff "$D/off.msg" "$D/on.msg" | head -n 4 | tr '\n' ' ')"
	check jpeg-damage/verdicts cmp -s "$D/off.msg" "$D/on.msg"
	why="$(diff -r "$D/off" "$D/on" 2>&1 | head -n 4 | tr '\n' ' ')"
	check jpeg-damage/bytes diff -r "$D/off" "$D/on"
	# The engines did decode the clean ones (else the test proves nothing).
	why="$(grep -m 1 decoders: "$D/on.err")"
	check jpeg-damage/engines grep -q "decoders: [1-9][0-9]* images on the GPUs' JPEG engines" "$D/on.err"

	# Served (issue 42): the same batch through a server of this test's
	# own, whose engines decode what its walk on the GPU finds clean
	# (GPUFILT_GPU_DECODE=server), gives the files, messages and bytes of
	# the run in process with the engines off; and its engines did
	# decode some.
	mkdir -p "$D/sv" "$D/served" && chmod 700 "$D/sv"
	GPUFILT_SOCKET=$D/sv/server "$BIN/gpufiltd" -q -i 1 2>"$D/sv/start.err"
	GPUFILT_SOCKET=$D/sv/server GPUFILT_SERVER=require GPUFILT_GPU_DECODE=server \
	    "$BIN/sobel" -v -t 60 \
	    -o "$D/served" "$D"/bad/*.jpg 2>"$D/served.err"
	grep -e '\.jpg: ' -e 'inputs failed$' "$D/served.err" | sort >"$D/served.msg"
	decoded=$(GPUFILT_SOCKET=$D/sv/server "$BIN/gpufiltd" -s 2>&1 |
	    sed -n 's/.*served (\([0-9]*\) JPEGs decoded on its engines.*/\1/p')
	GPUFILT_SOCKET=$D/sv/server "$BIN/gpufiltd" -k >/dev/null 2>&1
	why="messages differ: $(diff "$D/off.msg" "$D/served.msg" | head -n 4 | tr '\n' ' ') $(cat "$D/sv/start.err")"
	check jpeg-damage/served-verdicts cmp -s "$D/off.msg" "$D/served.msg"
	why="$(diff -r "$D/off" "$D/served" 2>&1 | head -n 4 | tr '\n' ' ')"
	check jpeg-damage/served-bytes diff -r "$D/off" "$D/served"
	why="the server's engines decoded ${decoded:-none}; $(grep -m 1 decoders: "$D/served.err")"
	check jpeg-damage/served-engines sh -c '[ "${1:-0}" -gt 0 ] &&
	    grep -q "decoders: $1 images on the GPUs'"'"' JPEG engines" "$2"' sh "$decoded" "$D/served.err"

	# Stress: lanes kept busy (edge with a wide Gaussian) on the pool the
	# engines decode into, with small batches so that buffers come back
	# to the engines while lanes still run; every round's bytes are the
	# CPU decoder's.
	mkdir -p "$D/s/in" "$D/s/ref" "$D/s/all"
	"$JPEGGEN" -c "$D/s/all" >/dev/null
	for f in "$D"/s/all/420_*.jpg "$D"/s/all/444_*.jpg "$D"/s/all/gray_*.jpg; do
		case $f in *_prog*|*_arith*) continue ;; esac
		for k in 1 2 3 4; do ln -s "$f" "$D/s/in/$k-$(basename "$f")"; done
	done
	GPUFILT_GPU_DECODE=0 "$BIN/edge" -q --sigma 6 -o "$D/s/ref" "$D"/s/in/*.jpg \
	    2>"$D/s/ref.err"
	ok=1 why=
	for round in 1 2 3 4 5 6; do
		rm -rf "$D/s/out" && mkdir -p "$D/s/out"
		GPUFILT_GPU_DECODE=2 GPUFILT_JPEG_BATCH=$((round * 3)) GPUFILT_LANES=4 \
		    "$BIN/edge" -v --sigma 6 -o "$D/s/out" "$D"/s/in/*.jpg 2>"$D/s/out.err"
		if ! diff -r "$D/s/ref" "$D/s/out" >"$D/s/diff" 2>&1 ||
		    ! grep -q "decoders: [1-9]" "$D/s/out.err"; then
			ok=0 why="round $round: $(head -c 200 "$D/s/diff") $(grep -m 1 decoders: "$D/s/out.err")"
			break
		fi
	done
	check jpeg-damage/stress [ "$ok" = 1 ]
fi
