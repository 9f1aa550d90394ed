# The server (gpufiltd, issue 42) and the tools as its clients, on a
# server of these cases' own (its socket in $SV): runs through it give
# the bytes and messages of runs in process; a hostile client costs it
# nothing but its connection (tests/server_hostile.c); Ctrl-C at a
# client leaves no file; a server killed mid-run fails its clients with
# a message, never hangs them; 32 clients at once each get their own
# bytes; another user is refused; it ends when idle, on -k and on
# SIGTERM, and removes its socket.  Without a GPU the server filters on
# its CPU, so all of this runs in CI.  Sourced by tests/run.sh.

SV=$TMP/server
mkdir -m 700 "$SV"
sv_saved_socket=${GPUFILT_SOCKET-unset} sv_saved_server=${GPUFILT_SERVER-unset}
GPUFILT_SOCKET=$SV/sock
export GPUFILT_SOCKET
unset GPUFILT_SERVER
VERSION=$("$BIN/sobel" --version | sed 's/.* //')

# Starts a server (detached; it returns when ready), with environment $@.
sv_start() { env "$@" "$BIN/gpufiltd" -q -i 0 2>"$SV/start.err"; }
sv_stop() { "$BIN/gpufiltd" -k >/dev/null 2>&1; }
sv_pid() { "$BIN/gpufiltd" -s 2>/dev/null | sed -n 's/.*: pid \([0-9]*\),.*/\1/p'; }
# Until the server's GPUs are warm (their engines and first workers
# made, which opens descriptors), at most 20 s.
sv_warm() {
	k=0
	while [ $k -lt 100 ] && "$BIN/gpufiltd" -s 2>/dev/null | grep -q ", warming up;"; do
		sleep 0.2
		k=$((k + 1))
	done
}

why="gpufiltd did not start: $(cat "$SV/start.err" 2>/dev/null)"
check server/start sv_start
why="gpufiltd -s: $("$BIN/gpufiltd" -s 2>&1)"
# It says how its JPEG queue's time went (bench/serve.sh's batch rows
# show it), zeros while it has decoded none.
check server/status sh -c '"$1/gpufiltd" -s | grep -q "runs and .* batches (0 images padding them; 0 ms reading headers, 0 ms in nvJPEG.s calls, 0 ms waiting for the GPU), 0 declined); [0-9]*\.[0-9][0-9] s of CPU time; "' sh "$BIN"
check server/socket-mode sh -c '[ "$(stat -c %a "$1")" = 600 ]' sh "$SV/sock"
check server/second-refused sh -c '! "$1/gpufiltd" -q -i 0 2>"$2/second.err" &&
    grep -q "already answers" "$2/second.err"' sh "$BIN" "$SV"

