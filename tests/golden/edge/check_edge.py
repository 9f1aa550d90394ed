#!/usr/bin/python3
"""check_edge.py - the independent check of the edge golden files.

A second implementation of edge's rules, written with numpy array
operations (no code shared with lib/): whole-image gradients, the four
sectors, suppression with the documented tie rule, Otsu from its
textbook formula, and hysteresis by repeated 8-neighbour dilation.  It
recomputes every golden file made without smoothing (--sigma 0) and
compares byte for byte; the 8-bit ones are also compared with OpenCV's
cv2.Canny (L2gradient=True), reporting differing interior pixels.
Files made with smoothing are checked through the conv2d tool:
`conv2d -k gauss:S | edge --sigma 0` must give the same bytes.
--colour channels files: each colour channel (OpenCV's BGR, in which it
reads the golden PPM too) is checked alone as a gray image, as above;
--colour max files are tests/golden/check_max.py's.

Run from the project root after make: /usr/bin/python3 tests/golden/edge/check_edge.py
"""
import os
import subprocess
import sys

import cv2
import numpy as np

G = "build/golden/edge"   # tests/golden/unpack.sh writes it


def gray_of(path):
    """The gray the tools take: a colour JPEG's luma (OpenCV's
    IMREAD_GRAYSCALE), other colour by the man page's formula."""
    if path.endswith(".jpg"):
        return cv2.imread(path, cv2.IMREAD_GRAYSCALE).astype(np.int64)
    im = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if im.ndim == 3:
        rgb = im[:, :, 2::-1].astype(np.int64)
        im = (299 * rgb[:, :, 0] + 587 * rgb[:, :, 1] + 114 * rgb[:, :, 2]
              + 500) // 1000
    return im.astype(np.int64)


def pad(p, mode):
    return np.pad(p, 1, mode={"replicate": "edge", "reflect": "reflect",
                              "zero": "constant"}[mode])


