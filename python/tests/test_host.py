"""
gpufilt on NumPy arrays against the tools: each case runs a tool on a
sample and the package on the same file, loaded as the tool reads it;
the two outputs, saved as PNM, must be the same bytes.  Then arrays
without a maxval, strided views, errors as exceptions, threads, and the
GIL released while the library works.  The tools' directory and the
samples' come from $GPUFILT_TOOLS and $GPUFILT_SAMPLES (tests/t_python.sh
sets them).
"""
import os
import subprocess
import tempfile
import threading
import time
import unittest

import numpy as np

import gpufilt

TOOLS = os.environ.get("GPUFILT_TOOLS")
SAMPLES = os.environ.get("GPUFILT_SAMPLES")

# (tool arguments, input, load's gray, the package's call)
CASES = {
    "sobel-t60-pgm": (["sobel", "-t", "60"], "coins.pgm", True,
                      lambda im: gpufilt.sobel(im, threshold=60)),
    "sobel-magnitude-png": (["sobel"], "chelsea.png", True, gpufilt.sobel),
    "sobel-auto-l1-jpeg": (["sobel", "-t", "auto", "--norm", "l1"], "small.jpg", True,
                           lambda im: gpufilt.sobel(im, threshold="auto", norm="l1")),
    "sobel-16bit": (["sobel", "--border", "zero"], "astro16.pgm", True,
                    lambda im: gpufilt.sobel(im, border="zero")),
    "sobel-gx-pgm": (["sobel", "--gradient", "x"], "coins.pgm", True,
                     lambda im: gpufilt.sobel(im, gradient="x")),
    "sobel-gy-reflect-16bit": (["sobel", "--gradient", "y", "--border", "reflect"],
                               "astro16.pgm", True,
                               lambda im: gpufilt.sobel(im, gradient="y",
                                                        border="reflect")),
    "sobel-depth16-png": (["sobel", "--depth", "16"], "chelsea.png", True,
                          lambda im: gpufilt.sobel(im, depth=16)),
    "sobel-operator-sobel5": (["sobel", "--operator", "sobel5", "--border", "reflect"],
                              "coins.pgm", True,
                              lambda im: gpufilt.sobel(im, operator="sobel5",
                                                       border="reflect")),
    "sobel-colour-channels-png": (["sobel", "--colour", "channels"], "chelsea.png", False,
                                  lambda im: gpufilt.sobel(im, colour="channels")),
    "sobel-colour-max-scharr-jpeg": (["sobel", "--colour", "max", "--operator", "scharr",
                                      "--norm", "l1", "-t", "200"], "small.jpg", False,
                                     lambda im: gpufilt.sobel(im, colour="max",
                                                              operator="scharr",
                                                              norm="l1", threshold=200)),
    "conv2d-gauss-colour": (["conv2d", "-k", "gauss:1.4"], "chelsea.png", False,
                            lambda im: gpufilt.conv2d(im, "gauss:1.4")),
    "conv2d-sharpen-reflect": (["conv2d", "-k", "sharpen", "--border", "reflect"],
                               "coins.pgm", False,
                               lambda im: gpufilt.conv2d(im, "sharpen", border="reflect")),
    "conv2d-divisor-bias-16bit": (["conv2d", "-k", "1 2 1; 2 4 2; 1 2 1", "--divisor", "8",
                                   "--bias", "10", "--abs", "--no-separable"],
                                  "astro16.pgm", False,
                                  lambda im: gpufilt.conv2d(im, "1 2 1; 2 4 2; 1 2 1",
                                                            divisor=8, bias=10, abs=True,
                                                            no_separable=True)),
    "edge-default": (["edge"], "coins.pgm", True, gpufilt.edge),
    "edge-sigma-low-high-l1": (["edge", "--sigma", "2", "--low", "20", "--high", "40",
                                "--l1"], "chelsea.png", True,
                               lambda im: gpufilt.edge(im, sigma=2, low=20, high=40,
                                                       l1=True)),
    "edge-high-jpeg": (["edge", "--high", "50", "-j", "1"], "small.jpg", True,
                       lambda im: gpufilt.edge(im, high=50, threads=1)),
    "edge-percent-quantile": (["edge", "--sigma", "0", "--low", "20%", "--high", "q0.9"],
                              "chelsea.png", True,
                              lambda im: gpufilt.edge(im, sigma=0, low="20%",
                                                      high="q0.9")),
    "edge-quantiles": (["edge", "--quantiles", "--low", "0.7", "--high", "0.9"],
                       "coins.pgm", True,
                       lambda im: gpufilt.edge(im, low=0.7, high=0.9, quantiles=True)),
    "edge-colour-max-png": (["edge", "--colour", "max"], "chelsea.png", False,
                            lambda im: gpufilt.edge(im, colour="max")),
    "edge-colour-channels-jpeg": (["edge", "--colour", "channels", "--sigma", "0",
                                   "--low", "40", "--high", "100"], "small.jpg", False,
                                  lambda im: gpufilt.edge(im, colour="channels", sigma=0,
                                                          low=40, high=100)),
}


