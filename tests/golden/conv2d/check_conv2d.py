#!/usr/bin/python3
"""Independent check of the conv2d golden files, run once by hand (needs
numpy and python3-opencv; make test does not run it).  Each golden image
is recomputed with a second formula: the image padded by numpy's np.pad
(modes edge, constant, reflect, wrap: the border definitions of lib/base/border.h,
implemented independently of lib/base/border.h), correlated by OpenCV's
filter2D in float64 (anchor at the centre, as conv2d), divided, biased,
rounded half up with floor(v + 0.5) and clamped in numpy; integer kernels
with an integer divisor as exact int64 sums of shifted copies instead.  Kernel taps
are parsed here from the same option text; gauss taps are computed as the
man page says (integers summing to 256 a side), and 8-bit gauss files with
the replicate border are also compared with OpenCV's GaussianBlur of the
same size, whose 8-bit fixed-point taps are the same integers.  Integer kernels must match
exactly; real ones (float64 here, float32 in conv2d) within one level.
Prints one line per file and a summary."""
import math, os, re, subprocess, sys
import cv2
import numpy as np

ROOT = os.path.dirname(os.path.abspath(__file__)) + '/../../..'
PAD = {'replicate': 'edge', 'zero': 'constant', 'reflect': 'reflect', 'wrap': 'wrap'}

def gauss(sigma, size=0):
    """The man page's fixed-point Gaussian: taps summing to 256, rounded
    from the outermost pair inwards with the error carried, the centre
    taking the rest; end pairs of zeros dropped when the size is ours."""
    trim = size == 0
    size = size or 2 * math.ceil(3 * sigma) + 1
    r = size // 2
    g = [math.exp(-(i - r) ** 2 / (2 * sigma * sigma)) for i in range(size)]
    total = sum(g)
    q, err = [0] * size, 0.0
    for i in range(r):
        v = g[i] / total * 256 + err
        q[i] = q[size - 1 - i] = math.floor(v + 0.5)
        err = v - q[i]
    q[r] = 256 - 2 * sum(q[:r])
    lo = 0
    while trim and lo < r and q[lo] == 0:
        lo += 1
    return np.array(q[lo:size - lo], dtype=np.float64)

def kernel(text, separable):
    named = {'sharpen': '0,-1,0;-1,5,-1;0,-1,0', 'sobelx': '-1,0,1;-2,0,2;-1,0,1',
             'laplace': '0,1,0;1,-4,1;0,1,0'}
    if text.startswith('@'):
        lines = [l.split('#')[0] for l in open(ROOT + '/' + text[1:])]
        text = ';'.join(l for l in lines if l.strip())
    if text.startswith('box:'):
        n = int(text[4:])
        return np.ones((n, n)), True, True
    if text.startswith('gauss:'):
        a = text[6:].split(':')
        row = gauss(float(a[0]), int(a[1]) if len(a) > 1 else 0)
        return np.outer(row, row), True, True
    text = named.get(text, text)
    rows = [[float(v) for v in r.replace(',', ' ').split()] for r in text.split(';') if r.strip()]
    k = np.array(rows)
    return k, bool(np.all(k == np.floor(k))), False

def expected(im, opts):
    a = opts.split()
    o = {'--border': 'replicate', '--divisor': None, '--bias': '0'}
    for i, t in enumerate(a):
        if t in ('-k', '--border', '--divisor', '--bias'):
            o[t] = a[i + 1]
    k, integer, normalized = kernel(o['-k'], '--no-separable' not in a)
    d = float(o['--divisor']) if o['--divisor'] else 1.0
    if ('--normalize' in a or normalized) and k.sum() != 0:
        d = k.sum()
    kh, kw = k.shape
    ay, ax = kh // 2, kw // 2
    pad = ((ay, kh - 1 - ay), (ax, kw - 1 - ax))
    chans = [im] if im.ndim == 2 else [im[..., c] for c in range(im.shape[2])]
    outs = []
    for c in chans:
        if integer and d == math.floor(d):
            # exact: int64 sums of shifted copies (filter2D's float64, as of
            # OpenCV 5, can land a 9x9 sum beside an exact half)
            p = np.pad(c.astype(np.int64), pad, mode=PAD[o['--border']])
            v = np.zeros(c.shape, np.int64)
            for i in range(kh):
                for j in range(kw):
                    v += int(k[i, j]) * p[i:i + c.shape[0], j:j + c.shape[1]]
            di, sign = abs(int(d)), (1 if d > 0 else -1)
            if '--abs' in a:
                v, sign = np.abs(v), 1
            # floor(v / d + 1/2), exactly
            q = np.floor_divide(2 * sign * v + di, 2 * di)
            outs.append((q + float(o['--bias'])).astype(np.float64))
            continue
        p = np.pad(c.astype(np.float64), pad, mode=PAD[o['--border']])
        v = cv2.filter2D(p, cv2.CV_64F, k, anchor=(ax, ay), borderType=cv2.BORDER_CONSTANT)
        v = v[ay:ay + c.shape[0], ax:ax + c.shape[1]]
        if '--abs' in a:
            v = np.abs(v)
        outs.append(np.floor(v / d + float(o['--bias']) + 0.5))
    out = outs[0] if im.ndim == 2 else np.stack(outs, axis=2)
    return out, integer and d == math.floor(d) and float(o['--bias']).is_integer()

def main():
    subprocess.run(['sh', 'tests/golden/unpack.sh'], cwd=ROOT, check=True)   # the goldens: build/golden
    text = open(ROOT + '/tests/cases_conv2d.sh').read()
    configs = text.split("<<'END'\n")[1].split('END')[0].splitlines()
    samples = text.split('CONV2D_SAMPLES="')[1].split('"')[0].split()
    bad = 0
    for line in configs:
        cfg, opts = line.split('|')
        for s in samples:
            im = cv2.imread(ROOT + '/samples/' + s, cv2.IMREAD_UNCHANGED)
            maxval = 65535 if im.dtype == np.uint16 else 255
            n = s.rsplit('.', 1)[0]
            g = cv2.imread(ROOT + '/build/golden/conv2d/%s.%s.%s' % (n, cfg, 'ppm' if im.ndim == 3 else 'pgm'),
                           cv2.IMREAD_UNCHANGED).astype(np.int64)
            want, exact = expected(im, opts)
            want = np.clip(want, 0, maxval).astype(np.int64)
            diff = np.abs(want - g.reshape(want.shape))
            ok = diff.max() == 0 if exact else diff.max() <= 1
            m = re.match(r'-k gauss:([0-9.]+)$', opts.replace(' --no-separable', ''))
            if m and maxval == 255:
                sigma = float(m.group(1))
                size = 2 * math.ceil(3 * sigma) + 1
                cv = cv2.GaussianBlur(im, (size, size), sigma, borderType=cv2.BORDER_REPLICATE)
                ncv = int((cv.astype(np.int64) != g.reshape(cv.shape)).sum())
                ok = ok and ncv == 0
                print('    GaussianBlur %dx%d sigma %g: %d samples differ' % (size, size, sigma, ncv))
            bad += not ok
            print('%s %s.%s: %s, %d of %d samples differ, by at most %d' % (
                'ok ' if ok else 'BAD', n, cfg, 'integer' if exact else 'real',
                int((diff > 0).sum()), diff.size, int(diff.max())))
    print('%d files differ' % bad)
    return bad != 0

sys.exit(main())
