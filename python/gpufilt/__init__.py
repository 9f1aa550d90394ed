"""
gpufilt: the filters of the tools sobel(1), conv2d(1) and edge(1) on
NumPy arrays, on a GPU or the CPU, and on CUDA device arrays (CuPy,
PyTorch) in the caller's stream, through libgpufilt (gpufilt(3)).

    import gpufilt
    img = gpufilt.load("photo.jpg", gray=True)      # as sobel reads it
    edges = gpufilt.sobel(img, threshold=60)        # sobel -t 60
    gpufilt.save("edges.png", edges)

Images are uint8 or uint16 arrays, (height, width) or (height, width,
channels) with 1 to 4 channels (gray, gray+alpha, RGB, RGB+alpha); one
channel comes back 2-D.  Samples run from 0 to the image's maxval: the
maxval of an Image (what load and the filters return), else the dtype's
largest (255, 65535), or the maxval keyword.  Options are keywords named
after the tools' options, with their defaults; the results are the
tools' bytes.  Failures raise gpufilt.Error with the library's sentence.
The library works without the GIL, so threads run side by side.
"""
import ctypes
import threading
import weakref

import numpy as np

from . import _capi
from ._capi import lib, OK, EINVAL, ENOMEM, ENOGPU, ECUDA, EIMAGE

__all__ = ["Error", "Image", "load", "save", "sobel", "conv2d", "edge",
           "pitched", "device", "OK", "EINVAL", "ENOMEM", "ENOGPU", "ECUDA",
           "EIMAGE"]
__version__ = lib.gf_version().decode()


class Error(Exception):
    """What libgpufilt refused or what failed: str() is its sentence,
    code its error code (gpufilt.h's GF_EINVAL ... GF_EIMAGE)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class Image(np.ndarray):
    """A NumPy array of samples that keeps the image's maxval (1 to
    65535) and offset_binary (True: signed values g held as g + 32768,
    sobel's gradient "x" and "y", which save writes to TIFF as int16):
    what load and the host filters return.  A view or a result computed
    from it keeps both too."""

    def __array_finalize__(self, obj):
        self.maxval = getattr(obj, "maxval", None)
        self.offset_binary = getattr(obj, "offset_binary", False)


def _check(rc, err):
    if rc != _capi.OK:
        raise Error(err.code, err.message.decode(errors="replace"))


class _Context:
    """A gf_context, closed when dropped."""

    def __init__(self, device):
        err = _capi.Error()
        self.handle = lib.gf_open(device, ctypes.byref(err))
        if not self.handle:
            _check(err.code or _capi.EINVAL, err)

    def __del__(self):
        if getattr(self, "handle", None) and lib is not None:
            lib.gf_close(self.handle)


_contexts = threading.local()


def _context(dev):
    """This thread's context on dev (None: a GPU if any, "cpu", or a GPU
    number): one per thread, so that threads' calls do not queue on one."""
    key = {None: _capi.DEVICE_AUTO, "cpu": _capi.DEVICE_CPU}.get(dev, dev)
    if not isinstance(key, int):
        raise ValueError(f"device is {dev!r}; it must be None, 'cpu' or a GPU number")
    cache = _contexts.__dict__.setdefault("by_device", {})
    if key not in cache:
        cache[key] = _Context(key)
    return cache[key].handle


def device(dev=None):
    """The GPU number that filters with device=dev run on, or -1 for the
    CPU (None: a GPU if there is one, as the tools choose)."""
    return lib.gf_device(_context(dev))


# ---- options

def _options(strategy, border, threads, block, rows, **own):
    """A gf_options from the shared options and an operation's own."""
    o = _capi.Options()
    lib.gf_options_init(ctypes.byref(o))
    o.strategy, o.border = strategy.encode(), border.encode()
    o.threads, o.rows = threads, rows
    if block is not None:
        w, h = (block.lower().split("x") if isinstance(block, str) else block)
        o.block_w, o.block_h = int(w), int(h)
    for name, value in own.items():
        setattr(o, name, value.encode() if isinstance(value, str) else value)
    return o


def _maxval(a, maxval):
    """maxval, else a's dtype's largest value, checked against the dtype."""
    maxval = maxval or np.iinfo(a.dtype).max
    if (maxval > 255) != (a.dtype == np.uint16):
        raise ValueError(f"maxval {maxval} needs {'uint16' if maxval > 255 else 'uint8'} "
                         f"samples; these are {a.dtype}")
    return maxval


# ---- host images

