# The Python package (python/, issue 44) as a user gets it: a wheel that
# pip builds from the repository, carrying libgpufilt, installed by pip
# into a fresh virtual environment (which sees the system's packages:
# the GPU machine's CuPy and PyTorch), then the package's tests
# (python/tests: NumPy arrays in, the tools' bytes out; the structs
# against gpufilt.h; CuPy and PyTorch device arrays, skipped without a
# GPU), each counted as a case.  pip fetches NumPy from PyPI where the
# system lacks it: without python3's venv, or without the network, the
# package is skipped, and counted, with the reason.  Sourced by
# tests/run.sh.

Y=$TMP/python
mkdir -p "$Y"
# Built with the GPU code the tree holds (build/gencode), by a make of
# its own (a parent make's jobserver is not ours to use).
pip_in() {
	(unset MAKEFLAGS MFLAGS MAKELEVEL; GENCODE=$(cat "$ROOT/build/gencode") \
	    "$Y/venv/bin/python" -m pip --disable-pip-version-check "$@") >"$Y/pip.log" 2>&1
}
# NumPy, and setuptools and wheel for the build, unless the system's
# serve; $GF_PYTHON_EXTRA adds packages (cupy-cuda13x, torch: the GPU
# tests), from PyPI or wherever pip is pointed (PIP_FIND_LINKS).
python_deps() {
	# setuptools 70.1 and later build wheels without the wheel package.
	if [ -z "${GF_PYTHON_EXTRA:-}" ] &&
	    "$Y/venv/bin/python" -c 'import numpy, setuptools, sys
v = tuple(int(x) for x in setuptools.__version__.split(".")[:2])
try:
    import wheel
except ImportError:
    sys.exit(v < (70, 1))' 2>/dev/null; then
		return 0
	fi
	pip_in install -q numpy setuptools wheel ${GF_PYTHON_EXTRA:-}
}
# A python3 that is itself a virtual environment (the GPU machine's holds
# NumPy, CuPy and PyTorch) lends its packages to the test's venv too:
# --system-site-packages reaches only the base interpreter's.
python_inherit() {
	python3 -c 'import site; print("\n".join(site.getsitepackages()))' \
	    >"$Y/outer.pth" 2>/dev/null || return 1
	for d in "$Y"/venv/lib/python*/site-packages; do
		cp "$Y/outer.pth" "$d/zz-outer.pth" || return 1
	done
}
if [ "$BUILD" != build ]; then
	skip python "not the normal build"
elif ! command -v python3 >/dev/null 2>&1; then
	skip python "python3 is not installed"
elif ! python3 -m venv --system-site-packages "$Y/venv" >"$Y/venv.log" 2>&1; then
	skip python "python3 -m venv failed (python3-venv missing?): $(tail -n 1 "$Y/venv.log")"
elif ! python_inherit; then
	skip python "cannot see python3's own packages from the test's venv"
elif ! python_deps; then
	skip python "pip could not install numpy (no network?): $(tail -n 1 "$Y/pip.log")"
else
	# pip builds the wheel from the repository (what pip install ./python
	# does first), then installs it.
	pip_in wheel --no-deps --no-build-isolation -w "$Y/wheel" "$ROOT/python"
	st=$?
	whl=$(ls "$Y"/wheel/gpufilt-*-linux_*.whl 2>/dev/null)
	files=$(cd "$Y" && "$Y/venv/bin/python" -m zipfile -l "$whl" 2>&1)
	why="exit $st: $(tail -n 3 "$Y/pip.log"); wheel ${whl:-none}: $files"
	check python/wheel eval '[ $st -eq 0 ] && [ -n "$whl" ] &&
	    echo "$files" | grep -q "^gpufilt/libgpufilt.so.0 " &&
	    echo "$files" | grep -q "^gpufilt/__init__.py "'

	[ -n "$whl" ] && pip_in install --no-deps "$whl"
	st=$?
	where=$(cd "$Y" && "$Y/venv/bin/python" -c 'import gpufilt, gpufilt._capi as c
print(gpufilt.__file__, c._library_path(), gpufilt.__version__)' 2>&1)
	why="exit $st: $(tail -n 3 "$Y/pip.log"); $where"
	check python/pip-install eval '[ $st -eq 0 ] && case "$where" in
	    "$Y/venv/"*"/gpufilt/__init__.py $Y/venv/"*"/gpufilt/libgpufilt.so.0 0.1") true ;;
	    *) false ;; esac'

	# The tests, from outside the tree: the installed package runs them.
	printf '#!/bin/sh\ncd "%s" && GPUFILT_TOOLS="%s" GPUFILT_SAMPLES="%s" GPUFILT_INCLUDE="%s" exec "%s" "%s"\n' \
	    "$Y" "$BIN" "$SAMPLES" "$ROOT/lib/api" "$Y/venv/bin/python" "$ROOT/python/tests/run.py" \
	    >"$Y/python"
	chmod +x "$Y/python"
	# Python, NumPy, CuPy and PyTorch start in seconds each, and the GPU
	# machine runs the suites side by side: more than a C test's minute.
	LIMIT_S=300 run_unit "$Y/python"
fi
