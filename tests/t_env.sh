# Hostile surroundings (the output side): outputs that are devices,
# FIFOs or links, batch name collisions, kept modes, signals, closed
# standard descriptors, full disks, and the messages of bad options, the
# same in every tool.  Sourced by tests/run.sh.

E=$TMP/env
mkdir -p "$E"
PX=$SAMPLES/px2x3.pgm
PXMAG=$GOLDEN/sobel/px2x3.mag.pgm

# Temporary files (.NAME.XXXXXX or .gf.XXXXXX) left in directory $1.
leftovers() { ls -A "$1" | grep '^\.' ; }

# ---- 8: outputs that are not regular files are written, not replaced.

# A FIFO with a reader gets the image, and stays a FIFO.
rm -rf "$E/fifo" && mkdir -p "$E/fifo"
mkfifo "$E/fifo/out"
timeout 20 cat "$E/fifo/out" >"$E/fifo.got" &
reader=$!
limited "$BIN/sobel" -q --cpu "$PX" "$E/fifo/out" 2>"$E/err"
wait "$reader"
why="reader got $(wc -c <"$E/fifo.got") bytes: $(cat "$E/err")"
check env/fifo-output eval '[ -p "$E/fifo/out" ] && cmp -s "$E/fifo.got" "$PXMAG"'

# A private character device (/dev/null's numbers) stays a device; then
# the real /dev/null (only once the private one is known to survive).
rm -rf "$E/dev" && mkdir -p "$E/dev"
if mknod "$E/dev/null" c 1 3 2>/dev/null; then
	"$BIN/sobel" -q --cpu "$PX" "$E/dev/null" 2>"$E/err"
	st=$?
	why="exit $st, $(ls -l "$E/dev/null"): $(cat "$E/err")"
	check env/chardev-output eval '[ $st -eq 0 ] && [ -c "$E/dev/null" ] &&
	    [ -z "$(leftovers "$E/dev")" ]'
	if [ -c "$E/dev/null" ]; then
		"$BIN/sobel" -q --cpu "$PX" /dev/null 2>"$E/err"
		st=$?
		why="exit $st: $(cat "$E/err")"
		check env/dev-null-output eval '[ $st -eq 0 ] && [ -c /dev/null ]'
	fi
else
	skip env/chardev-output "mknod is not permitted here"
fi

# A link to standard output (as /dev/stdout is) writes to standard output.
ln -s /proc/self/fd/1 "$E/dev/stdout"
"$BIN/sobel" -q --cpu "$PX" "$E/dev/stdout" >"$E/stdout.got" 2>"$E/err"
why="$(ls -l "$E/dev/stdout"): $(cat "$E/err")"
check env/stdout-link-output eval '[ -L "$E/dev/stdout" ] && cmp -s "$E/stdout.got" "$PXMAG"'

# A Unix socket with a listener gets the image, and stays a socket.
if command -v python3 >/dev/null 2>&1; then
	rm -f "$E/sock" "$E/sock.got"
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(1); s.settimeout(20)
c, _ = s.accept(); c.settimeout(20)
with open(sys.argv[2], "wb") as f:
    while True:
        b = c.recv(65536)
        if not b: break
        f.write(b)
