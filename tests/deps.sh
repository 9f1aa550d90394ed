#!/bin/sh
# Installs the Debian packages that the build and the tests need, when they
# are missing: libnetpbm-dev, libstb-dev, libjpeg62-turbo-dev and libpng-dev
# (through pkg-config), mandoc (man page lint).  make test-asan and make
# fuzz also need clang and libclang-rt-14-dev, which make deps does not
# install: .ci/run does.  apt-get as root, through sudo otherwise.  A missing build
# dependency that cannot be installed is an error; a missing mandoc only
# means the lint test is skipped.
need=
pkg-config --version >/dev/null 2>&1 || need="$need pkg-config"
pkg-config --exists netpbm 2>/dev/null || need="$need libnetpbm-dev"
pkg-config --exists stb 2>/dev/null || need="$need libstb-dev"
pkg-config --exists libjpeg 2>/dev/null || need="$need libjpeg62-turbo-dev"
pkg-config --exists libpng 2>/dev/null || need="$need libpng-dev"
command -v mandoc >/dev/null 2>&1 || need="$need mandoc"
[ -n "$need" ] || exit 0

if [ "$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi
echo "deps: installing$need" >&2
if ! { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends $need; } >/dev/null 2>&1; then
	echo "deps: could not install$need with apt-get" >&2
fi
if ! pkg-config --exists netpbm stb libjpeg libpng 2>/dev/null; then
	echo "deps: libnetpbm-dev, libstb-dev, libjpeg62-turbo-dev and libpng-dev are" \
	    "needed to build (pkg-config netpbm stb libjpeg libpng)" >&2
	exit 1
fi
exit 0
