# The golden runner of t_sobel.sh, t_edge.sh and t_conv2d.sh: every
# strategy of a tool over its case table (tests/cases_TOOL.sh: the
# samples TOOL_SAMPLES and the option sets TOOL_configs, rows of
# name|options, or name|options for 8-bit|options for 16-bit samples),
# each output compared with its golden file byte for byte.  A case table
# may give TOOL_ext SAMPLE CONFIG, the extension of that sample's output
# under that option set (else pgm).  Sourced by those scripts after their case table.

golden_base() { n=${1##*/}; echo "${n%.*}"; }

# Strategy $2 of tool $1 over every sample, one batch per option set (two
# where the 16-bit sample's options differ), into
# $TMP/golden-TOOL-M.log as tally reads it.
golden_one() {
	tool=$1 m=$2 s8= s16=
	eval "samples=\$$(echo "$tool" | tr 'a-z0-9' 'A-Z0-9')_SAMPLES"
	for s in $samples; do
		case $s in astro16*) s16="$s16 $SAMPLES/$s" ;; *) s8="$s8 $SAMPLES/$s" ;; esac
	done
	"${tool}_configs" | while IFS= read -r row; do
		cfg=${row%%|*} opt8=${row#*|}
		case $opt8 in
		*'|'*) opt16=${opt8#*|} opt8=${opt8%%|*} ;;
		*) opt16=$opt8 ;;
		esac
		d=$TMP/$tool-$m-$cfg
		mkdir -p "$d"
		# (one batch where the options are the same: on a GPU each
		# process waits its turn for a context)
		if [ "$opt16" = "$opt8" ]; then
			# shellcheck disable=SC2086
			limited "$BIN/$tool" -q -m "$m" $opt8 -o "$d" $s8 $s16 \
			    2>"$d.err" || echo "run $cfg: $(head -c 300 "$d.err")"
		else
			# shellcheck disable=SC2086
			[ -z "$s8" ] || limited "$BIN/$tool" -q -m "$m" $opt8 -o "$d" $s8 \
			    2>"$d.err" || echo "run $cfg, 8-bit: $(head -c 300 "$d.err")"
			# shellcheck disable=SC2086
			[ -z "$s16" ] || limited "$BIN/$tool" -q -m "$m" $opt16 -o "$d" $s16 \
			    2>"$d.err" || echo "run $cfg, 16-bit: $(head -c 300 "$d.err")"
		fi
		for s in $samples; do
			n=$(golden_base "$s") e=pgm
			! command -v "${tool}_ext" >/dev/null || e=$("${tool}_ext" "$s" "$cfg")
			if cmp -s "$d/$n.$e" "$GOLDEN/$tool/$n.$cfg.$e"; then
				echo "ok $n.$cfg"
			else
				echo "bad $n.$cfg"
			fi
		done
	done >"$TMP/golden-$tool-$m.log"
}

# Every strategy of tool $1 side by side (on a GPU, most of a small run is
# opening the GPU, or two with --device all), then their counts; GPU
# strategies skip without a GPU.
golden_all() {
	for gm in $(strategies "$1"); do
		if [ "$gm" = cpu ] || [ "$gm" = auto ] || have_gpu; then
			golden_one "$1" "$gm" &
		fi
	done
	wait
	for gm in $(strategies "$1"); do
		if [ "$gm" = cpu ] || [ "$gm" = auto ] || have_gpu; then
			tally "$1/golden/$gm" "$TMP/golden-$1-$gm.log" \
			    "differs from $GOLDEN/$1"
		else
			skip "$1/golden/$gm" "no GPU"
		fi
	done
}
