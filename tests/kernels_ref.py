#!/usr/bin/python3
"""kernels_ref.py - conv2d's named kernels and ImageMagick kernel strings,
computed here in plain Python, apart from lib/ops/conv2d/kspec.c, from their
definitions (the man page, OpenCV's and ImageMagick's documented taps).

    kernels_ref.py image KERNEL [--bias B]  > want.pgm

reads an 8-bit PGM (P5) and writes what `conv2d -k KERNEL [--bias B]`
must give: replicate border, correlation, divisor and rounding as
conv2d(1) says.  Exact integer kernels are made exactly; log:SIGMA,
defined in real numbers, is computed in floating point (the test allows
it one level).  No numpy, so that it runs wherever python3 does.
"""
import math
import sys

FIXED = {
    # ImageMagick's Laplacian:0 (8 neighbours) and Laplacian:1 (4).
    "laplacian": [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]],
    "laplacian:8": [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]],
    "laplacian:4": [[0, -1, 0], [-1, 4, -1], [0, -1, 0]],
    # OpenCV's Laplacian(ksize=1), conv2d's laplace.
    "laplace": [[0, 1, 0], [1, -4, 1], [0, 1, 0]],
    "prewitt": [[-1, 0, 1], [-1, 0, 1], [-1, 0, 1]],
    "prewittx": [[-1, 0, 1], [-1, 0, 1], [-1, 0, 1]],
    "prewitty": [[-1, -1, -1], [0, 0, 0], [1, 1, 1]],
    # OpenCV's Scharr(dx=1) and Scharr(dy=1).
    "scharrx": [[-3, 0, 3], [-10, 0, 10], [-3, 0, 3]],
    "scharry": [[-3, -10, -3], [0, 0, 0], [3, 10, 3]],
}


def read_pgm(path):
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b"#":
            while data[pos:pos + 1] not in (b"\n", b""):
                pos += 1
            continue
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        fields.append(data[start:pos])
    assert fields[0] == b"P5" and int(fields[3]) == 255, "8-bit P5 only"
    w, h = int(fields[1]), int(fields[2])
    px = data[pos + 1:pos + 1 + w * h]
    return w, h, [list(px[y * w:(y + 1) * w]) for y in range(h)]


def gauss_fixed(sigma, n):
    """gauss:SIGMA:N's taps by the man page's rule: 256 g[i] rounded from
    the outside in, each carrying the error of the pair outside it."""
    r = n // 2
    g = [math.exp(-(i - r) ** 2 / (2 * sigma * sigma)) for i in range(n)]
    s = sum(g)
    g = [v / s for v in g]
    q, err = [0] * n, 0.0
    for i in range(r):
        v = g[i] * 256 + err
        q[i] = q[n - 1 - i] = math.floor(v + 0.5)
        err = v - q[i]
    q[r] = 256 - 2 * sum(q[:r])
    return q


def size3(sigma):
    return 2 * math.ceil(3 * sigma) + 1


def kernel(spec):
    """(taps as a list of rows, anchor x, anchor y, unit, real)."""
    if spec in FIXED:
        k = FIXED[spec]
        return k, 1, 1, 1, False
    if ":" in spec and spec[0].isdigit():
        # ImageMagick: WxH[+X+Y]: values; anchor ((W-1)/2, (H-1)/2) by default.
        geo, vals = spec.split(":", 1)
        v = [float(t) for t in vals.replace(",", " ").split()]
        x = y = None
        if "+" in geo:
            geo, x, y = geo.split("+")
        w, h = (int(t) for t in geo.split("x"))
        x = (w - 1) // 2 if x is None else int(x)
        y = (h - 1) // 2 if y is None else int(y)
        k = [[int(t) for t in v[i * w:(i + 1) * w]] for i in range(h)]
        return k, x, y, 1, False
    if "," in spec and ":" not in spec:
        v = [int(t) for t in spec.split(",")]
        n = math.isqrt(len(v))
        return [v[i * n:(i + 1) * n] for i in range(n)], n // 2, n // 2, 1, False
    name, arg = spec.split(":")
    if name == "dog":
        s1, s2 = (float(t) for t in arg.split(","))
        n = size3(max(s1, s2))
        a, b = gauss_fixed(s1, n), gauss_fixed(s2, n)
        k = [[a[i] * a[j] - b[i] * b[j] for j in range(n)] for i in range(n)]
        return k, n // 2, n // 2, 65536, False
    if name == "unsharp":
        sigma, amount = (float(t) for t in arg.split(","))
        n = size3(sigma)
        q, a = gauss_fixed(sigma, n), math.floor(amount * 256 + 0.5)
        k = [[-a * q[i] * q[j] for j in range(n)] for i in range(n)]
        k[n // 2][n // 2] += (256 + a) * 65536
        return k, n // 2, n // 2, 256 * 65536, False
    if name == "log":
        sigma = float(arg)
        n = 2 * math.ceil(4 * sigma) + 1
        r, s2 = n // 2, sigma * sigma
        k = [[0.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(n):
                d2 = (i - r) ** 2 + (j - r) ** 2
                k[i][j] = (1 - d2 / (2 * s2)) * math.exp(-d2 / (2 * s2)) / (
                    math.pi * s2 * s2)
        k[r][r] -= sum(map(sum, k))
        return k, r, r, 1, True
    raise SystemExit("kernels_ref.py: unknown kernel " + spec)


def main():
    path, spec = sys.argv[1], sys.argv[2]
    bias = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--bias" else 0
    w, h, p = read_pgm(path)
    k, ax, ay, unit, real = kernel(spec)
    kh, kw = len(k), len(k[0])
    flat = [t for row in k for t in row]
    div = unit
    if not real and min(flat) >= 0 and unit == 1:
        div = sum(flat) or 1   # a blur divides by its sum, as conv2d(1) says
    out = bytearray()
    for y in range(h):
        for x in range(w):
            v = 0
            for i in range(kh):
                yy = min(max(y + i - ay, 0), h - 1)
                row = p[yy]
                for j in range(kw):
                    if k[i][j]:
                        v += k[i][j] * row[min(max(x + j - ax, 0), w - 1)]
            if real:
                o = math.floor(v + 0.5)
            else:
                o = (2 * v + div) // (2 * div)   # floor(v / div + 1/2)
            out.append(min(max(o + bias, 0), 255))
    sys.stdout.buffer.write(b"P5\n%d %d\n255\n" % (w, h) + bytes(out))


main()