def run_tool(args, src, dst):
    subprocess.run([os.path.join(TOOLS, args[0]), "-q"] + args[1:] + [src, dst],
                   check=True, stderr=subprocess.PIPE)


def read(path):
    with open(path, "rb") as f:
        return f.read()


@unittest.skipUnless(TOOLS and SAMPLES, "GPUFILT_TOOLS and GPUFILT_SAMPLES are not set")
class ToolBytes(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def same_as_tool(self, args, src, gray, call):
        run_tool(args, src, self.path("tool.pnm"))
        out = call(gpufilt.load(src, gray=gray))
        gpufilt.save(self.path("package.pnm"), out)
        self.assertEqual(read(self.path("package.pnm")), read(self.path("tool.pnm")))
        tool = gpufilt.load(self.path("tool.pnm"))
        self.assertTrue(np.array_equal(out, tool))
        self.assertEqual(out.maxval, tool.maxval)

    def test_maxval_travels(self):
        """A 10-bit PGM and a PBM keep their maxval (1023, 1) through
        load, the filter and save, as the tool does."""
        rng = np.random.default_rng(1)
        ten = rng.integers(0, 1024, (37, 53)).astype(">u2")
        with open(self.path("ten.pgm"), "wb") as f:
            f.write(b"P5 53 37 1023\n" + ten.tobytes())
        self.same_as_tool(["sobel", "-t", "100"], self.path("ten.pgm"), True,
                          lambda im: gpufilt.sobel(im, threshold=100))
        bits = rng.integers(0, 2, (20, 24))
        with open(self.path("bits.pbm"), "w") as f:
            f.write("P1 24 20\n" + "\n".join(" ".join(map(str, r)) for r in bits) + "\n")
        self.same_as_tool(["edge"], self.path("bits.pbm"), True, gpufilt.edge)

    def test_signed_gradients_to_tiff(self):
        """sobel's x and y come back marked offset binary, and save writes
        them to TIFF as the tool does (int16 samples): the same bytes;
        a view keeps the mark, and a plain array takes it by keyword."""
        for args, name, kw in ((["--gradient", "x"], "coins.pgm", {"gradient": "x"}),
                               (["--gradient", "y", "--border", "reflect"], "astro16.pgm",
                                {"gradient": "y", "border": "reflect"})):
            with self.subTest(name):
                src = os.path.join(SAMPLES, name)
                run_tool(["sobel"] + args, src, self.path("tool.tif"))
                out = gpufilt.sobel(gpufilt.load(src, gray=True), **kw)
                self.assertTrue(out.offset_binary)
                gpufilt.save(self.path("package.tif"), out)
                self.assertEqual(read(self.path("package.tif")), read(self.path("tool.tif")))
                gpufilt.save(self.path("view.tif"), out[:, :])
                gpufilt.save(self.path("plain.tif"), np.array(out), offset_binary=True)
                self.assertEqual(read(self.path("view.tif")), read(self.path("tool.tif")))
                self.assertEqual(read(self.path("plain.tif")), read(self.path("tool.tif")))
        self.assertFalse(gpufilt.sobel(gpufilt.load(src, gray=True)).offset_binary)

    def test_colour_with_alpha(self):
        """--colour channels keeps alpha (four channels out), --colour max
        ignores it (one): each the tool's bytes on an RGBA PAM."""
        chelsea = gpufilt.load(os.path.join(SAMPLES, "chelsea.png"))
        alpha = (np.arange(chelsea[..., 0].size) % 251).astype(np.uint8)
        rgba = np.dstack([chelsea, alpha.reshape(chelsea.shape[:2])])
        gpufilt.save(self.path("rgba.pam"), rgba)
        for tool, call, channels in (
                ("sobel", lambda im: gpufilt.sobel(im, colour="channels"), 4),
                ("edge", lambda im: gpufilt.edge(im, colour="channels", high=60), 4),
                ("sobel", lambda im: gpufilt.sobel(im, colour="max"), 1)):
            args = [tool, "--colour", "max" if channels == 1 else "channels"]
            args += ["--high", "60"] if tool == "edge" else []
            with self.subTest(" ".join(args)):
                self.same_as_tool(args, self.path("rgba.pam"), False, call)
                out = call(rgba)
                self.assertEqual(out.shape[2:], (4,) if channels == 4 else ())
                if channels == 4:
                    self.assertTrue(np.array_equal(out[..., 3], rgba[..., 3]))

    def test_png_output(self):
        src = os.path.join(SAMPLES, "chelsea.png")
        run_tool(["conv2d", "-k", "box:5"], src, self.path("tool.png"))
        gpufilt.save(self.path("package.png"), gpufilt.conv2d(gpufilt.load(src), "box:5"))
        self.assertEqual(read(self.path("package.png")), read(self.path("tool.png")))


for _name, (_args, _src, _gray, _call) in CASES.items():
    setattr(ToolBytes, "test_" + _name.replace("-", "_"),
            lambda self, a=_args, s=_src, g=_gray, c=_call:
            self.same_as_tool(a, os.path.join(SAMPLES, s), g, c))


@unittest.skipUnless(SAMPLES, "GPUFILT_SAMPLES is not set")
class Arrays(unittest.TestCase):
    def setUp(self):
        self.coins = gpufilt.load(os.path.join(SAMPLES, "coins.pgm"))
        self.chelsea = gpufilt.load(os.path.join(SAMPLES, "chelsea.png"))

    def test_plain_arrays(self):
        """A plain uint8 array is taken at maxval 255, like the Image."""
        plain = np.array(self.coins)
        self.assertIs(type(plain), np.ndarray)
        self.assertTrue(np.array_equal(gpufilt.sobel(plain, threshold=60),
                                       gpufilt.sobel(self.coins, threshold=60)))

    def test_strided_views(self):
        view = self.chelsea[10:200:2, 5:300:3]
        self.assertTrue(np.array_equal(gpufilt.conv2d(view, "gauss:2"),
                                       gpufilt.conv2d(np.ascontiguousarray(view), "gauss:2")))
        planar = np.moveaxis(np.moveaxis(self.chelsea, 2, 0).copy(), 0, 2)
        self.assertTrue(np.array_equal(gpufilt.conv2d(planar, "gauss:2"),
                                       gpufilt.conv2d(self.chelsea, "gauss:2")))
        flipped = self.coins[::-1]
        self.assertTrue(np.array_equal(gpufilt.edge(flipped),
                                       gpufilt.edge(np.ascontiguousarray(flipped))))

    def test_gray_and_alpha(self):
        """sobel makes colour gray (one channel, 2-D); conv2d keeps alpha."""
        self.assertEqual(gpufilt.sobel(self.chelsea).shape, self.chelsea.shape[:2])
        rgba = np.dstack([self.chelsea, np.arange(self.chelsea[..., 0].size,
                                                  dtype=np.uint8).reshape(self.chelsea.shape[:2])])
        out = gpufilt.conv2d(rgba, "box:3")
        self.assertEqual(out.shape, rgba.shape)
        self.assertTrue(np.array_equal(out[..., 3], rgba[..., 3]))
        self.assertTrue(np.array_equal(out[..., :3], gpufilt.conv2d(self.chelsea, "box:3")))

    def test_cpu_strategy_and_device(self):
        self.assertEqual(gpufilt.device("cpu"), -1)
        self.assertTrue(np.array_equal(gpufilt.edge(self.coins, strategy="cpu"),
                                       gpufilt.edge(self.coins, device="cpu")))

    def test_errors_carry_the_sentence(self):
        cases = [
            (lambda: gpufilt.conv2d(self.coins, "bogus"), gpufilt.EINVAL,
             "'bogus' is not a kernel"),
            (lambda: gpufilt.sobel(self.coins, strategy="fast"), gpufilt.EINVAL, "fast"),
            (lambda: gpufilt.edge(self.coins, sigma=11), gpufilt.EINVAL, "sigma"),
            (lambda: gpufilt.load(os.path.join(SAMPLES, "missing.png")), gpufilt.EIMAGE,
             "cannot open"),
            (lambda: gpufilt.save("/nonexistent-dir/x.png", self.coins), gpufilt.EIMAGE,
             "/nonexistent-dir/x.png"),
            (lambda: gpufilt.sobel(self.coins, device=63), gpufilt.ENOGPU, ""),
            (lambda: gpufilt.sobel(self.chelsea, colour="rgb"), gpufilt.EINVAL,
             "--colour 'rgb' is not a colour mode"),
            (lambda: gpufilt.edge(self.chelsea, colour="all"), gpufilt.EINVAL,
             "not a colour mode"),
            (lambda: gpufilt.edge(self.coins, high="150%"), gpufilt.EINVAL,
             "--high 150%: give a percentage"),
            (lambda: gpufilt.sobel(self.coins, operator="kirsch"), gpufilt.EINVAL,
             "'kirsch' is not an operator"),
            (lambda: gpufilt.save("/tmp/gpufilt-never.tif", self.coins, offset_binary=True),
             gpufilt.EINVAL, "maxval 255"),
        ]
        for call, code, words in cases:
            with self.subTest(words), self.assertRaises(gpufilt.Error) as caught:
                call()
            self.assertEqual(caught.exception.code, code, str(caught.exception))
            self.assertIn(words, str(caught.exception))

    def test_python_refusals(self):
        for call in (lambda: gpufilt.sobel(self.coins.astype(np.float32)),
                     lambda: gpufilt.sobel(np.zeros((4, 4, 5), np.uint8)),
                     lambda: gpufilt.sobel(self.coins, threshold=-1),
                     lambda: gpufilt.sobel(self.coins, norm="l3"),
                     lambda: gpufilt.sobel(self.coins, maxval=1000)):
            with self.assertRaises(ValueError):
                call()

    def test_threads_agree(self):
        want = gpufilt.edge(self.chelsea)
        got = [None] * 4

        def work(i):
            got[i] = gpufilt.edge(self.chelsea)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for g in got:
            self.assertTrue(np.array_equal(g, want))

    def test_gil_released(self):
        """While one thread is inside the library, another runs Python:
        the longest it waits between two steps is a fraction of the call
        (holding the GIL, the call would stop it throughout)."""
        big = np.tile(self.coins, (16, 16))
        took = []

        def work():
            start = time.monotonic()
            gpufilt.edge(big, threads=1, device="cpu")
            took.append(time.monotonic() - start)

        t = threading.Thread(target=work)
        gap, last = 0.0, time.monotonic()
        t.start()
        while t.is_alive():
            now = time.monotonic()
            gap, last = max(gap, now - last), now
        t.join()
        self.assertLess(gap, took[0] / 2, f"longest wait {gap:.3f} s in a {took[0]:.3f} s call")

if __name__ == "__main__":
    unittest.main()
