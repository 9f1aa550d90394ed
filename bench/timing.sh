# timing.sh - the wall-clock helpers the end-to-end benches share
# (bench/io.sh, bench/serve.sh), sourced by them: they set WORK (a
# scratch folder) and BENCH (the name their failures are told with).

# Wall seconds of a shell command, its output thrown away; a failure is
# said on stderr with the end of its messages.  PREP, when set, is run
# before each, off the clock (removing the outputs of the run before:
# freeing gigabytes of pages is not the command's time).
secs() {
	[ -z "$PREP" ] || sh -c "$PREP"
	t0=$(date +%s.%N)
	sh -c "$1" >/dev/null 2>"$WORK/err" || echo "$BENCH: '$1' failed: $(tail -n 2 "$WORK/err")" >&2
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.4f", $2 - $1 }'
}

# The median of $1 runs of command $2.
med() {
	i=0
	while [ $i -lt "$1" ]; do secs "$2"; echo; i=$((i + 1)); done |
	    sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# The medians of $1 rounds of the commands after it, each round running
# them in turn (so that what warms up as runs go by, a server's pool
# say, favours none of them), one a line in their order.
meds() {
	n=$1
	shift
	k=0
	while [ $k -lt "$n" ]; do
		i=0
		for c in "$@"; do
			i=$((i + 1))
			echo "$i $(secs "$c")"
		done
		k=$((k + 1))
	done | sort -k1,1n -k2,2n | awk '{ v[$1, ++c[$1]] = $2; m = $1 }
	    END { for (i = 1; i <= m; i++) print v[i, int((c[i] + 1) / 2)] }'
}
