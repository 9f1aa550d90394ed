# The golden cases of sobel and edge --colour max on inputs of their own
# (tests/golden/max/, made by make_inputs.py there): 16-bit RGB, 8-bit
# RGBA whose R and G tie, 16-bit RGBA.  Shared by tests/t_colour_max.sh
# and tests/golden/max/make.sh.  The samples' --colour max cases are in
# cases_sobel.sh and cases_edge.sh.

MAX_INPUTS="rgb16.ppm rgba8.pam rgba16.pam"

# Whether input $1 is 16-bit (its name says so).
max_wide() { case $1 in *16*) return 0 ;; *) return 1 ;; esac; }

# tool|name|options for 8-bit inputs|options for 16-bit inputs
max_configs() {
	cat <<'END'
sobel|mag|--colour max|--colour max
sobel|auto|--colour max -t auto|--colour max -t auto
sobel|l1thr|--colour max --norm l1 -t 120 --border zero|--colour max --norm l1 -t 30840 --border zero
sobel|s5|--colour max --operator sobel5 --border reflect|--colour max --operator sobel5 --border reflect
sobel|s7thr|--colour max --operator sobel7 -t 9000.5 --border wrap|--colour max --operator sobel7 -t 2313128.5 --border wrap
sobel|prewittl1|--colour max --operator prewitt --norm l1|--colour max --operator prewitt --norm l1
sobel|dir|--colour max --gradient direction|--colour max --gradient direction
sobel|dir7|--colour max --gradient direction --operator sobel7 --border reflect|--colour max --gradient direction --operator sobel7 --border reflect
edge|s0|--colour max --sigma 0 --low 40 --high 100|--colour max --sigma 0 --low 10280 --high 25700
edge|auto|--colour max|--colour max
edge|s0auto|--colour max --sigma 0 --auto|--colour max --sigma 0 --auto
edge|l1|--colour max --l1 --sigma 1 --low 50 --high 120 --border zero|--colour max --l1 --sigma 1 --low 12850 --high 30840 --border zero
edge|pct|--colour max --sigma 0 --high 30%|--colour max --sigma 0 --high 30%
edge|q|--colour max --sigma 0 --low q0.7 --high q0.9 --border reflect|--colour max --sigma 0 --low q0.7 --high q0.9 --border reflect
END
}