def _host_image(a, maxval, offset_binary=None):
    """A gf_image over NumPy array a (rows may be strided; pixels packed),
    and the array it points into; offset_binary None: a's own (an
    Image's), else False."""
    maxval = maxval or getattr(a, "maxval", None)
    if offset_binary is None:
        offset_binary = getattr(a, "offset_binary", False)
    a = np.asarray(a)
    if a.dtype not in (np.uint8, np.uint16):
        raise ValueError(f"the image is {a.dtype}; it must be uint8 or uint16")
    if a.ndim not in (2, 3) or (a.ndim == 3 and not 1 <= a.shape[2] <= 4):
        raise ValueError(f"the image's shape is {a.shape}; it must be (height, width) "
                         "or (height, width, 1 to 4 channels)")
    channels = a.shape[2] if a.ndim == 3 else 1
    packed = (channels * a.itemsize, a.itemsize)[:a.ndim - 1]
    if a.strides[1:] != packed or a.strides[0] < a.shape[1] * packed[0]:
        a = np.ascontiguousarray(a)
    img = _capi.Image(a.shape[1], a.shape[0], channels, _maxval(a, maxval),
                      a.strides[0], a.ctypes.data, int(bool(offset_binary)))
    return img, a


def _owned(img):
    """The library's image img as an Image that frees it when it goes."""
    dtype = np.uint8 if img.maxval <= 255 else np.uint16
    shape = (img.height, img.width) + ((img.channels,) if img.channels > 1 else ())
    buf = (ctypes.c_char * (img.stride * img.height)).from_address(img.data)
    # Not at exit: a thread may still read it then.
    weakref.finalize(buf, lib.gf_image_free, ctypes.byref(img)).atexit = False
    out = np.frombuffer(buf, dtype).reshape(shape).view(Image)
    out.maxval = img.maxval
    out.offset_binary = bool(img.offset_binary)
    return out


def _host(fn, image, maxval, device, o):
    src, pixels = _host_image(image, maxval)    # pixels: alive through the call
    out, err = _capi.Image(), _capi.Error()
    _check(fn(_context(device), ctypes.byref(src), ctypes.byref(out),
              ctypes.byref(o), ctypes.byref(err)), err)
    return _owned(out)


def load(path, gray=False, autorotate=True):
    """The first image of the file at path, in any format the tools read
    (PNM, PNG, JPEG, TIFF, WebP, BMP, TGA, GIF), as an Image.  gray=True
    reads it as sobel and edge do (a colour JPEG as its luma), which
    gives the tools' bytes; autorotate=False keeps the pixels as stored
    (--no-autorotate)."""
    img, err = _capi.Image(), _capi.Error()
    flags = (_capi.LOAD_GRAY if gray else 0) | (0 if autorotate else _capi.LOAD_AS_STORED)
    _check(lib.gf_load(str(path).encode(), ctypes.byref(img), flags,
                       ctypes.byref(err)), err)
    return _owned(img)


def save(path, image, maxval=None, offset_binary=None):
    """Writes image to path whole or not at all, in the format its
    extension names (.pgm .ppm .pam .png .jpg .tif .webp; PNM without).
    offset_binary (default: the Image's own, else False) says the uint16
    samples are g + 32768 of signed g, as sobel's gradient "x" and "y":
    TIFF then holds int16 samples, as sobel(1) writes them."""
    src, pixels = _host_image(image, maxval, offset_binary)
    err = _capi.Error()
    _check(lib.gf_save(str(path).encode(), ctypes.byref(src), ctypes.byref(err)), err)


# ---- device images

def _cuda_view(a, what):
    """(gf_image fields) of CUDA array a, from __cuda_array_interface__."""
    cai = a.__cuda_array_interface__
    shape, typestr = tuple(cai["shape"]), cai["typestr"]
    if typestr not in ("|u1", "<u2") or len(shape) not in (2, 3) or \
            (len(shape) == 3 and shape[2] != 1):
        raise ValueError(f"the {what} device array is {typestr} {shape}; it must "
                         "be uint8 or uint16, (height, width)")
    item = int(typestr[2])
    strides = cai.get("strides") or (shape[1] * item, item)
    if strides[1] != item:
        raise ValueError(f"the {what} device array's pixels are {strides[1]} bytes "
                         "apart; a row must be packed")
    return shape[1], shape[0], strides[0], cai["data"][0], item


