# The habits of the tools users know (issue 34): what a usage error, a
# terminal, a missing GPU, an output name and a failed batch input give.
# Each part names the row of the issue it checks.  Sourced by
# tests/run.sh.
H=$TMP/habits
mkdir -p "$H"

# Usage errors (GNU): one line that says what is wrong, then the way to
# the options, and exit 2.
for args in "sobel -x" "sobel -t abc" "conv2d --quality 101 -k box:3" \
    "edge --low 9" "sobel a b c" "conv2d -k"; do
	tool=${args%% *}
	# shellcheck disable=SC2086
	"$BIN/$tool" ${args#* } </dev/null >"$H/out" 2>"$H/err"
	st=$?
	why="status $st: $(cat "$H/err")"
	check "habits/usage/$args" eval '[ $st = 2 ] && [ ! -s "$H/out" ] &&
	    [ "$(wc -l <"$H/err")" -eq 2 ] &&
	    grep -q "^$tool: ..*" "$H/err" &&
	    [ "$(sed -n 2p "$H/err")" = "Try '"'"'$tool --help'"'"'." ]'
done
