#!/bin/sh
# Installs the Debian packages that the build and the tests need, when they
# are missing: libnetpbm-dev, libstb-dev, libjpeg62-turbo-dev, libpng-dev,
# libdeflate-dev, libtiff-dev, libexif-dev and libwebp-dev (through
# pkg-config), mandoc (man page lint
# and examples), netpbm (the pngtopam | ppmtopgm examples), libjpeg-turbo-progs
# (djpeg: the gray a JPEG's luma is checked against where OpenCV is not
# installed), parallel (GNU parallel: the test that a batch spread over
# processes writes one process's files).  make test-asan and make
# fuzz also need clang and libclang-rt-14-dev, which make deps does not
# install: .ci/run does.  Does nothing, and needs no root, when all are there; else
# says what it will install, then runs apt-get as root or through sudo
# (only where sudo needs no password: otherwise it says the command to
# run).  A missing build dependency that cannot be installed is an error;
# a missing mandoc, netpbm, djpeg or parallel only means the tests that use it are skipped.
#
# With --check (make test, make demo) it installs nothing and never asks
# for root: it names what is missing and that make deps installs it, and
# fails only when a build dependency is missing.
check=; [ "$1" = --check ] && check=1
need=
pkg-config --version >/dev/null 2>&1 || need="$need pkg-config"
pkg-config --exists netpbm 2>/dev/null || need="$need libnetpbm-dev"
pkg-config --exists stb 2>/dev/null || need="$need libstb-dev"
pkg-config --exists libjpeg 2>/dev/null || need="$need libjpeg62-turbo-dev"
pkg-config --exists libpng 2>/dev/null || need="$need libpng-dev"
pkg-config --exists libdeflate 2>/dev/null || need="$need libdeflate-dev"
pkg-config --exists libtiff-4 2>/dev/null || need="$need libtiff-dev"
pkg-config --exists libexif 2>/dev/null || need="$need libexif-dev"
pkg-config --exists libwebp libwebpdemux libwebpmux 2>/dev/null ||
    need="$need libwebp-dev"
command -v mandoc >/dev/null 2>&1 || need="$need mandoc"
command -v pngtopam >/dev/null 2>&1 || need="$need netpbm"
command -v djpeg >/dev/null 2>&1 || need="$need libjpeg-turbo-progs"
command -v parallel >/dev/null 2>&1 || need="$need parallel"
[ -n "$need" ] || exit 0

if [ -n "$check" ]; then
	echo "deps: missing$need (make deps installs them)" >&2
	sudo=no
elif [ "$(id -u)" = 0 ]; then
	sudo=
elif sudo -n true 2>/dev/null; then
	sudo=sudo
else
	sudo=no
	echo "deps: missing$need; install with: sudo apt-get install$need" >&2
fi
if [ "$sudo" != no ]; then
	echo "deps: installing$need" >&2
	if ! { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive \
	    apt-get install -y -qq --no-install-recommends $need; } >/dev/null 2>&1; then
		echo "deps: could not install$need with apt-get" >&2
	fi
fi
if ! pkg-config --exists netpbm stb libjpeg libpng libdeflate libtiff-4 \
    libexif libwebp libwebpdemux libwebpmux 2>/dev/null; then
	echo "deps: libnetpbm-dev, libstb-dev, libjpeg62-turbo-dev, libpng-dev," \
	    "libdeflate-dev, libtiff-dev, libexif-dev and libwebp-dev are needed" \
	    "to build (pkg-config netpbm stb libjpeg libpng libdeflate libtiff-4" \
	    "libexif libwebp libwebpdemux libwebpmux)" >&2
	exit 1
fi
exit 0