# Every tool, on gray, colour and 16-bit images, a stream and a batch:
# through the server (require) and in process (off), the same bytes, the
# same messages (-v's lines but the server's mark and times), the same
# status; -v says the server filtered it.
cat "$SAMPLES/coins.pgm" "$SAMPLES/px2x3.pgm" "$SAMPLES/astro16.pgm" >"$SV/stream.pnm"
tool_runs | while read -r tool args; do
	for f in coins.pgm chelsea.png astro16.pgm small.jpg "$SV/stream.pnm"; do
		case $f in /*) in=$f ;; *) in=$SAMPLES/$f ;; esac
		n=$tool-$(basename "$f" | tr -c 'a-z0-9\n' _)
		# shellcheck disable=SC2086
		GPUFILT_SERVER=require "$BIN/$tool" -v $args "$in" "$SV/$n.s.pnm" \
		    2>"$SV/$n.s.err"; s1=$?
		# shellcheck disable=SC2086
		GPUFILT_SERVER=off "$BIN/$tool" -v $args "$in" "$SV/$n.p.pnm" \
		    2>"$SV/$n.p.err"; s2=$?
		# (A JPEG may be decoded by the server's engines: -v says so.)
		strip() { sed -e '/: [0-9]* images in [0-9.]* s, /d' -e '/ images, busy [0-9]*%$/d' \
		    -e 's/ (filtered by gpufiltd)$//' -e 's/(decoder: [^)]*)/(decoder)/' \
		    -e 's/[0-9.]* ms/T ms/g' \
		    -e 's/[0-9.]* GB\/s/G GB\/s/' "$1"; }
		if [ $s1 = 0 ] && [ $s2 = 0 ] && cmp -s "$SV/$n.s.pnm" "$SV/$n.p.pnm" &&
		    [ "$(strip "$SV/$n.s.err")" = "$(strip "$SV/$n.p.err")" ] &&
		    grep -q '(filtered by gpufiltd)$' "$SV/$n.s.err"; then
			echo "ok $n"
		else
			echo "bad $n status $s1/$s2, or bytes or messages differ: $(diff "$SV/$n.s.err" "$SV/$n.p.err" | head -c 300 | tr '\n' ' ')"
		fi
	done
done >"$SV/same.log"
tally server/same "$SV/same.log" "through the server and in process differ"

# --colour max makes one channel of colour (the server's output size,
# image_check): through the server and in process, the same bytes.
for c in "sobel --colour max -t auto" "sobel --colour max --operator sobel5" \
    "edge --colour max" "sobel --colour channels"; do
	for f in "$SAMPLES/chelsea.png" "$GOLDEN/max/rgba16.pam" "$SAMPLES/coins.pgm"; do
		n=cmax-$(echo "$c $(basename "$f")" | tr -c 'a-z0-9' _)
		# shellcheck disable=SC2086
		GPUFILT_SERVER=require "$BIN"/$c -v "$f" "$SV/$n.s.pnm" 2>"$SV/$n.s.err"; s1=$?
		# shellcheck disable=SC2086
		GPUFILT_SERVER=off "$BIN"/$c "$f" "$SV/$n.p.pnm"; s2=$?
		if [ $s1 = 0 ] && [ $s2 = 0 ] && cmp -s "$SV/$n.s.pnm" "$SV/$n.p.pnm" &&
		    grep -q '(filtered by gpufiltd)$' "$SV/$n.s.err"; then
			echo "ok $n"
		else
			echo "bad $n status $s1/$s2: $(head -c 300 "$SV/$n.s.err")"
		fi
	done
done >"$SV/cmax.log"
tally server/colour-max "$SV/cmax.log" "through the server and in process differ"

# sobel's 16-bit outputs of 8-bit images (the window's output is wider
# than its input) and of 16-bit ones, through the server: the goldens,
# the signed gradient's TIFF the bytes of a run in process.
for c in gx:"--gradient x" gysobel7:"--gradient y --operator sobel7 --border wrap" \
    mag16:"--depth 16"; do
	for f in coins.pgm astro16.pgm chelsea.png; do
		n=${f%.*}.${c%%:*}
		# shellcheck disable=SC2086
		GPUFILT_SERVER=require "$BIN/sobel" -q ${c#*:} "$SAMPLES/$f" "$SV/$n.pgm" \
		    2>"$SV/$n.err" && cmp -s "$SV/$n.pgm" "$GOLDEN/sobel/$n.pgm" &&
		    echo "ok $n" || echo "bad $n $(head -c 200 "$SV/$n.err")"
	done
done >"$SV/wide.log"
tally server/wide "$SV/wide.log" "through the server differs from the golden"
GPUFILT_SERVER=require "$BIN/sobel" -q --gradient x "$SAMPLES/coins.pgm" "$SV/gx.s.tif"
GPUFILT_SERVER=off "$BIN/sobel" -q --gradient x "$SAMPLES/coins.pgm" "$SV/gx.p.tif"
check server/wide-tiff cmp -s "$SV/gx.s.tif" "$SV/gx.p.tif"

# An image whose maxval is neither 255 nor 65535 (12-bit): the server
# copies it out of the window and checks its samples before filtering
# (a client's window is the client's); the bytes are those in process.
{ printf 'P5\n67 45\n4095\n'
  LC_ALL=C awk 'BEGIN { for (i = 0; i < 67 * 45; i++) { v = (i * 37 + int(i / 67) * 101) % 4096
	printf "%c%c", int(v / 256), v % 256 } }'; } >"$SV/b12.pgm"
tool_runs | while read -r tool args; do
	# shellcheck disable=SC2086
	GPUFILT_SERVER=require "$BIN/$tool" -q $args "$SV/b12.pgm" "$SV/b12.s.pgm" \
	    2>"$SV/b12.err" &&
	    GPUFILT_SERVER=off "$BIN/$tool" -q $args "$SV/b12.pgm" "$SV/b12.p.pgm" &&
	    cmp -s "$SV/b12.s.pgm" "$SV/b12.p.pgm" && echo "ok $tool" ||
	    echo "bad $tool $(head -c 200 "$SV/b12.err")"
done >"$SV/b12.log"
tally server/maxval12 "$SV/b12.log" "a 12-bit image through the server differs from in process"

# A batch, and a failing input in it: the same files and the same status.
mkdir -p "$SV/bs" "$SV/bp"
head -c 500 "$SAMPLES/coins.pgm" >"$SV/trunc.pgm"
GPUFILT_SERVER=require "$BIN/edge" -q -o "$SV/bs" "$SAMPLES/coins.pgm" "$SV/trunc.pgm" \
    "$SAMPLES/chelsea.png" 2>"$SV/bs.err"; s1=$?
GPUFILT_SERVER=off "$BIN/edge" -q -o "$SV/bp" "$SAMPLES/coins.pgm" "$SV/trunc.pgm" \
    "$SAMPLES/chelsea.png" 2>"$SV/bp.err"; s2=$?
why="status $s1/$s2; $(diff -r "$SV/bs" "$SV/bp" | head -3)"
check server/batch-with-failure sh -c '[ $1 = 1 ] && [ $2 = 1 ] &&
    diff -r "$3/bs" "$3/bp" >/dev/null && cmp -s "$3/bs.err" "$3/bp.err"' sh "$s1" "$s2" "$SV"

# Under a limit on address space (ulimit -v), a served batch runs as it
# does in process: the client's threads share one malloc arena
# (cli_address_limit), where each had reserved 64 MB of the limit and a
# window of shared memory or an image's buffer failed, out of memory,
# in about a third of these runs.  (Not under ASan, which maps
# terabytes of shadow.)
if [ -n "$GF_ASAN" ]; then
	skip server/address-limit "ASan maps terabytes of shadow"
else
	mkdir -p "$SV/as-p"
	GPUFILT_SERVER=off "$BIN/sobel" -q -j 4 --cpu -o "$SV/as-p" "$SAMPLES"/*.pgm
	for i in 1 2 3 4 5 6 7 8; do
		rm -rf "$SV/as"
		mkdir "$SV/as"
		if (ulimit -v 150000 && GPUFILT_SERVER=require exec "$BIN/sobel" -q -j 4 \
		    --cpu -o "$SV/as" "$SAMPLES"/*.pgm) 2>"$SV/as.err" &&
		    diff -r "$SV/as" "$SV/as-p" >/dev/null; then
			echo "ok $i"
		else
			echo "bad $i $(head -c 200 "$SV/as.err")"
		fi
	done >"$SV/as.log"
	tally server/address-limit "$SV/as.log" "a served batch under ulimit -v 150000 failed or differs"
fi

# The server's pool (window.h): a batch's buffers borrowed from it,
# lent again to the next batch, and all back when the runs end; the
# bytes are those in process every time.
mkdir -p "$SV/pool" "$SV/pool-p"
for i in 1 2 3 4 5 6; do
	for f in coins.pgm chelsea.png astro16.pgm; do
		ln -sf "$SAMPLES/$f" "$SV/pool/$i-$f"
	done
done
GPUFILT_SERVER=off "$BIN/edge" -q --auto -o "$SV/pool-p" "$SV"/pool/*
lends() { "$BIN/gpufiltd" -s | sed -n 's/.*, \([0-9]*\) lends (.*/\1/p'; }
lends0=$(lends) pool_ok=0
for k in 1 2 3; do
	rm -rf "$SV/pool-s"
	GPUFILT_SERVER=require GPUFILT_SERVED_SMALL_PIXELS=0 "$BIN/edge" -q --auto \
	    -o "$SV/pool-s" "$SV"/pool/* 2>"$SV/pool.err" &&
	    diff -r "$SV/pool-s" "$SV/pool-p" >/dev/null && pool_ok=$((pool_ok + 1))
	sleep 0.5       # the pool's thread makes what the run asked for
done
lends1=$(lends)
why="$pool_ok of 3 runs as in process; lends $lends0 then $lends1; $("$BIN/gpufiltd" -s); $(head -c 300 "$SV/pool.err")"
check server/pool sh -c '[ $1 = 3 ] && [ "$3" -gt "$2" ] &&
    "$4/gpufiltd" -s | grep -q " 0 lent now,"' sh "$pool_ok" "$lends0" "$lends1" "$BIN"

# An idle pool lets go of its buffers (GPUFILTD_POOL_KEEP_MS, a minute
# by default): a server that keeps them 1 s holds some right after a
# batch (the second, or a later one on a busy host, where the pool's
# threads may not have made the first's in time), and none 3 s later.
pool_count() { "$BIN/gpufiltd" -s | sed -n 's/.*; \([0-9]*\) buffers of .*/\1/p'; }
sv_stop
sv_start GPUFILTD_POOL_KEEP_MS=1000
for k in 1 2 3 4; do
	rm -rf "$SV/pool-s"
	GPUFILT_SERVER=require GPUFILT_SERVED_SMALL_PIXELS=0 "$BIN/edge" -q --auto \
	    -o "$SV/pool-s" "$SV"/pool/* 2>/dev/null
	held=$(pool_count)
	[ "$k" = 1 ] || [ "${held:-0}" = 0 ] || break
done
sleep 3
left=$(pool_count)
sv_stop
sv_start
why="buffers in the pool: ${held:-none} after the batches, ${left:-none} 3 s later"
check server/pool-idle sh -c '[ "${1:-0}" -gt 0 ] && [ "$2" = 0 ]' sh "$held" "$left"

# A gray run's JPEGs go to a server that offers its engines as their
# bytes (PROTO_JPEG), unless GPUFILT_GPU_DECODE=0: one that offers them
# and declines each (GPUFILTD_JPEG_DECLINE, for the tests; a GPU's
# server declines what its walk does not find clean, a damaged file
# among them) has the clients decode them themselves, with the bytes,
# messages and status of a run in process.  (GPUFILT_JPEG_SHARE=0: no
# JPEG is decoded by the readers' share while the lanes are busy.)
mkdir -p "$SV/jin" "$SV/js" "$SV/jp"
for k in 1 2 3 4; do cp "$SAMPLES/small.jpg" "$SV/jin/copy$k.jpg"; done
head -c 3000 "$SAMPLES/small.jpg" >"$SV/jin/cut.jpg"
sv_stop
sv_start GPUFILTD_JPEG_DECLINE=1
GPUFILT_SERVER=require GPUFILT_GPU_DECODE=server GPUFILT_JPEG_SHARE=0 \
    "$BIN/sobel" -v -t 60 -o "$SV/js" \
    "$SV"/jin/* 2>"$SV/js.err"; s1=$?
GPUFILT_SERVER=off "$BIN/sobel" -v -t 60 -o "$SV/jp" "$SV"/jin/* 2>"$SV/jp.err"; s2=$?
for x in js jp; do
	sed -e '/ images in [0-9.]* s, /d' -e '/ images, busy /d' -e '/^sobel: running on the CPU/d' \
	    -e 's/ (filtered by gpufiltd)$//' -e 's/[0-9.]* ms/T ms/g' \
	    -e 's/[0-9.]* GB\/s/G GB\/s/' "$SV/$x.err" >"$SV/$x.s"
done
declined=$("$BIN/gpufiltd" -s | sed -n 's/.*, \([0-9]*\) declined).*/\1/p')
why="status $s1/$s2, declined ${declined:-none}; $(diff -r "$SV/js" "$SV/jp" | head -2); $(diff "$SV/js.s" "$SV/jp.s" | head -4 | tr '\n' ' ')"
check server/jpeg-declined sh -c '[ $1 = 1 ] && [ $2 = 1 ] && [ "${3:-0}" -ge 4 ] &&
    diff -r "$4/js" "$4/jp" >/dev/null && cmp -s "$4/js.s" "$4/jp.s"' \
    sh "$s1" "$s2" "$declined" "$SV"
