# The habits of the tools users know (issue 34), a part for each row of
# its table: usage errors, plain numbers, 16-bit formats, a failed batch
# input, no GPU (-m auto, --device), terminals, .ppm and .pam, conv2d's
# normalizing, shell completion (bash, zsh, fish), make install and
# uninstall.  Sourced by tests/run.sh.
H=$TMP/habits
mkdir -p "$H"
# The options of tool $1's typical run (cmd/tools).
habit_opts() { tool_runs | awk -v t="$1" '$1 == t { $1 = ""; sub(/^ /, ""); print }'; }

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

# Range messages in plain numbers (1000000000, not 1e+09).
for args in "sobel -t -5" "conv2d -k box:3 --bias 2e9" "conv2d -k 1e10"; do
	tool=${args%% *}
	# shellcheck disable=SC2086
	"$BIN/$tool" ${args#* } </dev/null >/dev/null 2>"$H/err"
	why=$(head -n 1 "$H/err")
	check "habits/plain-numbers/$args" eval '! grep -q "[0-9]e[-+]" "$H/err" &&
	    grep -q "1000000000" "$H/err"'
done

# A 16-bit result to a format of 8 bits: the message names every format
# that holds 16 bits, and each of them does.
"$BIN/sobel" -q --cpu "$SAMPLES/astro16.pgm" "$H/a16.jpg" 2>"$H/err"
st=$?
why="status $st: $(cat "$H/err")"
check habits/16bit/message eval '[ $st = 1 ] && grep -q "TIFF" "$H/err"'
for ext in $(grep -o '(\.[^)]*)' "$H/err" | tr -d '(),'); do
	"$BIN/sobel" -q --cpu "$SAMPLES/astro16.pgm" "$H/a16$ext" 2>"$H/err2" &&
	    "$BIN/conv2d" -q --cpu -k identity "$H/a16$ext" "$H/back.pnm" 2>>"$H/err2"
	why="$(cat "$H/err2") $(head -c 20 "$H/back.pnm" | tr '\n' ' ')"
	check "habits/16bit/holds$ext" eval 'head -c 20 "$H/back.pnm" |
	    tr "\n" " " | grep -q " 65535 "'
	rm -f "$H/back.pnm"
done

# A batch with a failed input says how many failed, last, and exits 1;
# -q leaves the line out.
for q in "" -q; do
	rm -rf "$H/batch"
	"$BIN/sobel" $q --cpu -o "$H/batch" "$H/nosuch.png" \
	    "$SAMPLES/coins.pgm" 2>"$H/err"
	st=$?
	why="status $st: $(cat "$H/err")"
	if [ -z "$q" ]; then
		check habits/batch-failed eval '[ $st = 1 ] &&
		    [ "$(tail -n 1 "$H/err")" = "sobel: 1 of 2 inputs failed" ] &&
		    [ -s "$H/batch/coins.pgm" ]'
	else
		check habits/batch-failed-q eval '[ $st = 1 ] &&
		    ! grep -q "inputs failed" "$H/err" && [ -s "$H/batch/coins.pgm" ]'
	fi
done

# Without a GPU, -m auto says nothing, even in a pipeline of two tools;
# -v says which device ran: the notice once and "cpu" in its image line.
# A GPU named by --device fails as a GPU strategy does, naming --cpu and
# --fallback; with --fallback it runs the CPU, with one notice.
if have_gpu; then
	skip habits/no-gpu "a GPU is there"
else
	"$BIN/conv2d" -k box:3 "$SAMPLES/coins.pgm" 2>"$H/err1" |
	    "$BIN/sobel" >"$H/pipe.pgm" 2>"$H/err2"
	why="$(cat "$H/err1" "$H/err2")"
	check habits/no-gpu/auto-quiet eval '[ -s "$H/pipe.pgm" ] &&
	    [ ! -s "$H/err1" ] && [ ! -s "$H/err2" ]'
	"$BIN/sobel" -v "$SAMPLES/coins.pgm" "$H/v.pgm" 2>"$H/err"
	why="$(cat "$H/err")"
	check habits/no-gpu/auto-v eval '[ "$(grep -c "^sobel: running on the CPU (" "$H/err")" = 1 ] &&
	    grep -q "^sobel: .* image 1: .*, cpu " "$H/err"'
	for tool in $TOOLS; do
		need=$(habit_opts "$tool")
		# shellcheck disable=SC2086
		"$BIN/$tool" --device 0 $need "$SAMPLES/coins.pgm" "$H/d.pgm" 2>"$H/err"
		st=$?
		why="status $st: $(cat "$H/err")"
		check habits/no-gpu/device-0/$tool eval '[ $st = 1 ] &&
		    [ ! -e "$H/d.pgm" ] && [ "$(wc -l <"$H/err")" = 1 ] &&
		    grep -q -- "--device 0 needs a GPU (use --cpu .*--fallback" "$H/err"'
		# shellcheck disable=SC2086
		"$BIN/$tool" --device 0 --fallback $need "$SAMPLES/coins.pgm" \
		    "$H/d.pgm" 2>"$H/err"
		st=$?
		why="status $st: $(cat "$H/err")"
		check habits/no-gpu/device-0-fallback/$tool eval '[ $st = 0 ] &&
		    [ -s "$H/d.pgm" ] && [ "$(wc -l <"$H/err")" = 1 ] &&
		    grep -q "running on the CPU" "$H/err"'
		rm -f "$H/d.pgm"
	done
fi

# A terminal is neither read nor written: a tool alone on a terminal
# says so and how to give an image (exit 2); an image for a terminal on
# standard output is refused with the way out (exit 1), and written
# when standard output is a pipe.  script(1) gives the terminal.
if ! command -v script >/dev/null 2>&1; then
	skip habits/terminal "script(1) is not installed"
else
	for tool in $TOOLS; do
		need=$(habit_opts "$tool")
		(cd "$H" && limited script -qec "'$BIN/$tool' $need >out 2>err" \
		    /dev/null </dev/null >/dev/null)
		st=$?
		why="status $st: $(cat "$H/err")"
		check habits/terminal/stdin/$tool eval '[ $st = 2 ] && [ ! -s "$H/out" ] &&
		    grep -q "^$tool: standard input is a terminal" "$H/err" &&
		    [ "$(sed -n 2p "$H/err")" = "Try '"'"'$tool --help'"'"'." ]'
		(cd "$H" && limited script -qec "'$BIN/$tool' $need '$SAMPLES/coins.pgm' 2>err" \
		    /dev/null </dev/null >"$H/tty")
		st=$?
		why="status $st: $(cat "$H/err")"
		check habits/terminal/stdout/$tool eval '[ $st = 1 ] &&
		    grep -q "^$tool: not writing an image to a terminal: .*redirect" "$H/err" &&
		    ! grep -q P5 "$H/tty"'
		(cd "$H" && limited script -qec "'$BIN/$tool' $need '$SAMPLES/coins.pgm' 2>err | head -c 2" \
		    /dev/null </dev/null >"$H/tty")
		st=$?
		why="status $st: $(cat "$H/err")"
		check habits/terminal/pipe/$tool eval '[ $st = 0 ] && grep -q P5 "$H/tty"'
	done
fi

# An output named .ppm is PPM (P6: gray made RGB) and .pam is PAM (P7),
# as ImageMagick writes them; .pgm stays PGM.  The rasters are the PGM's
# samples, each three times in the PPM.
"$BIN/sobel" -q --cpu "$SAMPLES/px2x3.pgm" "$H/e.pgm" &&
    "$BIN/sobel" -q --cpu "$SAMPLES/px2x3.pgm" "$H/e.ppm" &&
    "$BIN/sobel" -q --cpu "$SAMPLES/px2x3.pgm" "$H/e.pam" 2>"$H/err"
why="$(cat "$H/err") $(head -c 3 "$H/e.ppm") $(head -c 3 "$H/e.pam")"
raster() { tail -c "$2" "$1" | od -An -v -tu1 | tr -s ' \n' '  '; }
check habits/pnm-ext/ppm eval '[ "$(head -c 2 "$H/e.ppm")" = P6 ] &&
    [ "$(raster "$H/e.ppm" 18)" = "$(raster "$H/e.pgm" 6 |
	awk "{ for (i = 1; i <= NF; i++) printf \" %s %s %s\", \$i, \$i, \$i; print \" \" }")" ]'
check habits/pnm-ext/pam eval '[ "$(head -c 2 "$H/e.pam")" = P7 ] &&
    grep -q "^TUPLTYPE GRAYSCALE" "$H/e.pam" &&
    [ "$(raster "$H/e.pam" 6)" = "$(raster "$H/e.pgm" 6)" ] &&
    [ "$(head -c 2 "$H/e.pgm")" = P5 ]'
# 16 bit, a colour image, and a stream of two images through one .ppm.
"$BIN/sobel" -q --cpu "$SAMPLES/astro16.pgm" "$H/a16.ppm"
why=$(head -c 20 "$H/a16.ppm" | tr '\n' ' ')
check habits/pnm-ext/ppm16 eval '[ "$(head -c 2 "$H/a16.ppm")" = P6 ] &&
    [ $(wc -c <"$H/a16.ppm") = $((17 + 256 * 256 * 6)) ]'
"$BIN/conv2d" -q --cpu -k identity "$SAMPLES/chelsea.png" "$H/c.pam"
check habits/pnm-ext/pam-rgb eval 'grep -q "^TUPLTYPE RGB$" "$H/c.pam"'
cat "$SAMPLES/px2x3.pgm" "$SAMPLES/px2x3.pgm" |
    "$BIN/sobel" -q --cpu - "$H/two.ppm" 2>"$H/err"
why=$(cat "$H/err")
check habits/pnm-ext/stream eval '[ $(wc -c <"$H/two.ppm") = 58 ] &&
    [ "$(head -c 2 "$H/two.ppm")" = P6 ] &&
    [ "$(tail -c 29 "$H/two.ppm" | head -c 2)" = P6 ]'

# conv2d divides a kernel of non-negative taps by their sum (as
# ImageMagick's -convolve): the README's first kernel is a blur, the
# same as with --normalize; --divisor 1 gives the old, undivided output,
# white wherever the 3x3 neighbourhood sums above 255/16.
"$BIN/conv2d" -q --cpu -k "1 2 1; 2 4 2; 1 2 1" "$SAMPLES/coins.pgm" "$H/k.pgm" &&
    "$BIN/conv2d" -q --cpu -k "1 2 1; 2 4 2; 1 2 1" --normalize \
	"$SAMPLES/coins.pgm" "$H/kn.pgm" &&
    "$BIN/conv2d" -q --cpu -k "1 2 1; 2 4 2; 1 2 1" --divisor 1 \
	"$SAMPLES/coins.pgm" "$H/k1.pgm" 2>"$H/err"
why=$(cat "$H/err")
white() { tail -c $((384 * 303)) "$1" | od -An -v -tu1 | tr -s ' ' '\n' | grep -c '^255$'; }
check habits/conv2d-normalize/blur eval 'cmp -s "$H/k.pgm" "$H/kn.pgm" &&
    [ $(white "$H/k.pgm") -lt 1000 ]'
check habits/conv2d-normalize/divisor-1 eval '[ $(white "$H/k1.pgm") -gt $((384 * 303 * 9 / 10)) ]'

# Shell completion: -f offers every format -f takes (the names its
# error lists), sobel's -t and --norm and conv2d's -k their values, each
# of which the tool takes; zsh and fish describe each option with the
# whole of its help text, continuation lines too; fish completes every
# option --help names; --help and the man pages name --completion.
# Completes word $2 after word $1 for $tool with its bash script, one a
# line.
bash_complete() {
	bash -c '. "$1"; COMP_WORDS=("$2" "$3" "$4"); COMP_CWORD=2
	    _gpufilt_$2; printf "%s\n" "${COMPREPLY[@]}"' sh \
	    "$H/completion/$tool/bash" "$tool" "$1" "$2" | sort
}
for tool in $TOOLS; do
	d=$H/completion/$tool
	mkdir -p "$d"
	for sh in bash zsh fish; do
		"$BIN/$tool" --completion $sh >"$d/$sh" 2>"$d/err" ||
		    fail "habits/completion/$tool/$sh" "$(cat "$d/err")"
	done
	"$BIN/$tool" -f nosuch 2>&1 | sed -n 's/.*; choose //p' |
	    sed 's/,\| or / /g' | tr -s ' ' '\n' | sed '/^$/d' | sort >"$d/formats"
	bash_complete -f "" >"$d/f"
	why="-f gave $(tr '\n' ' ' <"$d/f"), -f takes $(tr '\n' ' ' <"$d/formats")"
	check "habits/completion/$tool/formats" eval 'grep -qx tiff "$d/f" &&
	    cmp -s "$d/f" "$d/formats"'
	# Every continuation line of --help's options is in a zsh and a fish
	# description.
	"$BIN/$tool" --help | awk '/^$/ { blank++; next } blank == 1 &&
	    /^                  [^ ]/ { sub(/^ +/, ""); print }' >"$d/cont"
	bad=
	while IFS= read -r line; do
		for sh in zsh fish; do
			want=$(printf '%s' "$line" | tr -s ' ')
			[ $sh = fish ] || want=$(printf '%s' "$want" | tr '[]' '()')
			tr -s ' ' <"$d/$sh" | sed "s/'\\\\''/'/g; s/\\\\'/'/g" |
			    grep -qF -- "$want" || bad="$bad $sh:'$line'"
		done
	done <"$d/cont"
	why="cut off:$bad"
	check "habits/completion/$tool/whole" eval '[ -s "$d/cont" ] && [ -z "$bad" ]'
	# fish: one complete command per option that --help names.
	"$BIN/$tool" --help | grep -o -- '\(^\|[ ,]\)--*[a-zA-Z0-9][a-zA-Z0-9-]*' |
	    sed 's/^[ ,]*//' | sort -u >"$d/help.opts"
	sed -n 's/.* -s \([^ ]\).*/-\1/p; s/.* -l \([^ ]*\).*/--\1/p' "$d/fish" |
	    sort -u >"$d/fish.opts"
	sed -n 's/.* -s [^ ] -l \([^ ]*\).*/--\1/p' "$d/fish" >>"$d/fish.opts"
	sort -u -o "$d/fish.opts" "$d/fish.opts"
	grep -v -x -e -qVv -e '--*' "$d/help.opts" >"$d/help.opts2"
	why="$(diff "$d/help.opts2" "$d/fish.opts" | grep '^[<>]' | tr '\n' ' ')"
	check "habits/completion/$tool/fish-options" eval 'cmp -s "$d/help.opts2" "$d/fish.opts"'
	if command -v fish >/dev/null 2>&1; then
		check "habits/completion/$tool/fish-source" fish -n "$d/fish"
		# fish completes -f with the formats, as a tab would.
		fish -c 'source $argv[1]; complete -C "$argv[2] -f "' "$d/fish" \
		    "$tool" 2>&1 | cut -f1 | sort >"$d/fish.f"
		why="fish -f gave $(tr '\n' ' ' <"$d/fish.f")"
		check "habits/completion/$tool/fish-live" cmp -s "$d/fish.f" "$d/formats"
	else
		skip "habits/completion/$tool/fish-source" "fish is not installed"
		skip "habits/completion/$tool/fish-live" "fish is not installed"
	fi
	check "habits/completion/$tool/in-help" eval '"$BIN/$tool" --help |
	    grep -q -- "--completion SH .*bash, zsh" && "$BIN/$tool" --help | grep -q "fish"'
	if command -v mandoc >/dev/null 2>&1; then
		check "habits/completion/$tool/in-man" eval 'mandoc -T ascii "$ROOT/man/$tool.1" |
		    col -b | grep -q -- "--completion bash | zsh | fish"'
	else
		skip "habits/completion/$tool/in-man" "mandoc is not installed"
	fi
done
# The values of sobel's -t and --norm and of conv2d's -k, each taken.
d=$H/completion
tool=sobel
bash_complete -t "" >"$d/t"
bash_complete --norm "" >"$d/norm"
why="-t: $(cat "$d/t"), --norm: $(tr '\n' ' ' <"$d/norm")"
check habits/completion/sobel/values eval '[ "$(cat "$d/t")" = auto ] &&
    [ "$(tr "\n" " " <"$d/norm")" = "l1 l2 " ] &&
    "$BIN/sobel" -q --cpu -t auto --norm l1 "$SAMPLES/px2x3.pgm" "$d/x.pgm"'
tool=conv2d
bash_complete -k "" >"$d/k"
bad=
for k in $(cat "$d/k"); do
	case $k in dog:|unsharp:) k=${k}1,2 ;; *:) k=${k}3 ;; esac
	"$BIN/conv2d" -q --cpu -k "$k" "$SAMPLES/px2x3.pgm" "$d/x.pgm" 2>/dev/null ||
	    bad="$bad $k"
