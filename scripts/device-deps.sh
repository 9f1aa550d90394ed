#!/bin/sh
# Run from the project root on your own machine, after ../shared/device/
# fetch-deps.sh: adds to .deps/ the Debian packages beyond libnetpbm and
# stb that the GPU machine (Ubuntu, no -dev packages) lacks for this
# build: libjpeg-turbo, libpng, libtiff and libexif with what their
# pkg-config files require, and makes env.sh link against the carried
# libraries first (the machine's own libjpeg.so is libjpeg 8; ours and
# the carried libtiff are libjpeg 6.2, and mixing them fails at run time
# with "Wrong JPEG library version").  Then carry ".deps" and begin each
# device command with ". .deps/env.sh;".
set -e
[ -f .deps/env.sh ] || { echo "device-deps: run ../shared/device/fetch-deps.sh first" >&2; exit 1; }
cd .deps
for p in libjpeg62-turbo libjpeg62-turbo-dev libpng16-16 libpng-dev zlib1g-dev \
    libtiff6 libtiff-dev libexif12 libexif-dev libjbig0 libjbig-dev liblerc4 \
    liblerc-dev libdeflate0 libdeflate-dev libwebp7 libwebp-dev libwebpmux3 \
    libwebpdemux2 libzstd-dev liblzma-dev; do
	ls "${p}"_*.deb >/dev/null 2>&1 || apt-get download "$p" >/dev/null 2>&1 ||
	    echo "device-deps: could not download $p" >&2
done
grep -q '^export LDFLAGS=' env.sh || cat >>env.sh <<'END'
# Link against the carried libraries before any of the machine's own (its
# libjpeg.so is libjpeg 8, which the carried libtiff and our headers are not).
export LDFLAGS="-L/opt/deps/usr/lib/x86_64-linux-gnu"
END
ls -1
