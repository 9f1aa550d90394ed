#!/usr/bin/python3
"""Made the inputs of tests/golden/max/ once (run in this directory; make
test does not run it): rgb16.ppm, the astronaut of ../../../../shared/images
(scikit-image's astronaut.png, NASA, public domain) as 16-bit RGB, each
4x4 block's mean times 257, 128x128; rgba8.pam, 8-bit RGBA whose R and G
mirror each other on the diagonal, so that their gradients tie in
magnitude and differ in direction (the tie rule decides), with an alpha
that must not count; rgba16.pam, 16-bit RGBA of arithmetic noise.
Decoding the PNG takes netpbm's pngtopam."""
import subprocess
import numpy as np

def pnm(data):
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    w, h = int(fields[1]), int(fields[2])
    return np.frombuffer(data, 'u1', w * h * 3, pos + 1).reshape(h, w, 3)

src = subprocess.run(['pngtopam', '../../../../shared/images/astronaut.png'],
                     check=True, stdout=subprocess.PIPE).stdout
a = pnm(src).astype(np.float64)
h, w = a.shape[0] // 4, a.shape[1] // 4
m = a[:4 * h, :4 * w].reshape(h, 4, w, 4, 3).mean(axis=(1, 3)) * 257.0
rgb16 = np.clip(np.rint(m), 0, 65535).astype('>u2')
with open('rgb16.ppm', 'wb') as f:
    f.write(b'P6\n%d %d\n65535\n' % (w, h) + rgb16.tobytes())

def pam(name, im, maxval):
    h, w, d = im.shape
    dt = '>u2' if maxval > 255 else 'u1'
    with open(name, 'wb') as f:
        f.write(b'P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE RGB_ALPHA\nENDHDR\n'
                % (w, h, d, maxval) + im.astype(dt).tobytes())

y, x = np.mgrid[0:40, 0:40]
r = (x // 4 % 3) * 60 + (y // 9) * 20
g = r.T
b = (x // 7 + y // 5) % 2 * 90
alpha = (x * 37 + y) % 256
pam('rgba8.pam', np.stack([r, g, b, alpha], axis=2), 255)

y, x = np.mgrid[0:27, 0:33]
rgba16 = np.stack([(x * 4099 + y * 7919 * (c + 1) + c * 30011) % 65536
                   for c in range(4)], axis=2)
pam('rgba16.pam', rgba16, 65535)
