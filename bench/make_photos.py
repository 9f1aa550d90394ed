"""make_photos.py [-f FORMATS] N DIR SRC... - N photo-like 4000x3000
images (JPEG quality 90 and PNG, the same pixels) in DIR, made from the
sample photos: each a scaled crop of a source with a little sensor noise,
so that every file differs and compresses like a photograph.  FORMATS,
by default jpg,png, may also name pgm: the same photo made gray, as a
file that costs nothing to decode.  Needs OpenCV and NumPy."""
import os
import sys

import cv2
import numpy as np
from multiprocessing import Pool


def one(args):
    i, out, srcs, formats = args
    src = cv2.imread(srcs[i % len(srcs)], cv2.IMREAD_COLOR)
    rng = np.random.default_rng(i)
    h, w = src.shape[:2]
    y, x = rng.integers(0, h // 4 + 1), rng.integers(0, w // 4 + 1)
    crop = src[y:y + h * 3 // 4, x:x + w * 3 // 4]
    big = cv2.resize(crop, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    noise = rng.normal(0, 3, big.shape)
    big = np.clip(big + noise, 0, 255).astype(np.uint8)
    if "jpg" in formats:
        cv2.imwrite(os.path.join(out, "p%04d.jpg" % i), big,
                    [cv2.IMWRITE_JPEG_QUALITY, 90])
    if "png" in formats:
        cv2.imwrite(os.path.join(out, "p%04d.png" % i), big)
    if "pgm" in formats:
        cv2.imwrite(os.path.join(out, "p%04d.pgm" % i),
                    cv2.cvtColor(big, cv2.COLOR_BGR2GRAY))


if __name__ == "__main__":
    args, formats = sys.argv[1:], ["jpg", "png"]
    if args[:1] == ["-f"]:
        formats, args = args[1].split(","), args[2:]
    n, out, srcs = int(args[0]), args[1], args[2:]
    os.makedirs(out, exist_ok=True)
    with Pool(os.cpu_count()) as p:
        p.map(one, [(i, out, srcs, formats) for i in range(n)])
