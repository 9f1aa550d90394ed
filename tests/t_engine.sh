# The engine: order and completeness of streams and batches whatever the
# number of threads, failures in the middle of a stream, and (GPU) strips
# equal to whole images.  Sourced by tests/run.sh.

E=$TMP/engine
mkdir -p "$E"

# A 16-bit colour image as plain PPM, and an 8-bit colour PPM.
awk 'BEGIN { print "P3\n37 23\n4000"; for (y = 0; y < 23; y++) for (x = 0; x < 37; x++)
	print (x * 97 + y * 31) % 4001, (x * y * 13) % 4001, (x * 7 + y * 211) % 4001 }' >"$E/rgb16.ppm"
"$BIN/conv2d" -q --cpu -k identity "$SAMPLES/chelsea.png" "$E/chelsea8.ppm"
MIXED="$SAMPLES/coins.pgm $SAMPLES/px1x1.pgm $SAMPLES/astro16.pgm $E/chelsea8.ppm
$E/rgb16.ppm $SAMPLES/px2x3.pgm $SAMPLES/retina1023x517.pgm"
# shellcheck disable=SC2086
cat $MIXED >"$E/stream.pnm"

# engine_tools: each tool with the options its cases use.
engine_tools() {
	printf '%s\n' "sobel -t 60" "sobel" "conv2d -k gauss:1.4" "conv2d -k 1,2,1;0,0,0;-1,-2,-1 --bias 128" \
	    "edge --auto" "edge --sigma 0 --low 20 --high 60"
}

# Streams: -j 1, -j 4 and one run per image give the same bytes, in order.
# Each engine_* check of strategy m works in $E/$m and prints "ok NAME"
# or "bad NAME WHY" (engine_tally counts them), so that the strategies
# can run side by side.
engine_stream() {
	m=$1 D=$E/$1
	engine_tools | while read -r tool args; do
		n=$tool-$(echo "$args" | tr -c 'a-z0-9' _)
		: >"$D/$n.each"
		for f in $MIXED; do
			# shellcheck disable=SC2086
			"$BIN/$tool" -q -m "$m" $args "$f" >>"$D/$n.each" 2>>"$D/$n.err"
		done
		ok=1
		for j in 1 4; do
			# shellcheck disable=SC2086
			"$BIN/$tool" -q -m "$m" -j $j $args "$E/stream.pnm" "$D/$n.j$j.pnm" \
			    2>>"$D/$n.err" || ok=0
			cmp -s "$D/$n.j$j.pnm" "$D/$n.each" || ok=0
		done
		if [ $ok = 1 ]; then echo "ok engine/stream/$m/$n"; else
			echo "bad engine/stream/$m/$n -j 1, -j 4 and per-image runs differ: $(head -c 300 "$D/$n.err" | tr '\n' ' ')"; fi
	done
}

# Batches of mixed formats: -j 1 and -j 3 write the same files.
engine_batch() {
	m=$1 D=$E/$1
	for j in 1 3; do
		mkdir -p "$D/b$j"
		# shellcheck disable=SC2086
		"$BIN/conv2d" -q -m "$m" -j $j -k gauss:1 -o "$D/b$j" $MIXED "$SAMPLES/chelsea.png" \
		    "$SAMPLES/small.jpg" 2>"$D/b$j.err" || echo "exit $?" >>"$D/b$j.err"
	done
	if [ "$(ls "$D/b1" | wc -l)" -eq 9 ] && diff -r "$D/b1" "$D/b3" >/dev/null &&
	    [ ! -s "$D/b1.err" ]; then
		echo "ok engine/batch/$m"
	else
		echo "bad engine/batch/$m $(ls "$D/b1" | wc -l) outputs, $(cat "$D/b1.err" "$D/b3.err" | tr '\n' ' ')"
	fi
}

