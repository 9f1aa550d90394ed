# The GPU's JPEG engines (lib/engine/engine_jdec.c): over build/bench/jpeggen's
# corpus (every subsampling, restart intervals 0/1/7, 1x1 to 4001x3001,
# qualities 30-100, EXIF orientations, progressive and arithmetic), every
# tool and strategy writes the same bytes whether the engines decode, the
# CPU decodes (GPUFILT_GPU_DECODE=0) or the CPU filters (--cpu); -v names
# the engines for exactly the classes they take; a JPEG the engines fail
# on fails alone; hostile JPEGs neither crash nor hang the GPU path.  GPU
# cases: skipped without a GPU, or where the engines do not open (none
# on this GPU, no libnvjpeg; the first run, -v, says which).  The
# comparisons run with GPUFILT_GPU_DECODE=2 (readers wait for the GPU to
# open, so that the engines take every JPEG they can); -v runs as users
# do, the first JPEGs decoded on the CPU while the GPU opens.
# Sourced by tests/run.sh.

J=$TMP/jgpu
mkdir -p "$J/c"
JPEGGEN=$ROOT/build/bench/jpeggen

# jgpu_cases: the tools and options compared, one per line.
jgpu_cases() {
	printf '%s\n' "sobel -t 60" "sobel" "sobel --gradient x --operator scharr" \
	    "edge --auto" "edge --sigma 0 --low 20 --high 60" "conv2d -k gauss:1.4"
}

# The corpus files the engines take, by jpeggen's names.
jgpu_taken() {
	ls "$J/c" | grep -v -e _prog -e _arith -e '^411_' -e '^410_'
}

if ! have_gpu; then
	for c in corpus verbose fallback alone hostile; do skip "jpeg-gpu/$c" "no GPU"; done
elif ! "$JPEGGEN" -c "$J/c" >/dev/null; then
	fail "jpeg-gpu/corpus" "jpeggen -c failed"
