#!/usr/bin/python3
"""Independent check of the --colour max golden files (sobel and edge on
the largest-gradient channel), run by hand (make test does not run it).
It recomputes every such golden with numpy array operations, sharing no
code with lib/, and prints one line per file and the number that differ;
exit status 1 if any differs.

The files: tests/golden/sobel/*.max*.pgm and tests/golden/edge/*.max*.pgm
(the samples, tests/cases_sobel.sh, cases_edge.sh) and tests/golden/max/
(inputs of their own, tests/cases_max.sh).

The rule, as OpenCV's Canny takes it on a colour image (modules/imgproc/
src/canny.cpp: "if(_norm[jn + k] > _norm[maxIdx]) maxIdx = jn + k"): at
each pixel the gradient of each colour channel (alpha is not one), and
of them the one whose norm - gx^2 + gy^2, or |gx| + |gy| with --norm l1
/ --l1 - is largest, the first channel (R) on ties: numpy's argmax.

sobel: each channel's gradients by a direct 2D correlation with the
operator's kernels derived as OpenCV derives them (binomial smoothing,
[-1, 1] convolved with the binomial row for the derivative; Prewitt and
Scharr by their taps), over numpy's padding modes ('edge', 'constant',
'reflect', 'wrap' are lib/base/border.h's); then the magnitude, the
threshold, Otsu's threshold of the chosen magnitudes (-t auto) or the
direction (arctan2 in 256 bins), written out in numpy.

edge: the same gradients (3x3 Sobel) of each channel, smoothed first
where --sigma > 0 by the conv2d tool (bin/conv2d --cpu -k gauss:S, the
smoothing stage edge documents; each channel through it alone, as a
PGM), the chosen gradient, the thresholds (values; percentages of the
range and quantiles of the chosen magnitudes' histogram; Otsu's,
high t and low t / 2), the four sectors by OpenCV's fixed-point test,
suppression with the tie rule of edge(1), no edge on the outer frame,
and hysteresis by repeated 8-neighbour dilation.  With OpenCV
(python3-opencv; it is skipped cleanly without), every 8-bit file made
without smoothing, at the replicate border and fixed thresholds, is
also compared with cv2.Canny on the colour channels (in RGB order, so
that its first-channel tie rule is ours): the number of interior pixels
that differ is printed (edge never marks the outer frame; OpenCV may
join chains through it).

Images are read by this script: binary PGM, PPM and PAM (P5, P6, P7),
PNG through netpbm's pngtopam, JPEG through OpenCV (skipped without).

Usage: python3 tests/golden/check_max.py    (from anywhere, after make)
"""
import glob, os, shutil, subprocess, sys, tempfile
import numpy as np

try:
    import cv2
except ImportError:
    cv2 = None

ROOT = os.path.dirname(os.path.abspath(__file__)) + '/../..'
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_sobel import taps     # --operator's taps, as OpenCV builds them


def read_pnm(data):
    """A binary PGM, PPM or PAM: (h, w, channels) int64, and maxval."""
    if data[:2] == b'P7':
        head, _, rest = data.partition(b'ENDHDR\n')
        f = dict(l.split(b' ', 1) for l in head.split(b'\n')[1:] if b' ' in l)
        w, h, d, m = (int(f[k]) for k in (b'WIDTH', b'HEIGHT', b'DEPTH', b'MAXVAL'))
        pos = len(head) + len(b'ENDHDR\n')
    else:
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
        d = 3 if fields[0] == b'P6' else 1
        w, h, m = int(fields[1]), int(fields[2]), int(fields[3])
    dt = '>u2' if m > 255 else 'u1'
    im = np.frombuffer(data, dtype=dt, count=w * h * d, offset=pos)
    return im.reshape(h, w, d).astype(np.int64), m


def load(path):
    """The image as the tools read it, or None where no reader is here."""
    if path.endswith('.jpg'):
        if cv2 is None:
            return None
        im = cv2.imread(path, cv2.IMREAD_COLOR)[..., ::-1].astype(np.int64)
        return im, 255
    if path.endswith('.png'):
        if shutil.which('pngtopam') is None:
            return None
        return read_pnm(subprocess.run(['pngtopam', path], check=True,
                                       stdout=subprocess.PIPE).stdout)
    return read_pnm(open(path, 'rb').read())


def colour(im):
    """The colour channels: alpha (a 2nd or 4th channel) is not one."""
    return im[..., :1] if im.shape[2] == 2 else im[..., :3]


def option(opts, name, default=None):
    a = opts.split()
    return a[a.index(name) + 1] if name in a else default


def grads(plane, op, border):
    """gx, gy of one plane: correlation with s (x) d and d (x) s."""
    s, d = taps(op)
    r = len(s) // 2
    mode = {'zero': 'constant', 'reflect': 'reflect', 'wrap': 'wrap'}.get(border, 'edge')
    p = np.pad(plane, r, mode=mode)
    h, w = plane.shape
    gx = np.zeros((h, w), dtype=np.int64)
    gy = np.zeros((h, w), dtype=np.int64)
    for j in range(2 * r + 1):
        for i in range(2 * r + 1):
            win = p[j:j + h, i:i + w]
            gx += int(s[j] * d[i]) * win
            gy += int(d[j] * s[i]) * win
    return gx, gy