# A gray tool's batch of colour (8 and 16 bit, alpha too): the same files
# whether its readers make the colour gray (a hidden knob: 1), the GPU
# or the lane does (0), or the engine picks image by image (unset).
printf 'P7\nWIDTH 29\nHEIGHT 17\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n' >"$E/rgba.pam"
awk 'BEGIN { for (i = 0; i < 29 * 17 * 4; i++) printf "%c", 32 + (i * 37) % 200 }' >>"$E/rgba.pam"
engine_gray_batch() {
	m=$1 D=$E/$1
	for tool in "sobel" "edge --auto"; do
		n=$(echo "$tool" | tr -c 'a-z0-9' _)
		for g in 0 1 unset; do
			rm -rf "$D/g$g"
			mkdir -p "$D/g$g"
			knob=GPUFILT_READER_GRAY=$g
			[ $g != unset ] || knob=
			# shellcheck disable=SC2086
			env $knob "$BIN"/$tool -q -m "$m" -j 3 -o "$D/g$g" $MIXED "$E/rgba.pam" \
			    "$SAMPLES/chelsea.png" "$SAMPLES/small.jpg" 2>"$D/g$g.err" ||
			    echo "exit $?" >>"$D/g$g.err"
		done
		if [ "$(ls "$D/g0" | wc -l)" -eq 10 ] && diff -r "$D/g0" "$D/g1" >/dev/null &&
		    diff -r "$D/g0" "$D/gunset" >/dev/null && [ ! -s "$D/g0.err" ]; then
			echo "ok engine/gray-batch/$m/$n"
		else
			echo "bad engine/gray-batch/$m/$n $(ls "$D/g0" | wc -l) outputs, $(cat "$D/g0.err" "$D/g1.err" | tr '\n' ' ')"
		fi
	done
}

engine_tally() {
	while read -r what n why; do
		if [ "$what" = ok ]; then pass "$n"; else fail "$n" "$why"; fi
	done <"$1"
}

# The strategies side by side (on a GPU, most of a small run is opening it).
for m in $(strategies sobel); do
	case $m in cpu|auto) ;; *) have_gpu || continue ;; esac
	mkdir -p "$E/$m"
	{ engine_stream "$m"; engine_batch "$m"; engine_gray_batch "$m"; } >"$E/$m.log" 2>&1 &
done
wait
for m in $(strategies sobel); do
	case $m in cpu|auto) ;; *) have_gpu || { skip "engine/$m" "no GPU"; continue; } ;; esac
	engine_tally "$E/$m.log"
	# Six streams, a batch, two gray batches: a check that died is no pass.
	[ "$(wc -l <"$E/$m.log")" -eq 9 ] ||
	    fail "engine/$m/all" "$(wc -l <"$E/$m.log") results of 9"
done

# A failure in image 3 of a stream: to standard output the two images
# before it are written; to a file, nothing is left; the status is 1.
head -c 1000 "$SAMPLES/coins.pgm" >"$E/trunc.pgm"
cat "$SAMPLES/coins.pgm" "$SAMPLES/px2x3.pgm" "$E/trunc.pgm" >"$E/bad3.pnm"
cat "$SAMPLES/coins.pgm" "$SAMPLES/px2x3.pgm" | "$BIN/sobel" -q >"$E/good2.pnm"
"$BIN/sobel" -q "$E/bad3.pnm" >"$E/bad3.out" 2>"$E/bad3.err"; st=$?
if [ $st = 1 ] && cmp -s "$E/bad3.out" "$E/good2.pnm" && grep -q 'image 3 is truncated' "$E/bad3.err"; then
	pass "engine/fail-k/stdout"
else
	fail "engine/fail-k/stdout" "status $st, $(cat "$E/bad3.err")"
fi
mkdir -p "$E/fk"
"$BIN/sobel" -q "$E/bad3.pnm" "$E/fk/out.pgm" 2>/dev/null; st=$?
if [ $st = 1 ] && [ -z "$(ls -A "$E/fk")" ]; then pass "engine/fail-k/file"; else
	fail "engine/fail-k/file" "status $st, left: $(ls -A "$E/fk")"; fi

# -v ends a run of several images with the summary line.
"$BIN/sobel" -v -t 60 "$E/stream.pnm" "$E/v.pnm" 2>"$E/v.err"
if grep -q '^sobel: 7 images in [0-9.]* s, [0-9.]* images/s, .*busy: read' "$E/v.err"; then
	pass "engine/summary"
