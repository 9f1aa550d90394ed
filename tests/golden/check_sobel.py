#!/usr/bin/python3
"""Independent check of the sobel golden files, run by hand (make test does
not run it).  It recomputes every golden image with a second formula and
prints one line per file and the number that differ; exit status 1 if any
differs.

With OpenCV (python3-opencv, as on the GPU machine): the gradients are
OpenCV's own, cv2.Sobel with ksize 3, 5 or 7 (--operator sobel, sobel5,
sobel7), cv2.Scharr (scharr), and cv2.filter2D with Prewitt's kernel
(prewitt; OpenCV has no Prewitt), in float64 over the image padded by
numpy's modes ('edge', 'constant', 'reflect', 'wrap' are the border
definitions of lib/base/border.h); it also checks that the separable taps
OpenCV derives (cv2.getDerivKernels) are those of numpy's derivation
below.  Gray is made with img_to_gray's integer formula (a JPEG: its luma,
as OpenCV's IMREAD_GRAYSCALE reads it).

Without OpenCV (numpy alone): the gradients are a direct 2D correlation
with kernels derived as OpenCV derives them, smoothing = the binomial row
of ksize taps, derivative = [-1, 1] convolved with the binomial row of
ksize - 1 taps (Prewitt: box and [-1, 0, 1]; Scharr: 3 10 3 and
[-1, 0, 1]), over the PNM samples, and the PNG ones decoded by netpbm's
pngtopam where it is installed (no JPEG reader then: those files are
reported as skipped).

--colour channels: each colour channel alone, in the golden's channel
order (OpenCV's BGR on both sides, or RGB on both).  --gradient
direction: numpy's arctan2 of those gradients, in degrees from 0 to
360, times 256 / 360, floored.  --gradient x and y: with OpenCV and an
8-bit sample, OpenCV's own CV_16S output (cv2.Sobel, cv2.Scharr,
cv2.filter2D with ddepth cv2.CV_16S over the padded uint8 image: its
saturate_cast); else the gradients clipped to -32768 .. 32767 in numpy;
either way plus 32768 (the golden's offset binary, maxval 65535).
--depth 16: the magnitude clamped at 65535 instead of the input's
maxval.

Either way the rounding and threshold comparisons are written out in
numpy, and Otsu's threshold (-t auto) comes from numpy's cumulative sums.

Usage: python3 tests/golden/check_sobel.py [--numpy]   (from anywhere)
"""
import glob, os, shutil, subprocess, sys
import numpy as np

try:
    import cv2
except ImportError:
    cv2 = None
if '--numpy' in sys.argv:
    cv2 = None

# --operator's names: (ksize, smoothing, derivative) as OpenCV builds them.
def binomial(n):
    row = np.array([1], dtype=np.int64)
    for _ in range(n - 1):
        row = np.convolve(row, [1, 1])
    return row

def taps(op):
    if op == 'prewitt':
        return np.array([1, 1, 1]), np.array([-1, 0, 1])
    if op == 'scharr':
        return np.array([3, 10, 3]), np.array([-1, 0, 1])
    k = {'sobel': 3, 'sobel5': 5, 'sobel7': 7}[op]
    return binomial(k), np.convolve([-1, 1], binomial(k - 1))

def readable(path):
    """Whether this run can read the sample at path."""
    return cv2 is not None or path.endswith(('.pgm', '.ppm')) or \
        (path.endswith('.png') and shutil.which('pngtopam') is not None)

def load(path, channels):
    """The sample as the tool filters it: gray, or its colour channels
    (BGR with OpenCV, RGB without) with --colour channels."""
    if cv2 is None:
        im = read_pgm(path) if not path.endswith('.png') else \
            read_pgm(None, subprocess.run(['pngtopam', path], check=True,
                                          stdout=subprocess.PIPE).stdout)
        if im.ndim == 3 and not channels:
            r, g, b = im[..., 0], im[..., 1], im[..., 2]
            im = (299 * r + 587 * g + 114 * b + 500) // 1000
        return im
    if path.endswith('.jpg'):
        return cv2.imread(path, cv2.IMREAD_COLOR if channels else
                          cv2.IMREAD_GRAYSCALE).astype(np.int64)
    im = cv2.imread(path, cv2.IMREAD_UNCHANGED).astype(np.int64)
    if im.ndim == 3 and not channels:
        b, g, r = im[..., 0], im[..., 1], im[..., 2]
        im = (299 * r + 587 * g + 114 * b + 500) // 1000
    return im

