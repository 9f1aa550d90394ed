"""
gpufilt on CUDA device arrays, CuPy's and PyTorch's: the same bytes as
the host filters, in the caller's stream, into the caller's array, with
nothing copied to the host (each framework's own guard, set to fail on
any synchronizing copy, stays quiet).  Skipped without CuPy or PyTorch
and a GPU; the samples' directory comes from $GPUFILT_SAMPLES.
"""
import os
import unittest

import numpy as np

import gpufilt

SAMPLES = os.environ.get("GPUFILT_SAMPLES")

try:
    import cupy
    import cupyx
    HAVE_CUPY = cupy.cuda.runtime.getDeviceCount() > 0
except Exception:  # not installed, or no GPU or driver
    HAVE_CUPY = False
try:
    import torch
    HAVE_TORCH = torch.cuda.is_available()
except Exception:
    HAVE_TORCH = False

# (name, the call on host and device alike)
CALLS = [
    ("sobel-t60", lambda a, **k: gpufilt.sobel(a, threshold=60, **k)),
    ("sobel-auto-shared", lambda a, **k: gpufilt.sobel(a, threshold="auto",
                                                        strategy="shared", **k)),
    ("conv2d-gauss", lambda a, **k: gpufilt.conv2d(a, "gauss:1.4", **k)),
    ("conv2d-laplace-texture", lambda a, **k: gpufilt.conv2d(a, "laplace", bias=128,
                                                             strategy="texture", **k)),
    ("edge", lambda a, **k: gpufilt.edge(a, **k)),
    # On one channel every colour mode is the gray's, on host and device.
    ("sobel-max-scharr", lambda a, **k: gpufilt.sobel(a, colour="max",
                                                      operator="scharr", **k)),
    ("edge-channels", lambda a, **k: gpufilt.edge(a, colour="channels", **k)),
]


def images():
    """Gray samples, 8 and 16 bit, at widths that need a pitch."""
    return [gpufilt.load(os.path.join(SAMPLES, n), gray=True)
            for n in ("coins.pgm", "chelsea.png", "astro16.pgm")]


class DeviceCases:
    """What both frameworks must do; to_device, to_host, guard and
    stream come from the framework's class."""

    dtypes = (np.uint8, np.uint16)

    def test_same_as_host(self):
        for img in (i for i in images() if i.dtype in self.dtypes):
            dev = gpufilt.pitched(self.to_device(img))
            for name, call in CALLS:
                with self.subTest(f"{name} {img.dtype} {img.shape}"):
                    want = call(img)
                    with self.guard():
                        got = call(dev, maxval=img.maxval)
                    self.assertTrue(np.array_equal(self.to_host(got), want))

    def test_into_out_in_a_stream(self):
        """out= is written in place (the same memory, returned), in the
        stream given, which the caller then waits for."""
        img = images()[1]
        dev = gpufilt.pitched(self.to_device(img))
        out = gpufilt.pitched(self.to_device(np.zeros_like(img)))
        ptr = out.__cuda_array_interface__["data"][0]
        stream = self.new_stream()
        with self.guard():
            got = gpufilt.edge(dev, out=out, stream=stream)
        self.assertIs(got, out)
        self.assertEqual(got.__cuda_array_interface__["data"][0], ptr)
        stream.synchronize()
        self.assertTrue(np.array_equal(self.to_host(out), gpufilt.edge(img)))

    def test_unpitched_refused(self):
        img = images()[0]          # 384 bytes a row: not a multiple of 256
        with self.assertRaises(gpufilt.Error) as caught:
            gpufilt.sobel(self.to_device(img))
        self.assertIn("multiples of 256 bytes", str(caught.exception))


@unittest.skipUnless(HAVE_CUPY and SAMPLES, "no CuPy with a GPU, or GPUFILT_SAMPLES unset")
class CuPy(DeviceCases, unittest.TestCase):
    def to_device(self, a):
        return cupy.asarray(np.asarray(a))

    def to_host(self, a):
        return cupy.asnumpy(a)

    def guard(self):
        return cupyx.allow_synchronize(False)

    def new_stream(self):
        return cupy.cuda.Stream(non_blocking=True)

    def test_wide_outputs(self):
        """sobel's 16-bit outputs (gradient x, y, depth 16) into uint16
        device arrays, 8- and 16-bit input: the host call's samples."""
        for img in images():
            dev = gpufilt.pitched(self.to_device(img))
            for kw in ({"gradient": "x"}, {"gradient": "y", "border": "wrap"},
                       {"depth": 16}):
                with self.subTest(f"{kw} {img.dtype} {img.shape}"):
                    want = gpufilt.sobel(img, **kw)
                    with self.guard():
                        got = gpufilt.sobel(dev, maxval=img.maxval, **kw)
                    self.assertEqual(got.dtype, np.uint16)
                    self.assertTrue(np.array_equal(self.to_host(got), want))


@unittest.skipUnless(HAVE_TORCH and SAMPLES, "no PyTorch with a GPU, or GPUFILT_SAMPLES unset")
class Torch(DeviceCases, unittest.TestCase):
    dtypes = (np.uint8,)        # PyTorch's __cuda_array_interface__ has no uint16

    def to_device(self, a):
        return torch.from_numpy(np.asarray(a)).cuda()

    def to_host(self, a):
        return a.cpu().numpy()

    def guard(self):
        return SyncDebug()

    def new_stream(self):
        return torch.cuda.Stream()


class FakeDeviceArray:
    """An array that says it is on a GPU (nothing is read through it)."""

    def __init__(self, h, w, pitch):
        self.__cuda_array_interface__ = {"shape": (h, w), "typestr": "|u1",
                                         "strides": (pitch, 1), "data": (1 << 20, False),
                                         "version": 2}


class OnTheCPU(unittest.TestCase):
    def test_device_call_reaches_the_library(self):
        """On a CPU context a device array's call is refused by the library
        (GF_ENOGPU and its sentence), after the package took it apart."""
        with self.assertRaises(gpufilt.Error) as caught:
            gpufilt.sobel(FakeDeviceArray(4, 300, 512), out=FakeDeviceArray(4, 300, 512),
                          device="cpu")
        self.assertEqual(caught.exception.code, gpufilt.ENOGPU)
        self.assertIn("need a context on a GPU", str(caught.exception))
        with self.assertRaises(ValueError):
            gpufilt.sobel(FakeDeviceArray(4, 300, 512))


class SyncDebug:
    """torch.cuda.set_sync_debug_mode("error") for a with block: any
    synchronizing PyTorch call (a copy to the host) raises."""

    def __enter__(self):
        torch.cuda.set_sync_debug_mode("error")

    def __exit__(self, *exc):
        torch.cuda.set_sync_debug_mode("default")


if __name__ == "__main__":
    unittest.main()