def sobel(p, mode):
    q = pad(p, mode)
    h, w = p.shape
    s = lambda dy, dx: q[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
    gx = (s(-1, 1) + 2 * s(0, 1) + s(1, 1)) - (s(-1, -1) + 2 * s(0, -1) + s(1, -1))
    gy = (s(1, -1) + 2 * s(1, 0) + s(1, 1)) - (s(-1, -1) + 2 * s(-1, 0) + s(-1, 1))
    return gx, gy


def otsu(hist):
    best, t = -2.0, 0
    n, s = int(hist.sum()), int((hist * np.arange(len(hist))).sum())
    n0 = s0 = 0
    for i, c in enumerate(hist):
        n0 += int(c)
        s0 += i * int(c)
        if n0 == 0:
            sc = -1.0
        elif n0 == n:
            sc = 0.0
        else:
            d = s0 / n0 - (s - s0) / (n - n0)
            sc = float(n0) * float(n - n0) * (d * d)
        if sc > best:
            best, t = sc, i
    return t


def canny(p, maxval, low, high, l1, auto, mode):
    gx, gy = sobel(p, mode)
    ax, ay = np.abs(gx), np.abs(gy)
    m = ax + ay if l1 else ax * ax + ay * ay
    if auto:
        v = ax + ay if l1 else np.floor(np.sqrt(ax * ax + ay * ay) + 0.5).astype(np.int64)
        t = otsu(np.bincount(np.minimum(v, maxval).ravel(), minlength=maxval + 1))
        lo, hi = (t // 2, t) if l1 else (t * t // 4, t * t)
    else:
        lo, hi = (int(low), int(high)) if l1 else (int(low * low), int(high * high))
    h, w = p.shape
    mp = np.pad(m, 1)
    nb = lambda dy, dx: mp[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
    s0 = ay * 32768 < ax * 13573
    s90 = ~s0 & (ay * 32768 > ax * (13573 + 65536))
    same = (gx < 0) == (gy < 0)
    keep = np.where(s0, (m > nb(0, -1)) & (m >= nb(0, 1)),
           np.where(s90, (m > nb(-1, 0)) & (m >= nb(1, 0)),
           np.where(same, (m > nb(-1, -1)) & (m > nb(1, 1)),
                    (m > nb(-1, 1)) & (m > nb(1, -1)))))
    cand = keep & (m > lo)
    cand[0, :] = cand[-1, :] = False
    cand[:, 0] = cand[:, -1] = False
    edge = cand & (m > hi)
    while True:
        e = np.pad(edge, 1)
        grow = np.zeros_like(edge)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                grow |= e[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
        nxt = edge | (grow & cand)
        if (nxt == edge).all():
            return edge
        edge = nxt


def opts_of(cfg_opts):
    o = dict(sigma=1.4, low=None, high=None, l1=False, auto=False, border="replicate")
    a = cfg_opts.split()
    i = 0
    while i < len(a):
        k = a[i].lstrip("-")
        if k in ("l1", "auto"):
            o[k] = True
            i += 1
        else:
            o[k] = a[i + 1] if k == "border" else float(a[i + 1])
            i += 2
    if o["high"] is None:
        o["auto"] = True
    elif o["low"] is None:
        o["low"] = o["high"] / 2
    return o


def configs():
    out = subprocess.run(["sh", "-c", ". ./tests/cases_edge.sh; edge_configs; "
                          "echo \"$EDGE_SAMPLES\""], capture_output=True,
                         text=True, check=True).stdout.split("\n")
    lines = [l for l in out if "|" in l]
    samples = " ".join(l for l in out if "|" not in l).split()
    return [l.split("|") for l in lines], samples


def check(p, maxval, o, opt, want, gold=None):
    """Whether the edges of gray p under options o (text opt) are want
    (through conv2d, the bytes of file gold where given); and the
    message."""
    if o["sigma"] > 0:
        # Colour is made gray first (numpy), then smoothed by conv2d.
        src = "/tmp/check_edge_gray.pgm"
        cv2.imwrite(src, p.astype(np.uint16 if maxval > 255 else np.uint8))
        cmd = "bin/conv2d --cpu -k gauss:%g --border %s %s | " \
              "bin/edge --cpu --sigma 0 %s" % (
                  o["sigma"], o["border"], src,
                  opt.replace("--sigma %g" % o["sigma"], "")
                  .replace("--sigma 2.5", "").replace("--sigma 1", ""))
        got = subprocess.run(["sh", "-c", cmd], capture_output=True).stdout
        if gold is not None:
            ok = got == open(gold, "rb").read()
        else:
            got = cv2.imdecode(np.frombuffer(got, np.uint8), cv2.IMREAD_UNCHANGED)
            ok = got is not None and np.array_equal(got.astype(np.int64), want)
        return ok, "%-9s via conv2d | edge --sigma 0" % ("same" if ok else "DIFFERENT")
    e = canny(p, maxval, o["low"] or 0, o["high"] or 0, o["l1"], o["auto"], o["border"])
    ok = np.array_equal(np.where(e, maxval, 0), want)
    msg = "numpy %s" % ("same" if ok else "DIFFERENT")
    if maxval == 255 and not o["auto"] and not o["l1"] and o["border"] == "replicate" \
            and min(p.shape) > 2:
        ref = cv2.Canny(p.astype(np.uint8), o["low"], o["high"], L2gradient=True) > 0
        d = np.count_nonzero(ref[1:-1, 1:-1] != (want[1:-1, 1:-1] > 0))
        msg += ", %d of %d interior pixels differ from cv2.Canny" % (
            d, (p.shape[0] - 2) * (p.shape[1] - 2))
    return ok, msg


def main():
    subprocess.run(["sh", "tests/golden/unpack.sh"], check=True)   # the goldens: build/golden
    bad = 0
    cfgs, samples = configs()
    for name, o8, o16 in cfgs:
        if "--colour max" in o8:
            continue        # tests/golden/check_max.py checks these
        chan = "--colour channels" in o8
        for s in samples:
            opt = (o16 if s.startswith("astro16") else o8).replace("--colour channels", "")
            o = opts_of(opt)
            colour = chan and s.startswith(("chelsea", "small"))
            gold = "%s/%s.%s.%s" % (G, s.rsplit(".", 1)[0], name, "ppm" if colour else "pgm")
            want = cv2.imread(gold, cv2.IMREAD_UNCHANGED).astype(np.int64)
            maxval = 65535 if s.startswith("astro16") else 255
            if colour:
                # --colour channels: each channel (BGR here and in the
                # golden, as OpenCV reads both) detected alone, as gray.
                im = cv2.imread("samples/" + s, cv2.IMREAD_COLOR).astype(np.int64)
                res = [check(im[..., c], maxval, o, opt, want[..., c]) for c in range(3)]
                ok = all(r[0] for r in res)
                msg = "; ".join("BGR"[c] + ": " + r[1] for c, r in enumerate(res))
            else:
                ok, msg = check(gray_of("samples/" + s), maxval, o, opt, want, gold)
            print("%-28s %s" % (gold, msg))
            bad += not ok
    print("%d golden files disagree" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
