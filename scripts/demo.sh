#!/bin/sh
# make demo: runs sobel on a bundled photograph and says where the result
# is, and whether it ran on the GPU or the CPU.
cd "$(dirname "$0")/.." || exit 1
mkdir -p build/demo
out=build/demo/chelsea-edges.png
if build/tests/gpu_probe >/dev/null 2>&1; then
	where="on the GPU ($(build/tests/gpu_probe))"
else
	where="on the CPU (no usable GPU here)"
fi
bin/sobel -q -t 60 samples/chelsea.png "$out" || exit 1
bin/conv2d -q -k gauss:1.4 samples/coins.pgm - | bin/sobel -q > build/demo/coins-gradient.pgm || exit 1
bin/edge -q samples/retina1023x517.pgm build/demo/retina-canny.pgm || exit 1
echo "demo: ran $where"
echo "demo: sobel -t 60 samples/chelsea.png -> $out"
echo "demo: conv2d -k gauss:1.4 samples/coins.pgm | sobel -> build/demo/coins-gradient.pgm"
echo "demo: edge samples/retina1023x517.pgm -> build/demo/retina-canny.pgm"