elif ! GPUFILT_GPU_DECODE=2 "$BIN/sobel" -v -o "$J/v2" "$J"/c/*.jpg 2>"$J/v2.err" ||
    ! grep -q "decoders: [1-9]" "$J/v2.err"; then
	# The engines did not open (none on this GPU, no libnvjpeg): say why.
	echo "jpeg-gpu: $(grep -m 1 -e decoders -e 'sobel:' "$J/v2.err")" >&2
	for c in corpus verbose fallback alone hostile; do skip "jpeg-gpu/$c" "no JPEG engines"; done
else
	# Every case and strategy, engines against the CPU's decode and --cpu,
	# the strategies side by side; each line of a log is "ok NAME" or
	# "bad NAME".
	jgpu_cases | while read -r tool args; do
		n=$tool-$(echo "$args" | tr -c 'a-z0-9' _)
		mkdir -p "$J/$n-ref"
		# shellcheck disable=SC2086
		"$BIN/$tool" -q --cpu $args -o "$J/$n-ref" "$J"/c/*.jpg 2>"$J/$n-ref.err"
		for m in $(strategies "$tool" | grep -v '^cpu$'); do
			(
				mkdir -p "$J/$n-$m-gpu" "$J/$n-$m-off"
				# shellcheck disable=SC2086
				GPUFILT_GPU_DECODE=2 "$BIN/$tool" -q -m "$m" $args \
				    -o "$J/$n-$m-gpu" "$J"/c/*.jpg 2>"$J/$n-$m-gpu.err"
				# shellcheck disable=SC2086
				GPUFILT_GPU_DECODE=0 "$BIN/$tool" -q -m "$m" $args \
				    -o "$J/$n-$m-off" "$J"/c/*.jpg 2>"$J/$n-$m-off.err"
				for how in gpu off; do
					if diff -r "$J/$n-ref" "$J/$n-$m-$how" >"$J/$n-$m-$how.diff" 2>&1 &&
					    [ "$(ls "$J/$n-ref" | wc -l)" -eq "$(ls "$J/c" | wc -l)" ]; then
						echo "ok jpeg-gpu/corpus/$n/$m/$how"
					else
						echo "bad jpeg-gpu/corpus/$n/$m/$how $(head -c 200 "$J/$n-$m-$how.diff" "$J/$n-$m-$how.err" | tr '\n' ' ')"
					fi
				done
			) >"$J/$n-$m.log" &
		done
		wait
	done
	cat "$J"/*.log >"$J/all.log"
	tally jpeg-gpu "$J/all.log" "bytes differ from --cpu"

	# -v: the engines decode only the classes they take (all of them when
	# the readers wait for the engines to open; as users run it, those the
	# CPU did not decode meanwhile), and the summary counts them.
	all=$(ls "$J/c" | wc -l) want=$(jgpu_taken | wc -l)
	GPUFILT_GPU_DECODE=1 "$BIN/sobel" -v -o "$J/v1" "$J"/c/*.jpg 2>"$J/v1.err"
	for w in 1 2; do
		sed -n "s#^sobel: $J/c/\(.*\) image 1: .*decoder: JPEG engines.*#\1#p" \
		    "$J/v$w.err" | sort >"$J/v$w.engines"
	done
	why="the engines decoded files they do not take, or not all they take when waited for, or the summary miscounts: $(grep -m 1 decoders: "$J/v2.err")"
	ok=0
	jgpu_taken | sort | cmp -s - "$J/v2.engines" &&
	    [ -z "$(jgpu_taken | sort | comm -13 - "$J/v1.engines")" ] &&
	    grep -q "decoders: $want images on the GPUs' JPEG engines, $((all - want)) on the CPU" "$J/v2.err" &&
	    ok=1
	check jpeg-gpu/verbose [ "$ok" = 1 ]

	# The readers' share: with batches of 4, readers decode the JPEGs read
	# while the engines have two batches waiting; the bytes are the same.
	mkdir -p "$J/s"
	GPUFILT_GPU_DECODE=1 GPUFILT_JPEG_BATCH=4 "$BIN/sobel" -v -t 60 -o "$J/s" \
	    "$J"/c/*.jpg 2>"$J/s.err"
	why="$(grep -m 1 decoders: "$J/s.err"); $(diff -r "$J/sobel-_t_60_-ref" "$J/s" 2>&1 | head -c 200)"
	check jpeg-gpu/share diff -r "$J/sobel-_t_60_-ref" "$J/s"

	# An image the engines fail (GPUFILT_JPEG_FAIL makes the third one
	# fail) is decoded on the CPU instead, to the same bytes.
	mkdir -p "$J/f"
	GPUFILT_GPU_DECODE=2 GPUFILT_JPEG_FAIL=3 "$BIN/sobel" -v -t 60 -o "$J/f" \
	    "$J"/c/*.jpg 2>"$J/f.err"
	why="$(grep -m 1 decoders: "$J/f.err"); $(diff -r "$J/sobel-_t_60_-ref" "$J/f" 2>&1 | head -c 200)"
	ok=0
	diff -r "$J/sobel-_t_60_-ref" "$J/f" >/dev/null &&
	    grep -q "decoders: .*(1 of them refused or failed by the engines)" "$J/f.err" && ok=1
	check jpeg-gpu/fallback [ "$ok" = 1 ]

	# A JPEG cut short with EOI appended fails alone, on either decoder: the
	# others of the batch are written, as with the CPU's decoder.
	mkdir -p "$J/a/in" "$J/a/gpu" "$J/a/off"
	cp "$J"/c/420_1001x999_*_o0.jpg "$J"/c/444_333x257_*.jpg "$J/a/in/"
	f=$(ls "$J"/c/422_1001x999_*.jpg | head -n 1)
	{ head -c $(($(wc -c <"$f") / 2)) "$f"; printf '\377\331'; } >"$J/a/in/cut.jpg"
	GPUFILT_GPU_DECODE=2 "$BIN/edge" -q --auto -o "$J/a/gpu" "$J"/a/in/*.jpg \
	    2>"$J/a/gpu.err"
	sg=$?
	GPUFILT_GPU_DECODE=0 "$BIN/edge" -q --auto -o "$J/a/off" "$J"/a/in/*.jpg 2>"$J/a/off.err"
	so=$?
	why="exit $sg and $so; $(head -n 2 "$J/a/gpu.err" | tr '\n' ' ')"
	ok=0
	[ "$sg" = 1 ] && [ "$so" = 1 ] && [ ! -e "$J/a/gpu/cut.pgm" ] &&
	    [ "$(ls "$J/a/gpu" | wc -l)" -eq "$(($(ls "$J/a/in" | wc -l) - 1))" ] &&
	    diff -r "$J/a/gpu" "$J/a/off" >/dev/null && ok=1
	check jpeg-gpu/alone [ "$ok" = 1 ]

	# Hostile JPEGs (the fuzz seeds, and the corpus damaged) through the
	# GPU path: each run ends, with 0 or 1, within the time limit.
	mkdir -p "$J/h/in" "$J/h/out"
	python3 "$ROOT/tests/fuzz/seeds.py" "$J/seeds" >/dev/null 2>&1 &&
	    cp "$J"/seeds/img/*.jpg "$J/h/in/" 2>/dev/null
	for f in "$J"/c/*_r[07]_o0.jpg; do
		b=$(basename "$f" .jpg) n=$(wc -c <"$f")
		[ "$n" -gt 2000 ] || continue
		head -c $((n * 2 / 3)) "$f" >"$J/h/in/$b-trunc.jpg"
		{ head -c $((n / 2)) "$f"; printf 'garbage\377\331'; } >"$J/h/in/$b-junk.jpg"
		{ head -c $((n / 2)) "$f"; head -c 64 /dev/zero | tr '\0' '\377';
		  tail -c $((n / 2 - 64)) "$f"; } >"$J/h/in/$b-ff.jpg"
	done
	limited env GPUFILT_GPU_DECODE=2 "$BIN/edge" -q --auto -o "$J/h/out" \
	    "$J"/h/in/*.jpg 2>"$J/h/err"
	st=$?
	why="edge exited $st on hostile JPEGs: $(tail -n 1 "$J/h/err")"
	check jpeg-gpu/hostile [ "$st" -le 1 ]
fi