else
	fail "engine/summary" "$(tail -n 1 "$E/v.err")"
fi

# GPU: strips of 7 rows (a hidden knob) equal the CPU on every strategy,
# 8 and 16 bit, gray and colour, heights that are not multiples of 7.
for m in $(gpu_strategies sobel); do
	if ! have_gpu; then skip "engine/strips/$m" "no GPU"; continue; fi
	for c in "sobel -t 60" "sobel --border reflect" "sobel --operator sobel7 -t 9000" \
	    "sobel --operator scharr --border zero" "sobel --gradient x" \
	    "sobel --gradient y --operator sobel5 --border reflect" \
	    "sobel --depth 16 --border wrap" "conv2d -k gauss:2" \
	    "conv2d -k box:5 --no-separable --border zero" "conv2d -k 0,0,1;0,0,0;0,0,0"; do
		n=$(echo "$c" | tr -c 'a-z0-9' _)
		for f in retina1023x517.pgm astro16.pgm chelsea.png; do
			# shellcheck disable=SC2086
			"$BIN"/$c -q --cpu "$SAMPLES/$f" "$E/ref.pnm" &&
			    GPUFILT_STRIP_ROWS=7 "$BIN"/$c -q -m "$m" "$SAMPLES/$f" "$E/strip.pnm" 2>"$E/strip.err" &&
			    cmp -s "$E/ref.pnm" "$E/strip.pnm" && continue
			echo "$f: $(cat "$E/strip.err")"
		done >"$E/strip-$m-$n.log"
		if [ -s "$E/strip-$m-$n.log" ]; then fail "engine/strips/$m/$n" "$(head -c 300 "$E/strip-$m-$n.log")"
		else pass "engine/strips/$m/$n"; fi
	done
done

# GPU: a stream in strips of 5 rows, into a file (rows written as strips
# land), to standard output and as PNG (written whole): the CPU's bytes.
for m in $(gpu_strategies sobel); do
	if ! have_gpu; then skip "engine/strip-outputs/$m" "no GPU"; continue; fi
	bad=
	for c in "sobel -t 60" "sobel --gradient x" "conv2d -k gauss:1.4"; do
		# shellcheck disable=SC2086
		"$BIN"/$c -q --cpu "$E/stream.pnm" "$E/sref.pnm"
		# shellcheck disable=SC2086
		GPUFILT_STRIP_ROWS=5 "$BIN"/$c -q -m "$m" "$E/stream.pnm" "$E/sfile.pnm" || bad="$bad $c:file"
		# shellcheck disable=SC2086
		GPUFILT_STRIP_ROWS=5 "$BIN"/$c -q -m "$m" "$E/stream.pnm" >"$E/sout.pnm" || bad="$bad $c:stdout"
		cmp -s "$E/sref.pnm" "$E/sfile.pnm" || bad="$bad $c:file-bytes"
		cmp -s "$E/sref.pnm" "$E/sout.pnm" || bad="$bad $c:stdout-bytes"
		# shellcheck disable=SC2086
		"$BIN"/$c -q --cpu "$SAMPLES/retina1023x517.pgm" "$E/pref.png"
		# shellcheck disable=SC2086
		GPUFILT_STRIP_ROWS=5 "$BIN"/$c -q -m "$m" "$SAMPLES/retina1023x517.pgm" "$E/pgpu.png" &&
		    cmp -s "$E/pref.png" "$E/pgpu.png" || bad="$bad $c:png"
	done
	if [ -z "$bad" ]; then pass "engine/strip-outputs/$m"; else fail "engine/strip-outputs/$m" "$bad"; fi
done

# GPU: a batch of 3000 tiny images, most of them read while the GPU opens
# (slots taken ahead): every output written, -v tells each in input
# order; the same for two long streams of tiny frames.  Then 1 and 5
# lanes per GPU (a hidden knob), and a batch without the lanes' staging,
# give the same bytes as the default, and the default lanes are four for
# a batch on one GPU, two for a stream.
if ! have_gpu; then
	skip "engine/tiny-batch" "no GPU"
	skip "engine/tiny-streams" "no GPU"
	skip "engine/lanes" "no GPU"
