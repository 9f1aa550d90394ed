# The examples of README.md (the indented commands of its Examples
# section) and of every man page (the "$ " commands of its EXAMPLES), as
# written (issue 13), from what the top of the repository holds (issue
# 34): each document's examples run in order, as a reader pastes them,
# in one directory with samples/ and bin/ there and the tools on PATH
# (as installed), under bash -o pipefail, and each must exit 0.  An
# example that names a file the repository does not have, and that no
# example before it makes, fails.  One that names a GPU strategy (-m
# shared) without --fallback is skipped without a GPU; one that needs a
# program that is not installed (ffmpeg) is skipped too.  The server's
# (gpufiltd, with or without a GPU: it then filters on its CPU) run on a
# socket of their own (GPUFILT_SOCKET), stopped after them; systemctl's
# never run (they would change the user's units).  Sourced by
# tests/run.sh.

# The example commands of a README or a rendered man page, one a line; a
# line that ends with "|" goes on into the next.
examples_of() {
	case $1 in
	*.md)
		awk '/^-+$/ { section = prev } { prev = $0 }
		    section == "Examples" && /^    / { sub(/^    /, ""); print }' "$1" |
		    sed 's/^[^ ]/$ &/' ;;
	*)
		mandoc -T ascii -O width=300 "$1" | col -bx |
		    sed -n '/^EXAMPLES$/,/^[A-Z]/p' ;;
	esac | awk '{ sub(/^ +/, "") }
	    /^\$ / { if (line != "") print line; line = substr($0, 3); next }
	    line ~ /\|$/ { line = line " " $0; next }
	    line != "" { print line; line = "" }
	    END { if (line != "") print line }'
}

# Each document's examples run in order in a directory of their own
# that holds what the top of the repository holds for them: samples/ (a
# copy: an example may write beside it) and bin/.
EX=$TMP/examples
mkdir -p "$EX"

# The GPU strategies, as -m names them.
ex_gpu=$(strategies sobel | grep -v -x -e auto -e cpu | tr '\n' '|')
ex_gpu=${ex_gpu%|}

# Why example $1 cannot run here (nothing: it can).
ex_skip_why() {
	case " $1 " in
	*" systemctl "*) echo "systemctl would change the user's units"; return ;;
	esac
	if ! have_gpu && ! expr " $1 " : ".* --fallback " >/dev/null &&
	    printf " %s \n" "$1" | grep -Eq -- " -m ($ex_gpu) "; then
		echo "no GPU"
		return
	fi
	# The first word of each command of the line, quoted text left out.
	for word in $(printf "%s\n" "$1" | sed "s/\"[^\"]*\"//g; s/'[^']*'//g" |
	    tr '|&;' '\n\n\n' | awk '{ print $1 }'); do
		case $word in bin/*) continue ;; esac
		PATH=$BIN:$PATH command -v "$word" >/dev/null 2>&1 ||
		    { echo "$word is not installed"; return; }
	done
}

for doc in README.md man/*.1; do
	if [ "$doc" != README.md ] && ! command -v mandoc >/dev/null 2>&1; then
		skip "example/$doc" "mandoc is not installed"
		continue
	fi
	rm -rf "$EX/run"
	mkdir -p "$EX/run" && cp -R "$SAMPLES" "$EX/run/samples" &&
	    ln -s "$BIN" "$EX/run/bin" || fail "example/$doc" "cannot make its directory"
	examples_of "$doc" >"$EX/list"
	[ -s "$EX/list" ] || fail "example/$doc" "no example found"
	n=0
	while IFS= read -r cmd; do
		n=$((n + 1))
		name="example/${doc#man/}/$n"
		why=$(ex_skip_why "$cmd")
		if [ -n "$why" ]; then
			skip "$name" "$why: $cmd"
			continue
		fi
		# The server's examples use a socket of their own; the others
		# the harness's server, if it has one (make test-served).
		ex_sock=${GPUFILT_SOCKET-}
		case " $cmd " in
		*" gpufiltd "*|*"/gpufiltd "*|*GPUFILT_SERVER=start*) ex_sock=$EX/server ;;
		esac
		if (cd "$EX/run" && PATH=$BIN:$PATH && GPUFILT_SOCKET=$ex_sock &&
		    export PATH GPUFILT_SOCKET &&
		    limited bash -o pipefail -c "$cmd") </dev/null >"$EX/out" 2>"$EX/err"
		then
			pass "$name"
		else
			fail "$name" "$cmd: $(head -c 300 "$EX/err")"
		fi
	done <"$EX/list"
	# A server an example started and another did not stop.
	[ ! -x "$BIN/gpufiltd" ] || "$BIN/gpufiltd" -k -S "$EX/server" >/dev/null 2>&1
done
