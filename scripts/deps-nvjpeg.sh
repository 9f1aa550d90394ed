#!/bin/sh
# nvJPEG's header (nvjpeg.h), for machines whose CUDA toolkit lacks it
# (CI's): the GPU decode stage (lib/io/jpeg_gpu.c) is then compiled
# everywhere, and loads libnvjpeg at run time where it exists.  The
# toolkit's own header comes first; else NVIDIA's nvidia-nvjpeg wheel
# from PyPI, pinned, is downloaded and only its include/nvjpeg.h is kept,
# in .deps-extra/nvjpeg/ (ignored by git).  Needs python3 and pip.  When
# it cannot be had, the build goes on without the GPU decode stage and
# this says so; it never fails the build.
#
# Usage: sh scripts/deps-nvjpeg.sh [CUDA]     (CUDA: the toolkit, /usr/local/cuda)
CUDA=${1:-/usr/local/cuda}
VERSION=13.0.2.28
DIR=.deps-extra/nvjpeg
[ -f "$CUDA/include/nvjpeg.h" ] && exit 0
[ -f "$DIR/include/nvjpeg.h" ] && grep -q "NVJPEG_VER_BUILD" "$DIR/include/nvjpeg.h" && exit 0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvjpeg.XXXXXX") || exit 0
trap 'rm -rf "$tmp"' EXIT
if python3 -m pip download --quiet --no-deps --disable-pip-version-check \
    --only-binary=:all: --platform manylinux2014_x86_64 --python-version 3 \
    -d "$tmp" "nvidia-nvjpeg==$VERSION" >"$tmp/log" 2>&1 &&
    mkdir -p "$DIR/include" &&
    python3 - "$tmp" "$DIR/include/nvjpeg.h" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/nvidia_nvjpeg-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    name = [n for n in z.namelist() if n.endswith("/include/nvjpeg.h")][0]
    data = z.read(name)
with open(sys.argv[2] + ".tmp", "wb") as f:
    f.write(data)
PY
then
	mv "$DIR/include/nvjpeg.h.tmp" "$DIR/include/nvjpeg.h"
	echo "deps: nvjpeg.h $VERSION from PyPI's nvidia-nvjpeg in $DIR" >&2
else
	rm -f "$DIR/include/nvjpeg.h.tmp"
	echo "deps: no nvjpeg.h (not in $CUDA/include, and nvidia-nvjpeg==$VERSION" \
	    "could not be downloaded): building without the GPU JPEG decoder" >&2
fi
exit 0
