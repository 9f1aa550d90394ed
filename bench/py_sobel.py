"""
A batch of gray images through sobel three ways, in one run (issue 44's
closing figure), on the GPU machine:

  gpufilt   gpufilt.sobel on CuPy device arrays, each into a device array,
            in one stream, nothing copied to the host;
  cucim     cuCIM's cucim.skimage.filters.sobel on the same arrays (its
            result is float32: a different output, the same kind of work);
  tools     bin/sobel reading the same images as one PGM stream on its
            standard input and writing its output to /dev/null.

Usage: python3 bench/py_sobel.py [-n 1000] [-W 4000] [-H 3000] [-t 60]
(from the top of the repository, with gpufilt installed: pip install
./python).  The images are 8 distinct noise-and-gradient frames used in
turn.  Prints one line per way: images per second and input GB/s.
"""
import argparse
import subprocess
import time

import numpy as np


def frames(k, w, h):
    rng = np.random.default_rng(0)
    ramp = np.add.outer(np.arange(h), np.arange(w)) % 256
    return [((ramp + rng.integers(0, 64, (h, w))) % 256).astype(np.uint8) for _ in range(k)]


def timed(name, n, nbytes, run):
    start = time.perf_counter()
    run()
    s = time.perf_counter() - start
    print(f"{name:8s} {n} images in {s:7.3f} s: {n / s:8.1f} images/s, "
          f"{n * nbytes / s / 1e9:6.2f} GB/s in", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("-W", type=int, default=4000)
    ap.add_argument("-H", type=int, default=3000)
    ap.add_argument("-t", type=float, default=60)
    a = ap.parse_args()
    import cupy
    import gpufilt

    host = frames(8, a.W, a.H)
    dev = [gpufilt.pitched(cupy.asarray(f)) for f in host]
    outs = [gpufilt.sobel(d, threshold=a.t) for d in dev]     # warm up, and the outputs
    stream = cupy.cuda.get_current_stream()
    stream.synchronize()

    def run_gpufilt():
        for i in range(a.n):
            gpufilt.sobel(dev[i % 8], threshold=a.t, out=outs[i % 8])
        stream.synchronize()

    timed("gpufilt", a.n, a.W * a.H, run_gpufilt)
    want = gpufilt.sobel(host[0], threshold=a.t)
    assert np.array_equal(cupy.asnumpy(outs[0]), want), "device result differs from host"

    try:
        from cucim.skimage import filters
    except ImportError as e:
        print(f"cucim    skipped: {e}")
    else:
        filters.sobel(dev[0])
        stream.synchronize()

        def run_cucim():
            for i in range(a.n):
                filters.sobel(dev[i % 8])
            stream.synchronize()

        timed("cucim", a.n, a.W * a.H, run_cucim)

    pgm = [b"P5 %d %d 255\n" % (a.W, a.H) + f.tobytes() for f in host]

    def run_tools():
        with subprocess.Popen(["bin/sobel", "-q", "-t", str(a.t)], stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL) as p:
            for i in range(a.n):
                p.stdin.write(pgm[i % 8])
            p.stdin.close()
        assert p.returncode == 0, f"sobel exited {p.returncode}"

    timed("tools", a.n, a.W * a.H, run_tools)


if __name__ == "__main__":
    main()
