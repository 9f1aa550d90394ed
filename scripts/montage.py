#!/usr/bin/python3
"""montage.py - one picture of several PNM images, for make demo.

    montage.py OUT.pgm A.pnm B.pnm / C.pnm D.pnm E.pnm / ...

puts the images of each group side by side (a 4-pixel gap), the
groups one under the other, on black, as an 8-bit PGM (colour made gray
as Y = (299 R + 587 G + 114 B + 500) / 1000, 16 bit cut to 8).  Plain
Python, no numpy.
"""
import sys


def read_pnm(path):
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
        while pos < len(data) and not data[pos:pos + 1].isspace():
            pos += 1
        fields.append(data[start:pos])
    kind, w, h, maxval = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
    if kind not in (b"P5", b"P6"):
        raise SystemExit("montage.py: %s is not a PGM or PPM" % path)
    ch, size = (3 if kind == b"P6" else 1), (2 if maxval > 255 else 1)
    px = data[pos + 1:pos + 1 + w * h * ch * size]
    if size == 2:
        px = px[0::2]
    if ch == 3:
        px = bytes((299 * px[i] + 587 * px[i + 1] + 114 * px[i + 2] + 500) // 1000
                   for i in range(0, len(px), 3))
    if maxval not in (255, 65535):
        px = bytes(min(255, v * 255 // maxval) for v in px)
    return w, h, px


def main():
    out, groups, cur = sys.argv[1], [], []
    for a in sys.argv[2:] + ["/"]:
        if a == "/":
            if cur:
                groups.append(cur)
            cur = []
        else:
            cur.append(read_pnm(a))
    gap = 4
    widths = [sum(w for w, _, _ in g) + gap * (len(g) - 1) for g in groups]
    heights = [max(h for _, h, _ in g) for g in groups]
    W, H = max(widths), sum(heights) + gap * (len(groups) - 1)
    canvas = bytearray(W * H)
    y0 = 0
    for g, gh in zip(groups, heights):
        x0 = 0
        for w, h, px in g:
            for y in range(h):
                canvas[(y0 + y) * W + x0:(y0 + y) * W + x0 + w] = px[y * w:(y + 1) * w]
            x0 += w + gap
        y0 += gh + gap
    open(out, "wb").write(b"P5\n%d %d\n255\n" % (W, H) + bytes(canvas))


main()