# One JPEG alone goes as its bytes too, unless the small-run rule keeps
# it here (then it is read as pixels, and nothing is declined).
GPUFILT_SERVER=require GPUFILT_GPU_DECODE=server GPUFILT_SERVED_SMALL_PIXELS=0 \
    "$BIN/sobel" -t 60 "$SV/jin/copy1.jpg" "$SV/j1s.pgm"; s1=$?
GPUFILT_SERVER=require GPUFILT_GPU_DECODE=server GPUFILT_SERVED_SMALL_PIXELS=1000000 \
    "$BIN/sobel" -t 60 "$SV/jin/copy1.jpg" "$SV/j1c.pgm"; s2=$?
after=$("$BIN/gpufiltd" -s | sed -n 's/.*, \([0-9]*\) declined).*/\1/p')
why="status $s1/$s2, declined ${declined:-none} then ${after:-none}"
check server/jpeg-one sh -c '[ $1 = 0 ] && [ $2 = 0 ] && [ "${4:-0}" -eq $(($3 + 1)) ] &&
    cmp -s "$5/j1s.pgm" "$5/jp/copy1.pgm" && cmp -s "$5/j1c.pgm" "$5/jp/copy1.pgm"' \
    sh "$s1" "$s2" "${declined:-0}" "$after" "$SV"
