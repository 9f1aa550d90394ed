#!/bin/sh
# The test harness behind `make test`: runs the C unit tests
# (build/tests/*_test) and sources every tests/t_*.sh, counting each case
# as passed, failed or skipped.  GPU cases are skipped, and counted as
# skipped, when build/tests/gpu_probe finds no usable GPU.  The last line
# is "N passed, N failed, N skipped"; the exit status is 1 if any failed.
#
# Usage: sh tests/run.sh [-v] [unit] [t_NAME ...]    (-v: print passes too;
# unit: the C unit tests, unit.NAME_test one of them; none: all)
#        sh tests/run.sh -P N DIR [unit] [t_NAME ...]   (each in a harness
# of its own, N side by side, its log in DIR/test-NAME.log; then the GPU
# and FAIL lines of all, and the sum of their counts)
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
# GF_BUILD=build/asan (make test-asan) runs the sanitized build instead.
BUILD=${GF_BUILD:-build}
if [ "$BUILD" = build ]; then BIN=$ROOT/bin; else BIN=$ROOT/$BUILD/bin; fi
SAMPLES=$ROOT/samples
# The golden files, unpacked from tests/golden/*/*.gz (tests/golden/unpack.sh).
GOLDEN=$ROOT/build/golden
sh tests/golden/unpack.sh "$GOLDEN" || exit 1
# The tools (cmd/tools): their names, and tool_runs prints each with the
# options of a typical run, one a line.
tool_runs() { grep -v '^#' "$ROOT/cmd/tools"; }
TOOLS=$(tool_runs | cut -d' ' -f1 | tr '\n' ' ')

# Side by side: on a GPU every case starts a process and a CUDA context.
if [ "$1" = -P ]; then
	n=$2 logs=$3
	shift 3
	[ $# -gt 0 ] || set -- unit $(ls tests/t_*.sh | sed 's#tests/\(.*\)\.sh#\1#')
	mkdir -p "$logs" && rm -f "$logs"/test-*.log || exit 1
	# unit: each unit test a job of its own (unit.NAME), as long as a script.
	for t in "$@"; do
		shift
		if [ "$t" = unit ]; then
			for u in "$BUILD"/tests/*_test; do set -- "$@" "unit.${u##*/}"; done
		else
			set -- "$@" "$t"
		fi
	done
	# Served: one server for every harness (GF_SERVED_SOCKET), not one
	# each: a server opens every GPU, and dozens of them side by side ran
	# the GPUs out of memory.
	sdir=
	if [ -n "$GF_SERVED" ] && [ -z "$GF_SERVED_SOCKET" ]; then
		sdir=$(mktemp -d "${TMPDIR:-/tmp}/gpufilt-served.XXXXXX") || exit 1
		GF_SERVED_SOCKET=$sdir/server
		export GF_SERVED_SOCKET
		"$BIN/gpufiltd" -q -i 0 -S "$GF_SERVED_SOCKET" ||
		    { echo "FAIL served: gpufiltd did not start"; rm -rf "$sdir"; exit 1; }
	fi
	# Each log ends with how long its harness took.
	printf '%s\n' "$@" | xargs -P "$n" -I{} sh -c 's=$(date +%s)
	    sh tests/run.sh {} >"$1/test-{}.log" 2>&1
	    echo "took $(($(date +%s) - s)) s" >>"$1/test-{}.log"' sh "$logs"
	if [ -n "$sdir" ]; then
		"$BIN/gpufiltd" -s -S "$GF_SERVED_SOCKET" | sed 's/^/served: /'
		"$BIN/gpufiltd" -k -S "$GF_SERVED_SOCKET" >/dev/null 2>&1
		rm -rf "$sdir"
	fi
	cat "$logs"/test-*.log | grep -E '^(GPU|FAIL)' | sort -u
	echo "slowest: $(grep -H '^took ' "$logs"/test-*.log | sed 's#.*/test-\(.*\)\.log:took \([0-9]*\) s#\2 \1#' |
	    sort -rn | head -n 6 | awk '{ printf "%s%s %ss", (NR > 1 ? ", " : ""), $2, $1 }')"
	awk '/ passed, .* failed, .* skipped$/ { p += $1; f += $3; s += $5 }
	    END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit f > 0 }' \
	    "$logs"/test-*.log
	exit
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpufilt-test.XXXXXX") || exit 1
# A harness stopped by a signal stops: its cases would fail without TMP.
trap 'serve_end; rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

