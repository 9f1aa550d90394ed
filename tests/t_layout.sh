# The house's rules (HACKING.md), read from the tree: lib/'s rooms depend
# one way, no CPU reference and its operation call each other, no
# command-line header below cmd/, no file of lib/ over 800 lines, no list
# typed beside the table it copies (every row of a table has its test
# case), and no six lines written twice in lib/ or kernels/.  Sourced by
# tests/run.sh.
Y=$TMP/layout
mkdir -p "$Y"

# The layer of a source file, from its folder: what a file includes must
# stand on its floor or below.  The kernels sit with the operations whose
# launchers they define; cmd/ is the top.
layer() {
	case $1 in
	lib/base/*) echo 1 ;;
	lib/io/*) echo 2 ;;
	lib/tool/*) echo 3 ;;
	lib/ops/*|kernels/*) echo 4 ;;
	lib/engine/*|lib/serve/*) echo 5 ;;
	lib/api/*) echo 6 ;;
	cmd/*) echo 7 ;;
	*) echo 0 ;;
	esac
}

# Every header of the project by its name (the include path makes names
# unique: a second file of one name would be a build error waiting).
find lib kernels cmd -name '*.h' -o -name '*.cuh' | sort >"$Y/headers"
dups=$(sed 's#.*/##' "$Y/headers" | sort | uniq -d | tr '\n' ' ')
why="headers of one name: $dups"
check layout/header-names-unique [ -z "$dups" ]

# lib/ holds its files in rooms: none is left at its top.
loose=$(find lib -maxdepth 1 -type f | tr '\n' ' ')
why="files at lib/'s top: $loose"
check layout/no-loose-files [ -z "$loose" ]

# No include runs up: each "name.h" of a file of lib/, kernels/ or cmd/
# resolves to a header whose layer is at most the file's.
: >"$Y/up"
find lib kernels cmd -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' | sort |
while read -r f; do
	lf=$(layer "$f")
	sed -n 's/^#include "\(.*\)".*/\1/p' "$f" | while read -r h; do
		p=$(grep "/$h\$" "$Y/headers" | head -n 1)
		[ -n "$p" ] || continue
		[ "$(layer "$p")" -le "$lf" ] || echo "$f -> $p" >>"$Y/up"
	done
done
why="includes from a higher layer: $(tr '\n' ' ' <"$Y/up")"
check layout/layers-one-way eval '[ ! -s "$Y/up" ]'

# No command-line header below cmd/: nothing outside cmd/ includes one
# of cmd/'s headers.
cli=$(find cmd -name '*.h' | sed 's#.*/##' | tr '\n' '|' | sed 's/|$//; s/\./\\./g')
bad=$(grep -lE "^#include \"($cli)\"" $(find lib kernels -name '*.[ch]' -o -name '*.cu*') 2>/dev/null | tr '\n' ' ')
why="cmd/ headers included by: $bad"
check layout/no-cli-below-cmd [ -z "$bad" ]

# Library code reads no environment: cmd/ fills the settings (cmd/cli_env.h,
# struct gf_settings), and only systemd's protocol is read below it
# (sockpath_systemd).  Every GPUFILT_ variable cmd/ reads is in the
# ENVIRONMENT of the man pages (gpufiltd's, or the tools' it acts on:
# GPUFILT_DP4A conv2d's alone, GPUFILT_READER_GRAY the gray tools').
bad=$(grep -n 'getenv *(' $(find lib kernels -name '*.[ch]' -o -name '*.cu*') |
    grep -v '^lib/serve/sockpath\.c:.*getenv("LISTEN_' | tr '\n' ' ')
why="getenv below cmd/: $bad"
check layout/no-environment-in-lib [ -z "$bad" ]
: >"$Y/env"
for v in $(grep -oh 'getenv("GPUFILT_[A-Z0-9_]*")' cmd/*.c cmd/*.h |
    sed 's/getenv("\(.*\)")/\1/' | sort -u); do
	if grep -q "^\.It Ev $v\$" man/gpufiltd.1; then
		continue
	fi
	for t in sobel conv2d edge; do
		[ "$v" = GPUFILT_DP4A ] && [ $t != conv2d ] && continue
		[ "$v" = GPUFILT_READER_GRAY ] && [ $t = conv2d ] && continue
		grep -q "^\.It Ev $v\$" man/$t.1 || echo "$v: not in man/$t.1" >>"$Y/env"
	done
done
why=$(tr '\n' ' ' <"$Y/env")
check layout/environment-documented eval '[ ! -s "$Y/env" ]'

# A CPU reference (lib/ops/OP/*_cpu.c) takes its operation's parameters:
# it includes no tool header (tool.h, opts.h, *_tool.h), and it and its
# operation's file (lib/ops/OP/OP.c) do not call each other: the
# operation calls its reference, never the other way too.
: >"$Y/circle"
for d in lib/ops/*/; do
	op=$(basename "$d")
	for c in "$d"*_cpu.c; do
		[ -f "$c" ] || continue
		grep -nE '^#include "(tool|opts|[a-z0-9]*_tool)\.h"' "$c" |
		    sed "s#^#$c: #" >>"$Y/circle"
		[ -f "$d$op.c" ] || continue
		# The code of each, comments left out, and what each defines.
		for f in "$d$op.c" "$c"; do
			grep -v '^ *\(/\*\|\*\)' "$f" >"$Y/code.${f##*/}"
			sed -n 's/^\([a-z_][a-z0-9_]*\)(.*/\1/p' "$f" | sort -u >"$Y/defs.${f##*/}"
		done
		up=$(while read -r fn; do grep -qw "$fn" "$Y/code.${c##*/}" && echo "$fn"
		    done <"$Y/defs.$op.c" | tr '\n' ' ')
		down=$(while read -r fn; do grep -qw "$fn" "$Y/code.$op.c" && echo "$fn"
		    done <"$Y/defs.${c##*/}" | tr '\n' ' ')
		[ -n "$up" ] && [ -n "$down" ] &&
		    echo "$c calls $up of $d$op.c, which calls $down" >>"$Y/circle"
	done
done
why=$(tr '\n' ';' <"$Y/circle")
check layout/cpu-reference-one-way eval '[ ! -s "$Y/circle" ]'

# No file of lib/ over 800 lines.
big=$(find lib -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 800 { print $2 " " $1 }' | tr '\n' ' ')
why="over 800 lines: $big"
check layout/files-under-800 [ -z "$big" ]

# ---- the lists derived: every table row has its test cases

# Strategies: no script or test types three or more of the table's GPU
# strategies on a line; they loop over the table (run.sh's strategies
# and gpu_strategies, gf_strategies in C).
strats=$(gpu_strategies sobel | tr '\n' ' ')
typed=$(grep -nE "$(echo $strats | sed 's/ /|/g')" tests/*.sh tests/*.c scripts/*.sh \
    bench/*.sh 2>/dev/null | grep -v '^tests/t_layout.sh:' |
    awk -v s="$strats" 'BEGIN { n = split(s, w, " ") }
	{ line = $0; k = 0
	  for (i = 1; i <= n; i++) if (line ~ ("(^|[^a-z_])" w[i] "([^a-z_]|$)")) k++
	  if (k >= 3) print }' | head -n 3)
why="strategies typed out: $typed"
check layout/strategies-derived eval '[ -n "$strats" ] && [ -z "$typed" ]'

# Tools: every tool of cmd/tools has its definition, its man page, its
# golden and sanitizer cases (tests/cases_TOOL.sh) and its test.
for t in $TOOLS; do
	why="cmd/$t.c, man/$t.1, tests/t_$t.sh, tests/cases_$t.sh with ${t}_configs and ${t}_sanitize"
	check "layout/tool-row/$t" eval '[ -f "cmd/$t.c" ] && [ -f "man/$t.1" ] &&
	    [ -f "tests/t_$t.sh" ] && grep -q "^${t}_configs()" "tests/cases_$t.sh" &&
	    grep -q "^${t}_sanitize()" "tests/cases_$t.sh"'
done

# Sanitizer cases: every option set of TOOL_sanitize is one the tool
# takes.  scripts/gpu.sh runs them only on the GPU machine, under
# compute-sanitizer, where a refused set reads as a dirty run.
for t in $TOOLS; do
	. "tests/cases_$t.sh"
	# (shell words, as gpu.sh's eval reads them)
	bad=$("${t}_sanitize" | while IFS= read -r args; do
		eval "\"\$BIN/\$t\" -q --cpu $args \"\$SAMPLES/px2x3.pgm\" \"\$Y/san.pgm\"" \
		    2>/dev/null || printf '[%s] ' "$args"
	done)
	why="option sets $t refuses: $bad"
	check "layout/sanitize-rows/$t" [ -z "$bad" ]
done

# Formats: every output extension of the table is written and read
# back: sobel of it is sobel of the image written (a lossy format's the
# same size).
exts=$("$BIN/sobel" -q --cpu "$SAMPLES/coins.pgm" "$Y/x.gif" 2>&1 |
    sed -n 's/.*must end in \(.*\), or have no extension.*/\1/p' |
    grep -o '\.[a-z]*' | sort -u)
why="no extensions from the table"
check layout/format-exts-read [ -n "$exts" ]
"$BIN/sobel" -q --cpu "$SAMPLES/coins.pgm" "$Y/ref.pgm"
for x in $exts; do
	out=$Y/row$x
	"$BIN/conv2d" -q --cpu -k identity "$SAMPLES/coins.pgm" "$out" 2>"$Y/err" &&
	    "$BIN/sobel" -q --cpu "$out" "$Y/back.pgm" 2>>"$Y/err"
	st=$?
	why="status $st: $(head -c 300 "$Y/err")"
	case $x in
	.jpg|.jpeg|.webp) check "layout/format-row/$x" eval '[ $st -eq 0 ] &&
	    [ "$(head -n 2 "$Y/back.pgm" | tail -n 1)" = "$(head -n 2 "$Y/ref.pgm" | tail -n 1)" ]' ;;
	*) check "layout/format-row/$x" eval '[ $st -eq 0 ] && cmp -s "$Y/back.pgm" "$Y/ref.pgm"' ;;
	esac
done

# ---- no six lines written twice in lib/ or kernels/: runs of six
# lines of code (blank lines, lone braces and comments left out, blanks
# squeezed) that stand twice, in one file or two.
find lib kernels -name '*.[ch]' -o -name '*.cu' -o -name '*.cuh' | sort | xargs awk '
	FNR == 1 { n = 0 }
	{
		s = $0
		gsub(/[ \t]+/, " ", s); sub(/^ /, "", s); sub(/ $/, "", s)
		if (s ~ /^\/\*/ || s ~ /^\*/ || s == "" || s ~ /^[{}]+;?$/ ||
		    s ~ /^#(include|endif|else)/ || s ~ /^(break|return 0|return -1|return);$/)
			next
		code[++n] = s; where[n] = FILENAME ":" FNR
		if (n >= 6) {
			k = code[n-5] "\n" code[n-4] "\n" code[n-3] "\n" code[n-2] "\n" code[n-1] "\n" s
			if (k in seen && seen[k] != where[n-5])
				print seen[k] " ~ " where[n-5]
			else if (!(k in seen))
				seen[k] = where[n-5]
		}
	}' >"$Y/dup"
why="repeated: $(head -n 3 "$Y/dup" | tr '\n' ' ')"
check layout/no-repeated-code eval '[ ! -s "$Y/dup" ]'