# Unset, as =server: the four copies go to the server.  With =0 the run
# decodes its JPEGs itself: none goes to the server.
GPUFILT_SERVER=require GPUFILT_JPEG_SHARE=0 "$BIN/sobel" -t 60 -o "$SV/jd" \
    "$SV"/jin/copy*.jpg; s1=$?
last=$("$BIN/gpufiltd" -s | sed -n 's/.*, \([0-9]*\) declined).*/\1/p')
why="status $s1, declined ${after:-none} then ${last:-none}"
check server/jpeg-default sh -c '[ $1 = 0 ] && [ "${3:-0}" -eq $((${2:-0} + 4)) ] &&
    cmp -s "$4/jd/copy2.pgm" "$4/jp/copy2.pgm"' sh "$s1" "${after:-x}" "${last:-y}" "$SV"
GPUFILT_SERVER=require GPUFILT_GPU_DECODE=0 "$BIN/sobel" -t 60 -o "$SV/jo" \
    "$SV"/jin/copy*.jpg; s1=$?
off=$("$BIN/gpufiltd" -s | sed -n 's/.*, \([0-9]*\) declined).*/\1/p')
why="status $s1, declined ${last:-none} then ${off:-none}"
check server/jpeg-off sh -c '[ $1 = 0 ] && [ "$2" = "$3" ] &&
    cmp -s "$4/jo/copy2.pgm" "$4/jp/copy2.pgm"' sh "$s1" "${last:-x}" "${off:-y}" "$SV"
