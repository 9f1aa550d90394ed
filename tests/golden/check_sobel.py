#!/usr/bin/python3
"""Independent check of the sobel golden files, run once by hand (needs
python3-opencv and numpy; make test does not run it).  It recomputes every
golden image with a second formula: OpenCV's Sobel (ksize 3) with the
matching border type in float64, gray made with OpenCV's own BGR-to-gray
weights replaced by img_to_gray's integer formula (a JPEG: its luma, as
OpenCV's IMREAD_GRAYSCALE reads it), and the rounding written out in
numpy.  Prints one line per file and the number that differ."""
import glob, os, sys
import cv2
import numpy as np

BORDERS = {'zero': cv2.BORDER_CONSTANT, 'reflect': cv2.BORDER_REFLECT_101,
           'wrap': cv2.BORDER_WRAP}

def gray(path):
    if path.endswith('.jpg'):
        return cv2.imread(path, cv2.IMREAD_GRAYSCALE).astype(np.int64)
    im = cv2.imread(path, cv2.IMREAD_UNCHANGED).astype(np.int64)
    if im.ndim == 3:
        b, g, r = im[..., 0], im[..., 1], im[..., 2]
        im = (299 * r + 587 * g + 114 * b + 500) // 1000
    return im

def pad(im, opts):
    """Pads by one pixel; numpy's modes are lib/base/border.h's definitions."""
    b = opts.split('--border ')[1].split()[0] if '--border ' in opts else 'replicate'
    mode = {'zero': 'constant', 'reflect': 'reflect', 'wrap': 'wrap'}.get(b, 'edge')
    return np.pad(im, 1, mode=mode)

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

def expected(im, cfg, opts, maxval):
    p = pad(im, opts).astype(np.float64)
    gx = cv2.Sobel(p, cv2.CV_64F, 1, 0, ksize=3, borderType=cv2.BORDER_REPLICATE)[1:-1, 1:-1]
    gy = cv2.Sobel(p, cv2.CV_64F, 0, 1, ksize=3, borderType=cv2.BORDER_REPLICATE)[1:-1, 1:-1]
    gx, gy = gx.astype(np.int64), gy.astype(np.int64)
    l1 = '--norm l1' in opts
    t = opts.split('-t ')[1].split()[0] if '-t ' in opts else None
    if t == 'auto':
        t = otsu(expected(im, cfg, opts.replace('-t auto', ''), maxval), maxval)
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
    bad = 0
    for g in sorted(glob.glob(root + '/tests/golden/sobel/*.pgm')):
        name, cfg = os.path.basename(g)[:-4].rsplit('.', 1)
        src = [f for f in glob.glob(root + '/samples/' + name + '.*') if not f.endswith('.py')][0]
        im = gray(src)
        maxval = 65535 if name == 'astro16' else 255
        opts = cases[cfg][1 if name == 'astro16' else 0]
        want = expected(im, cfg, opts, maxval)
        got = cv2.imread(g, cv2.IMREAD_UNCHANGED).astype(np.int64).reshape(want.shape)
        n = int((want != got).sum())
        bad += n != 0
        print('%-40s %s' % (os.path.basename(g), 'ok' if n == 0 else '%d pixels differ' % n))
    print('%d files differ' % bad)
    return bad != 0

sys.exit(main())