def chosen(planes, op, border, l1):
    """The gradient of the channel of largest norm, the first on ties."""
    gs = [grads(planes[..., c], op, border) for c in range(planes.shape[2])]
    gx = np.stack([g[0] for g in gs], axis=2)
    gy = np.stack([g[1] for g in gs], axis=2)
    norm = np.abs(gx) + np.abs(gy) if l1 else gx * gx + gy * gy
    k = np.argmax(norm, axis=2)[..., None]
    return (np.take_along_axis(gx, k, axis=2)[..., 0],
            np.take_along_axis(gy, k, axis=2)[..., 0])


def rounded_root(s):
    """round(sqrt(s)), halves up, exactly."""
    r = np.floor(np.sqrt(s.astype(np.float64))).astype(np.int64)
    r = np.where(r * r > s, r - 1, r)
    r = np.where((r + 1) * (r + 1) <= s, r + 1, r)
    return np.where(s - r * r > r, r + 1, r)


def magnitude(gx, gy, l1, maxval):
    """The magnitude in sobel's units (the histogram's values)."""
    v = np.abs(gx) + np.abs(gy) if l1 else rounded_root(gx * gx + gy * gy)
    return np.minimum(v, maxval)


def otsu(values, maxval):
    """Otsu's threshold: the first t of largest between-class variance."""
    h = np.bincount(values.ravel(), minlength=maxval + 1).astype(np.float64)
    v = np.arange(maxval + 1, dtype=np.float64)
    w0 = np.cumsum(h); s0 = np.cumsum(h * v)
    n, s = w0[-1], s0[-1]
    w1 = n - w0
    with np.errstate(divide='ignore', invalid='ignore'):
        score = np.where((w0 > 0) & (w1 > 0), (s0 * n - s * w0) ** 2 / (w0 * w1),
                         np.where(w0 > 0, 0, -1))
    return int(np.argmax(score))


def sobel_max(im, maxval, opts):
    op = option(opts, '--operator', 'sobel')
    border = option(opts, '--border', 'replicate')
    l1 = '--norm l1' in opts
    gx, gy = chosen(colour(im), op, border, l1)
    if '--gradient direction' in opts:
        deg = np.degrees(np.arctan2(gy.astype(np.float64), gx.astype(np.float64)))
        deg = np.where(deg < 0, deg + 360.0, deg)
        return np.minimum(np.floor(deg * 256.0 / 360.0).astype(np.int64), 255)
    t = option(opts, '-t')
    if t == 'auto':
        t = otsu(magnitude(gx, gy, l1, maxval), maxval)
    elif t is not None:
        t = float(t)
    if t is None:
        return magnitude(gx, gy, l1, maxval)
    v = np.abs(gx) + np.abs(gy) if l1 else gx * gx + gy * gy
    return np.where(v > (t if l1 else t * t), maxval, 0)


def smoothed(im, maxval, sigma, border):
    """Each colour channel through bin/conv2d --cpu -k gauss:sigma."""
    out = []
    with tempfile.TemporaryDirectory() as d:
        for c in range(im.shape[2]):
            f = d + '/c.pgm'
            dt = '>u2' if maxval > 255 else 'u1'
            with open(f, 'wb') as fh:
                fh.write(b'P5\n%d %d\n%d\n' % (im.shape[1], im.shape[0], maxval) +
                         im[..., c].astype(dt).tobytes())
            got = subprocess.run([ROOT + '/bin/conv2d', '--cpu', '-k', 'gauss:%g' % sigma,
                                  '--border', border, f, '-'], check=True,
                                 stdout=subprocess.PIPE).stdout
            out.append(read_pnm(got)[0][..., 0])
    return np.stack(out, axis=2)


def threshold(spec, mag, maxval):
    """A --low or --high in magnitude units: N, N% or qF."""
    hist = np.bincount(mag.ravel(), minlength=maxval + 1)
    occ = np.nonzero(hist)[0]
    if spec.endswith('%'):
        return occ[0] + float(spec[:-1]) / 100 * (occ[-1] - occ[0])
    if spec.startswith('q'):
        cum = np.cumsum(hist)
        return float(np.argmax(cum >= float(spec[1:]) * mag.size))
    return float(spec)