# The readers' share: many JPEGs on the one lane of a server on the CPU,
# some decoded by the readers while the lane is busy, the rest declined
# and decoded by the lane: the bytes of the run in process.
mkdir -p "$SV/jm" "$SV/jmo"
for k in $(seq 24); do cp "$SAMPLES/small.jpg" "$SV/jm/c$k.jpg"; done
GPUFILT_SERVER=require "$BIN/sobel" -t 60 -o "$SV/jmo" "$SV"/jm/*.jpg; s1=$?
why="status $s1; $(for k in 1 9 24; do cmp "$SV/jmo/c$k.pgm" "$SV/jp/copy1.pgm" 2>&1; done)"
check server/jpeg-share sh -c '[ $1 = 0 ] && for k in $(seq 24); do
	cmp -s "$2/jmo/c$k.pgm" "$2/jp/copy1.pgm" || exit 1; done' sh "$s1" "$SV"
# A stream's JPEG frames go as their bytes too (the stream's decode
# pool readies them, and its lanes widen for the engines' batches): the
# declining server sends each back, and the lane decodes it as the pool
# would have, with the bytes, messages and status of the stream in
# process, a damaged frame's too.  Each damaged file is a stream of
# three frames, itself between two good ones.
mkdir -p "$SV/jf"
for k in $(seq 12); do cat "$SAMPLES/small.jpg"; done >"$SV/jf/good.mjpeg"
"$ROOT/build/bench/jpegdamage" -S 11 12 "$SV/jf" "$SAMPLES/small.jpg" >/dev/null 2>&1
before=$("$BIN/gpufiltd" -s | sed -n 's/.*, \([0-9]*\) declined).*/\1/p')
for f in "$SV/jf/good.mjpeg" "$SV"/jf/*.jpg; do
	n=$(basename "$f")
	[ "$n" = good.mjpeg ] && cp "$f" "$SV/jf/$n.in" ||
	    cat "$SAMPLES/small.jpg" "$f" "$SAMPLES/small.jpg" >"$SV/jf/$n.in"
	for how in require off; do
		GPUFILT_SERVER=$how GPUFILT_JPEG_SHARE=0 "$BIN/sobel" -t 60 - \
		    "$SV/jf/$n.$how.pgm" <"$SV/jf/$n.in" 2>"$SV/jf/$n.$how.err"
		echo $? >>"$SV/jf/$n.$how.err"
	done
	if cmp -s "$SV/jf/$n.require.err" "$SV/jf/$n.off.err" && { cmp -s \
	    "$SV/jf/$n.require.pgm" "$SV/jf/$n.off.pgm" || { [ ! -e "$SV/jf/$n.off.pgm" ] &&
	    [ ! -e "$SV/jf/$n.require.pgm" ]; }; }; then
		echo "ok $n"
	else
		echo "bad $n: $(diff "$SV/jf/$n.require.err" "$SV/jf/$n.off.err" | head -n 3 | tr '\n' ' ')"
	fi
done >"$SV/jf.log"
tally server/jpeg-frames "$SV/jf.log" "a served JPEG stream differs from it in process"
after=$("$BIN/gpufiltd" -s | sed -n 's/.*, \([0-9]*\) declined).*/\1/p')
why="declined ${before:-none} then ${after:-none}"
check server/jpeg-frames-sent [ "${after:-0}" -ge $((${before:-0} + 12)) ]
sv_stop
sv_start

# The small-run rule with a server (GPUFILT_SERVED_SMALL_PIXELS): one
# small image stays in the process, on its CPU, and -v says why; a
# stream of two goes to the server.
GPUFILT_SERVER=require GPUFILT_SERVED_SMALL_PIXELS=1000000 "$BIN/sobel" -v -t 60 \
    "$SAMPLES/coins.pgm" "$SV/small.pgm" 2>"$SV/small.err"; st=$?
"$BIN/sobel" -q --cpu -t 60 "$SAMPLES/coins.pgm" "$SV/small.cpu.pgm"
why="exit $st; $(head -c 300 "$SV/small.err")"
check server/small-rule sh -c '[ $1 = 0 ] && cmp -s "$2/small.pgm" "$2/small.cpu.pgm" &&
    grep -q "^sobel: running on the CPU (one image of 384x303, at most 1000000 pixels: the CPU is done before the server.s round trip" "$2/small.err" &&
    ! grep -q "(filtered by gpufiltd)" "$2/small.err"' sh "$st" "$SV"
cat "$SAMPLES/coins.pgm" "$SAMPLES/coins.pgm" |
    GPUFILT_SERVER=require GPUFILT_SERVED_SMALL_PIXELS=1000000 "$BIN/sobel" -v -t 60 \
    - "$SV/small2.pgm" 2>"$SV/small2.err"; st=$?
why="exit $st; $(head -c 300 "$SV/small2.err")"
check server/small-rule-stream sh -c '[ $1 = 0 ] &&
    [ "$(grep -c "(filtered by gpufiltd)" "$2/small2.err")" = 2 ]' sh "$st" "$SV"
# edge's share of the served rule is a quarter (its server overtakes
# the CPU sooner): coins' 116352 pixels go to the server under 400000,
# and stay on the CPU under 4 times that.
for px in 400000 1600000; do
	GPUFILT_SERVER=require GPUFILT_SERVED_SMALL_PIXELS=$px "$BIN/edge" -v \
	    "$SAMPLES/coins.pgm" "$SV/esmall.pgm" 2>"$SV/esmall.$px.err" ||
	    echo "exit $?" >>"$SV/esmall.$px.err"
done
why="$(head -c 300 "$SV/esmall.400000.err") / $(head -c 300 "$SV/esmall.1600000.err")"
check server/small-rule-edge sh -c 'grep -q "(filtered by gpufiltd)" "$1.400000.err" &&
    ! grep -q "running on the CPU (one image" "$1.400000.err" &&
    grep -q "^edge: running on the CPU (one image of 384x303, at most 400000 pixels" "$1.1600000.err" &&
    ! grep -q "(filtered by gpufiltd)\|^exit" "$1.1600000.err"' sh "$SV/esmall"

# A pipe of the three tools, each a client.
"$BIN/conv2d" -k gauss:1.4 "$SAMPLES/chelsea.png" - | "$BIN/sobel" -t 60 - - |
    "$BIN/edge" --auto - "$SV/pipe.s.pgm"
