#!/usr/bin/python3
"""Made samples/ once from ../../shared/images (run in samples/) (scikit-image data, CC0 / public
domain, see README).  Kept to show how each sample was derived; make test
does not run it (it needs python3-opencv)."""
import cv2
import numpy as np

src = '../../shared/images/'
coins = cv2.imread(src + 'coins.png', cv2.IMREAD_GRAYSCALE)
cv2.imwrite('coins.pgm', coins)
chelsea = cv2.imread(src + 'chelsea.png', cv2.IMREAD_COLOR)
cv2.imwrite('chelsea.png', chelsea)

# 16 bit: the astronaut's luminance at full precision, 256x256.
astro = cv2.imread(src + 'astronaut.png', cv2.IMREAD_COLOR).astype(np.float64)
b, g, r = astro[..., 0], astro[..., 1], astro[..., 2]
y = (0.299 * r + 0.587 * g + 0.114 * b) * 257.0
y = cv2.resize(y, (256, 256), interpolation=cv2.INTER_AREA)
cv2.imwrite('astro16.pgm', np.clip(np.rint(y), 0, 65535).astype(np.uint16))

# Odd sizes, cut from the retina photograph made gray.
retina = cv2.imread(src + 'retina.jpg', cv2.IMREAD_GRAYSCALE)
cv2.imwrite('retina1023x517.pgm', retina[300:817, 200:1223])
cv2.imwrite('px1x1.pgm', retina[700:701, 700:701])
cv2.imwrite('px2x3.pgm', retina[600:603, 650:652])
cv2.imwrite('px1x700.pgm', retina[350:1050, 705:706])
cv2.imwrite('px700x1.pgm', retina[705:706, 350:1050])

# A small JPEG (for the truncated-JPEG test and JPEG input).
small = cv2.resize(cv2.imread(src + 'retina.jpg'), (160, 160),
                   interpolation=cv2.INTER_AREA)
cv2.imwrite('small.jpg', small, [cv2.IMWRITE_JPEG_QUALITY, 90])
