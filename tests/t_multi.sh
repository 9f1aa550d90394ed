# Past one GPU (issue 12): --device lists and --shard refused or taken
# as documented; the shards of a batch are disjoint and together are the
# batch; GNU parallel over a batch writes the files one process writes;
# and (GPU) --device all gives the bytes of one GPU, tells of each GPU,
# and a GPU that breaks stops the run with a message naming it.
# GPU_DEVICES (default all) is the --device of the GPU cases.
# Sourced by tests/run.sh.

M=$TMP/multi
mkdir -p "$M/in"
# A batch of 12 inputs: the samples, and copies of them under other names.
for f in coins.pgm astro16.pgm px2x3.pgm px1x700.pgm retina1023x517.pgm \
    chelsea.png small.jpg; do
	cp "$SAMPLES/$f" "$M/in/"
done
for i in 1 2 3 4 5; do
	cp "$SAMPLES/coins.pgm" "$M/in/coins-$i.pgm"
done
# The inputs in the shell's order, and reversed (one name per line: no spaces).
ls "$M/in" | sed "s#^#$M/in/#" >"$M/list"
sort -r "$M/list" >"$M/rlist"

# Usage errors: exit 2 and the message.
multi_usage() {
	name=$1 needle=$2
	shift 2
	"$BIN/sobel" "$@" >/dev/null 2>"$M/err"
	st=$?
	why="exit $st, $(head -n 1 "$M/err")"
	check "multi/usage/$name" eval '[ $st = 2 ] && grep -q "^sobel: .*$needle" "$M/err"'
}
multi_usage device-twice "names GPU 1 twice" --device 1,0,1 "$SAMPLES/coins.pgm"
multi_usage device-empty "not a GPU number" --device 0,,1 "$SAMPLES/coins.pgm"
multi_usage device-range "GPU 1024 is out of range" --device 0,1024 "$SAMPLES/coins.pgm"
multi_usage shard-k "must be 0 to 2" --shard 3/3 -o "$M/u" "$SAMPLES/coins.pgm"
multi_usage shard-n "N must be 1 to" --shard 0/0 -o "$M/u" "$SAMPLES/coins.pgm"
multi_usage shard-k-huge "K counts from 0, so for 3 shards it must be 0 to 2" --shard 2000000/3 \
    -o "$M/u" "$SAMPLES/coins.pgm"
multi_usage shard-form "not of the form K/N" --shard 1-3 -o "$M/u" "$SAMPLES/coins.pgm"
multi_usage shard-no-batch "needs a batch" --shard 0/2 "$SAMPLES/coins.pgm"
# A batch whose outputs collide is refused in every shard, not only in
# the one that holds both inputs.
multi_usage shard-collide "would both be written" --shard 1/2 -o "$M/u" "$SAMPLES/coins.pgm" \
    "$M/in/coins.pgm" "$SAMPLES/px2x3.pgm"

# Without a GPU, --device all is the default device: the CPU (a notice
# with -v) for -m auto, an error for a GPU strategy.
if have_gpu; then
	skip multi/no-gpu/all-auto "a GPU is there"
	skip multi/no-gpu/all-strategy "a GPU is there"
else
	"$BIN/sobel" --cpu "$SAMPLES/coins.pgm" "$M/cpu.pgm"
	"$BIN/sobel" -v --device all "$SAMPLES/coins.pgm" "$M/all.pgm" 2>"$M/err"
	st=$?
	why="exit $st, $(cat "$M/err")"
	check multi/no-gpu/all-auto eval '[ $st = 0 ] && cmp -s "$M/cpu.pgm" "$M/all.pgm" &&
	    grep -q "^sobel: running on the CPU" "$M/err"'
	"$BIN/sobel" -m shared --device all "$SAMPLES/coins.pgm" "$M/none.pgm" 2>"$M/err"
	st=$?
	why="exit $st, $(cat "$M/err")"
	check multi/no-gpu/all-strategy eval '[ $st = 1 ] && [ ! -e "$M/none.pgm" ] &&
	    grep -q "needs a GPU" "$M/err"'
fi

# The reference: one process over the whole batch.
# shellcheck disable=SC2046
"$BIN/conv2d" -q -k gauss:1 -o "$M/one" $(cat "$M/list") 2>"$M/one.err"
why="one process: $(cat "$M/one.err")"
check multi/batch/one eval '[ "$(ls "$M/one" | wc -l)" -eq 12 ]'