else
	mkdir -p "$E/tiny" "$E/tout"
	awk -v d="$E/tiny" 'BEGIN { for (i = 0; i < 3000; i++) {
		f = sprintf("%s/t%04d.pgm", d, i)
		printf "P2\n2 1\n255\n%d %d\n", i % 256, (i * 7) % 256 >f
		close(f) } }'
	limited "$BIN/sobel" -v -m shared -j 8 -o "$E/tout" "$E/tiny"/*.pgm 2>"$E/tiny.err"; st=$?
	order=$(sed -n 's#^sobel: .*/\(t[0-9]*\)\.pgm image 1: .*#\1#p' "$E/tiny.err" | tr -d '\n')
	want=$(ls "$E/tiny" | sed 's/\.pgm$//' | tr -d '\n')
	if [ $st = 0 ] && [ "$(ls "$E/tout" | wc -l)" -eq 3000 ] && [ "$order" = "$want" ]; then
		pass "engine/tiny-batch"
	else
		fail "engine/tiny-batch" "status $st, $(ls "$E/tout" | wc -l) outputs, $(grep -v ' image 1: ' "$E/tiny.err" | head -c 300)"
	fi
	# Two streams of 2000 tiny frames each, most read ahead: their
	# frames, more than the engine's own slots, wait to be told of at once.
	awk -v d="$E" 'BEGIN { for (f = 1; f <= 2; f++) { o = sprintf("%s/frames%d.pnm", d, f)
		for (i = 0; i < 2000; i++) printf "P2\n2 1\n255\n%d %d\n", (i * f) % 256, i % 7 >o
		close(o) } }'
	mkdir -p "$E/fref" "$E/fgpu"
	"$BIN/sobel" -q --cpu -o "$E/fref" "$E/frames1.pnm" "$E/frames2.pnm"
	limited "$BIN/sobel" -v -m shared -j 2 -o "$E/fgpu" "$E/frames1.pnm" "$E/frames2.pnm" 2>"$E/frames.err"; st=$?
	order=$(sed -n 's#^sobel: .*/\(frames[12]\)\.pnm image \([0-9]*\): .*#\1:\2#p' "$E/frames.err" | tr '\n' ' ')
	want=$(awk 'BEGIN { for (f = 1; f <= 2; f++) for (i = 1; i <= 2000; i++) printf "frames%d:%d ", f, i }')
	if [ $st = 0 ] && diff -r "$E/fref" "$E/fgpu" >/dev/null && [ "$order" = "$want" ]; then
		pass "engine/tiny-streams"
	else
		fail "engine/tiny-streams" "status $st, $(grep -v ' image [0-9]*: ' "$E/frames.err" | head -c 300)"
	fi
	bad=
	"$BIN/edge" -q --auto "$E/stream.pnm" "$E/lref.pnm"
	"$BIN/edge" -q --auto -j 3 -o "$E/lbref" $MIXED
	for n in 1 5; do
		GPUFILT_LANES=$n "$BIN/edge" -q --auto "$E/stream.pnm" "$E/l$n.pnm" &&
		    cmp -s "$E/lref.pnm" "$E/l$n.pnm" || bad="$bad stream:$n"
		# shellcheck disable=SC2086
		GPUFILT_LANES=$n "$BIN/edge" -q --auto -j 3 -o "$E/lb$n" $MIXED &&
		    diff -r "$E/lbref" "$E/lb$n" >/dev/null || bad="$bad batch:$n"
	done
	# Without the lanes' staging (the driver's path), the same bytes.
	# shellcheck disable=SC2086
	GPUFILT_STAGING=0 "$BIN/edge" -q --auto -j 3 -o "$E/lbs" $MIXED &&
	    diff -r "$E/lbref" "$E/lbs" >/dev/null || bad="$bad batch:no-staging"
	# Buffers never pinned (each slot's are pinned where they lie from
	# their second use by default): the same bytes.
	# shellcheck disable=SC2086
	GPUFILT_PINNED=0 "$BIN/edge" -q --auto -j 3 -o "$E/lbp" $MIXED &&
	    diff -r "$E/lbref" "$E/lbp" >/dev/null || bad="$bad batch:not-pinned"
	GPUFILT_PINNED=0 "$BIN/edge" -q --auto "$E/stream.pnm" "$E/lp.pnm" &&
	    cmp -s "$E/lref.pnm" "$E/lp.pnm" || bad="$bad stream:not-pinned"
	# By default a batch on one GPU has four lanes, a stream two; served
	# (GF_SERVED=1), a gray batch whose JPEGs the server's engines take
	# has 32 (LANES_JPEG), so that the engines' batches can fill.
	lanes='(4 lanes)'
	[ -n "$GF_SERVED" ] && lanes='(\(4\|32\) lanes)'
	# shellcheck disable=SC2086
	"$BIN/edge" -v --auto --device 0 -o "$E/lbv" $MIXED 2>"$E/lbv.err"
	grep -q "$lanes" "$E/lbv.err" || bad="$bad batch-lanes:$(grep -o '([0-9]* lanes)' "$E/lbv.err")"
	"$BIN/edge" -v --auto --device 0 "$E/stream.pnm" "$E/lsv.pnm" 2>"$E/lsv.err"
	grep -q '(2 lanes)' "$E/lsv.err" || bad="$bad stream-lanes:$(grep -o '([0-9]* lanes)' "$E/lsv.err")"
	if [ -z "$bad" ]; then pass "engine/lanes"; else fail "engine/lanes" "$bad"; fi
