# The formats and habits users bring from ImageMagick, libvips and OpenCV
# (issue 13): -o DIR made as mkdir -p makes it, output names that say
# what is written, JPEG out, -q over -v, and the no-GPU notice.  Sourced
# by tests/run.sh.

F=$TMP/formats
mkdir -p "$F"
FPX=$SAMPLES/px2x3.pgm
FPXMAG=$GOLDEN/sobel/px2x3.mag.pgm

# ---- -o DIR that does not exist is made, parents too, mode 0777 & ~umask.
rm -rf "$F/made"
(umask 022 && "$BIN/sobel" -q --cpu -o "$F/made/a/b" "$FPX") 2>"$F/err"
st=$?
why="exit $st: $(cat "$F/err")"
check formats/outdir-made eval '[ $st -eq 0 ] && cmp -s "$F/made/a/b/px2x3.pgm" "$FPXMAG" &&
    [ "$(stat -c %a "$F/made/a/b")" = 755 ]'

# A path through a file cannot be made: exit 1, the directory and why.
: >"$F/plain"
"$BIN/sobel" -q --cpu -o "$F/plain/sub" "$FPX" 2>"$F/err"
st=$?
why="exit $st: $(cat "$F/err")"
check formats/outdir-cannot-make eval '[ $st -eq 1 ] && grep -q "^sobel: -o $F/plain/sub: cannot create the directory $F/plain: Not a directory$" "$F/err"'

# An existing file is still a usage error, and nothing is made for a
# batch refused before it runs.
"$BIN/sobel" -q --cpu -o "$F/plain" "$FPX" 2>"$F/err"
st=$?
why="exit $st: $(cat "$F/err")"
check formats/outdir-file eval '[ $st -eq 2 ] && grep -q "it is not a directory" "$F/err"'
"$BIN/sobel" -q --cpu -o "$F/refused" "$FPX" "$FPX" 2>"$F/err"
st=$?
why="exit $st: $(cat "$F/err")"
check formats/outdir-refused-not-made eval '[ $st -eq 2 ] && [ ! -e "$F/refused" ]'

# ---- every output name we accept gets its own format; others are refused.

# The first bytes of file $1, in hex.
magic() { od -A n -t x1 -N 3 "$1" | tr -d ' \n'; }

