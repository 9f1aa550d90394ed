# An explicit GPU strategy and --fallback (issue 13), for every tool.
# Without a GPU: -m shared is an error (exit 1) whose message names --cpu
# and --fallback, and leaves no output; with --fallback it runs the CPU
# reference, with one notice line (none with -q), and writes what --cpu
# writes, byte for byte.  With a GPU: --fallback -m shared runs on it,
# without a notice.  Sourced by tests/run.sh.

FB=$TMP/fallback
mkdir -p "$FB"
for tool in $TOOLS; do
	case $tool in conv2d) need="-k gauss:1.4" ;; *) need= ;; esac
	# shellcheck disable=SC2086
	"$BIN/$tool" -q --cpu $need "$SAMPLES/chelsea.png" "$FB/$tool.cpu.pgm"
	# shellcheck disable=SC2086
	"$BIN/$tool" --fallback -m shared $need "$SAMPLES/chelsea.png" \
	    "$FB/$tool.pgm" 2>"$FB/err"
	st=$?
	if have_gpu; then
		if [ "$st" = 0 ] && [ ! -s "$FB/err" ] &&
		    cmp -s "$FB/$tool.pgm" "$FB/$tool.cpu.pgm"; then
			pass "fallback/$tool/gpu"
		else
			fail "fallback/$tool/gpu" "exit $st, a notice, or not the CPU's output: $(cat "$FB/err")"
		fi
		continue
	fi
	skip "fallback/$tool/gpu" "no GPU"
	if [ "$st" = 0 ] && [ "$(wc -l <"$FB/err")" -eq 1 ] &&
	    grep -q "^$tool: running on the CPU" "$FB/err"; then
		pass "fallback/$tool/notice"
	else
		fail "fallback/$tool/notice" "exit $st, or not one notice line: $(cat "$FB/err")"
	fi
	if cmp -s "$FB/$tool.pgm" "$FB/$tool.cpu.pgm"; then
		pass "fallback/$tool/output"
	else
		fail "fallback/$tool/output" "differs from the output of --cpu"
	fi
	# shellcheck disable=SC2086
	if "$BIN/$tool" -q --fallback -m shared $need "$SAMPLES/px2x3.pgm" \
	    "$FB/q.pgm" 2>"$FB/err" && [ ! -s "$FB/err" ]; then
		pass "fallback/$tool/quiet"
	else
		fail "fallback/$tool/quiet" "failed, or printed with -q: $(cat "$FB/err")"
	fi
	# shellcheck disable=SC2086
	"$BIN/$tool" -m shared $need "$SAMPLES/px2x3.pgm" "$FB/x.pgm" 2>"$FB/err"
	st=$?
	if [ "$st" = 1 ] && [ ! -e "$FB/x.pgm" ] &&
	    grep -q -- "^$tool: .*--cpu" "$FB/err" &&
	    grep -q -- "^$tool: .*--fallback" "$FB/err"; then
		pass "fallback/$tool/explicit-without"
	else
		fail "fallback/$tool/explicit-without" "exit $st, expected 1 naming --cpu and --fallback, and no output: $(cat "$FB/err")"
	fi
done
