# The golden cases of edge: samples and option sets, shared by
# tests/t_edge.sh and tests/golden/edge/make.sh.

EDGE_SAMPLES="coins.pgm chelsea.png astro16.pgm retina1023x517.pgm px1x1.pgm
px2x3.pgm px1x700.pgm px700x1.pgm small.jpg"

# name|options for 8-bit samples|options for the 16-bit sample
edge_configs() {
	cat <<'END'
default||
s0|--sigma 0 --low 40 --high 100|--sigma 0 --low 10280 --high 25700
s0auto|--sigma 0 --auto|--sigma 0 --auto
l1|--l1 --sigma 1 --low 50 --high 120|--l1 --sigma 1 --low 12850 --high 30840
high|--sigma 2.5 --high 30|--sigma 2.5 --high 7710
reflect|--border reflect --sigma 0 --low 30 --high 90|--border reflect --sigma 0 --low 7710 --high 23130
zero|--border zero --sigma 1 --low 30 --high 90|--border zero --sigma 1 --low 7710 --high 23130
chan|--colour channels --sigma 0 --low 40 --high 100|--colour channels --sigma 0 --low 10280 --high 25700
chanauto|--colour channels|--colour channels
max|--colour max --sigma 0 --low 40 --high 100|--colour max --sigma 0 --low 10280 --high 25700
maxauto|--colour max|--colour max
END
}

# The extension of sample $1's output under option set $2: PPM for the
# colour samples detected channel by channel, else PGM.
edge_ext() {
	case $2:$1 in chan*:chelsea*|chan*:small*) echo ppm ;; *) echo pgm ;; esac
}

# The option sets that scripts/gpu.sh runs under compute-sanitizer on
# every GPU strategy: each kernel path of edge once.
edge_sanitize() {
	cat <<'END'

--auto --sigma 0
--colour channels --sigma 0 --high q0.9
--colour max --high 30%
END
}