fi

# GPUFILT_TRACE: each image's steps, timed, in the file named; every image
# read is taken by a lane, written and told, in that order, and nothing
# else is in the file.
# shellcheck disable=SC2086
GPUFILT_TRACE=$E/trace.txt "$BIN/sobel" -q -j 2 -o "$E/trace" $MIXED
why=$(awk '
	NF != 5 || $1 !~ /^-?[0-9.]+$/ { print "bad line: " $0; bad = 1; exit }
	$2 ~ /^[RlLeEg]$/ && $4 > 0 { t[$3 " " $4 " " $2] = $1; n[$2]++ }
	END {
		if (bad) exit
		if (n["R"] != 7) { print n["R"] + 0 " images read, not 7"; exit }
		for (k in t) {
			split(k, f, " ")
			if (f[3] != "R") continue
			id = f[1] " " f[2]; prev = t[k]
			for (i = 1; i <= 5; i++) {
				s = substr("lLeEg", i, 1)
				if (!((id " " s) in t) || t[id " " s] < prev) {
					print "image " id ": step " s " missing or out of order"; exit
				}
				prev = t[id " " s]
			}
		}
	}' "$E/trace.txt" 2>&1)
[ -s "$E/trace.txt" ] || why="no trace written"
check engine/trace [ -z "$why" ]
# A trace that cannot be written fails the run with the reason (issue 45:
# it failed silently): a path in no directory before anything is read,
# a full disk once the run has written its images.
rm -rf "$E/notrace"
GPUFILT_TRACE=$E/no/such/dir/trace.txt "$BIN/sobel" -q --cpu -o "$E/notrace" \
    "$SAMPLES/coins.pgm" 2>"$E/trace.err"
st=$?
why="exit $st: $(cat "$E/trace.err")"
check engine/trace-unwritable eval '[ $st -eq 1 ] && [ ! -e "$E/notrace/coins.pgm" ] &&
    grep -q "^sobel: GPUFILT_TRACE names $E/no/such/dir/trace.txt, which cannot be written: No such file or directory" "$E/trace.err"'
if [ -w /dev/full ]; then
	GPUFILT_TRACE=/dev/full "$BIN/sobel" -q --cpu "$SAMPLES/coins.pgm" "$E/full.pgm" \
	    2>"$E/trace.err"
	st=$?
	why="exit $st: $(cat "$E/trace.err")"
	check engine/trace-full eval '[ $st -eq 1 ] &&
	    grep -q "^sobel: cannot write the trace to /dev/full (GPUFILT_TRACE): No space left on device" "$E/trace.err"'
else
	skip engine/trace-full "no /dev/full"
fi