# The shards of N, from the list in either order: each output in exactly
# one shard, each shard's files those of the one process, byte for byte.
for n in 1 2 3 5 12 13; do
	rm -rf "$M/sh"
	bad=
	rm -f "$M/sh.bad"
	# The shards at once, as a job array runs them.
	for k in $(seq 0 $((n - 1))); do
		list=$M/list
		[ $((k % 2)) = 1 ] && list=$M/rlist
		# shellcheck disable=SC2046
		"$BIN/conv2d" -q -k gauss:1 --shard "$k/$n" -o "$M/sh/$k" $(cat "$list") \
		    2>>"$M/sh.err" || echo "exit:$k" >>"$M/sh.bad" &
	done
	wait
	[ ! -e "$M/sh.bad" ] || bad="$bad $(tr '\n' ' ' <"$M/sh.bad")"
	# Every output name once across the shards, and the same bytes.
	names=$(cd "$M/sh" 2>/dev/null && find . -type f | sed 's#^\./[0-9]*/##' | sort)
	[ "$names" = "$(ls "$M/one" | sort)" ] || bad="$bad names"
	for d in "$M/sh"/*/; do
		[ -d "$d" ] || continue
		for f in "$d"*; do
			[ -e "$f" ] || continue
			cmp -s "$f" "$M/one/$(basename "$f")" || bad="$bad bytes:$f"
		done
	done
	[ "$n" = 13 ] && [ -n "$(ls -A "$M/sh/12")" ] && bad="$bad empty-shard-wrote"
	why="$bad $(head -c 200 "$M/sh.err" 2>/dev/null)"
	check "multi/shard/of-$n" eval '[ -z "$bad" ]'
done

# GNU parallel on this host: many processes, a few inputs each, and the
# job-array form (one --shard per job), write the one process's files.
if ! command -v parallel >/dev/null 2>&1; then
	skip multi/parallel/files "GNU parallel is not installed"
	skip multi/parallel/shards "GNU parallel is not installed"
else
	parallel --will-cite -j 4 -n 3 "$BIN/conv2d" -q -k gauss:1 -o "$M/par" \
	    :::: "$M/list" 2>"$M/par.err"
	why="$(head -c 300 "$M/par.err") $(diff -r "$M/one" "$M/par" 2>&1 | head -c 300)"
	check multi/parallel/files eval 'diff -r "$M/one" "$M/par" >/dev/null'
	# shellcheck disable=SC2016
	parallel --will-cite -j 3 "$BIN/conv2d" -q -k gauss:1 --shard {}/3 -o "$M/pshard" \
	    $(cat "$M/list") ::: 0 1 2 2>"$M/pshard.err"
	why="$(head -c 300 "$M/pshard.err") $(diff -r "$M/one" "$M/pshard" 2>&1 | head -c 300)"
	check multi/parallel/shards eval 'diff -r "$M/one" "$M/pshard" >/dev/null'
fi

# ---- GPU: several GPUs give the bytes of one, in order.

# A stream of the mixed inputs (PNM only), as t_engine.sh makes it.
"$BIN/conv2d" -q --cpu -k identity "$SAMPLES/chelsea.png" "$M/chelsea8.ppm"
cat "$SAMPLES/coins.pgm" "$SAMPLES/px1x700.pgm" "$SAMPLES/astro16.pgm" "$M/chelsea8.ppm" \
    "$SAMPLES/px2x3.pgm" "$SAMPLES/retina1023x517.pgm" "$SAMPLES/coins.pgm" \
    "$M/chelsea8.ppm" >"$M/stream.pnm"
DEVS=${GPU_DEVICES:-all}

# Strategy m's streams and batches on one GPU and on $DEVS, in $M/$m;
# what differed in $M/$m.bad.
multi_gpu() {
	m=$1 D=$M/$1 bad=
	mkdir -p "$D"
	while read -r c <&3; do
		n=$(echo "$c" | tr -c 'a-z0-9' _)
		# shellcheck disable=SC2086
		{
			"$BIN"/$c -q -m "$m" --device 0 "$M/stream.pnm" "$D/s1-$n.pnm" &&
			    "$BIN"/$c -q -m "$m" --device "$DEVS" "$M/stream.pnm" "$D/sN-$n.pnm" &&
			    GPUFILT_STRIP_ROWS=64 "$BIN"/$c -q -m "$m" --device "$DEVS" \
			    "$M/stream.pnm" >"$D/sNs-$n.pnm"
		} 2>>"$D/gpu.err" || bad="$bad $n:exit"
		cmp -s "$D/s1-$n.pnm" "$D/sN-$n.pnm" || bad="$bad $n:stream"
		cmp -s "$D/s1-$n.pnm" "$D/sNs-$n.pnm" || bad="$bad $n:strips"
		# shellcheck disable=SC2086,SC2046
		"$BIN"/$c -q -m "$m" --device 0 -o "$D/b1-$n" $(cat "$M/list") 2>>"$D/gpu.err" &&
		    "$BIN"/$c -q -m "$m" --device "$DEVS" -o "$D/bN-$n" $(cat "$M/list") \
		    2>>"$D/gpu.err" || bad="$bad $n:batch-exit"
		diff -r "$D/b1-$n" "$D/bN-$n" >/dev/null || bad="$bad $n:batch"
	done 3<<EOF
$(tool_runs)
EOF
	echo "$bad" >"$D.bad"
}

# The strategies side by side (on a GPU, most of a small run is opening them).
if have_gpu; then
	for m in auto $(gpu_strategies sobel); do multi_gpu "$m" & done
	wait
fi
for m in auto $(gpu_strategies sobel); do
	if ! have_gpu; then skip "multi/gpu/$m" "no GPU"; continue; fi
	bad=$(cat "$M/$m.bad" 2>/dev/null || echo "no result")
	why="$bad $(head -c 300 "$M/$m/gpu.err")"
	check "multi/gpu/$m" eval '[ -z "$bad" ]'
done

if ! have_gpu; then
	skip multi/gpu/summary "no GPU"
	skip multi/gpu/no-such "no GPU"
	skip multi/gpu/broken "no GPU"
else
	# -v: a line per GPU, whose images add up to the run's.
	"$BIN/sobel" -v --device "$DEVS" "$M/stream.pnm" "$M/v.pnm" 2>"$M/v.err"
	sum=$(sed -n 's/^sobel: GPU [0-9]* (.*): \([0-9]*\) images, busy [0-9]*%$/\1/p' "$M/v.err" |
	    awk '{ s += $1 } END { print s + 0 }')
	why="$(grep -c '^sobel: GPU [0-9]* (' "$M/v.err") GPU lines, $sum images: $(tail -n 3 "$M/v.err")"
	check multi/gpu/summary eval '[ "$sum" = 8 ] && grep -q "^sobel: 8 images in" "$M/v.err" &&
	    grep -q "image 1: .*GPU [0-9]*: upload" "$M/v.err"'
	# A GPU number the machine does not have: exit 1, named, no output.
	"$BIN/sobel" --device 0,1023 "$SAMPLES/coins.pgm" "$M/nosuch.pgm" 2>"$M/err"
	st=$?
	why="exit $st, $(cat "$M/err")"
	check multi/gpu/no-such eval '[ $st = 1 ] && [ ! -e "$M/nosuch.pgm" ] &&
	    grep -q "there is no GPU number 1023" "$M/err"'
	# GPU 0 breaks at its second image (GPUFILT_FAIL_GPU): exit 1, one
	# message naming it and the inputs not written; what was written is
	# whole and right, and written + not written = the batch.
	rm -rf "$M/broken"
	# shellcheck disable=SC2046
	GPUFILT_FAIL_GPU=0:2 "$BIN/conv2d" -q -k gauss:1 -j 2 --device "$DEVS" -o "$M/broken" \
	    $(cat "$M/list") 2>"$M/err"
	st=$?
	notw=$(sed -n 's/.*the run stopped, and \([0-9]*\) of 12 inputs were not written$/\1/p' "$M/err")
	got=0 bad=
	for f in "$M/broken"/*; do
		[ -e "$f" ] || continue
		got=$((got + 1))
		cmp -s "$f" "$M/one/$(basename "$f")" || bad="$bad $f"
	done
	why="exit $st, $got written, '$notw' not, $bad: $(cat "$M/err")"
	check multi/gpu/broken eval '[ $st = 1 ] && [ -n "$notw" ] && [ $((got + notw)) = 12 ] &&
	    [ -z "$bad" ] && [ "$(wc -l <"$M/err")" = 1 ] &&
	    grep -q "^conv2d: GPU 0 (.*) failed on .* image 1: GPUFILT_FAIL_GPU" "$M/err"'
fi
