# libgpufilt as a user gets it (issue 34): make install into a temporary
# prefix, then the README's program built outside the tree with
# `pkg-config --cflags --libs gpufilt`, against the shared and then the
# static library, whose outputs must be sobel -t 60's bytes; the
# libraries export the names of lib/api/gpufilt.sym and nothing else, every
# function gpufilt.h declares among them; the header compiles alone as
# C99 and C++; gpufilt(3) passes mandoc's lint.  The API's own cases
# (options refused, device buffers on a GPU) are tests/gpufilt_test.c.
# Sourced by tests/run.sh.

# The installed tree of the normal build only (test-asan runs sanitized
# tools from build/asan), as t_habits installs it.
if [ "$BUILD" != build ]; then
	skip lib/install "not the normal build"
else
	L=$TMP/lib
	P=$L/prefix
	mkdir -p "$L"
	# make from the test: a parent make's jobserver is not ours to use;
	# the GPU code as built (build/gencode), not install's every GPU.
	(cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install \
	    PREFIX="$P" GENCODE="$(cat build/gencode)" >"$L/install.log" 2>&1)
	st=$?
	why="exit $st: $(tail -n 5 "$L/install.log")"
	check lib/install eval '[ $st -eq 0 ] && [ -f "$P/include/gpufilt.h" ] &&
	    [ -f "$P/lib/libgpufilt.so.0.1" ] && [ "$(readlink "$P/lib/libgpufilt.so.0")" = libgpufilt.so.0.1 ] &&
	    [ "$(readlink "$P/lib/libgpufilt.so")" = libgpufilt.so.0 ] && [ -f "$P/lib/libgpufilt.a" ] &&
	    [ -f "$P/lib/pkgconfig/gpufilt.pc" ] && [ -f "$P/share/man/man3/gpufilt.3" ] &&
	    [ -f "$P/lib/cmake/gpufilt/gpufilt-config.cmake" ]'

	why="soname: $(readelf -d "$P/lib/libgpufilt.so.0.1" 2>&1 | grep SONAME)"
	check lib/soname eval 'readelf -d "$P/lib/libgpufilt.so.0.1" | grep -q "Library soname: \[libgpufilt.so.0\]"'

	# The README's program, from its first #include to main's closing brace.
	awk '/^-+$/ { section = prev } { prev = $0 }
	    section == "The library" && /^    #include <stdio.h>/ { on = 1 }
	    on { sub(/^    /, ""); print } on && /^}$/ { exit }' "$ROOT/README.md" >"$L/edges.c"
	# The prefix is a real path: a sysroot the environment gives pkg-config
	# for the build's own dependencies (the GPU machine's .deps) is not its.
	unset PKG_CONFIG_SYSROOT_DIR
	export PKG_CONFIG_PATH="$P/lib/pkgconfig"
	flags=$(pkg-config --cflags --libs gpufilt 2>"$L/pc.err")
	why="pkg-config: $(cat "$L/pc.err"); $(cc -o "$L/edges" "$L/edges.c" $flags 2>&1 | head -5)"
	check lib/readme-program-builds eval '[ -n "$flags" ] && [ $(wc -l <"$L/edges.c") -ge 15 ] &&
	    cc -Wall -Wextra -Werror -o "$L/edges" "$L/edges.c" $flags'

	# A gray PGM, a colour PNG and a colour JPEG (read as its luma, as sobel does).
	for pair in coins.pgm:384x303 chelsea.png:451x300 small.jpg:; do
		in=${pair%%:*} size=${pair#*:}
		"$BIN/sobel" -q -t 60 "$SAMPLES/$in" "$L/tool-$in.png" 2>"$L/err"
		LD_LIBRARY_PATH="$P/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$L/edges" "$SAMPLES/$in" "$L/edges-$in.png" >"$L/out" 2>>"$L/err"
		st=$?
		why="exit $st: $(cat "$L/out" "$L/err")"
		check lib/readme-program-equals-tool/$in eval '[ $st -eq 0 ] &&
		    cmp -s "$L/edges-$in.png" "$L/tool-$in.png" &&
		    grep -q "^$L/edges-$in.png: ${size%x*}[0-9]* x ${size#*x}[0-9]* on " "$L/out"'
	done
	cp "$L/tool-coins.pgm.png" "$L/tool.png"
	LD_LIBRARY_PATH="$P/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$L/edges" "$L/missing.png" "$L/x.png" >"$L/out" 2>"$L/err"
	st=$?
	why="exit $st: $(cat "$L/out" "$L/err")"
	check lib/readme-program-error eval '[ $st -eq 1 ] && grep -q "^cannot open $L/missing.png: No such file" "$L/err"'

	# The GPU code installed is what the build holds (build/gencode: make
	# install's every GPU, or as here the tree's set), as cuobjdump lists
	# it: machine code sm_NN, PTX compute_NN.
	cuobjdump=$(command -v cuobjdump || command -v "${CUDA:-/usr/local/cuda}/bin/cuobjdump")
	if [ -z "$cuobjdump" ]; then
		skip lib/gpu-code "cuobjdump is not installed"
	else
		want=$(tr ' ' '\n' <"$ROOT/build/gencode" | sed -n 's/.*code=//p' | sort -u | tr '\n' ' ')
		got=$({ "$cuobjdump" --list-elf "$P/lib/libgpufilt.so.0.1" |
		    sed -n 's/.*\.\(sm_[0-9]*\)\.cubin$/\1/p'
		    "$cuobjdump" --list-ptx "$P/lib/libgpufilt.so.0.1" |
		    sed -n 's/.*\.sm_\([0-9]*\)\.ptx$/compute_\1/p'; } | sort -u | tr '\n' ' ')
		why="want $want, installed $got"
		check lib/gpu-code eval '[ -n "$want" ] && [ "$got" = "$want" ]'
	fi

	# Loads everywhere (issue 44): the libraries and the tools hold the
	# CUDA runtime, so no file names it (NEEDED) and nothing opens one at
	# run time (LD_DEBUG=files lists every file loaded, dlopen's too):
	# the program and sobel run with the CUDA toolkit off the search path.
	needed=$(for f in "$P/lib/libgpufilt.so.0.1" "$BIN/sobel"; do
		readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; done | tr '\n' ' ')
	why="NEEDED: $needed"
	check lib/no-cuda-needed eval 'case "$needed" in *libcud*|"") false ;; esac'
	# The search path less CUDA's (a machine may keep its image
	# libraries there too, as the GPU machine's carried ones).
	nocuda=$(printf '%s\n' "$LD_LIBRARY_PATH" | tr ':' '\n' | grep -v -i cuda |
	    paste -s -d: -)
	LD_DEBUG=files LD_LIBRARY_PATH="$P/lib${nocuda:+:$nocuda}" "$L/edges" \
	    "$SAMPLES/coins.pgm" "$L/nocuda.png" >"$L/out" 2>"$L/debug"
	st=$?
	LD_DEBUG=files LD_LIBRARY_PATH="$nocuda" "$BIN/sobel" -t 60 "$SAMPLES/coins.pgm" \
	    "$L/nocuda-tool.png" 2>>"$L/debug"
	st=$st$?
	loaded=$(grep -o 'file=libcudart[^ ]*' "$L/debug" | sort -u | tr '\n' ' ')
	why="exit $st, loaded: $loaded $(grep -v '^ *[0-9]*:' "$L/debug" | head -3)"
	check lib/no-cuda-runtime-loaded eval '[ $st = 00 ] && [ -z "$loaded" ] &&
	    grep -q "file=libgpufilt.so.0 " "$L/debug" &&
	    cmp -s "$L/nocuda.png" "$L/tool.png" && cmp -s "$L/nocuda-tool.png" "$L/tool.png"'

	# Static: the archive, then what gpufilt.pc says it needs.
	static=$(pkg-config --static --libs-only-other --libs-only-L gpufilt)
	private=$(pkg-config --static --libs-only-l gpufilt | sed 's/-lgpufilt//')
	why=$(cc -o "$L/edges-static" "$L/edges.c" $(pkg-config --cflags gpufilt) \
	    "$P/lib/libgpufilt.a" $static $private 2>&1 | head -5)
	check lib/static-program eval 'cc -o "$L/edges-static" "$L/edges.c" $(pkg-config --cflags gpufilt) \
	    "$P/lib/libgpufilt.a" $static $private && "$L/edges-static" "$SAMPLES/coins.pgm" "$L/static.png" >/dev/null &&
	    cmp -s "$L/static.png" "$L/tool.png"'

	# What the libraries export: lib/api/gpufilt.sym, which holds every gf_
	# function gpufilt.h declares.
	sort "$ROOT/lib/api/gpufilt.sym" >"$L/want"
	sed -n 's/^[a-z].*[ *]\(gf_[a-z0-9_]*\)(.*/\1/p' "$ROOT/lib/api/gpufilt.h" | sort >"$L/declared"
	nm -D --defined-only "$P/lib/libgpufilt.so.0.1" | awk '$2 == "T" || $2 == "D" || $2 == "B" { sub(/@.*/, "", $3); print $3 }' |
	    sort >"$L/exported"
	nm "$P/lib/libgpufilt.a" | awk 'NF == 3 && $2 ~ /^[A-TV-Z]$/ { print $3 }' | sort >"$L/exported-a"
	why="declared vs sym: $(diff "$L/declared" "$L/want" | tr '\n' ' '); .so: $(diff "$L/exported" "$L/want" | tr '\n' ' '); .a: $(diff "$L/exported-a" "$L/want" | tr '\n' ' ')"
	check lib/exports eval '[ -s "$L/want" ] && cmp -s "$L/declared" "$L/want" && cmp -s "$L/exported" "$L/want" &&
	    cmp -s "$L/exported-a" "$L/want"'

	printf '#include <gpufilt.h>\nint main(void) { return GF_VERSION_NUMBER != 100; }\n' >"$L/h.c"
	why=$(cc -std=c99 -pedantic -Wall -Wextra -Werror -I"$P/include" -fsyntax-only "$L/h.c" 2>&1 | head -3)
	check lib/header-c99 cc -std=c99 -pedantic -Wall -Wextra -Werror -I"$P/include" -fsyntax-only "$L/h.c"
	if command -v c++ >/dev/null 2>&1; then
		why=$(c++ -x c++ -Wall -Wextra -Werror -I"$P/include" -fsyntax-only "$L/h.c" 2>&1 | head -3)
		check lib/header-c++ c++ -x c++ -Wall -Wextra -Werror -I"$P/include" -fsyntax-only "$L/h.c"
	else
		skip lib/header-c++ "no C++ compiler"
	fi

	if command -v mandoc >/dev/null 2>&1; then
		why=$(mandoc -T lint -W warning "$ROOT/man/gpufilt.3" 2>&1 | head -5)
		check lib/man-lint eval '[ -z "$(mandoc -T lint -W warning "$ROOT/man/gpufilt.3" 2>&1)" ]'
	else
		skip lib/man-lint "no mandoc"
	fi

	# find_package(gpufilt) (issue 44): the README's program built by CMake
	# against the prefix, on the shared library (found at run time through
	# CMake's build RPATH, no LD_LIBRARY_PATH) and the static one; their
	# outputs are the tool's.  A request for version 1 finds none.
	if ! command -v cmake >/dev/null 2>&1; then
		skip lib/cmake "cmake is not installed"
	else
		C=$L/cmake
		mkdir -p "$C"
		cp "$L/edges.c" "$C/"
		printf '%s\n' 'cmake_minimum_required(VERSION 3.10)' 'project(edges C)' \
		    'find_package(gpufilt ${WANT} REQUIRED)' 'add_executable(edges edges.c)' \
		    'target_link_libraries(edges gpufilt::gpufilt)' \
		    'add_executable(edges-static edges.c)' \
		    'target_link_libraries(edges-static gpufilt::static)' >"$C/CMakeLists.txt"
		# cc, as the pkg-config cases build it (the GPU machine's CC names a
		# gcc whose static libstdc++ cannot go into a PIE).
		(cmake -S "$C" -B "$C/build" -DWANT=0.1 -DCMAKE_PREFIX_PATH="$P" \
		    -DCMAKE_C_COMPILER=cc &&
		    cmake --build "$C/build") >"$C/log" 2>&1
		st=$?
		for exe in edges edges-static; do
			[ $st -ne 0 ] || LD_LIBRARY_PATH="$nocuda" "$C/build/$exe" \
			    "$SAMPLES/coins.pgm" "$C/$exe.png" >>"$C/log" 2>&1 || st=$?
		done
		why="exit $st: $(grep -i -m 3 -e error -e 'not found' "$C/log")"
		check lib/cmake eval '[ $st -eq 0 ] && cmp -s "$C/edges.png" "$L/tool.png" &&
		    cmp -s "$C/edges-static.png" "$L/tool.png" &&
		    readelf -d "$C/build/edges" | grep -q "NEEDED.*libgpufilt.so.0"'
		cmake -S "$C" -B "$C/build1" -DWANT=1 -DCMAKE_PREFIX_PATH="$P" >"$C/log1" 2>&1
		st=$?
		why="exit $st: $(tail -n 3 "$C/log1")"
		check lib/cmake-version eval '[ $st -ne 0 ] && grep -q "version: 0.1" "$C/log1"'
	fi

	# make uninstall takes the library back with the tools: the prefix is
	# left empty (t_habits checks the tools' files alone).
	(cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s uninstall \
	    PREFIX="$P" >"$L/uninstall.log" 2>&1)
	st=$?
	left=$(cd "$P" 2>/dev/null && find . -mindepth 1 | sort | tr '\n' ' ')
	why="exit $st, left: $left $(tail -n 3 "$L/uninstall.log")"
	check lib/uninstall eval '[ $st -eq 0 ] && [ -z "$left" ]'
fi
