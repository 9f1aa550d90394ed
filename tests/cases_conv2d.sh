# The golden cases of conv2d: samples and option sets, shared by
# tests/t_conv2d.sh and tests/golden/conv2d/make.sh.  Options are split
# on blanks, so kernels are written with commas.

CONV2D_SAMPLES="coins.pgm chelsea.png astro16.pgm retina1023x517.pgm px1x1.pgm
px2x3.pgm px1x700.pgm px700x1.pgm"

# The extension of a sample's output: conv2d keeps colour.
conv2d_ext() { case $1 in chelsea*) echo ppm ;; *) echo pgm ;; esac; }

# name|options: integer separable (box, gauss), real separable and 2D, clamping, even
# sizes, every border, a 9x9 and a 25x25 kernel, int64 sums on 16 bit,
# --abs on separable, 2D and real kernels.
conv2d_configs() {
	cat <<'END'
blur3|-k 1,2,1;2,4,2;1,2,1 --normalize
box5zero|-k box:5 --border zero
gauss14|-k gauss:1.4
gauss14-2d|-k gauss:1.4 --no-separable
sharpen|-k sharpen
even-wrap|-k 1,2;3,4 --divisor 10 --border wrap
k9wrap|-k @tests/kernels/nonsep9x9.txt --divisor 4 --bias 128 --border wrap
real3reflect|-k 0.1,0.2,0.1;0.2,-0.5,0.3;0,0.25,0.1 --bias 20 --border reflect
wide7zero|-k @tests/kernels/wide7x7.txt --divisor 1000000 --border zero
gauss4reflect|-k gauss:4 --border reflect
realsep5|-k 0.01,0.02,0.04,0.02,0.01;0.02,0.04,0.08,0.04,0.02;0.04,0.08,0.16,0.08,0.04;0.02,0.04,0.08,0.04,0.02;0.01,0.02,0.04,0.02,0.01 --bias 1
sobelx-abs|-k sobelx --abs
laplace-abs|-k laplace --abs --divisor 3 --border reflect
real-abs|-k 0.5,-1,0;-1,0.25,1;0,1,-0.5 --abs --bias 3 --border zero
END
}

# The option sets that scripts/gpu.sh runs under compute-sanitizer on
# every GPU strategy: each kernel path of conv2d once.
conv2d_sanitize() {
	cat <<'END'
-k gauss:1.4
-k gauss:1.4 --no-separable --border wrap
-k '1 2 1; 2 4 2; 1 2 1' --border zero
-k box:5 --no-separable
END
}
