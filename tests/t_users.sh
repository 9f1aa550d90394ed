# What users coming from xargs, find, ImageMagick and GNU tools expect
# (issue 43): batches from a list (--files-from, -0), progress off a
# terminal (--progress), suggestions for mistyped options and hints for
# another tool's options.  Sourced by tests/run.sh.

U=$TMP/users
mkdir -p "$U/in" "$U/sp ace"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	cp "$SAMPLES/px2x3.pgm" "$U/in/p$i.pgm"
done
cp "$SAMPLES/coins.pgm" "$U/sp ace/a
b.pgm"

# A list from a file and from standard input; names after the operands.
ls "$U"/in/*.pgm | grep -v '/p1\.pgm$' >"$U/list"
if "$BIN/sobel" -q --cpu --files-from "$U/list" -o "$U/o1" "$U/in/p1.pgm" &&
    [ "$(ls "$U/o1" | wc -l)" = 20 ] && cmp -s "$U/o1/p7.pgm" "$U/o1/p1.pgm"; then
	pass users/files-from-file
else
	fail users/files-from-file "$(ls "$U/o1" 2>&1 | wc -l) outputs"
fi
if (cd "$U" && ls in/*.pgm | "$BIN/sobel" -q --cpu --files-from - -o o2) &&
    [ "$(ls "$U/o2" | wc -l)" = 20 ]; then
	pass users/files-from-stdin
else
	fail users/files-from-stdin "$(ls "$U/o2" 2>&1 | wc -l) outputs"
fi

# -0: a name holding a newline and a blank, as find -print0 writes it.
if (cd "$U" && find "sp ace" in -name 'p1.pgm' -o -name 'a*' -type f -print0 |
    "$BIN/sobel" -q --cpu -0 --files-from - -o o3) &&
    [ "$(ls "$U/o3" | wc -l)" = 2 ] && [ -f "$U/o3/a
b.pgm" ] && "$BIN/sobel" -q --cpu "$SAMPLES/coins.pgm" "$U/coins.sobel.pgm" &&
    cmp -s "$U/o3/a
b.pgm" "$U/coins.sobel.pgm"; then
	pass users/files-from-null
else
	fail users/files-from-null "$(ls "$U/o3" 2>&1)"
fi

# Refused, each with a message and exit 2 (1 for a list that cannot be
# read): no -o, -0 alone, '-' in a list read from standard input, an
# empty list, a missing list, a NUL in a newline list.
users_refused() {
	want=$1 name=$2
	shift 2
	"$@" >/dev/null 2>"$U/err"
	st=$?
	if [ $st = "$want" ] && grep -q '^sobel: ' "$U/err"; then
		pass "users/refused/$name"
	else
		fail "users/refused/$name" "exit $st: $(cat "$U/err")"
	fi
}
users_refused 2 no-batch "$BIN/sobel" --cpu --files-from "$U/list"
users_refused 2 null-alone "$BIN/sobel" --cpu -0 -o "$U/o4" "$U/in/p1.pgm"
printf '%s\n-\n' "$U/in/p1.pgm" >"$U/dash.list"
users_refused 2 dash-in-stdin-list sh -c '"$1" --cpu --files-from - -o "$2" <"$3"' \
    sh "$BIN/sobel" "$U/o4" "$U/dash.list"
: >"$U/empty.list"
users_refused 2 empty-list "$BIN/sobel" --cpu --files-from "$U/empty.list" -o "$U/o4"
users_refused 1 missing-list "$BIN/sobel" --cpu --files-from "$U/nosuch" -o "$U/o4"
printf 'a\000b\n' >"$U/nul.list"
users_refused 1 nul-in-lines "$BIN/sobel" --cpu --files-from "$U/nul.list" -o "$U/o4"
if [ ! -e "$U/o4" ]; then
	pass users/refused/nothing-written
else
	fail users/refused/nothing-written "$(ls "$U/o4")"
fi

# --progress off a terminal: a line per tenth of 20 inputs, each with
# the count, the percentage and the time left; none without it.
"$BIN/sobel" --cpu --progress -o "$U/o5" "$U"/in/*.pgm 2>"$U/progress"
n=$(grep -c '^sobel: [0-9]*/20 inputs ([0-9]*%), .* left, [0-9]* images, ' "$U/progress")
if [ "$n" = 10 ] && grep -q '^sobel: 20/20 inputs (100%)' "$U/progress" &&
    "$BIN/sobel" --cpu -o "$U/o6" "$U"/in/*.pgm 2>"$U/quiet" && [ ! -s "$U/quiet" ]; then
	pass users/progress
else
	fail users/progress "$n lines: $(head -n 3 "$U/progress")"
fi

# Did you mean: a mistyped long option names the nearest; a far one does not.
"$BIN/sobel" --treshold 40 2>"$U/err" >/dev/null
"$BIN/edge" --sigam 2 2>>"$U/err" >/dev/null
"$BIN/conv2d" --zzzz 2>>"$U/err" >/dev/null
if grep -q "^sobel: option --treshold is unknown; did you mean --threshold?" "$U/err" &&
    grep -q "^edge: option --sigam is unknown; did you mean --sigma?" "$U/err" &&
    grep -q "^conv2d: option --zzzz is unknown$" "$U/err"; then
	pass users/did-you-mean
else
	fail users/did-you-mean "$(cat "$U/err")"
fi
if "$BIN/sobel" -q --cpu --threshold 60 "$SAMPLES/coins.pgm" "$U/t1.pgm" &&
    "$BIN/sobel" -q --cpu -t 60 "$SAMPLES/coins.pgm" "$U/t2.pgm" && cmp -s "$U/t1.pgm" "$U/t2.pgm"; then
	pass users/sobel-threshold-long
else
	fail users/sobel-threshold-long "--threshold differs from -t"
fi

# edge -t and --threshold (sobel's) point to --high.
"$BIN/edge" -t 40 2>"$U/err" >/dev/null
st=$?
"$BIN/edge" --threshold=40 2>>"$U/err" >/dev/null
if [ $st = 2 ] && [ "$(grep -c 'unknown: edge.s thresholds are --high H and --low L' "$U/err")" = 2 ]; then
	pass users/edge-t-hint
else
	fail users/edge-t-hint "exit $st: $(cat "$U/err")"
fi

# make demo writes PNGs and an overview PNG, here in a copy of the tree.
mkdir -p "$U/demo/build/tests" "$U/demo/scripts"
cp -r "$BIN" "$U/demo/bin" && cp -r "$SAMPLES" "$U/demo/samples" &&
    cp "$ROOT/scripts/demo.sh" "$ROOT/scripts/montage.py" "$U/demo/scripts/" &&
    cp "$ROOT/$BUILD/tests/gpu_probe" "$U/demo/build/tests/" 2>/dev/null
if ! command -v python3 >/dev/null 2>&1; then
	skip users/demo "python3 is not installed"
elif sh "$U/demo/scripts/demo.sh" >"$U/demo.out" 2>&1 &&
    (for f in chelsea-edges coins-gradient retina-canny-auto retina-canny-q0.9 overview; do
	    [ "$(od -A n -t x1 -N 4 "$U/demo/build/demo/$f.png" | tr -d ' ')" = 89504e47 ] || exit 1
    done) && [ -z "$(ls "$U/demo/build/demo" | grep -v '\.png$')" ]; then
	pass users/demo
else
	fail users/demo "$(tail -n 3 "$U/demo.out"; ls "$U/demo/build/demo")"
fi
