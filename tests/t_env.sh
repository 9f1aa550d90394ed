# Hostile surroundings (issue 10, output side): outputs that are devices,
# FIFOs or links, batch name collisions, kept modes, signals, closed
# standard descriptors, full disks, and the messages of bad options, the
# same in every tool.  Sourced by tests/run.sh.

E=$TMP/env
mkdir -p "$E"
PX=$SAMPLES/px2x3.pgm
PXMAG=$GOLDEN/sobel/px2x3.mag.pgm

# Passes or fails case $1 on the exit status of the rest of the line.
check() {
	name=$1
	shift
	if "$@"; then pass "env/$name"; else fail "env/$name" "${why:-condition false}"; fi
	why=
}

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
check fifo-output eval '[ -p "$E/fifo/out" ] && cmp -s "$E/fifo.got" "$PXMAG"'

# A private character device (/dev/null's numbers) stays a device; then
# the real /dev/null (only once the private one is known to survive).
rm -rf "$E/dev" && mkdir -p "$E/dev"
if mknod "$E/dev/null" c 1 3 2>/dev/null; then
	"$BIN/sobel" -q --cpu "$PX" "$E/dev/null" 2>"$E/err"
	st=$?
	why="exit $st, $(ls -l "$E/dev/null"): $(cat "$E/err")"
	check chardev-output eval '[ $st -eq 0 ] && [ -c "$E/dev/null" ] &&
	    [ -z "$(leftovers "$E/dev")" ]'
	if [ -c "$E/dev/null" ]; then
		"$BIN/sobel" -q --cpu "$PX" /dev/null 2>"$E/err"
		st=$?
		why="exit $st: $(cat "$E/err")"
		check dev-null-output eval '[ $st -eq 0 ] && [ -c /dev/null ]'
	fi
else
	skip env/chardev-output "mknod is not permitted here"
fi

# A link to standard output (as /dev/stdout is) writes to standard output.
ln -s /proc/self/fd/1 "$E/dev/stdout"
"$BIN/sobel" -q --cpu "$PX" "$E/dev/stdout" >"$E/stdout.got" 2>"$E/err"
why="$(ls -l "$E/dev/stdout"): $(cat "$E/err")"
check stdout-link-output eval '[ -L "$E/dev/stdout" ] && cmp -s "$E/stdout.got" "$PXMAG"'

# ---- 10: a replaced output keeps its mode.

rm -rf "$E/m" && mkdir -p "$E/m"
: >"$E/m/out.pgm"
chmod 600 "$E/m/out.pgm"
"$BIN/sobel" -q --cpu "$PX" "$E/m/out.pgm"
why="mode $(stat -c %a "$E/m/out.pgm")"
check keep-mode eval '[ "$(stat -c %a "$E/m/out.pgm")" = 600 ] && cmp -s "$E/m/out.pgm" "$PXMAG"'
: >"$E/m/target.pgm"
chmod 640 "$E/m/target.pgm"
ln -s target.pgm "$E/m/link.pgm"
"$BIN/sobel" -q --cpu "$PX" "$E/m/link.pgm"
why="$(ls -l "$E/m")"
check symlink-replaced eval '[ ! -L "$E/m/link.pgm" ] && [ ! -s "$E/m/target.pgm" ] &&
    [ "$(stat -c %a "$E/m/link.pgm")" = 640 ]'

# Output names up to the file system's limit work (the temporary name
# must not be longer than the output's own).
mkdir -p "$E/msg"
long=$(printf '%0251d' 0).pgm
"$BIN/sobel" -q --cpu "$PX" "$E/msg/$long" 2>"$E/err"
why="$(cat "$E/err")"
check long-name eval 'cmp -s "$E/msg/$long" "$PXMAG" && [ -z "$(leftovers "$E/msg")" ]'