def canny_max(im, maxval, opts):
    """edge --colour max: a boolean edge map."""
    border = option(opts, '--border', 'replicate')
    sigma = float(option(opts, '--sigma', '1.4'))
    l1 = '--l1' in opts
    planes = colour(im)
    if sigma > 0:
        planes = smoothed(planes, maxval, sigma, border)
    gx, gy = chosen(planes, 'sobel', border, l1)
    mag = magnitude(gx, gy, l1, maxval)
    hi, lo = option(opts, '--high'), option(opts, '--low')
    if hi is None:
        t = otsu(mag, maxval)
        high, low = float(t), t / 2.0
    else:
        high = threshold(hi, mag, maxval)
        low = threshold(lo, mag, maxval) if lo is not None else high / 2
        low = min(low, high)
    m = np.abs(gx) + np.abs(gy) if l1 else gx * gx + gy * gy
    tl = np.floor(low if l1 else low * low)
    th = np.floor(high if l1 else high * high)
    h, w = m.shape
    ax, ay = np.abs(gx), np.abs(gy) * 32768
    tg22 = ax * 13573
    horiz = ay < tg22
    vert = ~horiz & (ay > tg22 + ax * 65536)
    diag = ~horiz & ~vert
    same = (gx < 0) == (gy < 0)
    q = np.pad(m, 1)
    at = lambda dy, dx: q[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
    # before: left, up, up-left (45: signs alike), up-right (135).
    before = np.where(horiz, at(0, -1), np.where(vert, at(-1, 0),
                      np.where(same, at(-1, -1), at(-1, 1))))
    after = np.where(horiz, at(0, 1), np.where(vert, at(1, 0),
                     np.where(same, at(1, 1), at(1, -1))))
    keep = (m > tl) & (m > before) & np.where(diag, m > after, m >= after)
    frame = np.ones((h, w), dtype=bool)
    frame[1:-1, 1:-1] = False
    weak = keep & ~frame
    edge = weak & (m > th)
    while True:
        e = np.pad(edge, 1)
        grow = np.zeros_like(edge)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                grow |= e[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
        nxt = edge | (grow & weak)
        if (nxt == edge).all():
            return edge
        edge = nxt


def cases(table, fn):
    out = subprocess.run(['sh', '-c', '. ./tests/%s; %s' % (table, fn)], cwd=ROOT,
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return [l.split('|') for l in out.splitlines() if '|' in l]


def main():
    bad = skipped = 0
    print('cv2.Canny comparison:', 'OpenCV ' + cv2.__version__ if cv2 else
          'skipped (no OpenCV)')
    subprocess.run(['sh', 'tests/golden/unpack.sh'], cwd=ROOT, check=True)   # the goldens: build/golden
    todo = []       # (golden, source, tool, options)
    for tool, table in (('sobel', 'cases_sobel.sh'), ('edge', 'cases_edge.sh')):
        for cfg, o8, o16 in cases(table, tool + '_configs'):
            if '--colour max' not in o8:
                continue
            for g in sorted(glob.glob('%s/build/golden/%s/*.%s.pgm' % (ROOT, tool, cfg))):
                name = os.path.basename(g).rsplit('.', 2)[0]
                src = [f for f in glob.glob(ROOT + '/samples/' + name + '.*')
                       if not f.endswith('.py')][0]
                todo.append((g, src, tool, o16 if name == 'astro16' else o8))
    for tool, cfg, o8, o16 in cases('cases_max.sh', 'max_configs'):
        for src in sorted(glob.glob(ROOT + '/build/golden/max/*.p[pa]m')):
            name = os.path.basename(src).rsplit('.', 1)[0]
            g = '%s/build/golden/max/%s.%s.%s.pgm' % (ROOT, name, tool, cfg)
            todo.append((g, src, tool, o16 if '16' in name else o8))
    for g, src, tool, opts in todo:
        got = load(src)
        if got is None:
            skipped += 1
            print('%-36s skipped (no reader for %s)' % (os.path.relpath(g, ROOT + '/build/golden'),
                                                       os.path.basename(src)))
            continue
        im, maxval = got
        gold = read_pnm(open(g, 'rb').read())[0][..., 0]
        if tool == 'sobel':
            want = sobel_max(im, maxval, opts)
        else:
            want = np.where(canny_max(im, maxval, opts), maxval, 0)
        n = int((want != gold).sum())
        bad += n != 0
        msg = 'ok' if n == 0 else '%d pixels differ' % n
        if tool == 'edge' and cv2 is not None and maxval == 255 and \
                option(opts, '--sigma') == '0' and '--border' not in opts and \
                '--l1' not in opts and option(opts, '--high', 'q').replace('.', '').isdigit() \
                and option(opts, '--low', '0').replace('.', '').isdigit() and \
                min(im.shape[:2]) > 2:
            c = np.ascontiguousarray(colour(im).astype(np.uint8))
            ref = cv2.Canny(c, float(option(opts, '--low')), float(option(opts, '--high')),
                            L2gradient=True) > 0
            d = np.count_nonzero(ref[1:-1, 1:-1] != (gold[1:-1, 1:-1] > 0))
            msg += ', %d of %d interior pixels differ from cv2.Canny' % (
                d, (im.shape[0] - 2) * (im.shape[1] - 2))
        print('%-36s %s' % (os.path.relpath(g, ROOT + '/build/golden'), msg))
    print('%d files differ, %d skipped' % (bad, skipped))
    return bad != 0


if __name__ == '__main__':
    sys.exit(main())
