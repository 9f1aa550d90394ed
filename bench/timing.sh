# timing.sh - the wall-clock helpers the end-to-end benches share
# (bench/io.sh, bench/serve.sh), sourced by them: they set WORK (a
# scratch folder) and BENCH (the name their failures are told with).
# sh has no local variables: the helpers' own begin with _, so that a
# caller's n or i survives them (meds 3 once made gpus' count of GPUs 3).

# Wall seconds of a shell command, its output thrown away; a failure is
# said on stderr with the end of its messages.  PREP, when set, is run
# before each, off the clock (removing the outputs of the run before:
# freeing gigabytes of pages is not the command's time).
secs() {
	[ -z "$PREP" ] || sh -c "$PREP"
	_t0=$(date +%s.%N)
	sh -c "$1" >/dev/null 2>"$WORK/err" || echo "$BENCH: '$1' failed: $(tail -n 2 "$WORK/err")" >&2
	_t1=$(date +%s.%N)
	echo "$_t0 $_t1" | awk '{ printf "%.4f", $2 - $1 }'
}

# The median of $1 runs of command $2.
med() {
	_i=0
	while [ $_i -lt "$1" ]; do secs "$2"; echo; _i=$((_i + 1)); done |
	    sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# The medians of $1 rounds of the commands after it, each round running
# them in turn (so that what warms up as runs go by, a server's pool
# say, favours none of them), one a line in their order.
meds() {
	_n=$1
	shift
	_k=0
	while [ $_k -lt "$_n" ]; do
		_i=0
		for _c in "$@"; do
			_i=$((_i + 1))
			echo "$_i $(secs "$_c")"
		done
		_k=$((_k + 1))
	done | sort -k1,1n -k2,2n | awk '{ v[$1, ++c[$1]] = $2; m = $1 }
	    END { for (i = 1; i <= m; i++) print v[i, int((c[i] + 1) / 2)] }'
}