def pitched(a):
    """A copy of CuPy or PyTorch device array a (2-D) whose rows start
    every multiple of 256 bytes, as the device filters need (a view of a
    wider array, as cudaMallocPitch lays one out)."""
    out = _empty_pitched(a)
    out[...] = a.reshape(out.shape)
    return out


def _empty_pitched(a, dtype=None):
    """An uninitialized array like pitched(a), on a's GPU; of dtype
    (a name: "uint16") if given, else a's."""
    framework = type(a).__module__.split(".")[0]
    if framework not in ("torch", "cupy"):
        raise ValueError(f"gpufilt makes device arrays of CuPy and PyTorch; for a "
                         f"{type(a).__name__}, give out=")
    h, w = a.shape[:2]
    if framework == "torch":
        if dtype:
            raise ValueError(f"PyTorch's device arrays have no {dtype} the library "
                             "can take; give a CuPy array, or out= one")
        import torch
        pitch = -(-w * a.dtype.itemsize // 256) * 256 // a.dtype.itemsize
        return torch.empty((h, pitch), dtype=a.dtype, device=a.device)[:, :w]
    import cupy
    dt = cupy.dtype(dtype) if dtype else a.dtype
    pitch = -(-w * dt.itemsize // 256) * 256 // dt.itemsize
    with cupy.cuda.Device(a.device.id):
        return cupy.empty((h, pitch), dtype=dt)[:, :w]


def _stream_and_device(a, stream):
    """The stream to queue in (the framework's current one unless given)
    and the GPU of a."""
    if type(a).__module__.startswith("torch"):
        import torch
        s = stream if stream is not None else torch.cuda.current_stream(a.device)
        return getattr(s, "cuda_stream", s), a.device.index
    if type(a).__module__.startswith("cupy"):
        import cupy
        with cupy.cuda.Device(a.device.id):
            s = stream if stream is not None else cupy.cuda.get_current_stream()
        return getattr(s, "ptr", s), a.device.id
    return getattr(stream, "ptr", getattr(stream, "cuda_stream", stream)) or 0, None


def _device(fn, a, out, stream, maxval, device, o, wide=False):
    w, h, stride, ptr, item = _cuda_view(a, "input")
    if out is None:
        out = _empty_pitched(a, "uint16" if wide else None)
    ow, oh, ostride, optr, oitem = _cuda_view(out, "output")
    if oitem != (2 if wide else item):
        raise ValueError("the output device array's dtype must be " +
                         ("uint16" if wide else "the input's"))
    maxval = maxval or (255 if item == 1 else 65535)
    src = _capi.Image(w, h, 1, maxval, stride, ptr)
    dst = _capi.Image(ow, oh, 1, 65535 if wide else maxval, ostride, optr)
    stream, dev = _stream_and_device(a, stream)
    err = _capi.Error()
    _check(fn(_context(device if dev is None else dev), ctypes.byref(src), ctypes.byref(dst), ctypes.byref(o),
              stream, ctypes.byref(err)), err)
    return out


def _run(name, image, out, stream, maxval, device, o, wide=False):
    """The host or device call of filter name on image; wide: its output
    is 16-bit, maxval 65535, at any input depth (sobel x, y, depth 16)."""
    if hasattr(image, "__cuda_array_interface__"):
        return _device(getattr(lib, f"gf_{name}_device"), image, out, stream, maxval,
                       device, o, wide)
    if out is not None or stream is not None:
        raise ValueError("out and stream are for device arrays; this image is "
                         "in host memory")
    return _host(getattr(lib, f"gf_{name}"), image, maxval, device, o)


_SHARED_DOC = """
    Shared options, as the tools': strategy (-m: "auto", "cpu",
    "global", "texture", "shared", "sliding"), border ("replicate",
    "zero", "reflect", "wrap"), threads (-j: CPU threads, 0 one per
    CPU), block ("WxH" or (w, h): threads per block), rows (rows per
    thread); device (None: a GPU if there is one, else the CPU; "cpu";
    a GPU number); maxval (the samples' largest value; default the
    Image's or the dtype's).

    image may be a CUDA device array (CuPy, PyTorch: anything with
    __cuda_array_interface__), gray, whose rows start every multiple of
    256 bytes (see pitched): the work is queued in stream (default: the
    framework's current stream; else the legacy default stream) into
    out (default: a new pitched array of the same framework), which is
    returned at once, nothing copied to the host; maxval defaults to the
    dtype's largest."""


def sobel(image, threshold=None, norm="l2", gradient="magnitude", depth=None,
          colour="gray", operator="sobel", *,
          strategy="auto", border="replicate", threads=0, block=None, rows=0,
          device=None, maxval=None, out=None, stream=None):
    """sobel(1): the gradient magnitude of image (colour made gray), or
    with threshold T an edge map (maxval where the gradient exceeds T,
    else 0); threshold="auto" takes Otsu's threshold (-t auto); norm
    "l1" is |gx| + |gy| (--norm l1).  gradient (--gradient): "magnitude",
    "direction" (256 bins), or "x", "y": the signed gradient at 16 bits,
    uint16 samples g + 32768 (as OpenCV's CV_16S: (a ^ 0x8000).view(
    np.int16)), an Image whose offset_binary is True; depth=16 (--depth
    16): the magnitude at 16 bits, uint16, whatever image's depth.
    colour (--colour): "gray"; "channels", each colour channel alone,
    alpha kept (as vips sobel); "max", the gradient of the colour
    channel whose gradient is largest (as OpenCV's colour Canny).
    operator (--operator): "sobel" (3x3), "prewitt", "scharr",
    "sobel5", "sobel7"."""
    auto = isinstance(threshold, str) and threshold == "auto"
    if not (threshold is None or auto or float(threshold) >= 0):
        raise ValueError(f"threshold is {threshold!r}; it must be 0 or more, or 'auto'")
    if norm not in ("l1", "l2"):
        raise ValueError(f"norm is {norm!r}; it must be 'l2' or 'l1'")
    o = _options(strategy, border, threads, block, rows, l1=int(norm == "l1"),
                 auto_threshold=int(auto),
                 threshold=-1.0 if threshold is None or auto else float(threshold),
                 gradient=gradient, depth=int(depth or 0), colour=colour,
                 op=operator)
    wide = gradient in ("x", "y") or depth == 16
    return _run("sobel", image, out, stream, maxval, device, o, wide)


def conv2d(image, kernel, normalize=False, divisor=None, bias=0.0, abs=False,
           no_separable=False, *, strategy="auto", border="replicate",
           threads=0, block=None, rows=0, device=None, maxval=None, out=None,
           stream=None):
    """conv2d(1): image filtered by kernel (-k: "1 2 1; 2 4 2; 1 2 1",
    "@file", "box:N", "gauss:SIGMA[:SIZE]", "sharpen", "laplace",
    "emboss", "sobelx", "sobely", "identity"), each colour channel, alpha
    kept; normalize (--normalize), divisor (--divisor D), bias (--bias
    B), abs (--abs), no_separable (--no-separable) as the tool's."""
    o = _options(strategy, border, threads, block, rows, kernel=kernel,
                 normalize=int(normalize), divisor=float(divisor or 0),
                 bias=float(bias), abs=int(abs), no_separable=int(no_separable))
    return _run("conv2d", image, out, stream, maxval, device, o)


def edge(image, sigma=1.4, low=None, high=None, auto=False, l1=False,
         colour="gray", quantiles=False, *,
         strategy="auto", border="replicate", threads=0, block=None, rows=0,
         device=None, maxval=None, out=None, stream=None):
    """edge(1): Canny's edges of image (colour made gray): Gaussian
    smoothing of sigma (--sigma; 0 none), thresholds low and high
    (--low, --high: magnitudes, or strings as the tool takes them,
    "30%" of the magnitudes' range or "q0.9" a quantile of them; high
    alone: low = high / 2; neither, or auto=True: Otsu's, --auto),
    quantiles (--quantiles: plain numbers are quantiles), l1 (--l1:
    |gx| + |gy|); colour (--colour) "gray", "channels" (each colour
    channel alone, alpha kept) or "max" (Canny on the largest-gradient
    channel, as OpenCV's cv2.Canny on colour)."""
    def given(t):
        """(number, spec) of a threshold: a string, or any number with
        quantiles, goes as the tool's text."""
        if t is None:
            return -1.0, None
        if isinstance(t, str) or quantiles:
            return -1.0, str(t)
        return float(t), None
    (low, low_spec), (high, high_spec) = given(low), given(high)
    o = _options(strategy, border, threads, block, rows, sigma=float(sigma),
                 low=low, high=high, low_spec=low_spec, high_spec=high_spec,
                 quantiles=int(quantiles), auto_threshold=int(auto), l1=int(l1),
                 colour=colour)
    return _run("edge", image, out, stream, maxval, device, o)


for _f in (sobel, conv2d, edge):
    _f.__doc__ += _SHARED_DOC
