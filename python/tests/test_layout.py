"""
The ctypes structs of gpufilt._capi against gpufilt.h: a C program built
with the header prints each struct's size and each field's offset, which
must be ctypes'.  The header's directory comes from $GPUFILT_INCLUDE.
"""
import ctypes
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from gpufilt import _capi

INCLUDE = os.environ.get("GPUFILT_INCLUDE")
STRUCTS = {"gf_error": _capi.Error, "gf_image": _capi.Image, "gf_options": _capi.Options}


def c_layout():
    """{(struct, field or "sizeof"): bytes} as the C compiler lays them out."""
    lines = ["#include <stddef.h>", "#include <stdio.h>", "#include <gpufilt.h>",
             "int main(void) {"]
    for struct, cls in STRUCTS.items():
        lines.append(f'printf("{struct} sizeof %zu\\n", sizeof({struct}));')
        for field, _ in cls._fields_:
            lines.append(f'printf("{struct} {field} %zu\\n", offsetof({struct}, {field}));')
    lines.append("return 0; }")
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "layout.c"), os.path.join(tmp, "layout")
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        subprocess.run(["cc", "-Wall", "-Werror", "-I", INCLUDE, "-o", exe, src], check=True)
        out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    return {tuple(line.split()[:2]): int(line.split()[2]) for line in out.splitlines()}


@unittest.skipUnless(INCLUDE and shutil.which("cc"), "no C compiler, or GPUFILT_INCLUDE is not set")
class Layout(unittest.TestCase):
    def test_structs_match_the_header(self):
        want = c_layout()
        for struct, cls in STRUCTS.items():
            self.assertEqual(ctypes.sizeof(cls), want[(struct, "sizeof")], struct)
            for field, _ in cls._fields_:
                self.assertEqual(getattr(cls, field).offset, want[(struct, field)],
                                 f"{struct}.{field}")

    def test_every_header_field_is_declared(self):
        """A field added to gpufilt.h's structs fails here until _capi has it."""
        with open(os.path.join(INCLUDE, "gpufilt.h")) as f:
            header = f.read()
        header = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
        for struct, cls in STRUCTS.items():
            body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (struct, struct),
                             header, re.S).group(1)
            # The names before each ',' and ';', arrays' sizes dropped.
            names = re.findall(r"(\w+)\s*(?:\[[^]]*\])?\s*[,;]", body)
            self.assertEqual(sorted(names), sorted(f for f, _ in cls._fields_), struct)


if __name__ == "__main__":
    unittest.main()