def read_pgm(path, data=None):
    """A binary PGM or PPM (P5, P6) with no comments, as samples/ and the
    goldens are; RGB for a PPM."""
    data = open(path, 'rb').read() if data is None else data
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    pos += 1
    assert fields[0] in (b'P5', b'P6'), path
    ch = 3 if fields[0] == b'P6' else 1
    w, h, maxval = int(fields[1]), int(fields[2]), int(fields[3])
    dt = '>u2' if maxval > 255 else 'u1'
    im = np.frombuffer(data, dtype=dt, count=w * h * ch, offset=pos)
    return (im.reshape(h, w, 3) if ch == 3 else im.reshape(h, w)).astype(np.int64)

def option(opts, name, default=None):
    return opts.split(name + ' ')[1].split()[0] if name + ' ' in opts else default

def pad(im, opts, r):
    """Pads by r pixels; numpy's modes are lib/base/border.h's definitions."""
    b = option(opts, '--border', 'replicate')
    mode = {'zero': 'constant', 'reflect': 'reflect', 'wrap': 'wrap'}.get(b, 'edge')
    return np.pad(im, r, mode=mode)

def correlate(p, k, r):
    """The 'valid' correlation of padded p with the square kernel k."""
    h, w = p.shape[0] - 2 * r, p.shape[1] - 2 * r
    out = np.zeros((h, w), dtype=np.int64)
    for j in range(2 * r + 1):
        for i in range(2 * r + 1):
            out += int(k[j, i]) * p[j:j + h, i:i + w]
    return out

def signed16(im, opts):
    """--gradient x or y: the gradient as OpenCV's CV_16S holds it (its
    saturate_cast), plus 32768."""
    ax = 0 if '--gradient x' in opts else 1
    op = option(opts, '--operator', 'sobel')
    if cv2 is None or im.max() > 255:
        g = grads(im, opts)[ax]
        return np.clip(g, -32768, 32767) + 32768
    s, d = taps(op)
    r = len(s) // 2
    p = pad(im, opts, r).astype(np.uint8)
    rep = cv2.BORDER_REPLICATE
    if op == 'prewitt':
        k = np.outer(s, d).astype(np.float32)
        g = cv2.filter2D(p, cv2.CV_16S, k if ax == 0 else k.T.copy(),
                         borderType=rep)
    elif op == 'scharr':
        g = cv2.Scharr(p, cv2.CV_16S, 1 - ax, ax, borderType=rep)
    else:
        g = cv2.Sobel(p, cv2.CV_16S, 1 - ax, ax, ksize=2 * r + 1,
                      borderType=rep)
    return g[r:-r, r:-r].astype(np.int64) + 32768

def grads(im, opts):
    op = option(opts, '--operator', 'sobel')
    s, d = taps(op)
    r = len(s) // 2
    p = pad(im, opts, r)
    if cv2 is None:
        return correlate(p, np.outer(s, d), r), correlate(p, np.outer(d, s), r)
    f = p.astype(np.float64)
    rep = cv2.BORDER_REPLICATE
    if op == 'prewitt':
        kx = np.outer(s, d).astype(np.float64)
        gx = cv2.filter2D(f, cv2.CV_64F, kx, borderType=rep)
        gy = cv2.filter2D(f, cv2.CV_64F, kx.T.copy(), borderType=rep)
    elif op == 'scharr':
        gx = cv2.Scharr(f, cv2.CV_64F, 1, 0, borderType=rep)
        gy = cv2.Scharr(f, cv2.CV_64F, 0, 1, borderType=rep)
    else:
        k = 2 * r + 1
        cs, cd = cv2.getDerivKernels(1, 0, k)
        assert list(cs.ravel()) == list(d) and list(cd.ravel()) == list(s), op
        gx = cv2.Sobel(f, cv2.CV_64F, 1, 0, ksize=k, borderType=rep)
        gy = cv2.Sobel(f, cv2.CV_64F, 0, 1, ksize=k, borderType=rep)
    crop = (slice(r, -r), slice(r, -r))
    return gx[crop].astype(np.int64), gy[crop].astype(np.int64)

