#!/bin/sh
# The golden files are kept gzip-compressed (tests/golden/TOOL/NAME.gz,
# gzip -9n); this writes each one's bytes to DEST/TOOL/NAME (build/golden
# unless given), where the tests and the checks read them, when it is
# missing or older than its .gz.  Each file is written whole (a temporary
# name, then mv), so harnesses that unpack side by side see whole files.
# Usage, from the project root: sh tests/golden/unpack.sh [DEST]
dest=${1:-build/golden}
status=0
for z in tests/golden/*/*.gz; do
	[ -f "$z" ] || continue
	f=${z#tests/golden/}
	out=$dest/${f%.gz}
	[ -f "$out" ] && ! [ "$z" -nt "$out" ] && continue
	mkdir -p "${out%/*}" &&
	    gzip -dc "$z" >"$out.$$" && mv -f "$out.$$" "$out" || {
		rm -f "$out.$$"
		echo "unpack.sh: cannot unpack $z into $out" >&2
		status=1
	}
done
exit $status
