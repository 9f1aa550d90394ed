# Man pages: mandoc -T lint is clean for every page, and each tool's --help
# synopsis names the same options as its man page's SYNOPSIS; so does
# the server's (gpufiltd, issue 42), once it is built.
SERVER=gpufiltd
for page in man/*.1; do
	[ -f "$page" ] || continue
	name=$(basename "$page" .1)
	if ! command -v mandoc >/dev/null 2>&1; then
		skip "man/$name/lint" "mandoc is not installed"
		continue
	fi
	if mandoc -T lint -W warning "$page" >"$TMP/lint" 2>&1; then
		pass "man/$name/lint"
	else
		fail "man/$name/lint" "$(head -n 3 "$TMP/lint")"
	fi
	# Every option letter or long option in the man SYNOPSIS is in --help.
	mandoc -T utf8 "$page" 2>/dev/null | col -b 2>/dev/null |
	    sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' |
	    grep -o -- '--*[a-zA-Z][a-zA-Z-]*' | sort -u >"$TMP/syn-man"
	if [ "$name" = "$SERVER" ] && [ ! -f "$ROOT/cmd/$SERVER.c" ]; then
		skip "man/$name/synopsis" "cmd/$SERVER.c is not written yet"
		continue
	fi
	"$BIN/$name" --help 2>/dev/null | sed -n '1,/^$/p' |
	    grep -o -- '--*[a-zA-Z][a-zA-Z-]*' | sort -u >"$TMP/syn-help"
	if [ -s "$TMP/syn-man" ] && cmp -s "$TMP/syn-man" "$TMP/syn-help"; then
		pass "man/$name/synopsis"
	else
		fail "man/$name/synopsis" "man: $(tr '\n' ' ' <"$TMP/syn-man") help: $(tr '\n' ' ' <"$TMP/syn-help")"
	fi
done

# The one list of tools (cmd/tools) names every tool there is, each a
# cmd/NAME.c with its man page, and nothing else; the server, not a tool
# of the list, has its page too.
have=$(ls "$ROOT"/cmd/*.c | sed 's#.*/##; s#\.c$##' | grep -vx -e cli -e "$SERVER" |
    sort | tr '\n' ' ')
pages=$(ls "$ROOT"/man/*.1 | sed 's#.*/##; s#\.1$##' | grep -vx "$SERVER" | sort |
    tr '\n' ' ')
listed=$(printf '%s\n' $TOOLS | sort | tr '\n' ' ')
why="cmd/tools: $listed; cmd/*.c: $have; man/*.1: $pages; man/$SERVER.1"
check man/tool-list eval '[ "$have" = "$listed" ] && [ "$pages" = "$listed" ] &&
    [ -f "$ROOT/man/$SERVER.1" ]'

# Figures live in bench/figures.md (make bench writes it), not in prose
# that drifts: at most 3 lines of the code and 3 of the man pages quote
# a time or a bandwidth.
figures='[0-9](\.[0-9]+)? ?(ms|us|µs|milliseconds|seconds|GB/s|MB/s|GiB/s|images/s|frames/s)\b|[0-9]% of (a |the )?copy'
ncode=$(cat $(find "$ROOT"/lib -name "*.[ch]") "$ROOT"/kernels/*.cu* "$ROOT"/cmd/*.[ch] | grep -cE "$figures")
nman=$(cat "$ROOT"/man/*.1 | grep -cE "$figures")
why="$ncode lines of lib/, kernels/ and cmd/ and $nman of man/ quote figures"
check man/no-figures eval '[ "$ncode" -le 3 ] && [ "$nman" -le 3 ]'

# The formats' lists in the man pages and --help are the table's
# (lib/io/img_format.c), which the tools' own messages print: -f's words,
# the formats read, the output extensions.
fmt_words=$("$BIN/sobel" -f nosuch 2>&1 | sed -n 's/.*; choose //p')
fmt_reads=$(printf 'zz' | "$BIN/sobel" -q --cpu - "$TMP/fmt.pgm" 2>&1 |
    sed -n 's/.*not an image this tool reads (\(.*\)): it starts.*/\1/p')
fmt_exts=$("$BIN/sobel" -q --cpu "$SAMPLES/coins.pgm" "$TMP/fmt.gif" 2>&1 |
    sed -n 's/.*must end in \(.*\), or have no extension.*/\1/p' |
    grep -o '\.[a-z]*' | sort | tr '\n' ' ')
for name in $TOOLS; do
	page=man/$name.1
	reads=$(sed -n 's/^reads images (\(.*\), as$/\1/p' "$page")
	f=$(sed -n 's/^\.It Fl f Cm //p' "$page" | sed 's/ | /, /g; s/\(.*\), /\1 or /')
	exts=$(sed -n '/^\.It Fl f Cm /,/for a name without an extension/p' "$page" |
	    sed -n 's/^\.Pa \(\.[a-z]*\).*/\1/p' | sort | tr '\n' ' ')
	help=$("$BIN/$name" --help | sed -n 's/.*-f format *output format: \(.*\) (default:$/\1/p')
	why="table: reads $fmt_reads; -f $fmt_words; extensions $fmt_exts. $page: reads $reads; -f $f; extensions $exts; --help -f $help"
	check "man/$name/formats" eval '[ -n "$fmt_reads" ] && [ -n "$fmt_words" ] &&
	    [ -n "$fmt_exts" ] && [ "$reads" = "$fmt_reads" ] &&
	    [ "$f" = "$fmt_words" ] && [ "$exts" = "$fmt_exts" ] &&
	    [ "$help" = "$fmt_words" ]'
done
reads=$(tr '\n' ' ' <man/gpufilt.3 | sed -n 's/.*any format the tools read (\([^)]*\)).*/\1/p')
why="table: $fmt_reads; gpufilt.3: $reads"
check man/gpufilt.3/formats eval '[ -n "$reads" ] && [ "$reads" = "$fmt_reads" ]'
