#!/bin/sh
# Builds edge's, conv2d's, sobel's operators', its wider outputs' and --colour max's kernels for the CPU
# emulation (emu.h) and runs edge_emu, conv2d_emu and sobel_emu on the samples: a logic check of the GPU
# stages where no GPU is at hand.  From the project root, after make (for build/libgpufilt.a):
#   sh tests/emu/run.sh [IMAGE ...]
set -e
B=build/emu
mkdir -p $B
for f in edge_nms edge_hyst otsu conv2d conv2d_fast8 conv2d_sep sobel_op sobel_wide grad_max edge_max; do
	python3 tests/emu/rewrite.py kernels/$f.cu >$B/$f.cc
done
CXX=${CXX:-g++}
# Every folder of lib/ that holds a header, as the Makefile's LIB_INC.
INC=$(find lib -name '*.h' | sed 's#/[^/]*$##' | sort -u | sed 's/^/-I/' | tr '\n' ' ')
FLAGS="-std=c++20 -O2 -g -pthread -Ikernels $INC-Itests/emu -I/usr/local/cuda/include ${EMUFLAGS:-}"
# The compiles run together; each one's status is waited for (a bare
# wait returns 0), so that a file that no longer compiles stops the run
# instead of leaving its stale object from an earlier run to be linked.
rm -f $B/*.o
pids=
for f in edge_nms edge_hyst otsu conv2d conv2d_fast8 conv2d_sep sobel_op sobel_wide grad_max edge_max; do
	$CXX $FLAGS -w -c -o $B/$f.o $B/$f.cc & pids="$pids $!"
done
$CXX $FLAGS -c -o $B/emu.o tests/emu/emu.cc & pids="$pids $!"
$CXX $FLAGS -c -o $B/edge_emu.o tests/emu/edge_emu.cc & pids="$pids $!"
$CXX $FLAGS -c -o $B/conv2d_emu.o tests/emu/conv2d_emu.cc & pids="$pids $!"
$CXX $FLAGS -c -o $B/sobel_emu.o tests/emu/sobel_emu.cc & pids="$pids $!"
$CXX $FLAGS -c -o $B/max_emu.o tests/emu/max_emu.cc & pids="$pids $!"
for p in $pids; do wait $p; done
# The libraries of the Makefile's PKGS (libgpufilt.a reads WebP too).
LIBS="build/libgpufilt.a $(pkg-config --libs netpbm stb libpng libdeflate libjpeg libtiff-4 libexif libwebp libwebpdemux 2>/dev/null) -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lm"
$CXX $FLAGS -o $B/conv2d_emu $B/conv2d_emu.o $B/conv2d.o $B/conv2d_fast8.o \
    $B/conv2d_sep.o $B/emu.o $LIBS
$CXX $FLAGS -o $B/sobel_emu $B/sobel_emu.o $B/sobel_op.o $B/sobel_wide.o $B/emu.o $LIBS
$CXX $FLAGS -o $B/max_emu $B/max_emu.o $B/grad_max.o $B/edge_max.o $B/emu.o $LIBS
$CXX $FLAGS -o $B/edge_emu $B/edge_emu.o $B/edge_nms.o $B/edge_hyst.o $B/otsu.o \
    $B/emu.o $LIBS
# sobel and edge --colour max's kernels on images of their own (16-bit
# RGB and RGBA, tied channels) and the colour samples.
$B/max_emu samples/chelsea.png samples/px2x3.pgm
# Besides the samples, a noisy frame (bench/framegen): a third of its
# pixels are local maxima of the gradient, and with --auto's thresholds
# (low 10.5 at sigma 0) nearly all of them are candidates, which works
# hysteresis's union-find hard.
${CC:-cc} -O2 -o $B/framegen bench/framegen.c
$B/framegen 1 700 500 >$B/noise.pgm
[ $# -gt 0 ] || set -- samples/retina1023x517.pgm samples/coins.pgm samples/astro16.pgm \
    samples/px2x3.pgm samples/px1x700.pgm samples/px700x1.pgm $B/noise.pgm
$B/edge_emu "$@"
# Integer kernels whose taps fit a byte take dp4a; GPUFILT_DP4A=0, float.
$B/conv2d_emu "$@"
GPUFILT_DP4A=0 $B/conv2d_emu "$@"
# sobel's operators on every image but the large ones (a 7x7 window a
# pixel, every border and mode: a minute each at the emulator's pace).
for f in "$@"; do
	case $f in *retina1023x517*|*coins*|*noise*) ;; *) $B/sobel_emu "$f" ;; esac
done
