# Shell completion (issue 13): the script of --completion bash and of
# --completion zsh names every option that --help names, and no other;
# bash reads its script, registers the completion and completes -m with
# the strategies and a long option from its start; zsh, where installed,
# reads its own.  Sourced by tests/run.sh.

# The options a text names, one a line, sorted: -qVv is -q, -V and -v.
options_in() {
	grep -o -- '\(^\|[][ (,|;]\)--*[a-zA-Z0-9][a-zA-Z0-9-]*' |
	    sed 's/^[^-]*//' | awk '/^--/ || length($0) == 2 { print; next }
	    { for (i = 2; i <= length($0); i++) print "-" substr($0, i, 1) }' |
	    sort -u
}

for tool in $TOOLS; do
	d=$TMP/completion/$tool
	mkdir -p "$d"
	"$BIN/$tool" --help | options_in >"$d/help"
	"$BIN/$tool" --completion bash >"$d/bash" 2>"$d/err" ||
	    fail "completion/$tool/bash" "failed: $(cat "$d/err")"
	"$BIN/$tool" --completion zsh >"$d/zsh" 2>"$d/err" ||
	    fail "completion/$tool/zsh" "failed: $(cat "$d/err")"
	sed -n 's/^[[:space:]]*local opts="\(.*\)"$/\1/p' "$d/bash" | tr ' ' '\n' |
	    sort -u >"$d/bash.opts"
	sed -n "s/^[[:space:]]*'\(--*[a-zA-Z0-9-]*\).*/\1/p" "$d/zsh" |
	    sort -u >"$d/zsh.opts"
	for sh in bash zsh; do
		if [ -s "$d/help" ] && cmp -s "$d/help" "$d/$sh.opts"; then
			pass "completion/$tool/$sh-options"
		else
			fail "completion/$tool/$sh-options" "--help and the $sh script differ: $(
			    diff "$d/help" "$d/$sh.opts" | grep '^[<>]' | tr '\n' ' ')"
		fi
	done
	if bash -n "$d/bash" 2>"$d/err" &&
	    bash -c '. "$1" && complete -p "$2"' sh "$d/bash" "$tool" >"$d/complete" 2>>"$d/err" &&
	    grep -q -- "-F _gpufilt_$tool $tool\$" "$d/complete"; then
		pass "completion/$tool/bash-source"
	else
		fail "completion/$tool/bash-source" "$(cat "$d/err" "$d/complete")"
	fi
	# Completes "-m sh" and "--fall" as a user's tab would.
	got=$(bash -c '. "$1"; COMP_WORDS=("$2" -m sh); COMP_CWORD=2; _gpufilt_$2
	    echo "${COMPREPLY[*]}"; COMP_WORDS=("$2" --fall); COMP_CWORD=1
	    _gpufilt_$2; echo "${COMPREPLY[*]}"' sh "$d/bash" "$tool" 2>&1)
	if [ "$got" = "shared
--fallback" ]; then
		pass "completion/$tool/bash-complete"
	else
		fail "completion/$tool/bash-complete" "-m sh, --fall gave: $got"
	fi
	if ! command -v zsh >/dev/null 2>&1; then
		skip "completion/$tool/zsh-source" "zsh is not installed"
	elif zsh -n "$d/zsh" 2>"$d/err" && head -n 1 "$d/zsh" | grep -q "^#compdef $tool\$"; then
		pass "completion/$tool/zsh-source"
	else
		fail "completion/$tool/zsh-source" "$(cat "$d/err")"
	fi
done

# sobel's --operator completes with the operators' names, --colour and
# --gradient with their values.
d=$TMP/completion/sobel
got=$(bash -c '. "$1"; COMP_WORDS=(sobel --operator s); COMP_CWORD=2; _gpufilt_sobel
    echo "${COMPREPLY[*]}"; COMP_WORDS=(sobel --operator p); COMP_CWORD=2
    _gpufilt_sobel; echo "${COMPREPLY[*]}"; COMP_WORDS=(sobel --colour ""); COMP_CWORD=2
    _gpufilt_sobel; echo "${COMPREPLY[*]}"; COMP_WORDS=(sobel --gradient d); COMP_CWORD=2
    _gpufilt_sobel; echo "${COMPREPLY[*]}"' sh "$d/bash" 2>&1)
if [ "$got" = "sobel scharr sobel5 sobel7
prewitt
gray channels max
direction" ]; then
	pass "completion/sobel/operator-colour-gradient"
else
	fail "completion/sobel/operator-colour-gradient" "--operator s, --operator p, --colour, --gradient d gave: $got"
fi

# edge's --colour completes with its modes.
got=$(bash -c '. "$1"; COMP_WORDS=(edge --colour c); COMP_CWORD=2; _gpufilt_edge
    echo "${COMPREPLY[*]}"; COMP_WORDS=(edge --colour m); COMP_CWORD=2; _gpufilt_edge
    echo "${COMPREPLY[*]}"' sh "$TMP/completion/edge/bash" 2>&1)
if [ "$got" = "channels
max" ]; then
	pass "completion/edge/colour"
else
	fail "completion/edge/colour" "--colour c gave: $got"
fi