' "$E/sock" "$E/sock.got" &
	listener=$!
	n=0
	while [ ! -S "$E/sock" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	limited "$BIN/sobel" -q --cpu "$PX" "$E/sock" 2>"$E/err"
	wait "$listener"
	why="$(ls -l "$E/sock"): $(cat "$E/err")"
	check env/socket-output eval '[ -S "$E/sock" ] && cmp -s "$E/sock.got" "$PXMAG"'
else
	skip env/socket-output "python3 is not installed"
fi

# ---- 9: batch collisions are refused before anything is written.

rm -rf "$E/b" && mkdir -p "$E/b/a" "$E/b/b" "$E/b/out"
cp "$SAMPLES/coins.pgm" "$E/b/a/x.pgm"
cp "$PX" "$E/b/b/x.pgm"
cp "$PX" "$E/b/a/first.pgm"
"$BIN/sobel" -q --cpu -o "$E/b/out" "$E/b/a/first.pgm" "$E/b/a/x.pgm" \
    "$E/b/b/x.pgm" 2>"$E/err"
st=$?
why="exit $st, out: $(ls "$E/b/out"): $(cat "$E/err")"
check env/batch-same-base eval '[ $st -eq 2 ] && [ -z "$(ls -A "$E/b/out")" ] &&
    grep -q "^sobel: .*/a/x.pgm.*/b/x.pgm" "$E/err"'
"$BIN/sobel" -q --cpu -o "$E/b/a" "$E/b/a/x.pgm" 2>"$E/err"
st=$?
why="exit $st: $(cat "$E/err")"
check env/batch-own-input eval '[ $st -eq 2 ] && cmp -s "$E/b/a/x.pgm" "$SAMPLES/coins.pgm" &&
    grep -q "^sobel: .*/a/x.pgm" "$E/err"'
# The same file through another spelling of the directory.
ln -s "$E/b/a" "$E/b/alias"
"$BIN/sobel" -q --cpu -o "$E/b/alias" "$E/b/a/x.pgm" 2>"$E/err"
st=$?
why="exit $st: $(cat "$E/err")"
check env/batch-own-input-alias eval '[ $st -eq 2 ] && cmp -s "$E/b/a/x.pgm" "$SAMPLES/coins.pgm"'

# ---- 10: a replaced output keeps its mode.

rm -rf "$E/m" && mkdir -p "$E/m"
: >"$E/m/out.pgm"
chmod 600 "$E/m/out.pgm"
"$BIN/sobel" -q --cpu "$PX" "$E/m/out.pgm"
why="mode $(stat -c %a "$E/m/out.pgm")"
check env/keep-mode eval '[ "$(stat -c %a "$E/m/out.pgm")" = 600 ] && cmp -s "$E/m/out.pgm" "$PXMAG"'
: >"$E/m/target.pgm"
chmod 640 "$E/m/target.pgm"
ln -s target.pgm "$E/m/link.pgm"
"$BIN/sobel" -q --cpu "$PX" "$E/m/link.pgm"
why="$(ls -l "$E/m")"
check env/symlink-replaced eval '[ ! -L "$E/m/link.pgm" ] && [ ! -s "$E/m/target.pgm" ] &&
    [ "$(stat -c %a "$E/m/link.pgm")" = 640 ]'

# ---- 11: a signal removes the temporary file and still kills.

# Runs sobel on a FIFO that delivers one image and then the start of a
# second, never completed; once the temporary output exists, sends signal
# $1 (a number) and checks the exit status and that nothing is left
# behind.
signal_case() {
	sig=$1 name=$2
	d=$E/sig-$name
	rm -rf "$d" && mkdir -p "$d/out"
	mkfifo "$d/in"
	exec 3<>"$d/in"
	(ulimit -c 0; exec env --default-signal "$BIN/sobel" -q --cpu "$d/in" \
	    "$d/out/o.pgm" 2>"$d/err" </dev/null) &
	pid=$!
	cat "$PX" >&3
	printf 'P5\n' >&3
	n=0
	while [ -z "$(leftovers "$d/out")" ] && [ $n -lt 500 ]; do
		sleep 0.02
		n=$((n + 1))
	done
	kill -s "$sig" "$pid"
	{ wait "$pid"; } 2>/dev/null
	st=$?
	exec 3>&-
	why="exit $st (want $((128 + sig))), left: $(ls -A "$d/out")"
	check env/"signal-$name" eval '[ $n -lt 500 ] && [ $st -eq $((128 + sig)) ] &&
	    [ -z "$(ls -A "$d/out")" ]'
}
# Every signal whose default action ends the process (issue 45: USR1,
# PROF, the real-time ones and others left the file), by the numbers of
# this system; env --default-signal undoes the SIGINT that sh ignores in
# background jobs.
if env --default-signal true 2>/dev/null; then
	python3 -c '
import signal
names = ("HUP INT QUIT ILL TRAP ABRT BUS FPE USR1 SEGV USR2 PIPE ALRM TERM "
         "STKFLT IO XCPU XFSZ VTALRM PROF PWR SYS EMT LOST").split()
for n in names:
    if hasattr(signal, "SIG" + n):
        print(int(getattr(signal, "SIG" + n)), n)
for k in range(signal.SIGRTMIN, signal.SIGRTMAX + 1):
    print(k, "RTMIN+%d" % (k - signal.SIGRTMIN))' >"$E/signals"
	while read -r num name; do
		signal_case "$num" "$name"
	done <"$E/signals"
else
	skip env/signal "env --default-signal is not supported (coreutils < 8.31)"
fi

# ---- 12: closed standard descriptors.

# With standard error closed, -v must not land in the output file.
"$BIN/sobel" -v --cpu - "$E/fd2.pgm" <"$PX" 2>&-
why="output differs from the golden one ($(wc -c <"$E/fd2.pgm") bytes)"
check env/stderr-closed cmp -s "$E/fd2.pgm" "$PXMAG"
"$BIN/sobel" -q --cpu "$PX" "$E/fd1.pgm" >&-
st=$?
why="exit $st"
check env/stdout-closed-unused eval '[ $st -eq 0 ] && cmp -s "$E/fd1.pgm" "$PXMAG"'
"$BIN/sobel" -q --cpu "$PX" >&- 2>"$E/err"
st=$?
why="exit $st: $(cat "$E/err")"
check env/stdout-closed-written eval '[ $st -eq 1 ] && grep -q "^sobel: cannot write standard output" "$E/err"'
"$BIN/sobel" -q --cpu - "$E/fd0.pgm" <&- 2>"$E/err"
st=$?
why="exit $st: $(cat "$E/err")"
check env/stdin-closed eval '[ $st -eq 1 ] && grep -q "^sobel: " "$E/err" && [ ! -e "$E/fd0.pgm" ]'

# ---- 13: help and version on a full disk.

for tool in $TOOLS; do
	for opt in -h -V; do
		"$BIN/$tool" $opt >/dev/full 2>"$E/err"
		st=$?
		why="exit $st: $(cat "$E/err")"
		check env/"full-disk/$tool$opt" eval '[ $st -eq 1 ] &&
		    grep -q "^$tool: cannot write standard output: No space left on device" "$E/err"'
	done
done

# ---- 14: messages.

# Runs "$@" expecting exit 2 and a first message line matching $2.
msg_case() {
	name=$1 want=$2
	shift 2
	"$@" >/dev/null 2>"$E/err" </dev/null
	st=$?
	why="exit $st: $(head -n 1 "$E/err" | od -c | head -n 3)"
	check env/"msg/$name" eval '[ $st -eq 2 ] && head -n 1 "$E/err" | grep -q -- "$want" &&
	    ! head -n 1 "$E/err" | LC_ALL=C grep -q "[[:cntrl:]]"'
}
mkdir -p "$E/msg"
msg_case sigma-missing "^edge: option --sigma needs a value$" "$BIN/edge" --sigma
msg_case block-missing "^edge: option --block needs a value$" "$BIN/edge" --block
msg_case border-missing "^edge: option --border needs a value$" "$BIN/edge" --border
msg_case k-missing "^conv2d: option -k needs a value$" "$BIN/conv2d" -k
msg_case kernel-missing "^conv2d: option --kernel needs a value$" "$BIN/conv2d" --kern
msg_case cluster-unknown "^sobel: option -w is unknown$" "$BIN/sobel" -t 5 -weird.jpg "$E/msg/o.pgm"
msg_case long-unknown "^sobel: option --frobnicate is unknown$" "$BIN/sobel" --frobnicate=3
msg_case no-value "^sobel: option --cpu takes no value$" "$BIN/sobel" --cpu=yes
msg_case help-no-value "^sobel: option --help takes no value$" "$BIN/sobel" --help=yes
msg_case ambiguous "^conv2d: option --b is ambiguous" "$BIN/conv2d" -k box:3 --b 3
msg_case t-underflow "^sobel: threshold -t '1e-320' is out of range" "$BIN/sobel" -t 1e-320
msg_case t-overflow "^sobel: threshold -t '1e999' is out of range" "$BIN/sobel" -t 1e999
msg_case rows-overflow "^sobel: --rows '99999999999999999999' is out of range" \
    "$BIN/sobel" --rows 99999999999999999999
# A missing -o directory is made (issue 13); one under a file cannot be.
"$BIN/sobel" -q --cpu -o "$E/msg/none/" "$PX" 2>"$E/err"
st=$?
why="exit $st: $(cat "$E/err")"
check env/outdir-missing-made eval '[ $st -eq 0 ] && cmp -s "$E/msg/none/px2x3.pgm" "$PXMAG"'
: >"$E/msg/file"
msg_case outdir-file "^sobel: -o $E/msg/file: it is not a directory$" \
    "$BIN/sobel" -o "$E/msg/file" "$PX"

# Output names up to the file system's limit work (the temporary name
# must not be longer than the output's own).
mkdir -p "$E/msg"
long=$(printf '%0251d' 0).pgm
"$BIN/sobel" -q --cpu "$PX" "$E/msg/$long" 2>"$E/err"
why="$(cat "$E/err")"
check env/long-name eval 'cmp -s "$E/msg/$long" "$PXMAG" && [ -z "$(leftovers "$E/msg")" ]'

# The same mistake gets the same message from every tool.
same_message() {
	name=$1
	shift
	for tool in $TOOLS; do
		k=
		[ $tool = conv2d ] && k="-k box:3"
		# shellcheck disable=SC2086
		"$BIN/$tool" $k "$@" >/dev/null 2>"$E/err.$tool" </dev/null
		echo "$? $(head -n 1 "$E/err.$tool" | sed "s/^$tool: //")"
	done >"$E/same"
	why="$(cat "$E/same" | tr '\n' '|')"
	check env/"same-message/$name" eval '[ "$(sort -u "$E/same" | wc -l)" -eq 1 ] &&
	    grep -q "^2 " "$E/same"'
}
same_message unknown-short -w "$PX"
same_message unknown-long --frobnicate "$PX"
same_message missing-value --block
same_message missing-value-short "$PX" -o
same_message no-value --cpu=1 "$PX"
same_message bad-rows --rows 0 "$PX"
same_message rows-overflow --rows 99999999999999999999 "$PX"
same_message bad-block --block 32 "$PX"
same_message bad-border --border bogus "$PX"
same_message bad-format -f gif "$PX"
same_message bad-strategy -m bogus "$PX"
same_message bad-device --device x "$PX"
same_message outdir-no-input -o "$E/msg/none/"
same_message outdir-file -o "$E/msg/file" "$PX"
same_message too-many "$PX" "$E/msg/a.pgm" "$E/msg/b.pgm"
same_message bad-threads -j 0 "$PX"
same_message bad-threads-text -j many "$PX"
same_message help-value --help=yes
same_message missing-value-long --border

# Every --help describes the shared options in the same words.
for tool in $TOOLS; do
	"$BIN/$tool" --help | sed -n '/^  --border/,/^  -h, --help/p' >"$E/help.$tool"
done
why="the tools' --help differ on the shared options"
check env/same-help eval '[ -s "$E/help.sobel" ] && cmp -s "$E/help.sobel" "$E/help.conv2d" &&
    cmp -s "$E/help.sobel" "$E/help.edge"'
