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
prewitt|--operator prewitt|--operator prewitt
scharr|--operator scharr|--operator scharr
sobel5|--operator sobel5|--operator sobel5
sobel7|--operator sobel7|--operator sobel7
scharrl1z|--operator scharr --norm l1 --border zero|--operator scharr --norm l1 --border zero
sobel5thr|--operator sobel5 -t 600 --border reflect|--operator sobel5 -t 154200 --border reflect
sobel7thr|--operator sobel7 -t 9000.5 --border wrap|--operator sobel7 -t 2313128.5 --border wrap
sobel7l1|--operator sobel7 --norm l1 -t 12000 --border zero|--operator sobel7 --norm l1 -t 3084000 --border zero
chan|--colour channels|--colour channels
chanauto|--colour channels -t auto --border reflect|--colour channels -t auto --border reflect
dir|--gradient direction|--gradient direction
dir7|--gradient direction --operator sobel7 --border reflect|--gradient direction --operator sobel7 --border reflect
max|--colour max|--colour max
maxauto|--colour max -t auto --border reflect|--colour max -t auto --border reflect
maxsch|--colour max --operator scharr --norm l1 -t 200|--colour max --operator scharr --norm l1 -t 51400
maxdir|--colour max --gradient direction|--colour max --gradient direction
gx|--gradient x|--gradient x
gy|--gradient y|--gradient y
gxzero|--gradient x --border zero|--gradient x --border zero
gyreflect|--gradient y --border reflect|--gradient y --border reflect
gxwrap|--gradient x --border wrap|--gradient x --border wrap
gxprewitt|--gradient x --operator prewitt|--gradient x --operator prewitt
gyscharr|--gradient y --operator scharr --border zero|--gradient y --operator scharr --border zero
gxsobel5|--gradient x --operator sobel5 --border reflect|--gradient x --operator sobel5 --border reflect
gysobel7|--gradient y --operator sobel7 --border wrap|--gradient y --operator sobel7 --border wrap
mag16|--depth 16|--depth 16
mag16l1|--depth 16 --norm l1 --border reflect|--depth 16 --norm l1 --border reflect
mag16scharr|--depth 16 --operator scharr --border zero|--depth 16 --operator scharr --border zero
mag16s7|--depth 16 --operator sobel7 --border wrap|--depth 16 --operator sobel7 --border wrap
END
}

# The extension of sample $1's output under option set $2: PPM for the
# colour samples filtered channel by channel, else PGM.
sobel_ext() {
	case $2:$1 in chan*:chelsea*|chan*:small*) echo ppm ;; *) echo pgm ;; esac
}


# The option sets that scripts/gpu.sh runs under compute-sanitizer on
# every GPU strategy: each kernel path of sobel once.
sobel_sanitize() {
	cat <<'END'

-t 60 --border zero
--norm l1 --border reflect
--operator scharr --border zero
--operator sobel5 -t 600 --border reflect
--operator sobel7 --norm l1
--colour channels -t auto
--gradient direction --border wrap
--colour max --operator sobel5 -t 600
--gradient x --operator sobel7 --border reflect
--gradient y --border zero
--depth 16 --operator sobel5 --border wrap
END
}