GPUFILT_SERVER=off "$BIN/conv2d" -k gauss:1.4 "$SAMPLES/chelsea.png" - |
    GPUFILT_SERVER=off "$BIN/sobel" -t 60 - - |
    GPUFILT_SERVER=off "$BIN/edge" --auto - "$SV/pipe.p.pgm"
check server/pipe cmp -s "$SV/pipe.s.pgm" "$SV/pipe.p.pgm"

# A served stream into a pipe whose reader comes late: each frame's
# bytes are its own.  (Written into the pipe from the shared memory the
# frame lies in, the pipe would hold that memory's pages, and show the
# frames the server writes there next.)  Three turns: a late reader
# does not always meet a page reused.
for k in 1 2 3 4 5 6 7 8; do cat "$SAMPLES/coins.pgm" "$SAMPLES/retina1023x517.pgm"; done >"$SV/late.pnm"
GPUFILT_SERVER=off "$BIN/sobel" -t 60 - - <"$SV/late.pnm" >"$SV/late.p.pgm"
late_bad=0
for k in 1 2 3; do
	GPUFILT_SERVER=require "$BIN/sobel" -t 60 - - <"$SV/late.pnm" |
	    (sleep 1; cat) >"$SV/late.s.pgm"
	cmp -s "$SV/late.s.pgm" "$SV/late.p.pgm" || late_bad=$((late_bad + 1))
done
why="$late_bad of 3 served streams differ from the stream in process"
check server/pipe-late [ "$late_bad" = 0 ]
# The same stream to standard output as a file, the kernel writing its
# frames' samples, and appended to one, which the kernel cannot do
# (sendfile refuses O_APPEND): the bytes written in process, after
# what the file held.
GPUFILT_SERVER=require "$BIN/sobel" -t 60 - - <"$SV/late.pnm" >"$SV/late.f.pgm"
echo held >"$SV/late.a.pgm"
GPUFILT_SERVER=require "$BIN/sobel" -t 60 - - <"$SV/late.pnm" >>"$SV/late.a.pgm"
check server/stdout-file cmp -s "$SV/late.f.pgm" "$SV/late.p.pgm"
check server/stdout-append sh -c '{ echo held; cat "$1"; } | cmp -s - "$2"' sh \
    "$SV/late.p.pgm" "$SV/late.a.pgm"

# The hostile client: every lie ends its connection, the server lives on,
# and it holds no descriptor more than before.
if [ -x "$BUILD/tests/server_hostile" ]; then
	sv_warm
	"$BUILD/tests/server_hostile" "$SV/sock" "$VERSION" >"$SV/hostile.log" 2>&1 ||
	    echo "run server_hostile exited $?" >>"$SV/hostile.log"
	tally server "$SV/hostile.log" "the server did not hold"
else
	fail server/hostile "$BUILD/tests/server_hostile is not built"
fi

# 32 clients at once, 96 runs of mixed images and tools: each output is
# the one its own run in process gives.
mkdir -p "$SV/par"
for k in 1 2 3 4 5 6 7 8; do
	for f in coins.pgm chelsea.png astro16.pgm small.jpg; do
		tool_runs | while read -r tool args; do echo "$tool|$args|$SAMPLES/$f"; done
	done
done | awk '{ print NR "|" $0 }' >"$SV/par.list"
cat >"$SV/one.sh" <<'ONE'
# one.sh N: run N of par.list through the server (GPUFILT_SERVER=$2).
IFS='|' read -r n tool args f <<EOF2
$(sed -n "$1p" "$SV/par.list")
EOF2
# shellcheck disable=SC2086
GPUFILT_SERVER=$2 "$BIN/$tool" -q $args "$f" "$SV/par/$n.$2.pnm" 2>"$SV/par/$n.$2.err" ||
    echo "exit $?" >>"$SV/par/$n.$2.err"
ONE
export SV BIN
seq "$(wc -l <"$SV/par.list")" | xargs -P 32 -I{} sh "$SV/one.sh" {} require
seq "$(wc -l <"$SV/par.list")" | xargs -P 2 -I{} sh "$SV/one.sh" {} off
bad=0
for n in $(seq "$(wc -l <"$SV/par.list")"); do
	cmp -s "$SV/par/$n.require.pnm" "$SV/par/$n.off.pnm" && [ ! -s "$SV/par/$n.require.err" ] ||
	    { bad=$((bad + 1)); echo "$n: $(sed -n "${n}p" "$SV/par.list") $(head -c 200 "$SV/par/$n.require.err")"; }
done >"$SV/par.bad"
why="$bad of $(wc -l <"$SV/par.list") runs differ: $(head -3 "$SV/par.bad" | tr '\n' ' ')"
check server/32-clients [ "$bad" = 0 ]

