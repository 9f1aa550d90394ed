"""
The gpufilt wheel: the package and the libgpufilt.so that the
repository's make builds (make lib, as the tree is configured: set
GPU_ARCHS=all in the environment for native code for every GPU), copied
in beside it as libgpufilt.so.0.  The version is the library's, from the
name of the file build/dist/libgpufilt.so points to.  The wheel is for
this platform: the library links the system's image libraries (libpng,
libjpeg, ...), as installed.
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def built_library():
    """Builds libgpufilt with the repository's make; its path."""
    subprocess.run(["make", "-s", "-C", ROOT, "lib"], check=True)
    return os.path.realpath(os.path.join(ROOT, "build", "dist", "libgpufilt.so"))


class BuildWithLibrary(build_py):
    """The package's files, and the library beside them."""

    def run(self):
        super().run()
        shutil.copy(LIBRARY, os.path.join(self.build_lib, "gpufilt", "libgpufilt.so.0"))


class PlatformDistribution(Distribution):
    """A wheel tagged for this platform: it carries a shared library."""

    def has_ext_modules(self):
        return True


LIBRARY = built_library()
setup(version=LIBRARY.split(".so.")[1], cmdclass={"build_py": BuildWithLibrary},
      distclass=PlatformDistribution)
