"""make_mjpeg.py N W H SRC... - an MJPEG stream on standard output: N
colour JPEG frames of W x H (quality 90, chroma 4:2:0, as ffmpeg's mjpeg
encoder and most cameras write), concatenated, for the JPEG stream of
bench/io.sh.  Each frame is a scaled crop of a source photo, panning from
frame to frame, with a little sensor noise; 50 different frames are made
and repeated, which decode as fast as N different ones.  Needs OpenCV
and NumPy."""
import sys

import cv2
import numpy as np

DISTINCT = 50


def frame(i, src, w, h):
    rng = np.random.default_rng(i)
    sh, sw = src.shape[:2]
    x = (sw // 4) * i // DISTINCT
    y = (sh // 4) * i // DISTINCT
    crop = src[y:y + sh * 3 // 4, x:x + sw * 3 // 4]
    big = cv2.resize(crop, (w, h), interpolation=cv2.INTER_CUBIC)
    big = np.clip(big + rng.normal(0, 3, big.shape), 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    if not ok:
        sys.exit("make_mjpeg: cannot encode frame %d" % i)
    return buf.tobytes()


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit("usage: make_mjpeg.py N W H SRC...")
    n, w, h = (int(a) for a in sys.argv[1:4])
    srcs = [cv2.imread(p, cv2.IMREAD_COLOR) for p in sys.argv[4:]]
    frames = [frame(i, srcs[i % len(srcs)], w, h) for i in range(min(n, DISTINCT))]
    out = sys.stdout.buffer
    for i in range(n):
        out.write(frames[i % len(frames)])
