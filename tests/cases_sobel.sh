# The golden cases of sobel: samples and option sets, shared by
# tests/t_sobel.sh and tests/golden/make.sh.

SOBEL_SAMPLES="coins.pgm chelsea.png astro16.pgm retina1023x517.pgm px1x1.pgm
px2x3.pgm px1x700.pgm px700x1.pgm small.jpg"

# name|options for 8-bit samples|options for the 16-bit sample
sobel_configs() {
	cat <<'END'
mag||
thr|-t 90|-t 23130
thrfrac|-t 60.5|-t 15548.5
l1|--norm l1|--norm l1
l1thr|--norm l1 -t 120|--norm l1 -t 30840
zero|--border zero|--border zero
reflect|--border reflect|--border reflect
wrap|--border wrap|--border wrap
auto|-t auto|-t auto
l1auto|--norm l1 -t auto --border reflect|--norm l1 -t auto --border reflect
END
}


# The option sets that scripts/gpu.sh runs under compute-sanitizer on
# every GPU strategy: each kernel path of sobel once.
sobel_sanitize() {
	cat <<'END'

-t 60 --border zero
--norm l1 --border reflect
END
}