# Ctrl-C (SIGINT) and SIGTERM at a client in the middle of a stream fed
# slowly: it dies of the signal, leaves no output or temporary file, and
# the server ends that run (no client left) and serves the next.
mkfifo "$SV/slow"
for sig in INT TERM; do
	d=$SV/sig$sig
	mkdir -p "$d"
	# A background job of sh ignores SIGINT: the tool gets it back.
	env --default-signal=INT "$BIN/sobel" -t 60 - "$d/out.pgm" <"$SV/slow" 2>/dev/null &
	pid=$!
	( cat "$SAMPLES/coins.pgm"; sleep 3 ) >"$SV/slow" &
	sleep 1
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null; st=$?
	wait
	sleep 0.3
	why="status $st; left: $(ls -A "$d" | tr '\n' ' '); server: $("$BIN/gpufiltd" -s 2>&1)"
	check "server/sig$sig-at-client" sh -c '[ $4 -gt 128 ] && [ -z "$(ls -A "$1")" ] &&
	    "$2/gpufiltd" -s | grep -q "; 0 clients now" &&
	    "$2/sobel" -t 60 "$3/coins.pgm" "$1/after.pgm"' sh "$d" "$BIN" "$SAMPLES" "$st"
	rm -f "$d/after.pgm"
done

# Another user, where the socket is reachable (a directory they may
# enter, the socket 0666): the server refuses them (its peer's user), and
# require fails their run; they are never served by another's server.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	OU=$(mktemp -d /tmp/gpufilt-peer.XXXXXX) && chmod 711 "$OU"
	GPUFILT_SOCKET=$OU/sock "$BIN/gpufiltd" -q -i 0 && chmod 666 "$OU/sock"
	setpriv --reuid=65534 --regid=65534 --clear-groups env GPUFILT_SOCKET="$OU/sock" \
	    GPUFILT_SERVER=require "$BIN/sobel" -t 60 "$SAMPLES/coins.pgm" - \
	    >/dev/null 2>"$SV/other.err"; st=$?
	setpriv --reuid=65534 --regid=65534 --clear-groups env GPUFILT_SOCKET="$OU/sock" \
	    "$BIN/sobel" -t 60 "$SAMPLES/coins.pgm" - >"$SV/other.pgm" 2>/dev/null; st2=$?
	# The server's own check: a status asked by another user gets nothing.
	if PATH=/usr/bin:/bin command -v python3 >/dev/null 2>&1; then
		setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/env -i python3 -c '
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
try:
    s.send(struct.pack("II", 7, 0))
    got = s.recv(4096)
except (BrokenPipeError, ConnectionResetError):
    got = b""
sys.exit(0 if got == b"" else 1)' "$OU/sock"; st3=$?
		check server/other-user-closed [ $st3 = 0 ]
	fi
	GPUFILT_SOCKET=$OU/sock "$BIN/gpufiltd" -k >/dev/null 2>&1
	rm -rf "$OU"
	why="status $st: $(cat "$SV/other.err"); auto: status $st2"
	check server/other-user-refused sh -c '[ $1 = 1 ] && [ $3 = 0 ] && [ -s "$4" ] &&
	    grep -q "runs as uid 0, not as this user" "$2"' \
	    sh "$st" "$SV/other.err" "$st2" "$SV/other.pgm"
else
	skip server/other-user-refused "needs root and setpriv"
fi

# -k ends it; its socket goes; a client then runs in process (auto) or
# fails (require).
sv_stop
check server/stopped sh -c '[ ! -e "$1/sock" ] && ! "$2/gpufiltd" -s 2>/dev/null' sh "$SV" "$BIN"
"$BIN/sobel" -t 60 "$SAMPLES/coins.pgm" "$SV/auto.pgm"; st=$?
check server/none-auto-in-process [ $st = 0 ]
GPUFILT_SERVER=require "$BIN/sobel" -t 60 "$SAMPLES/coins.pgm" "$SV/req.pgm" 2>"$SV/req.err"; st=$?
check server/none-require-fails sh -c '[ $1 = 1 ] && [ ! -e "$2/req.pgm" ] &&
    grep -q "no server answers" "$2/req.err"' sh "$st" "$SV"
GPUFILT_SERVER=bogus "$BIN/sobel" "$SAMPLES/coins.pgm" "$SV/bogus.pgm" 2>"$SV/bogus.err"; st=$?
check server/bad-setting sh -c '[ $1 = 2 ] && grep -q "GPUFILT_SERVER=bogus is not" "$2"' \
    sh "$st" "$SV/bogus.err"

# GPUFILT_SERVER=start starts one when none answers, and uses it.
GPUFILT_SERVER=start "$BIN/sobel" -v -t 60 "$SAMPLES/coins.pgm" "$SV/start.pgm" 2>"$SV/start2.err"; st=$?
check server/start-on-demand sh -c '[ $1 = 0 ] && grep -q "filtered by gpufiltd" "$2" &&
    "$3/gpufiltd" -s >/dev/null' sh "$st" "$SV/start2.err" "$BIN"

# A server killed in the middle of a client's stream: the client fails
# with a message (exit 1) and leaves no output file.
( cat "$SAMPLES/coins.pgm"; sleep 2; cat "$SAMPLES/coins.pgm" ) |
    GPUFILT_SERVER=require "$BIN/sobel" -t 60 - "$SV/killed.pgm" 2>"$SV/killed.err" &
