"""opencv_batch.py PROCS OUTDIR FILE... - the OpenCV way to make Canny edge
maps of a batch: imread as gray, GaussianBlur sigma 1.4, Canny, imwrite
PGM, on PROCS processes.  The reference for bench/io.sh's batch."""
import os
import sys
from multiprocessing import Pool

import cv2

OUT = sys.argv[2]


def one(path):
    g = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    g = cv2.GaussianBlur(g, (0, 0), 1.4)
    e = cv2.Canny(g, 50, 100)
    name = os.path.splitext(os.path.basename(path))[0] + ".pgm"
    cv2.imwrite(os.path.join(OUT, name), e)


if __name__ == "__main__":
    cv2.setNumThreads(1)
    with Pool(int(sys.argv[1])) as p:
        p.map(one, sys.argv[3:], chunksize=1)