def otsu(mag, maxval):
    """Otsu's threshold of the magnitudes: the t (pass: value > t) that
    maximizes the between-class variance, the first such t on ties."""
    h = np.bincount(mag.ravel(), minlength=maxval + 1).astype(np.float64)
    v = np.arange(maxval + 1, dtype=np.float64)
    w0 = np.cumsum(h); s0 = np.cumsum(h * v)
    n, s = w0[-1], s0[-1]
    w1 = n - w0
    with np.errstate(divide='ignore', invalid='ignore'):
        score = np.where((w0 > 0) & (w1 > 0),
                         (s0 * n - s * w0) ** 2 / (w0 * w1), -1)
    return int(np.argmax(score))

def expected(im, opts, maxval):
    if im.ndim == 3:
        return np.stack([expected(im[..., c], opts, maxval)
                         for c in range(im.shape[2])], axis=2)
    if '--gradient x' in opts or '--gradient y' in opts:
        return signed16(im, opts)
    if '--depth 16' in opts:        # the magnitude, clamped at 65535
        maxval = 65535
    gx, gy = grads(im, opts)
    if '--gradient direction' in opts:
        # cv2.phase's angle, atan2(gy, gx) in [0, 360) degrees, in 256 bins.
        deg = np.degrees(np.arctan2(gy.astype(np.float64), gx.astype(np.float64)))
        deg = np.where(deg < 0, deg + 360.0, deg)
        return np.minimum(np.floor(deg * 256.0 / 360.0).astype(np.int64), 255)
    l1 = '--norm l1' in opts
    t = option(opts, '-t')
    if t == 'auto':
        t = otsu(expected(im, opts.replace('-t auto', ''), maxval), maxval)
    elif t is not None:
        t = float(t)
    if l1:
        v = np.abs(gx) + np.abs(gy)
        return np.where(v > t, maxval, 0) if t is not None else np.minimum(v, maxval)
    s = gx * gx + gy * gy
    if t is not None:
        return np.where(s > t * t, maxval, 0)
    r = np.floor(np.sqrt(s.astype(np.float64))).astype(np.int64)
    r = np.where(r * r > s, r - 1, r)
    r = np.where((r + 1) * (r + 1) <= s, r + 1, r)
    r = np.where(s - r * r > r, r + 1, r)      # round half up
    return np.minimum(r, maxval)

def main():
    root = os.path.dirname(os.path.abspath(__file__)) + '/../..'
    cases = {}
    for line in open(root + '/tests/cases_sobel.sh').read().split("<<'END'\n")[1].split('END')[0].splitlines():
        cfg, o8, o16 = line.split('|')
        cases[cfg] = (o8, o16)
    bad = skipped = 0
    print('gradients by', 'OpenCV ' + cv2.__version__ if cv2 else 'numpy alone')
    subprocess.run(['sh', 'tests/golden/unpack.sh'], cwd=root, check=True)   # the goldens: build/golden
    for g in sorted(glob.glob(root + '/build/golden/sobel/*.p[gp]m')):
        name, cfg = os.path.basename(g)[:-4].rsplit('.', 1)
        if '--colour max' in cases[cfg][0]:
            continue        # tests/golden/check_max.py checks these
        src = [f for f in glob.glob(root + '/samples/' + name + '.*') if not f.endswith('.py')][0]
        if not readable(src):
            skipped += 1
            print('%-40s skipped (no reader for %s)' % (os.path.basename(g), src.rsplit('/', 1)[1]))
            continue
        maxval = 65535 if name == 'astro16' else 255
        opts = cases[cfg][1 if name == 'astro16' else 0]
        im = load(src, '--colour channels' in opts)
        want = expected(im, opts, maxval)
        got = (cv2.imread(g, cv2.IMREAD_UNCHANGED) if cv2 else read_pgm(g)).astype(np.int64).reshape(want.shape)
        n = int((want != got).sum())
        bad += n != 0
        print('%-40s %s' % (os.path.basename(g), 'ok' if n == 0 else '%d pixels differ' % n))
    print('%d files differ, %d skipped' % (bad, skipped))
    return bad != 0

if __name__ == '__main__':
    sys.exit(main())