pid=$!
i=0     # until the client is connected (a slow machine takes its time)
until "$BIN/gpufiltd" -s 2>/dev/null | grep -q "; [1-9][0-9]* clients now" ||
    [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.3
kill -9 "$(sv_pid)" 2>/dev/null
wait $pid; st=$?
why="status $st: $(cat "$SV/killed.err")"
check server/killed-mid-run sh -c '[ $1 = 1 ] && [ ! -e "$2/killed.pgm" ] &&
    grep -q "ended during the run" "$2/killed.err"' sh "$st" "$SV"

# A lane connects at its first image, which may come after the run's
# server has ended: whether no server answers at the socket or another
# has taken its place, the lane says that the run's server ended.
# (tests/remote_lanes.c: a line in, a lane opened, its verdict out.)
lanes_wait() {  # lanes_wait N: until the output has N lines
	i=0
	while [ "$(wc -l <"$SV/lanes.out")" -lt "$1" ] && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1)); done
}
# One more lane, then until its verdict is out (N lines).  A program that
# ended early costs a line's EPIPE, not the harness a SIGPIPE.
lanes_next() { (trap '' PIPE; echo) >&9 2>/dev/null; lanes_wait "$1"; }
if [ -x "$BUILD/tests/remote_lanes" ]; then
	sv_start
	rm -f "$SV/lanes.in"
	: >"$SV/lanes.out"
	mkfifo "$SV/lanes.in"
	"$BUILD/tests/remote_lanes" "$SV/sock" "$VERSION" <"$SV/lanes.in" \
	    >"$SV/lanes.out" 2>&1 &
	lpid=$!
	exec 9>"$SV/lanes.in"
	lanes_wait 1
	lanes_next 2                            # the server lives: ok
	pid=$(sv_pid)
	kill -9 "$pid" 2>/dev/null
	i=0     # until it is gone, or a zombie that init has not reaped yet
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ] &&
	    ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do
		sleep 0.1; i=$((i + 1)); done
	lanes_next 3                            # none answers
	sv_start
	lanes_next 4                            # another server answers
	exec 9>&-
	wait $lpid
	sv_stop
	why=$(tr '\n' '|' <"$SV/lanes.out")
	check server/lane-after-end sh -c 'sed -n 1p "$1" | grep -q "^ready$" &&
	    sed -n 2p "$1" | grep -q "^lane: ok$" &&
	    [ "$(sed -n "3,4p" "$1" | grep -c "^lane: the server (gpufiltd, pid .*) ended during the run$")" = 2 ]' \
	    sh "$SV/lanes.out"
else
	fail server/lane-after-end "$BUILD/tests/remote_lanes is not built"
fi

# Idle: it ends by itself, and removes its socket (a killed one left its
# socket behind: the next server replaces it).
sv_start GPUFILTD_IDLE_MS=300
sleep 2.5
check server/idle-exit sh -c '! "$1/gpufiltd" -s 2>/dev/null && [ ! -e "$2/sock" ]' sh "$BIN" "$SV"

# SIGTERM ends it cleanly.
sv_start
pid=$(sv_pid)
kill -TERM "$pid" 2>/dev/null
# Ended: gone, or a zombie its new parent (init) has not reaped yet.
sv_ended() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; }
i=0
while ! sv_ended "$pid" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
check server/sigterm sh -c '[ ! -e "$2/sock" ] && ! kill -0 "$1" 2>/dev/null ||
    grep -q "^State:.*Z" "/proc/$1/status"' sh "$pid" "$SV"

# GPU: a context lost on a GPU (GPUFILTD_FAULT=2: the server's second
# image faults; an error that sticks to a CUDA context cannot be undone
# in its process) fails that run with a message, and the server ends
# cleanly; the next run starts a new one (GPUFILT_SERVER=start) and works.
if have_gpu; then
	sv_start GPUFILTD_FAULT=2
	GPUFILT_SERVER=require "$BIN/sobel" -t 60 "$SAMPLES/coins.pgm" "$SV/f1.pgm" 2>/dev/null
	GPUFILT_SERVER=require "$BIN/sobel" -t 60 "$SAMPLES/coins.pgm" "$SV/f2.pgm" 2>"$SV/f2.err"; s2=$?
	i=0
	while "$BIN/gpufiltd" -s >/dev/null 2>&1 && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	GPUFILT_SERVER=start "$BIN/sobel" -v -t 60 "$SAMPLES/coins.pgm" "$SV/f3.pgm" 2>"$SV/f3.err"; s3=$?
	why="second run $s2 ($(cat "$SV/f2.err")), third $s3 ($(cat "$SV/f3.err"))"
	check server/gpu-context-lost sh -c '[ $1 = 1 ] && [ ! -e "$3/f2.pgm" ] &&
	    grep -q "GPUFILTD_FAULT.*the server ends" "$3/f2.err" && [ $2 = 0 ] &&
	    grep -q "filtered by gpufiltd" "$3/f3.err" && cmp -s "$3/f1.pgm" "$3/f3.pgm"' \
	    sh "$s2" "$s3" "$SV"
	sv_stop
else
	skip server/gpu-context-lost "no GPU"
fi

[ "$sv_saved_socket" = unset ] && unset GPUFILT_SOCKET || GPUFILT_SOCKET=$sv_saved_socket
[ "$sv_saved_server" = unset ] && unset GPUFILT_SERVER || GPUFILT_SERVER=$sv_saved_server
export GPUFILT_SOCKET GPUFILT_SERVER 2>/dev/null
