# The examples of README.md (the indented commands of its Examples
# section) and of every man page (the "$ " commands of its EXAMPLES), as
# written, on files made from the samples under the names they use
# (issue 13).  Each runs in a directory of its own, with bin/ there and
# the tools on PATH, under bash -o pipefail, and must exit 0.  An example
# that names a GPU strategy (-m shared) without --fallback is skipped
# without a GPU; one that needs a program that is not installed (ffmpeg)
# is skipped too.  A new example is tested without a word here, unless it
# names a file that is not in the table below.  Sourced by tests/run.sh.

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

# The files the examples name|the sample each is made from (converted by
# conv2d -k identity where the formats differ).
EX=$TMP/examples
mkdir -p "$EX/files/photos" "$EX/files/frames"
ln -s "$BIN" "$EX/files/bin"
while IFS='|' read -r name sample; do
	if [ "${name##*.}" = "${sample##*.}" ]; then
		cp "$SAMPLES/$sample" "$EX/files/$name"
	else
		"$BIN/conv2d" -q --cpu -k identity "$SAMPLES/$sample" "$EX/files/$name" ||
		    fail "example/files/$name" "cannot make it from $sample"
	fi
done <<'END'
photo.jpg|small.jpg
photo.png|chelsea.png
photo.pgm|coins.pgm
in.pgm|coins.pgm
in.png|chelsea.png
a.pgm|coins.pgm
photos/cat.jpg|chelsea.png
photos/cat.png|chelsea.png
photos/coins.jpg|coins.pgm
photos/coins.png|coins.pgm
frames/0001.png|coins.pgm
frames/0002.png|chelsea.png
END
printf -- '-2 -1 0\n-1 1 1\n0 1 2\n' >"$EX/files/emboss.txt"
if command -v ffmpeg >/dev/null 2>&1; then
	for v in clip.mp4 in.mp4; do
		ffmpeg -v error -loop 1 -i "$SAMPLES/chelsea.png" -frames:v 3 \
		    -vf scale=128:96 -pix_fmt yuv420p "$EX/files/$v" </dev/null ||
		    fail "example/files/$v" "ffmpeg cannot make it"
	done
fi

# The GPU strategies, as -m names them.
ex_gpu=$(strategies sobel | grep -v -x -e auto -e cpu | tr '\n' '|')
ex_gpu=${ex_gpu%|}

# Why example $1 cannot run here (nothing: it can).
ex_skip_why() {
	if ! have_gpu && ! expr " $1 " : ".* --fallback " >/dev/null &&
	    echo " $1 " | grep -Eq -- " -m ($ex_gpu) "; then
		echo "no GPU"
		return
	fi
	# The first word of each command of the line, quoted text left out.
	for word in $(echo "$1" | sed "s/\"[^\"]*\"//g; s/'[^']*'//g" |
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
		rm -rf "$EX/run"
		cp -R "$EX/files" "$EX/run"
		if (cd "$EX/run" && PATH=$BIN:$PATH && export PATH &&
		    limited bash -o pipefail -c "$cmd") </dev/null >"$EX/out" 2>"$EX/err"
		then
			pass "$name"
		else
			fail "$name" "$cmd: $(head -c 300 "$EX/err")"
		fi
	done <"$EX/list"
done