done
why="offered: $(tr '\n' ' ' <"$d/k"); refused:$bad"
check habits/completion/conv2d/kernels eval 'grep -qx "gauss:" "$d/k" &&
    grep -qx sharpen "$d/k" && [ -z "$bad" ]'
"$BIN/sobel" --completion csh >/dev/null 2>"$H/err"
st=$?
why="status $st: $(cat "$H/err")"
check habits/completion/other-shell eval '[ $st = 2 ] && grep -q "bash, zsh or fish" "$H/err"'

# make install into a temporary prefix: the tools stripped (smaller than
# bin/'s, no symbol table) and running, their man pages and the bash, zsh
# and fish completion; STRIP= installs bin/'s bytes; make uninstall then
# leaves nothing under the prefix.  The installed tree of the normal
# build only (test-asan runs sanitized tools from build/asan).
if [ "$BUILD" != build ] || ! command -v make >/dev/null 2>&1; then
	skip habits/install "not the normal build, or no make"
else
	P=$H/prefix
	inst() {
		(unset MAKEFLAGS MFLAGS MAKELEVEL; make -C "$ROOT" --no-print-directory \
		    "$@" PREFIX="$P" GENCODE="$(cat "$ROOT/build/gencode")") >"$H/make.log" 2>&1
	}
	inst install
	st=$?
	why="status $st: $(tail -n 3 "$H/make.log")"
	bad=
	for tool in $TOOLS; do
		for f in bin/$tool share/man/man1/$tool.1 \
		    share/bash-completion/completions/$tool \
		    share/zsh/site-functions/_$tool \
		    share/fish/vendor_completions.d/$tool.fish; do
			[ -s "$P/$f" ] || bad="$bad $f"
		done
		[ "$(wc -c <"$P/bin/$tool")" -lt "$(wc -c <"$BIN/$tool")" ] ||
		    bad="$bad $tool-unstripped"
		if command -v readelf >/dev/null 2>&1 &&
		    readelf -S "$P/bin/$tool" | grep -q -e '\.symtab' -e '\.debug_info'; then
			bad="$bad $tool-symbols"
		fi
		"$P/bin/$tool" --version >/dev/null 2>&1 || bad="$bad $tool-runs"
	done
	why="$why; missing or wrong:$bad"
	check habits/install/installed eval '[ $st = 0 ] && [ -z "$bad" ]'
	# The server's units name the server as installed (there once
	# cmd/gpufiltd.c is).
	u=$P/lib/systemd/user
	why="$(grep -h '^ExecStart=\|^Listen' "$u"/gpufiltd.* 2>&1 | tr '\n' ' ')"
	check habits/install/server-units eval '[ -s "$u/gpufiltd.socket" ] &&
	    grep -qx "ExecStart=$P/bin/gpufiltd -f" "$u/gpufiltd.service" &&
	    { [ ! -f "$ROOT/cmd/gpufiltd.c" ] || [ -x "$P/bin/gpufiltd" ]; }'
	inst uninstall
	st=$?
	why="status $st, left: $(cd "$P" 2>/dev/null && find . | tr '\n' ' ')"
	check habits/install/uninstall-leaves-nothing eval '[ $st = 0 ] &&
	    [ -z "$(find "$P" -mindepth 1)" ]'
	inst install STRIP=
	st=$?
	why="status $st: $(tail -n 3 "$H/make.log")"
	check habits/install/strip-empty-keeps eval '[ $st = 0 ] &&
	    cmp -s "$P/bin/sobel" "$BIN/sobel"'
	inst uninstall