# GF_SERVED=1 (make test-served): every run goes through a server of the
# harness's own (bin/gpufiltd, its socket in TMP), or the one at
# GF_SERVED_SOCKET (-P's, shared), and a run that does not fails
# (GPUFILT_SERVER=require).  The cases that test the server itself
# (t_server) start their own.
SERVED=
serve_end() {
	[ -n "$SERVED" ] && "$BIN/gpufiltd" -k >/dev/null 2>&1
	SERVED=
}
if [ -n "$GF_SERVED" ] && [ -n "$GF_SERVED_SOCKET" ]; then
	GPUFILT_SOCKET=$GF_SERVED_SOCKET GPUFILT_SERVER=require
	export GPUFILT_SOCKET GPUFILT_SERVER
	echo "served: every run through $("$BIN/gpufiltd" -s)"
elif [ -n "$GF_SERVED" ]; then
	mkdir -m 700 "$TMP/served" || exit 1
	GPUFILT_SOCKET=$TMP/served/server GPUFILT_SERVER=require
	export GPUFILT_SOCKET GPUFILT_SERVER
	# Detached (a case's `wait` must not wait for it); it returns when ready.
	"$BIN/gpufiltd" -q -i 0 || { echo "FAIL served: gpufiltd did not start"; exit 1; }
	SERVED=1
	echo "served: every run through $("$BIN/gpufiltd" -s)"
fi
VERBOSE=
# The small-run rule (t_small.sh tests it) would move the GPU cases of
# every other test to the CPU: they run as -m auto did before it.
GPUFILT_SMALL_PIXELS=0
GPUFILT_SERVED_SMALL_PIXELS=0
export GPUFILT_SMALL_PIXELS GPUFILT_SERVED_SMALL_PIXELS
[ "$1" = -v ] && { VERBOSE=1; shift; }

npass=0 nfail=0 nskip=0
pass() { npass=$((npass + 1)); [ -z "$VERBOSE" ] || echo "pass $1"; }
fail() { nfail=$((nfail + 1)); echo "FAIL $1: $2"; }
skip() { nskip=$((nskip + 1)); [ -z "$VERBOSE" ] || echo "skip $1: $2"; }
# Passes or fails case $1 on the exit status of the rest of the line; $why,
# if set, says why it failed.
check() {
	name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "${why:-condition false}"; fi
	why=
}

# Counts the lines of log $2, written by a loop in a subshell, as cases
# named $1/...: "ok NAME" passed, "skip NAME" skipped (no GPU), "run WHY"
# the failed run $1/run, and any other "WORD NAME" failed for reason $3.
tally() {
	while read -r what rest; do
		case $what in
		ok) pass "$1/$rest" ;;
		skip) skip "$1/$rest" "no GPU" ;;
		run) fail "$1/run" "$rest" ;;
		*) fail "$1/$rest" "$3" ;;
		esac
	done <"$2"
}

if gpu_name=$("$BUILD/tests/gpu_probe" 2>&1); then
	GPU=1
	echo "GPU: $gpu_name"
else
	GPU=0
	echo "GPU: none ($gpu_name): GPU cases are skipped"
fi
have_gpu() { [ "$GPU" = 1 ]; }

# Runs a command with a time limit (LIMIT_S seconds, 60 unless set)
# where timeout(1) exists.
limited() {
	if command -v timeout >/dev/null 2>&1; then timeout "${LIMIT_S:-60}" "$@"; else "$@"; fi
}

# The strategies, read from the table through --help (auto and cpu first).
strategies() {
	"$BIN/$1" --help | sed -n '/^strategies/,/^$/p' | awk 'NR > 1 && NF { print $1 }'
}
# Those of the GPU: the table's rows after auto and cpu (GF_FIRST_GPU on).
gpu_strategies() { strategies "$1" | tail -n +3; }

# A C unit test prints "pass NAME", "fail NAME: why" or "skip NAME: why".
run_unit() {
	name=$(basename "$1")
	if ! limited "$1" >"$TMP/unit.out" 2>&1; then
		grep -q '^fail ' "$TMP/unit.out" ||
			fail "$name" "exited non-zero: $(tail -n 1 "$TMP/unit.out")"
	fi
	while read -r kind case rest; do
		case $kind in
		pass) pass "$name/$case" ;;
		fail) fail "$name/${case%:}" "$rest" ;;
		skip) skip "$name/${case%:}" "$rest" ;;
		esac
	done <"$TMP/unit.out"
}

if [ $# -eq 0 ]; then
	set -- unit tests/t_*.sh
else
	for t in "$@"; do
		shift
		case $t in unit|unit.*) set -- "$@" "$t" ;; *) set -- "$@" "tests/$t.sh" ;; esac
	done
fi
for t in "$@"; do
	case $t in
	unit)
		for u in "$BUILD"/tests/*_test; do
			[ -x "$u" ] && run_unit "$u"
		done ;;
	unit.*) run_unit "$BUILD/tests/${t#unit.}" ;;
	*) . "./$t" ;;
	esac
done

echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" -eq 0 ]