for pair in out.jpg:ffd8ff out.JPEG:ffd8ff out.png:89504e out.pgm:50350a \
    out.pnm:50350a out.ppm:50360a out.pam:50370a out:50350a out.tif:49492a out.TIFF:49492a \
    out.webp:524946; do
	oname=${pair%%:*} want=${pair#*:}
	rm -f "$F/$oname"
	"$BIN/sobel" -q --cpu "$SAMPLES/coins.pgm" "$F/$oname" 2>"$F/err"
	st=$?
	why="exit $st, bytes $(magic "$F/$oname" 2>/dev/null): $(cat "$F/err")"
	check formats/"ext/$oname" eval '[ $st -eq 0 ] && [ "$(magic "$F/$oname")" = $want ]'
done

for oname in out.gif out.bmp; do
	rm -f "$F/$oname"
	"$BIN/sobel" -q --cpu "$SAMPLES/coins.pgm" "$F/$oname" 2>"$F/err"
	st=$?
	why="exit $st: $(cat "$F/err")"
	check formats/"ext-refused/$oname" eval '[ $st -eq 2 ] && [ ! -e "$F/$oname" ] &&
	    head -n 1 "$F/err" | grep -q "^sobel: $F/$oname: cannot write \.${oname#out.} files; .*\.png, \.jpg, \.jpeg (JPEG) or \.tif, \.tiff (TIFF)"'
done

# -f names the format whatever the name says; jpg is jpeg.
"$BIN/sobel" -q --cpu -f jpg "$SAMPLES/coins.pgm" >"$F/stdout.jpg" 2>"$F/err"
why="$(magic "$F/stdout.jpg"): $(cat "$F/err")"
check formats/f-jpg-stdout eval '[ "$(magic "$F/stdout.jpg")" = ffd8ff ]'
"$BIN/sobel" -q --cpu -f png "$SAMPLES/coins.pgm" "$F/forced.out" 2>"$F/err"
why="$(cat "$F/err")"
check formats/f-png-any-name eval '[ "$(magic "$F/forced.out")" = 89504e ]'
# ... but not a name that says another format: -f png into x.tif is a
# usage error and writes nothing; PNM's extensions are one format.
"$BIN/sobel" -q --cpu -f png "$SAMPLES/coins.pgm" "$F/forced.tif" 2>"$F/err"
st=$?
why="exit $st: $(cat "$F/err")"
check formats/f-contradicts-name eval '[ $st = 2 ] && [ ! -e "$F/forced.tif" ] &&
    grep -q "f png would write PNG into a name that says TIFF" "$F/err"'
"$BIN/sobel" -q --cpu -f pnm "$SAMPLES/coins.pgm" "$F/forced.ppm" 2>"$F/err"
why="$(cat "$F/err")"
check formats/f-pnm-into-ppm eval '[ "$(magic "$F/forced.ppm")" = 50350a ]'

# ---- JPEG out: colour stays colour; --quality 1-100; one image per file;
# 16 bit refused; a batch with -f jpeg writes .jpg.
"$BIN/conv2d" -q --cpu -k identity "$SAMPLES/chelsea.png" "$F/c.jpg" 2>"$F/err" &&
    "$BIN/conv2d" -q --cpu -k identity "$F/c.jpg" "$F/c.ppm" 2>>"$F/err"
why="$(cat "$F/err")"
check formats/jpeg-colour eval '[ "$(magic "$F/c.jpg")" = ffd8ff ] && [ "$(head -c 2 "$F/c.ppm")" = P6 ]'

"$BIN/conv2d" -q --cpu -k identity --quality 10 "$SAMPLES/chelsea.png" "$F/q10.jpg" 2>"$F/err"
"$BIN/conv2d" -q --cpu -k identity --quality 100 "$SAMPLES/chelsea.png" "$F/q100.jpg" 2>>"$F/err"
why="q10 $(wc -c <"$F/q10.jpg") bytes, q100 $(wc -c <"$F/q100.jpg"): $(cat "$F/err")"
check formats/jpeg-quality eval '[ $(wc -c <"$F/q10.jpg") -lt $(wc -c <"$F/q100.jpg") ]'
for q in 0 101 x; do
	"$BIN/sobel" --quality $q "$FPX" "$F/q.jpg" 2>"$F/err"
	st=$?
	why="exit $st: $(cat "$F/err")"
	check formats/"quality-refused/$q" eval '[ $st -eq 2 ] && grep -q "^sobel: --quality" "$F/err"'
done

cat "$FPX" "$FPX" | "$BIN/sobel" -q --cpu - "$F/two.jpg" 2>"$F/err"
st=$?
why="exit $st: $(cat "$F/err")"
check formats/jpeg-one-image eval '[ $st -eq 1 ] && [ ! -e "$F/two.jpg" ] &&
    grep -q "a JPEG file holds one image; write PNM for a stream" "$F/err"'

"$BIN/sobel" -q --cpu "$SAMPLES/astro16.pgm" "$F/a16.jpg" 2>"$F/err"
st=$?
why="exit $st: $(cat "$F/err")"
check formats/jpeg-16bit-refused eval '[ $st -eq 1 ] && [ ! -e "$F/a16.jpg" ] &&
    grep -q "16 bit .*write PNG .*TIFF .*PNM" "$F/err"'

"$BIN/sobel" -q --cpu -f jpeg -o "$F/jb" "$FPX" "$SAMPLES/coins.pgm" 2>"$F/err"
why="$(ls "$F/jb" 2>&1): $(cat "$F/err")"
check formats/jpeg-batch eval '[ "$(magic "$F/jb/coins.jpg")" = ffd8ff ] && [ -s "$F/jb/px2x3.jpg" ]'

# ---- -q wins over notices in either order; -v's lines still print.
for order in "-q -v" "-v -q"; do
	# shellcheck disable=SC2086
	"$BIN/sobel" $order "$FPX" "$F/qv.pgm" 2>"$F/err"
	why="$(cat "$F/err")"
	check formats/"quiet-wins/${order% *}${order#* }" eval '! grep -q "running on the CPU" "$F/err" &&
	    grep -q "^sobel: .* image 1: 2x3," "$F/err"'
done

# ---- without an NVIDIA driver the notice of -v says so, not CUDA's "driver
# version is insufficient" (which is kept for a real version mismatch).
if have_gpu; then
	skip formats/no-driver-notice "this machine has a GPU"
elif [ -e /proc/driver/nvidia/version ] ||
    { command -v ldconfig >/dev/null && ldconfig -p | grep -q 'libcuda\.so\.1'; }; then
	skip formats/no-driver-notice "this machine has an NVIDIA driver"
else
	"$BIN/sobel" -v "$FPX" "$F/nd.pgm" 2>"$F/err"
	why="$(cat "$F/err")"
	check formats/no-driver-notice eval 'grep -q "^sobel: running on the CPU (no NVIDIA driver" "$F/err" &&
	    ! grep -q insufficient "$F/err"'
fi

# ---- the build prints one short line per step; V=1 the full commands.
# In a copy of the Makefile and lib/, so the tree's build is not touched.
if command -v make >/dev/null 2>&1; then
	rm -rf "$F/mk" && mkdir -p "$F/mk" && cp -R "$ROOT/Makefile" "$ROOT/lib" "$F/mk/"
	(unset MAKEFLAGS MFLAGS MAKELEVEL; make -C "$F/mk" --no-print-directory \
	    build/lib/base/gf.o) >"$F/mk.out" 2>&1
	why="$(cat "$F/mk.out")"
	check formats/make-short-lines eval '[ "$(cat "$F/mk.out")" = "  CC    build/lib/base/gf.o" ]'
	(unset MAKEFLAGS MFLAGS MAKELEVEL; make -C "$F/mk" --no-print-directory -B \
	    V=1 build/lib/base/gf.o) >"$F/mk.out" 2>&1
	why="$(cat "$F/mk.out")"
	check formats/make-v1-commands eval 'grep -q -- "-Wall -Wextra .* -c -o build/lib/base/gf.o lib/base/gf.c" "$F/mk.out" &&
	    ! grep -q "^  CC " "$F/mk.out"'
fi

# ---- TIFF in and out: 8 and 16 bit, gray and RGB, exact round trips
# through the tools, from a file, a pipe and a redirection.
"$BIN/conv2d" -q --cpu -k identity "$SAMPLES/chelsea.png" "$F/c.ppm" 2>"$F/err"
for s in c.ppm:"$F/c.ppm" astro16:"$SAMPLES/astro16.pgm" coins:"$SAMPLES/coins.pgm"; do
	n=${s%%:*} src=${s#*:}
	rm -f "$F/$n.tif" "$F/$n.back.pnm"
	"$BIN/conv2d" -q --cpu -k identity "$src" "$F/$n.tif" 2>"$F/err" &&
	    "$BIN/conv2d" -q --cpu -k identity "$F/$n.tif" "$F/$n.back.pnm" 2>>"$F/err"
	why="$(magic "$F/$n.tif" 2>/dev/null): $(cat "$F/err")"
	check formats/"tiff-round-trip/$n" eval '[ "$(magic "$F/$n.tif")" = 49492a ] && cmp -s "$F/$n.back.pnm" "$src"'
	cat "$F/$n.tif" | "$BIN/conv2d" -q --cpu -k identity - >"$F/$n.pipe" 2>"$F/err"
	why="$(cat "$F/err")"
	check formats/"tiff-pipe/$n" cmp -s "$F/$n.pipe" "$src"
done
"$BIN/conv2d" -q --cpu -k identity -f tiff <"$F/c.ppm" >"$F/stdout.tif" 2>"$F/err" &&
    "$BIN/conv2d" -q --cpu -k identity <"$F/stdout.tif" >"$F/stdout.back" 2>>"$F/err"
why="$(cat "$F/err")"
check formats/tiff-stdin-stdout eval '[ "$(magic "$F/stdout.tif")" = 49492a ] && cmp -s "$F/stdout.back" "$F/c.ppm"'

# A multi-page TIFF is a stream: each page filtered, in order (tiffcp
# makes it); a stream into one .tif is refused, and nothing is left.
if command -v tiffcp >/dev/null 2>&1; then
	tiffcp "$F/c.ppm.tif" "$F/astro16.tif" "$F/coins.tif" "$F/pages.tif" 2>"$F/err"
	"$BIN/sobel" -q --cpu "$F/pages.tif" "$F/pages.pnm" 2>>"$F/err"
	for n in c.ppm astro16 coins; do "$BIN/sobel" -q --cpu "$F/$n.tif"; done >"$F/pages.want"
	why="$(cat "$F/err")"
	check formats/tiff-pages-stream cmp -s "$F/pages.pnm" "$F/pages.want"
	"$BIN/sobel" -q --cpu "$F/pages.tif" "$F/pages-out.tif" 2>"$F/err"
	st=$?
	why="exit $st: $(cat "$F/err")"
	check formats/tiff-pages-one-file eval '[ $st -eq 1 ] && [ ! -e "$F/pages-out.tif" ] &&
	    grep -q "cannot write image 2 .*a TIFF file holds one image; write PNM for a stream" "$F/err"'
else
	skip formats/tiff-pages-stream "tiffcp is not installed"
	skip formats/tiff-pages-one-file "tiffcp is not installed"
fi

# A truncated TIFF (libtiff writes the directory last): a sentence, exit
# 1, no output.
head -c 3000 "$F/c.ppm.tif" >"$F/short.tif"
"$BIN/sobel" -q --cpu "$F/short.tif" "$F/short.pgm" 2>"$F/err"
st=$?
why="exit $st: $(cat "$F/err")"
check formats/tiff-truncated eval '[ $st -eq 1 ] && [ ! -e "$F/short.pgm" ] &&
    grep -q "^sobel: $F/short.tif: cannot read the TIFF file: Failed to read directory at offset" "$F/err"'

# ---- Floating-point TIFF (issue 43): 16-, 32- and 64-bit samples, both
# byte orders, gray, gray+alpha, RGB, RGBA, min-is-white, strips, tiles,
# and deflate with the floating-point predictor, from tests/fuzz/seeds.py.
# [0, 1] is black to white at 16 bits, rounded half up; below 0 and NaN
# are 0, above 1 65535: the six values of the man page, by hand.
python3 "$ROOT/tests/fuzz/seeds.py" "$F/seeds" 2>"$F/err" ||
	fail formats/tiff-float-seeds "seeds.py failed: $(cat "$F/err")"
FS=$F/seeds/img
for n in row32 rgbrow32; do
	rm -f "$F/$n.pam"
	"$BIN/conv2d" -q --cpu -k identity "$FS/float-$n.tif" "$F/$n.pam" 2>"$F/err"
	got=$(tail -c 12 "$F/$n.pam" | od -A n -t u2 --endian=big | tr -s ' ')
	why="got '$got': $(cat "$F/err")"
	check formats/tiff-float-values/$n eval '[ "$got" = " 0 32768 65535 0 65535 0" ] &&
	    grep -q "^MAXVAL 65535$" "$F/$n.pam"'
done
# Each float TIFF filters as its 16-bit twin, the values made by that rule
# (uint-*.tif), by each tool, and from a pipe.
for f in "$FS"/float-*.tif; do
	n=${f##*/float-} n=${n%.tif} twin=$FS/uint-$n.tif
	ok=1 why=
	for run in "sobel -q --cpu" "edge -q --cpu --sigma 1" \
	    "conv2d -q --cpu -k gauss:1" "conv2d -q --cpu -k identity"; do
		$BIN/$run "$f" >"$F/float.out" 2>"$F/err" &&
		    $BIN/$run "$twin" >"$F/twin.out" 2>>"$F/err" &&
		    cmp -s "$F/float.out" "$F/twin.out" ||
		    { ok=0 why="$why $run: $(cat "$F/err");"; }
	done
	$BIN/conv2d -q --cpu -k identity - <"$f" >"$F/float.out" 2>"$F/err" &&
	    cmp -s "$F/float.out" "$F/twin.out" || { ok=0 why="$why pipe: $(cat "$F/err")"; }
	check formats/tiff-float/$n [ $ok = 1 ]
done
# Hostile float TIFFs: a sentence, exit 1, no output (t_io.sh has them all).
for s in "float-huge:more than the limit" \
    "float-truncated:strip 1 of 1 is 6400 bytes at offset 146, past the end" \
    "float-tile-bomb:has tiles of 4096 x 4096 pixels for a 4 x 4 image" \
    "float-deflate-cut:cannot decode strip 1 (rows 1 to 64)"; do
	n=${s%%:*} needle=${s#*:}
	rm -f "$F/$n.pgm"
	"$BIN/sobel" -q --cpu "$FS/regress-tiff-$n.tif" "$F/$n.pgm" 2>"$F/err"
	st=$?
	why="exit $st: $(cat "$F/err")"
	check formats/tiff-float-refused/$n eval '[ $st -eq 1 ] && [ ! -e "$F/$n.pgm" ] &&
	    grep -q "^sobel: $FS/regress-tiff-$n.tif: .*$needle" "$F/err" &&
	    [ $(wc -l <"$F/err") -eq 1 ]'
done

# ---- EXIF orientation: chelsea (451 x 300) as JPEG with an APP1 EXIF
# block whose IFD0 holds Orientation o, spliced in after SOI.  It is read
# turned (5-8: 300 x 451) unless --no-autorotate; pixels are checked
# against pamflip where Netpbm's programs are installed.
"$BIN/conv2d" -q --cpu -k identity "$SAMPLES/chelsea.png" "$F/o.jpg" 2>"$F/err"
"$BIN/conv2d" -q --cpu -k identity "$F/o.jpg" "$F/o.ppm" 2>>"$F/err"
# The JPEG of $F/o.jpg tagged with orientation $1, on stdout.
exif_jpeg() {
	printf '\377\330\377\341\000\042Exif\000\000MM\000\052\000\000\000\010'
	printf '\000\001\001\022\000\003\000\000\000\001\000'
	printf "\\$(printf %03o "$1")"
	printf '\000\000\000\000\000\000'
	tail -c +3 "$F/o.jpg"
}
# pamflip's operations for each orientation (7: transpose, then 180 degrees).
flips="1:-null 2:-lr 3:-r180 4:-tb 5:-xy 6:-cw 7:-xy,-r180 8:-ccw"
for pair in $flips; do
	o=${pair%%:*} ops=${pair#*:}
	exif_jpeg "$o" >"$F/o$o.jpg"
	"$BIN/conv2d" -q --cpu -k identity "$F/o$o.jpg" "$F/o$o.ppm" 2>"$F/err"
	if [ "$o" -ge 5 ]; then dims="300 451"; else dims="451 300"; fi
	why="header $(head -n 2 "$F/o$o.ppm" | tail -n 1): $(cat "$F/err")"
	check formats/"exif-orientation-$o/size" eval '[ "$(head -n 2 "$F/o$o.ppm" | tail -n 1)" = "$dims" ]'
	if command -v pamflip >/dev/null 2>&1; then
		cp "$F/o.ppm" "$F/flip.ppm"
		for op in $(echo "$ops" | tr , ' '); do
			pamflip "$op" "$F/flip.ppm" >"$F/flip2.ppm" && mv "$F/flip2.ppm" "$F/flip.ppm"
		done
		"$BIN/conv2d" -q --cpu -k identity "$F/flip.ppm" "$F/flip3.ppm"
		why="differs from pamflip $ops"
		check formats/"exif-orientation-$o/pixels" cmp -s "$F/o$o.ppm" "$F/flip3.ppm"
	else
		skip formats/"exif-orientation-$o/pixels" "pamflip is not installed"
	fi
done
"$BIN/conv2d" -q --cpu -k identity --no-autorotate "$F/o6.jpg" "$F/o6-kept.ppm" 2>"$F/err"
why="$(cat "$F/err")"
check formats/exif-no-autorotate cmp -s "$F/o6-kept.ppm" "$F/o.ppm"

# A gray tool reads a colour JPEG as its luma, the Y plane libjpeg
# decodes, turned as its EXIF orientation says: the same as the tool on
# the gray that OpenCV's IMREAD_GRAYSCALE reads (4:4:4 above, 4:2:0 at
# quality 60; turned and not), and not the gray of its decoded colour.
# Where cv2 does not import, the gray is djpeg -grayscale's, turned by
# pamflip as the orientation says ($flips; q60 has none).
"$BIN/conv2d" -q --cpu -k identity --quality 60 "$SAMPLES/chelsea.png" "$F/q60.jpg"
"$BIN/conv2d" -q --cpu -k identity "$F/q60.jpg" "$F/q60.ppm"
luma_ref=
if python3 -c 'import cv2' 2>/dev/null; then
	luma_ref=cv2
elif command -v djpeg >/dev/null 2>&1 && command -v pamflip >/dev/null 2>&1; then
	luma_ref=djpeg
fi
# The reference gray of $F/$1.jpg in $F/$1-luma.pgm.
luma() {
	if [ $luma_ref = cv2 ]; then
		python3 -c 'import cv2, sys
cv2.imwrite(sys.argv[2], cv2.imread(sys.argv[1], cv2.IMREAD_GRAYSCALE))' \
		    "$F/$1.jpg" "$F/$1-luma.pgm"
		return
	fi
	o=${1#o}
	[ "$1" != q60 ] || o=1
	djpeg -grayscale -pnm "$F/$1.jpg" >"$F/$1-luma.pgm" || return
	for op in $(echo " $flips " | sed "s/.* $o:\([^ ]*\) .*/\1/" | tr , ' '); do
		pamflip "$op" "$F/$1-luma.pgm" >"$F/flip.pgm" &&
		    mv "$F/flip.pgm" "$F/$1-luma.pgm" || return
	done
}
for n in o1 o3 o6 o8 q60; do
	[ -z "$luma_ref" ] || luma "$n"
	for t in "sobel" "edge --auto"; do
		# shellcheck disable=SC2086
		"$BIN"/$t -q --cpu "$F/$n.jpg" "$F/$n-gray.pgm" 2>"$F/err" &&
		    "$BIN"/$t -q --cpu "$F/$n.ppm" "$F/$n-colour.pgm" 2>>"$F/err"
		why="$(cat "$F/err")"
		check formats/"jpeg-gray-not-rgb/$n/${t%% *}" eval '[ ! -s "$F/err" ] &&
		    ! cmp -s "$F/$n-gray.pgm" "$F/$n-colour.pgm"'
		if [ -n "$luma_ref" ]; then
			# shellcheck disable=SC2086
			"$BIN"/$t -q --cpu "$F/$n-luma.pgm" "$F/$n-luma-out.pgm" 2>"$F/err"
			why="against $luma_ref's gray: $(cat "$F/err")"
			check formats/"jpeg-gray-is-luma/$n/${t%% *}" cmp -s "$F/$n-gray.pgm" \
			    "$F/$n-luma-out.pgm"
		else
			skip formats/"jpeg-gray-is-luma/$n/${t%% *}" "neither python3's cv2 nor djpeg and pamflip are installed"
		fi
	done
done

# TIFF's Orientation tag likewise (tiffset writes it): 6 is read turned,
# and kept as stored with --no-autorotate.
if command -v tiffset >/dev/null 2>&1; then
	cp "$F/c.ppm.tif" "$F/o6.tif" && tiffset -s 274 6 "$F/o6.tif" 2>"$F/err"
	"$BIN/conv2d" -q --cpu -k identity "$F/o6.tif" "$F/o6-tif.ppm" 2>>"$F/err"
	"$BIN/conv2d" -q --cpu -k identity --no-autorotate "$F/o6.tif" \
	    "$F/o6-tif-kept.ppm" 2>>"$F/err"
	why="$(cat "$F/err")"
	check formats/tiff-orientation eval '[ "$(head -n 2 "$F/o6-tif.ppm" | tail -n 1)" = "300 451" ] &&
	    cmp -s "$F/o6-tif-kept.ppm" "$F/c.ppm"'
else
	skip formats/tiff-orientation "tiffset is not installed"
fi

# ---- alpha: chelsea with an alpha ramp (RGB_ALPHA PAM, made by python3),
# and astro16 with one (GRAYSCALE_ALPHA, 16 bit).  conv2d filters the
# colour and carries alpha through byte for byte; sobel and edge ignore
# it; PNG and TIFF keep it.  GPU strategies must give the CPU's bytes.
# alpha.py add IN OUT: IN (PPM or PGM, as we write them) with alpha
# (x * 7 + y * 3) mod (maxval + 1) as PAM.  alpha.py split IN COLOUR
# ALPHA: a PAM with alpha into its colour (PPM/PGM) and its alpha (raw).
cat >"$F/alpha.py" <<'PY'
import sys
def read(p):
    d = open(p, 'rb').read()
    if d[:2] == b'P7':
        hdr, _, px = d.partition(b'ENDHDR\n')
        f = dict(l.split(b' ', 1) for l in hdr.split(b'\n')[1:] if b' ' in l)
        return (int(f[b'WIDTH']), int(f[b'HEIGHT']), int(f[b'DEPTH']),
                int(f[b'MAXVAL']), px)
    t = d.split(None, 4)
    return int(t[1]), int(t[2]), 3 if t[0] == b'P6' else 1, int(t[3]), t[4]
w, h, ch, mx, px = read(sys.argv[2])
b = 2 if mx > 255 else 1
if sys.argv[1] == 'add':
    out = bytearray()
    for i in range(w * h):
        a = ((i % w) * 7 + (i // w) * 3) % (mx + 1)
        out += px[i * ch * b:(i + 1) * ch * b] + a.to_bytes(b, 'big')
    tt = {1: b'GRAYSCALE_ALPHA', 3: b'RGB_ALPHA'}[ch]
    open(sys.argv[3], 'wb').write(b'P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n'
                                  % (w, h, ch + 1, mx, tt) + out)
else:
    n = ch - 1
    col, alpha = bytearray(), bytearray()
    for i in range(w * h):
        p = px[i * ch * b:(i + 1) * ch * b]
        col += p[:n * b]
        alpha += p[n * b:]
    open(sys.argv[3], 'wb').write(b'%s\n%d %d\n%d\n' % (b'P6' if n == 3 else b'P5', w, h, mx) + col)
    open(sys.argv[4], 'wb').write(alpha)
PY
if command -v python3 >/dev/null 2>&1; then
	python3 "$F/alpha.py" add "$F/c.ppm" "$F/rgba.pam" &&
	    python3 "$F/alpha.py" add "$SAMPLES/astro16.pgm" "$F/ga16.pam"
	for s in rgba:c.ppm ga16:astro16; do
		n=${s%%:*} rgb=${s#*:}
		[ "$rgb" = c.ppm ] && rgb=$F/c.ppm || rgb=$SAMPLES/$rgb.pgm
		python3 "$F/alpha.py" split "$F/$n.pam" "$F/$n.colour" "$F/$n.alpha"
		# conv2d: colour as without alpha, alpha unchanged.
		"$BIN/conv2d" -q --cpu -k gauss:1.4 "$F/$n.pam" "$F/$n.blur.pam" 2>"$F/err" &&
		    "$BIN/conv2d" -q --cpu -k gauss:1.4 "$rgb" "$F/$n.blur.want.pnm" 2>>"$F/err" &&
		    python3 "$F/alpha.py" split "$F/$n.blur.pam" "$F/$n.blur.colour" "$F/$n.blur.alpha"
		why="$(cat "$F/err")"
		check formats/"alpha-conv2d/$n/colour" cmp -s "$F/$n.blur.colour" "$F/$n.blur.want.pnm"
		check formats/"alpha-conv2d/$n/alpha" cmp -s "$F/$n.blur.alpha" "$F/$n.alpha"
		# sobel and edge: as on the image without alpha.
		for tool in sobel edge; do
			"$BIN/$tool" -q --cpu "$F/$n.pam" "$F/$n.$tool.pnm" 2>"$F/err" &&
			    "$BIN/$tool" -q --cpu "$rgb" "$F/$n.$tool.want.pnm" 2>>"$F/err"
			why="$(cat "$F/err")"
			check formats/"alpha-$tool/$n" cmp -s "$F/$n.$tool.pnm" "$F/$n.$tool.want.pnm"
		done
		# PNG and TIFF keep alpha: through each and back, the same PAM.
		for ext in png tif; do
			"$BIN/conv2d" -q --cpu -k identity "$F/$n.pam" "$F/$n.$ext" 2>"$F/err" &&
			    "$BIN/conv2d" -q --cpu -k identity "$F/$n.$ext" "$F/$n.$ext.pam" 2>>"$F/err"
			why="$(cat "$F/err")"
			check formats/"alpha-$ext/$n" cmp -s "$F/$n.$ext.pam" "$F/$n.pam"
		done
		# GPU strategies, whole and in strips of 16 rows, against the CPU.
		for m in $(strategies conv2d); do
			[ "$m" = cpu ] || [ "$m" = auto ] && continue
			if ! have_gpu; then
				skip formats/"alpha-gpu/$n/$m" "no GPU"
				continue
			fi
			"$BIN/conv2d" -q -m "$m" -k gauss:1.4 "$F/$n.pam" "$F/$n.$m.pam" 2>"$F/err" &&
			    GPUFILT_STRIP_ROWS=16 "$BIN/conv2d" -q -m "$m" -k gauss:1.4 \
			    "$F/$n.pam" "$F/$n.$m.strips.pam" 2>>"$F/err" &&
			    "$BIN/sobel" -q -m "$m" "$F/$n.pam" "$F/$n.$m.sobel.pnm" 2>>"$F/err"
			why="$(cat "$F/err")"
			check formats/"alpha-gpu/$n/$m" eval 'cmp -s "$F/$n.$m.pam" "$F/$n.blur.pam" &&
			    cmp -s "$F/$n.$m.strips.pam" "$F/$n.blur.pam" &&
			    cmp -s "$F/$n.$m.sobel.pnm" "$F/$n.sobel.want.pnm"'
		done
	done
	# JPEG has no alpha: it is dropped.
	"$BIN/conv2d" -q --cpu -k identity "$F/rgba.pam" "$F/rgba.jpg" 2>"$F/err" &&
	    "$BIN/conv2d" -q --cpu -k identity "$F/rgba.jpg" "$F/rgba.jpg.pnm" 2>>"$F/err"
	why="$(cat "$F/err")"
	check formats/alpha-jpeg-dropped eval '[ "$(head -c 2 "$F/rgba.jpg.pnm")" = P6 ]'
else
	skip formats/alpha "python3 is not installed"
fi
