#!/bin/sh
# make demo: runs the tools on bundled photographs, writes PNGs (what
# any viewer opens) into build/demo/, and one picture, overview.png,
# that puts each input beside its outputs; says where they are and
# whether they ran on the GPU or the CPU.
cd "$(dirname "$0")/.." || exit 1
d=build/demo
mkdir -p "$d"
if build/tests/gpu_probe >/dev/null 2>&1; then
	where="on the GPU ($(build/tests/gpu_probe))"
else
	where="on the CPU (no usable GPU here)"
fi
bin/sobel -q -t 60 samples/chelsea.png "$d/chelsea-edges.png" || exit 1
bin/conv2d -q -k gauss:1.4 samples/coins.pgm - |
    bin/sobel -q - "$d/coins-gradient.png" || exit 1
bin/edge -q samples/retina1023x517.pgm "$d/retina-canny-auto.png" || exit 1
bin/edge -q --high q0.9 samples/retina1023x517.pgm "$d/retina-canny-q0.9.png" || exit 1
echo "demo: ran $where"
echo "demo: sobel -t 60 samples/chelsea.png -> $d/chelsea-edges.png"
echo "demo: conv2d -k gauss:1.4 samples/coins.pgm | sobel -> $d/coins-gradient.png"
echo "demo: edge samples/retina1023x517.pgm -> $d/retina-canny-auto.png (Otsu)"
echo "demo: edge --high q0.9 samples/retina1023x517.pgm -> $d/retina-canny-q0.9.png"
# The overview: each input (as PNM, through conv2d's identity) beside
# its outputs, one row each.
command -v python3 >/dev/null 2>&1 || {
	echo "demo: python3 is not installed: no $d/overview.png"
	exit 0
}
for f in samples/chelsea.png samples/coins.pgm samples/retina1023x517.pgm \
    "$d/chelsea-edges.png" "$d/coins-gradient.png" "$d/retina-canny-auto.png" \
    "$d/retina-canny-q0.9.png"; do
	b=$(basename "$f")
	bin/conv2d -q -k identity "$f" "$d/.$b.pnm" || exit 1
done
python3 scripts/montage.py "$d/.overview.pgm" \
    "$d/.chelsea.png.pnm" "$d/.chelsea-edges.png.pnm" / \
    "$d/.coins.pgm.pnm" "$d/.coins-gradient.png.pnm" / \
    "$d/.retina1023x517.pgm.pnm" "$d/.retina-canny-auto.png.pnm" \
    "$d/.retina-canny-q0.9.png.pnm" &&
    bin/conv2d -q -k identity "$d/.overview.pgm" "$d/overview.png" || exit 1
rm -f "$d"/.*.pnm "$d/.overview.pgm"
echo "demo: each input beside its outputs -> $d/overview.png"
