"""
libgpufilt's C API (gpufilt.h) for ctypes: its structs field for field,
the functions' signatures, and the library, loaded once.  ctypes calls
release the GIL while the library works.  tests/test_layout.py checks
these layouts against the header's, compiled.
"""
import ctypes
import os

c_int, c_uint, c_double = ctypes.c_int, ctypes.c_uint, ctypes.c_double
c_size_t, c_void_p, c_char_p = ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p

# Error codes (GF_OK ...), gf_open's devices, gf_load's flags.
OK, EINVAL, ENOMEM, ENOGPU, ECUDA, EIMAGE = range(6)
DEVICE_AUTO, DEVICE_CPU = -1, -2
LOAD_GRAY, LOAD_AS_STORED = 1, 2


class Error(ctypes.Structure):
    _fields_ = [("code", c_int), ("message", ctypes.c_char * 512)]


class Image(ctypes.Structure):
    _fields_ = [("width", c_int), ("height", c_int), ("channels", c_int),
                ("maxval", c_uint), ("stride", c_size_t), ("data", c_void_p),
                ("offset_binary", c_int)]


class Options(ctypes.Structure):
    _fields_ = [("strategy", c_char_p), ("border", c_char_p),
                ("threads", c_int), ("block_w", c_int), ("block_h", c_int),
                ("rows", c_int), ("l1", c_int), ("auto_threshold", c_int),
                ("colour", c_char_p),
                ("threshold", c_double), ("gradient", c_char_p),
                ("depth", c_int), ("op", c_char_p),
                ("kernel", c_char_p), ("normalize", c_int),
                ("divisor", c_double), ("bias", c_double), ("abs", c_int),
                ("no_separable", c_int),
                ("sigma", c_double), ("low", c_double), ("high", c_double),
                ("low_spec", c_char_p), ("high_spec", c_char_p),
                ("quantiles", c_int)]


def _library_path():
    """$GPUFILT_LIBRARY; the copy the wheel carries; the repository's
    build (a source checkout on sys.path); else the loader's search."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.environ.get("GPUFILT_LIBRARY"),
                 os.path.join(here, "libgpufilt.so.0"),
                 os.path.join(here, "..", "..", "build", "dist", "libgpufilt.so.0")):
        if path and os.path.exists(path):
            return path
    return "libgpufilt.so.0"


def _declare(lib):
    P = ctypes.POINTER
    host = [c_void_p, P(Image), P(Image), P(Options), P(Error)]
    device = [c_void_p, P(Image), P(Image), P(Options), c_void_p, P(Error)]
    signatures = {
        "gf_version": (c_char_p, []),
        "gf_strerror": (c_char_p, [c_int]),
        "gf_options_init": (None, [P(Options)]),
        "gf_open": (c_void_p, [c_int, P(Error)]),
        "gf_close": (None, [c_void_p]),
        "gf_device": (c_int, [c_void_p]),
        "gf_sobel": (c_int, host), "gf_conv2d": (c_int, host),
        "gf_edge": (c_int, host),
        "gf_sobel_device": (c_int, device),
        "gf_conv2d_device": (c_int, device),
        "gf_edge_device": (c_int, device),
        "gf_load": (c_int, [c_char_p, P(Image), c_int, P(Error)]),
        "gf_save": (c_int, [c_char_p, P(Image), P(Error)]),
        "gf_image_free": (None, [P(Image)]),
    }
    for name, (restype, argtypes) in signatures.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


lib = _declare(ctypes.CDLL(_library_path()))