fi

# zsh, where installed, completes the values as a user's tab does: in a
# zsh on a pseudo-terminal (zsh/zpty) with the tools' scripts in fpath,
# "conv2d -k <tab>" lists the named kernels (box: with its colon),
# "sobel -f <tab>" the formats and "sobel --norm <tab>" the norms.
if ! command -v zsh >/dev/null 2>&1 || ! zsh -fc 'zmodload zsh/zpty' 2>/dev/null; then
	skip habits/completion/zsh-live "zsh (with zsh/zpty) is not installed"
else
	Z=$H/zsh
	mkdir -p "$Z"
	for tool in $TOOLS; do
		"$BIN/$tool" --completion zsh >"$Z/_$tool"
	done
	cat >"$Z/tab.zsh" <<'ZSH'
# In an interactive zsh whose fpath is $1 and PATH has $2 first, types
# each line of the pairs that follow and a tab, and waits (5 s at most)
# until the terminal shows every word its pair wants: "ok LINE", or
# "missing LINE: what it showed".
zmodload zsh/zpty
zpty z 'COLUMNS=200 zsh -f -i'
zpty -w z "PS1='> '; fpath=($1 \$fpath); autoload -U compinit; compinit -u -d $1/zcompdump; PATH=$2:\$PATH; print RE''ADY"
# Reads what z shows until it holds every word of $@, or 5 s pass.
show() {
	local w missing
	out=
	for i in {1..50}; do
		while zpty -r -t z chunk; do out+=$chunk; done
		missing=
		for w in "$@"; do [[ $out == *"$w"* ]] || missing=1; done
		[[ -z $missing ]] && return 0
		sleep 0.1
	done
	return 1
}
show READY || { print "no zsh prompt: $out"; exit 1; }
shift 2
while (( $# >= 2 )); do
	zpty -w -n z "$1"$'\t'
	if show ${=2} && [[ $out != *(parse error|command not found)* ]]; then
		print -r -- "ok $1"
	else
		print -r -- "missing $1: ${out//[^[:print:]]/ }"
	fi
	zpty -w -n z $'\C-u\C-l'
	sleep 0.2
	while zpty -r -t z chunk; do :; done
	shift 2
done
zpty -d z
ZSH
	limited zsh -f "$Z/tab.zsh" "$Z" "$BIN" "conv2d -k " "box: emboss gauss: identity" \
	    "sobel -f " "jpeg png pnm tiff" "sobel --norm l" "l1 l2" >"$Z/out" 2>&1
	for line in "conv2d -k " "sobel -f " "sobel --norm l"; do
		why=$(grep -F -- "$line" "$Z/out" | tail -c 400)
		[ -n "$why" ] || why=$(tail -c 400 "$Z/out")
		check "habits/completion/zsh-live/$line" grep -qxF -- "ok $line" "$Z/out"
	done
fi

# The bench, the scripts, the build and the tests run on any machine: none
# names a path of one (bench/cpu.sh took its photograph from a directory
# of the machine it was written on, issue 45).  The brackets keep the
# pattern from matching itself.
why=$(cd "$ROOT" && grep -rln '/wor[k]/\|/hom[e]/\|/User[s]/\|/roo[t]/' bench scripts cmd lib \
    Makefile tests/*.sh 2>/dev/null | tr '\n' ' ')
check habits/no-machine-paths [ -z "$why" ]
