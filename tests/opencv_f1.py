#!/usr/bin/python3
"""opencv_f1.py - how closely edge matches OpenCV's Canny.

For each photograph and each (low, high) pair, runs
    edge --sigma 0 --low L --high H   (the CPU reference, or -m STRATEGY)
and cv2.Canny(gray, L, H, L2gradient=True) on the same gray image, and
prints the F1 score of the edge pixels over the interior (the outer
one-pixel frame excluded), then the mean.  Exits 1 if the mean is below
0.97.

Not part of `make test` (the GPU machine has no OpenCV).  Needs Debian's
python3-opencv and python3-numpy:
    /usr/bin/python3 tests/opencv_f1.py [-m cpu|global|...] [images...]
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np

PAIRS = [(20, 60), (50, 100), (50, 150), (100, 200), (150, 300)]


def f1(ours, ref):
    a = ours[1:-1, 1:-1] > 0
    b = ref[1:-1, 1:-1] > 0
    tp = np.count_nonzero(a & b)
    fp = np.count_nonzero(a & ~b)
    fn = np.count_nonzero(~a & b)
    return 1.0 if tp + fp + fn == 0 else 2.0 * tp / (2 * tp + fp + fn)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-m", default="cpu", help="edge strategy (default cpu)")
    ap.add_argument("--bin", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "bin", "edge"))
    ap.add_argument("images", nargs="*")
    args = ap.parse_args()
    images = args.images or sorted(glob.glob("/work/shared/images/*.png") +
                                   glob.glob("/work/shared/images/*.jpg"))
    scores = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in images:
            gray = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
            src = os.path.join(tmp, "in.pgm")
            cv2.imwrite(src, gray)
            for lo, hi in PAIRS:
                dst = os.path.join(tmp, "out.pgm")
                subprocess.run([args.bin, "-m", args.m, "--sigma", "0",
                                "--low", str(lo), "--high", str(hi), src, dst],
                               check=True)
                ours = cv2.imread(dst, cv2.IMREAD_UNCHANGED)
                ref = cv2.Canny(gray, lo, hi, L2gradient=True)
                s = f1(ours, ref)
                scores.append(s)
                print("%-14s %4d %4d  edges %7d (OpenCV %7d)  F1 %.5f" % (
                    os.path.basename(path), lo, hi,
                    np.count_nonzero(ours[1:-1, 1:-1]),
                    np.count_nonzero(ref[1:-1, 1:-1]), s))
    mean = sum(scores) / len(scores)
    print("mean F1 over %d runs: %.5f (min %.5f)" % (len(scores), mean,
                                                    min(scores)))
    return 0 if mean >= 0.97 else 1


if __name__ == "__main__":
    sys.exit(main())
