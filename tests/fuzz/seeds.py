#!/usr/bin/env python3
"""seeds.py - writes the fuzz seed corpora and the regression inputs.

Usage: python3 tests/fuzz/seeds.py OUTDIR

OUTDIR/img/     small valid images of every format the reader takes (PNM
                of every kind and multi-image streams, PNG, JPEG with and
                without EXIF orientation, a stream of JPEG, PNG and PNM,
                TIFF of every depth, channel count, byte order and
                layout, multi-page, floating point (float-*.tif, each
                with its 16-bit twin uint-*.tif), BMP, TGA, GIF),
                built here from bytes with the standard library only,
                plus every reproducer of issues 10 and 31 as regress-*.
OUTDIR/png/     PNGs of the fast reader's kind (8 and 16 bits, gray, RGB,
                with and without alpha), each row filtered with another
                of the five filters, the data in one IDAT or in several,
                and the PNGs of img/, for fuzz_png.
OUTDIR/tiff/    the TIFFs of img/, for fuzz_tiff.
OUTDIR/kspec/   kernel specs for kspec_parse.

tests/t_io.sh runs the tools on the regress-* files and checks each is
refused with its message; the fuzzers start from everything here.
"""
import base64
import math
import os
import struct
import sys
import zlib


def png_chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + \
        struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)


def png(w, h, depth, color, rows, extra=b'', interlace=0, idat=None):
    """A PNG; rows is the raw scanline bytes (filter bytes included)."""
    ihdr = struct.pack('>IIBBBBB', w, h, depth, color, 0, 0, interlace)
    if idat is None:
        idat = zlib.compress(rows)
    return b'\x89PNG\r\n\x1a\n' + png_chunk(b'IHDR', ihdr) + extra + \
        png_chunk(b'IDAT', idat) + png_chunk(b'IEND', b'')


def png_rows(w, h, bpp_bytes, f=lambda x, y, c: (x * 37 + y * 91 + c * 53) & 0xff):
    out = b''
    for y in range(h):
        out += b'\0' + bytes(f(x, y, c) for x in range(w) for c in range(bpp_bytes))
    return out


def png_filtered(w, h, depth, color, idat_size=0):
    """A PNG of noise-like samples whose row y is filtered with type
    y % 5 (the specification's predictors), its zlib stream cut into
    IDATs of idat_size bytes (0: one IDAT)."""
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[color] * depth // 8
    n = w * bpp
    rows = [bytes((x * 29 + y * 71 + (x * y) % 13) & 0xff for x in range(n))
            for y in range(h)]
    raw, prev = b'', bytes(n)
    for y, row in enumerate(rows):
        t = y % 5
        out = bytearray([t])
        for i in range(n):
            a = row[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            pr = [0, a, b, (a + b) // 2, paeth(a, b, c)][t]
            out.append((row[i] - pr) & 0xff)
        raw, prev = raw + bytes(out), row
    z = zlib.compress(raw)
    step = idat_size or len(z)
    ihdr = struct.pack('>IIBBBBB', w, h, depth, color, 0, 0, 0)
    return b'\x89PNG\r\n\x1a\n' + png_chunk(b'IHDR', ihdr) + \
        b''.join(png_chunk(b'IDAT', z[i:i + step]) for i in range(0, len(z), step)) + \
        png_chunk(b'IEND', b'')


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def adam7_bytes(w, h, bpp):
    """The bytes of an interlaced image's passes, a filter byte a row."""
    n = 0
    for x0, y0, dx, dy in ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8),
                           (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)):
        cols, rows = (w - x0 + dx - 1) // dx, (h - y0 + dy - 1) // dy
        if cols > 0 and rows > 0:
            n += rows * (1 + cols * bpp)
    return n


def png_seeds():
    s = {}
    for color in (0, 2, 4, 6):
        for depth in (8, 16):
            s['c%d-d%d.png' % (color, depth)] = png_filtered(7, 10, depth, color)
            s['c%d-d%d-split.png' % (color, depth)] = png_filtered(
                5, 6, depth, color, idat_size=7)
    return s


def jpeg_segment(marker, data):
    return bytes([0xff, marker]) + struct.pack('>H', len(data) + 2) + data


def jpeg_head(w, h, comps=1, sof=0xc0, dht_counts=None, ac_values=None):
    """A JPEG up to its first SOS: one quantisation table, Huffman tables
    of one code each (DC: category 0; AC: EOB, or ac_values)."""
    out = b'\xff\xd8' + jpeg_segment(0xdb, b'\x00' + bytes([1] * 64))
    sof_data = struct.pack('>BHHB', 8, h, w, comps)
    for i in range(comps):
        sof_data += bytes([i + 1, 0x11, 0])
    out += jpeg_segment(sof, sof_data)
    counts = dht_counts or [1] + [0] * 15
    values = bytes(min(i, 255) for i in range(sum(counts)))
    out += jpeg_segment(0xc4, b'\x00' + bytes(counts) + values)
    out += jpeg_segment(0xc4, b'\x10' + bytes(counts) + (ac_values or values))
    return out


def jpeg_sos(comps, ss=0, se=63, ah=0, al=0):
    return jpeg_segment(0xda, bytes([len(comps)]) + b''.join(
        bytes([c, 0]) for c in comps) + bytes([ss, se, ah << 4 | al]))


def jpeg(w, h, comps=1, dht_counts=None):
    """A baseline JPEG of flat blocks: one-code Huffman tables, DC 0, EOB."""
    out = jpeg_head(w, h, comps, 0xc0, dht_counts)
    out += jpeg_sos(range(1, comps + 1))
    blocks = ((w + 7) // 8) * ((h + 7) // 8) * comps
    nbits = 2 * blocks              # DC code "0", EOB code "0"
    data = bytearray((nbits + 7) // 8)
    if nbits % 8:
        data[-1] = (1 << (8 - nbits % 8)) - 1   # pad with ones
    return out + bytes(data) + b'\xff\xd9'


def jpeg_scan_bomb(side):
    """A progressive gray JPEG of a legal progression of flat blocks: its DC
    scan (one bit a block), then each AC coefficient at Al 13, refined
    down to 0: 882 scans, each an EOB run of 16384 blocks per 15 bits."""
    out = jpeg_head(side, side, 1, 0xc2, ac_values=b'\xe0')
    blocks = (side // 8) ** 2
    out += jpeg_sos([1], 0, 0, 0, 0) + bytes(blocks // 8)
    runs = (blocks + 16383) // 16384
    ac = bytes((runs * 15 + 7) // 8)
    for k in range(1, 64):
        out += jpeg_sos([1], k, k, 0, 13) + ac
        for al in range(12, -1, -1):
            out += jpeg_sos([1], k, k, al + 1, al) + ac
    return out + b'\xff\xd9'


def exif_jpeg(orientation, ifd_offset=8):
    """A small gray JPEG with an EXIF APP1 block: IFD0 holds Orientation."""
    tiff = b'MM\0*' + struct.pack('>I', ifd_offset) + struct.pack('>H', 1) + \
        struct.pack('>HHIHH', 0x112, 3, 1, orientation, 0) + bytes(4)
    base = jpeg(16, 8, 1)
    return base[:2] + jpeg_segment(0xe1, b'Exif\0\0' + tiff) + base[2:]


def tiff(w, h, bits=8, spp=1, photometric=None, pages=1, order='<',
         fmt=1, planar=1, tile=None, nextifd=None, cut=0, payload=True,
         pixels=None):
    """An uncompressed TIFF: per page its IFD, then its pixels (one strip,
    or tiles of tile x tile; none without payload; pixels: the bytes of the
    strip or of the tiles, in their order); ExtraSamples (alpha) with 2 or
    4 samples; cut bytes short."""
    if photometric is None:
        photometric = 2 if spp >= 3 else 1
    bo = b'II*\0' if order == '<' else b'MM\0*'
    out = bytearray(bo + struct.pack(order + 'I', 8))
    for k in range(pages):
        if tile:
            across, down = (w + tile - 1) // tile, (h + tile - 1) // tile
            nchunks, chunk = across * down, tile * tile * spp * bits // 8
        else:
            nchunks, chunk = 1, w * h * spp * bits // 8
        tags = [(256, 4, [w]), (257, 4, [h]), (258, 3, [bits] * spp), (259, 3, [1]),
                (262, 3, [photometric]), (277, 3, [spp]), (284, 3, [planar]),
                (339, 3, [fmt] * spp)]
        if spp in (2, 4):
            tags.append((338, 3, [2]))
        offs_tag, counts_tag = (324, 325) if tile else (273, 279)
        if tile:
            tags += [(322, 4, [tile]), (323, 4, [tile])]
        else:
            tags.append((278, 4, [h]))
        tags += [(offs_tag, 4, [0] * nchunks),
                 (counts_tag, 4, [chunk & 0xffffffff] * nchunks)]
        tags.sort()
        ifd = len(out)
        extra = ifd + 2 + 12 * len(tags) + 4      # arrays that do not fit 4 bytes
        arrays = bytearray()
        data = extra + sum(len(v) * (2 if t == 3 else 4) for _, t, v in tags
                           if len(v) * (2 if t == 3 else 4) > 4)
        entries = bytearray(struct.pack(order + 'H', len(tags)))
        for tag, typ, vals in tags:
            if tag == offs_tag:
                vals = [data + i * chunk for i in range(nchunks)]
            raw = b''.join(struct.pack(order + ('H' if typ == 3 else 'I'), v)
                           for v in vals)
            if len(raw) <= 4:
                entries += struct.pack(order + 'HHI', tag, typ, len(vals)) + \
                    raw.ljust(4, b'\0')
            else:
                entries += struct.pack(order + 'HHII', tag, typ, len(vals),
                                       extra + len(arrays))
                arrays += raw
        end = data + nchunks * chunk
        nxt = (end if k + 1 < pages else 0) & 0xffffffff
        if nextifd is not None and k + 1 == pages:
            nxt = nextifd
        out += entries + struct.pack(order + 'I', nxt) + arrays
        if payload and pixels is not None:
            out += pixels
        elif payload:
            out += bytes((i * 13 + k * 16) & 0xff for i in range(nchunks * chunk))
    return bytes(out[:len(out) - cut])


def tiff_pages(pages, blobs, order='<'):
    """A TIFF of any layout: blobs (bytes) first, then one IFD per page.
    A page is a list of (tag, type, values); a value ('blob', i) is the
    offset of blobs[i], ('len', i) its length, so pages may share strips
    and list fewer offsets than they have strips."""
    out = bytearray((b'II*\0' if order == '<' else b'MM\0*') + bytes(4))
    where = []
    for b in blobs:
        where.append(len(out))
        out += b
        if len(out) % 2:
            out += b'\0'

    def fix(v):
        if not isinstance(v, tuple):
            return v
        return where[v[1]] if v[0] == 'blob' else len(blobs[v[1]])
    links = [4]
    for tags in pages:
        if len(out) % 2:
            out += b'\0'
        struct.pack_into(order + 'I', out, links[-1], len(out))
        tags = sorted(tags)
        ifd = len(out)
        extra = ifd + 2 + 12 * len(tags) + 4
        arrays = bytearray()
        entries = bytearray(struct.pack(order + 'H', len(tags)))
        for tag, typ, vals in tags:
            raw = b''.join(struct.pack(order + ('H' if typ == 3 else 'I'), fix(v))
                           for v in vals) if typ in (3, 4) else bytes(vals)
            if len(raw) <= 4:
                entries += struct.pack(order + 'HHI', tag, typ, len(vals)) + \
                    raw.ljust(4, b'\0')
            else:
                entries += struct.pack(order + 'HHII', tag, typ, len(vals),
                                       extra + len(arrays))
                arrays += raw
        out += entries + bytes(4) + arrays
        links.append(ifd + 2 + 12 * len(tags))
    return bytes(out)


def tiff_page(w, h, compression, offsets, counts, rps=None, spp=1, photometric=1):
    """The tags of a strip page of 8-bit samples."""
    return [(256, 4, [w]), (257, 4, [h]), (258, 3, [8] * spp),
            (259, 3, [compression]), (262, 3, [photometric]), (277, 3, [spp]),
            (278, 4, [rps or h]), (273, 4, offsets), (279, 4, counts)]


# Floating-point TIFF (issue 43): [0, 1] is black to white; below 0 and
# NaN are 0, above 1 65535 (lib/io/img_tiff_float.c).
FLOAT_SPECIAL = [0.0, 0.5, 1.0, -1.0, 2.0, math.nan, 0.25, 0.75, math.inf,
                 -math.inf, 1e-9, 0.99999, 1 / 65535, 0.5 / 65535]
FLOAT_FMT = {16: 'e', 32: 'f', 64: 'd'}


def float_values(n):
    """n samples: every third one of FLOAT_SPECIAL in turn, the others
    spread from -0.1 to 1.101."""
    return [FLOAT_SPECIAL[i // 3 % len(FLOAT_SPECIAL)] if i % 3 == 0 else
            (i * 7919 % 1201) / 1000 - 0.1 for i in range(n)]


def float_to_16(v):
    """A stored float sample as the reader makes it 16-bit (round half up)."""
    if math.isnan(v) or v <= 0:
        return 0
    return 65535 if v >= 1 else int(v * 65535.0 + 0.5)


def tiled(w, h, spp, tile, raw, size):
    """The bytes of a row-major image (samples of size bytes) in tiles of
    tile x tile, the tiles past the edges filled with zeros."""
    out, row = bytearray(), w * spp * size
    for ty in range(0, h, tile):
        for tx in range(0, w, tile):
            for y in range(ty, ty + tile):
                line = raw[y * row + tx * spp * size:
                           y * row + min(w, tx + tile) * spp * size] if y < h else b''
                out += line.ljust(tile * spp * size, b'\0')
    return bytes(out)


def float_tiff(w, h, bits, spp, order='<', photometric=None, tile=None,
               values=None):
    """An uncompressed TIFF of floating-point samples (values, row-major;
    float_values by default) and its twin of 16-bit unsigned samples as
    the reader makes them: (float, twin)."""
    vals = values if values is not None else float_values(w * h * spp)
    raw = b''.join(struct.pack(order + FLOAT_FMT[bits], v) for v in vals)
    stored = struct.unpack(order + FLOAT_FMT[bits] * len(vals), raw)
    twin = b''.join(struct.pack(order + 'H', float_to_16(v)) for v in stored)
    if tile:
        raw, twin = tiled(w, h, spp, tile, raw, bits // 8), \
            tiled(w, h, spp, tile, twin, 2)
    return (tiff(w, h, bits, spp, photometric, order=order, fmt=3, tile=tile,
                 pixels=raw),
            tiff(w, h, 16, spp, photometric, order=order, tile=tile, pixels=twin))


def float_predicted(w, h, spp, rps, vals, cut=0):
    """A deflated TIFF of 32-bit floats with the floating-point predictor
    (3, as GDAL writes them), strips of rps rows; each row's bytes put in
    planes, most significant first, then each byte less the one spp
    before it (libtiff's fpDiff).  cut: the last strip's zlib stream cut
    short by that many bytes."""
    n = w * spp
    blobs = []
    for y0 in range(0, h, rps):
        strip = bytearray()
        for y in range(y0, min(h, y0 + rps)):
            be = [struct.pack('>f', v) for v in vals[y * n:(y + 1) * n]]
            planes = bytes(b[k] for k in range(4) for b in be)
            strip += bytes((planes[j] - (planes[j - spp] if j >= spp else 0))
                           & 0xff for j in range(len(planes)))
        blobs.append(zlib.compress(bytes(strip)))
    if cut:
        blobs[-1] = blobs[-1][:len(blobs[-1]) - cut]
    page = [(256, 4, [w]), (257, 4, [h]), (258, 3, [32] * spp), (259, 3, [8]),
            (262, 3, [2 if spp >= 3 else 1]), (277, 3, [spp]), (278, 4, [rps]),
            (273, 4, [('blob', i) for i in range(len(blobs))]),
            (279, 4, [('len', i) for i in range(len(blobs))]),
            (317, 3, [3]), (339, 3, [3] * spp)]
    return tiff_pages([page], blobs)


def float_seeds():
    """Floating-point TIFFs of each depth, channel count, byte order and
    layout, each float-NAME.tif with its 16-bit twin uint-NAME.tif; the
    six values of the man page in a row (float-row.tif); and a deflated
    one with the floating-point predictor."""
    s = {}
    for name, args in (('gray32', (20, 18, 32, 1)),
                       ('gray32-be', (20, 18, 32, 1, '>')),
                       ('rgb32', (20, 18, 32, 3)),
                       ('rgb32-be', (20, 18, 32, 3, '>')),
                       ('graya64', (20, 18, 64, 2)),
                       ('rgba16', (20, 18, 16, 4)),
                       ('rgb64-be', (20, 18, 64, 3, '>')),
                       ('miniswhite32', (20, 18, 32, 1, '<', 0)),
                       ('rgb32-tiled', (20, 18, 32, 3, '<', None, 16)),
                       ('row32', (6, 1, 32, 1, '<', None, None,
                                  [0, 0.5, 1, -1, 2, math.nan])),
                       ('rgbrow32', (2, 1, 32, 3, '>', None, None,
                                     [0, 0.5, 1, -1, 2, math.nan]))):
        s['float-' + name + '.tif'], s['uint-' + name + '.tif'] = \
            float_tiff(*args)
    vals = float_values(20 * 18 * 3)
    s['float-rgb32-deflate-pred3.tif'] = float_predicted(20, 18, 3, 5, vals)
    s['uint-rgb32-deflate-pred3.tif'] = s['uint-rgb32.tif']
    return s


def gif_screen(sw, sh, fw, fh, claim=None):
    """A GIF whose logical screen is sw x sh and whose one frame, at (0, 0),
    fw x fh (or claims to be claim = (w, h), its data still fw x fh's)."""
    g = bytearray(gif(fw, fh))
    struct.pack_into('<HH', g, 6, sw, sh)
    if claim:
        struct.pack_into('<HH', g, 24, *claim)
    return bytes(g)


def bmp(w, h, bpp=24, payload=True):
    stride = (w * bpp + 31) // 32 * 4
    pal = b''.join(bytes([i, i, i, 0]) for i in range(256)) if bpp == 8 else b''
    off = 54 + len(pal)
    size = off + stride * abs(h)
    head = b'BM' + struct.pack('<IHHI', size, 0, 0, off) + \
        struct.pack('<IiiHHIIiiII', 40, w, h, 1, bpp, 0, stride * abs(h),
                    2835, 2835, 0, 0)
    if not payload:
        return head + pal
    px = bytes((i * 7) & 0xff for i in range(stride * abs(h)))
    return head + pal + px


def tga(w, h, kind=2, bpp=24, payload=True):
    head = struct.pack('<BBBHHBHHHHBB', 0, 0, kind, 0, 0, 0, 0, 0, w, h, bpp, 0)
    if not payload:
        return head
    n = w * h * (bpp // 8)
    if kind >= 8:                   # RLE: one run packet per pixel
        return head + b''.join(bytes([0x80]) + bytes([(i * 5) & 0xff] *
                                                     (bpp // 8)) for i in range(w * h))
    return head + bytes((i * 11) & 0xff for i in range(n))


def gif(w, h):
    """A GIF of index-0 pixels; a clear code before each pixel keeps codes 3 bits."""
    out = b'GIF89a' + struct.pack('<HHBBB', w, h, 0x80, 0, 0) + b'\0\0\0\xff\xff\xff'
    out += b'\x2c' + struct.pack('<HHHHB', 0, 0, w, h, 0) + b'\x02'
    codes = [4, 0] * (w * h) + [5]
    acc = nacc = 0
    data = bytearray()
    for c in codes:
        acc |= c << nacc
        nacc += 3
        while nacc >= 8:
            data.append(acc & 0xff)
            acc >>= 8
            nacc -= 8
    if nacc:
        data.append(acc)
    for i in range(0, len(data), 255):
        out += bytes([len(data[i:i + 255])]) + data[i:i + 255]
    return out + b'\0;'


def pnm_seeds():
    return {
        'p1.pbm': b'P1\n# c\n3 2\n1 0 1\n0 1 0\n',
        'p4.pbm': b'P4\n3 2\n\xa0\x40',
        'p2.pgm': b'P2\n3 2\n300\n0 150 300\n1 2 3\n',
        'p3.ppm': b'P3\n2 1\n255\n1 2 3 4 5 6\n',
        'p5.pgm': b'P5\n3 2\n255\n\x00\x40\x80\xc0\xff\x01',
        'p5-16.pgm': b'P5\n2 1\n65535\n\x12\x34\xff\xff',
        'p6.ppm': b'P6\n2 1\n255\n\x01\x02\x03\x04\x05\x06',
        'p7-rgba.pam': b'P7\nWIDTH 2\nHEIGHT 1\nDEPTH 4\nMAXVAL 255\n'
                       b'TUPLTYPE RGB_ALPHA\nENDHDR\n\x01\x02\x03\xff\x04\x05\x06\x00',
        'stream3.pnm': b'P5\n1 1\n255\n\x07P2\n2 1\n9\n1 9\nP6\n1 1\n255\nabc',
        'stream-trailing-space.pgm': b'P5\n1 1\n255\n\x07\n \n',
    }


def image_seeds():
    s = pnm_seeds()
    s['gray8.png'] = png(5, 3, 8, 0, png_rows(5, 3, 1))
    s['rgb8.png'] = png(4, 4, 8, 2, png_rows(4, 4, 3))
    s['rgba8.png'] = png(3, 2, 8, 6, png_rows(3, 2, 4))
    s['graya16.png'] = png(2, 2, 16, 4, png_rows(2, 2, 4))
    s['gray16.png'] = png(3, 2, 16, 0, png_rows(3, 2, 2))
    s['gray1.png'] = png(9, 2, 1, 0, png_rows(2, 2, 1))
    s['palette-trns.png'] = png(3, 1, 8, 3, b'\0\0\1\2',
                                png_chunk(b'PLTE', b'\0\0\0\x10\x20\x30\xff\xfe\xfd') +
                                png_chunk(b'tRNS', b'\x80'))
    s['interlaced.png'] = png(9, 9, 8, 2, b'', interlace=1,
                              idat=zlib.compress(bytes(adam7_bytes(9, 9, 3))))
    s['gray.jpg'] = jpeg(16, 8, 1)
    s['exif-orientation-6.jpg'] = exif_jpeg(6)
    s['exif-orientation-99.jpg'] = exif_jpeg(99)
    s['exif-bad-offset.jpg'] = exif_jpeg(6, 0xfffffff0)
    s['gray8.tif'] = tiff(5, 3)
    s['gray16.tif'] = tiff(3, 2, 16)
    s['graya8.tif'] = tiff(3, 2, 8, 2)
    s['rgb8.tif'] = tiff(4, 4, 8, 3)
    s['rgba16-be.tif'] = tiff(3, 3, 16, 4, order='>')
    s['miniswhite.tif'] = tiff(4, 2, photometric=0)
    s['pages3.tif'] = tiff(4, 3, 8, 3, pages=3)
    s['tiled.tif'] = tiff(20, 18, 8, 3, tile=16)
    s.update(float_seeds())
    s['color.jpg'] = jpeg(9, 9, 3)
    s['rgb24.bmp'] = bmp(5, 3)
    s['top-down.bmp'] = bmp(3, -2)
    s['pal8.bmp'] = bmp(4, 2, 8)
    s['rgb24.tga'] = tga(3, 2)
    s['gray8.tga'] = tga(4, 2, 3, 8)
    s['rle24.tga'] = tga(3, 3, 10)
    s['index0.gif'] = gif(3, 2)
    # A stream of every kind that may follow another image (issue 32).
    s['stream-jpeg-png-pnm.jpg'] = (s['color.jpg'] + s['gray8.png'] +
                                    b'P5\n1 1\n255\n\x07' + s['gray.jpg'] +
                                    s['rgb8.png'] + b'\n')
    s.update(webp_seeds())
    return s


def webp_seeds():
    """WebPs made by libwebp 1.2.4 (lossless and lossy, with and without
    alpha, a two-frame animation, an EXIF Orientation 6), kept as bytes:
    Python has no encoder."""
    s = {}
    s['lossless-rgb.webp'] = bytes.fromhex(
        '5249464648000000574542505650384c3c0000002f038000005f4010082290c61a03ec6f'
        'b40441b66d6a00653ac00502694820a6019eff4cef02df0700008500d0b0598c14524821'
        '85da89e87f7c2c02')
    s['lossless-rgba.webp'] = bytes.fromhex(
        '5249464636000000574542505650384c2a0000002f024000102f201048f6974866c8f914'
        '0824fb4bc4b7c5c844f2abaa424ddb066ca8f32fa746f43fa617')
    s['lossy-rgb.webp'] = bytes.fromhex(
        '524946466600000057454250565038205a000000f001009d012a0800080002c04c259002'
        '7401177bc23ce34000fbbde74dfe72eb6d990ac5bc3dedc9af1dfc5e40348c837794fb3c'
        '17e3ce87eb5f040ffeccf684646f5809f20565800454e35b17d5a32d3e96cbad6e7d5d8c'
        '2800')
    s['lossy-rgba.webp'] = bytes.fromhex(
        '524946468400000057454250565038580a00000010000000070000030000414c50481700'
        '000001998ce87f4021db08d0311de941bf0811133001485e6e005650382046000000f001'
        '009d012a0800040002c04c25a002747f0013aece980000ce1a79dafffd5871d3dc4b8307'
        'fed3c1ac84d530b2db49fa7abb2717e3712af7ec6ce0bbed9bda79055a000000')
    s['anim.webp'] = bytes.fromhex(
        '524946468c00000057454250565038580a00000012000000020000010000414e494d0600'
        '0000ffffffff0000414e4d462c000000000000000000020000010000640000025650384c'
        '130000002f02400000173001fd9f80f90f6e284944ff0300414e4d462c00000000000000'
        '0000020000010000640000025650384c130000002f0240001017300113d0ff010c6e2849'
        '44ff0300')
    s['exif-orientation-6.webp'] = bytes.fromhex(
        '524946466400000057454250565038580a000000080000000200000100005650384c2400'
        '00002f024000002f20104808e2d89f718939b9c6c9fc27b6a1a66d0336d4f9975323fa1f'
        'd30b455849461a00000049492a0008000000010012010300010000000600000000000000')
    return s


def webp_vp8x(w, h, flags=0, rest=b''):
    """A WebP whose VP8X header says a w x h canvas, then rest."""
    vp8x = b'VP8X' + struct.pack('<IB3x', 10, flags) + \
        struct.pack('<I', w - 1)[:3] + struct.pack('<I', h - 1)[:3]
    body = b'WEBP' + vp8x + rest
    return b'RIFF' + struct.pack('<I', len(body)) + body


def webp_chunk(tag, data):
    """A RIFF chunk, padded to an even length."""
    return tag + struct.pack('<I', len(data)) + data + b'\0' * (len(data) & 1)


def webp_riff(chunks):
    return b'RIFF' + struct.pack('<I', 4 + len(chunks)) + b'WEBP' + chunks


def vp8l_blank(w, h):
    """VP8L data of a w x h image that every prefix code of one symbol
    codes in no bits at all: its header, then no transform, no colour
    cache, one group of five one-symbol codes."""
    bits = (w - 1) | (h - 1) << 14          # no alpha, version 0
    acc = [(bits >> i) & 1 for i in range(32)] + [0, 0, 0] + [1, 0, 0, 0] * 5
    acc += [0] * (-len(acc) % 8)
    return b'\x2f' + bytes(sum(acc[i + k] << k for k in range(8))
                            for i in range(0, len(acc), 8))


def webp_anim(cw, ch, fw, fh, frames=1, frame_data=None):
    """An animation of a cw x ch canvas and frames of fw x fh at (0, 0)."""
    vp8x = struct.pack('<B3x', 0x02) + struct.pack('<I', cw - 1)[:3] + \
        struct.pack('<I', ch - 1)[:3]
    data = frame_data or webp_chunk(b'VP8L', vp8l_blank(fw, fh))
    anmf = struct.pack('<I', 0)[:3] * 2 + struct.pack('<I', fw - 1)[:3] + \
        struct.pack('<I', fh - 1)[:3] + struct.pack('<I', 100)[:3] + b'\0' + data
    return webp_riff(webp_chunk(b'VP8X', vp8x) +
                     webp_chunk(b'ANIM', bytes(4) + b'\0\0') +
                     webp_chunk(b'ANMF', anmf) * frames)


def webp_resized(webp, w, h):
    """A lossy WebP (simple, or VP8X) whose VP8 frame header, and canvas,
    say w x h: its data still the small image's."""
    b = bytearray(webp)
    at = b.index(b'VP8 ') + 8
    struct.pack_into('<HH', b, at + 6, w, h)
    if b[12:16] == b'VP8X':
        b[24:27] = struct.pack('<I', w - 1)[:3]
        b[27:30] = struct.pack('<I', h - 1)[:3]
    return bytes(b)


def zlib_zeros(n, chunk=1 << 20):
    """A zlib stream of n zeros (n a multiple of chunk) made quickly: one
    chunk compressed after a full flush codes the same bytes every time,
    so it is repeated, and the checksum is put right."""
    c = zlib.compressobj(9)
    head = c.compress(bytes(chunk)) + c.flush(zlib.Z_FULL_FLUSH)
    body = c.compress(bytes(chunk)) + c.flush(zlib.Z_FULL_FLUSH)
    tail = c.flush()[:-4]
    b = n % 65521
    return head + body * (n // chunk - 1) + tail + struct.pack('>I', b << 16 | 1)


def png_surplus(out, w=8, h=8):
    """A w x h gray PNG whose image data inflates to out bytes: its rows,
    then zeros past them."""
    return png(w, h, 8, 0, b'', idat=zlib_zeros(out))


def regressions45():
    """Issue 45's reproducers (WebP, PNG): each refused in 3 s and 400 MB."""
    w = webp_seeds()
    return {
        # 2: a 16384x16384 canvas, one 1x1 frame.
        'regress-webp-anim-canvas-16384.webp': webp_anim(16384, 16384, 1, 1),
        # 3: lossless of no data; lossy and lossy+alpha of an 8x8's data.
        'regress-webp-vp8l-blank-16384.webp':
            webp_riff(webp_chunk(b'VP8L', vp8l_blank(16384, 16384))),
        'regress-webp-vp8-16383.webp': webp_resized(w['lossy-rgb.webp'],
                                                    16383, 16383),
        'regress-webp-alph-16383.webp': webp_resized(w['lossy-rgba.webp'],
                                                     16383, 16383),
        # 9: an 8x8 PNG whose image data inflates to 4 MiB.
        'regress-png-surplus-4m.png': png_surplus(4 << 20),
        # An odd chunk length whose padding ends one byte past the data:
        # the chunk walk read past it (found by fuzz_webp).
        'regress-webp-odd-chunk-end.webp': bytes.fromhex(
            '524946468c00000057454250565038580a000000120000000200000100000000'
            '0000000000000000000000000000000000000000000000000000000000000000'
            '0000000000000000000000000000000000006b00000000000000000000000000'
            '0000000000000000000000000000000000000000000000000000000000000000'
            '0000000000000000000000000000000000000000000000000000000000000041'
            '4e494d06000000ffffffff0000414e4d462c0000000000ff010c6e284944ff03'
            '00'),
        # A 1000x1000 BMP of 56 bytes whose compression, negative as stb
        # reads it, stb takes for none: not weighed as uncompressed, it
        # was decoded from zeros (found by fuzz_img).
        'regress-bmp-negative-compression.bmp': bytes.fromhex(
            '424df6c62d00000002003600000028000000e8030000e8030000010018000000'
            '00d500c0c62df400130b0000130b00000000000000000000'),
        # Small legitimate ones of the same shapes, read.
        'webp-vp8l-blank-64.webp':
            webp_riff(webp_chunk(b'VP8L', vp8l_blank(64, 64))),
        'webp-anim-3-frames.webp': webp_anim(8, 8, 4, 4, 3),
    }


def regressions():
    """Issue 10's reproducers: each must be refused, quickly, with a message."""
    esc = b'\x89PNG\r\n\x1a\n' + png_chunk(b'IHDR', struct.pack(
        '>IIBBBBB', 1, 1, 8, 0, 0, 0, 0))
    return {
        'regress-tga-header-26000.tga': tga(26000, 26000, payload=False),
        'regress-tga-truncated.tga': tga(1000, 1000, payload=False),
        'regress-tga-rle-truncated.tga': tga(1000, 1000, 10, payload=False),
        'regress-bmp-header-20000.bmp': bmp(20000, 20000, payload=False),
        'regress-bmp-truncated.bmp': bmp(1000, 1000, payload=False),
        'regress-png-30000.png': png(30000, 30000, 8, 0, b'',
                                     idat=zlib.compress(bytes(30001 * 4))),
        'regress-gif-23170.gif': b'GIF89a' + struct.pack('<HHBBB', 23170, 23170,
                                                         0, 0, 0) + b';',
        'regress-jpeg-30000.jpg': jpeg(30000, 30000)[:400],
        'regress-jpeg-huffman-257.jpg': jpeg(8, 8, 1, [0] * 14 + [2, 255]),
        'regress-jpeg-cmyk.jpg': jpeg(8, 8, 4),
        'regress-png-escape-chunk.png': esc + b'\0\0\0\0\x1b[2J\0\0\0\0',
        'regress-png-nul-chunk.png': esc + b'\0\0\0\0\0ABC\0\0\0\0',
        'regress-pgm-stray-byte.pgm': b'P5\n2 1\n255\n\x07\x08x',
        'regress-psd.psd': b'8BPS\0\1' + bytes(40),
        'regress-tiff-huge.tif': tiff(100000, 100000, payload=False),
        # Sides whose product overflows 64 bits: fuzz_img's find, as found.
        'regress-tiff-sides-4g.tif': base64.b64decode(
            'SUkqAAgAAAALAAABBAABAAAAoAEAhgEBBAABAAAAoIYB/gIBAwABAAAAIAAAAAMBAwAB'
            'AAAAAQAAAAYBAwABAAAAAQAAABEBBAABAAAAkgAAABUBAwABAAAAAQAAABYBBAABAAAA'
            'oIYBABcBBAABAAAAAJAvUBwBAwABAAAAAQAAAFMBAwABAAAAAwAAAAAAAAA='),
        'regress-tiff-12bit.tif': tiff(4, 4, 12),
        'regress-tiff-float24.tif': tiff(4, 4, 24, fmt=3),
        'regress-tiff-signed.tif': tiff(4, 4, 16, fmt=2),
        # Floating point (issue 43) through the same guards as integers.
        'regress-tiff-float-huge.tif': tiff(100000, 100000, 32, fmt=3,
                                            payload=False),
        'regress-tiff-float-truncated.tif': tiff(40, 40, 32, fmt=3, cut=100),
        # A 4 x 4 page in one deflated tile of 4096 x 4096 RGBA doubles.
        'regress-tiff-float-tile-bomb.tif': tiff_pages([[
            (256, 4, [4]), (257, 4, [4]), (258, 3, [64] * 4), (259, 3, [8]),
            (262, 3, [2]), (277, 3, [4]), (322, 4, [4096]), (323, 4, [4096]),
            (324, 4, [('blob', 0)]), (325, 4, [('len', 0)]), (338, 3, [2]),
            (339, 3, [3] * 4)]], [zlib.compress(bytes(4096))]),
        'regress-tiff-float-deflate-bomb.tif': tiff_pages([[
            (256, 4, [8192]), (257, 4, [8192]), (258, 3, [32]), (259, 3, [8]),
            (262, 3, [1]), (277, 3, [1]), (278, 4, [8192]),
            (273, 4, [('blob', 0)]), (279, 4, [('len', 0)]), (339, 3, [3])]],
            [zlib.compress(bytes(1 << 16), 9)]),
        'regress-tiff-float-deflate-cut.tif': float_predicted(
            64, 64, 1, 64, float_values(64 * 64), cut=2000),
        'regress-tiff-planar.tif': tiff(4, 4, 8, 3, planar=2),
        'regress-tiff-truncated.tif': tiff(40, 40, cut=100),
        'regress-tiff-ifd-loop.tif': tiff(4, 4, nextifd=8),
        'regress-webp-20000.webp': webp_vp8x(20000, 20000),
        'regress-webp-truncated.webp': webp_seeds()['lossy-rgb.webp'][:60],
        'regress-webp-no-frame.webp': webp_vp8x(4, 4),
        'regress-hdr.hdr': b'#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 2\n' +
                           bytes(16),
        # libnetpbm copied between overlapping strings on a PAM line of
        # 253 bytes (ASan: strncpy-param-overlap); a NUL in a line.
        'regress-pam-line-253.pam': b'P7\nWIDTH 2\nHEIGHT 1' + b'A' * 245 +
                                    b'\nDEPTH 1\nMAXVAL 255\nENDHDR\n\0\0',
        'regress-pam-nul.pam': b'P7\nWIDTH 2\nHEIGHT 1\0\nDEPTH 1\n'
                               b'MAXVAL 255\nENDHDR\n\0\0',
        # stb fills its palette only as far as the file's and takes the
        # other colours from its stack: pixels of the image before could
        # reach the output.  A 4-bit BMP whose pixels begin inside its
        # headers (a palette of -1 to stb; found by fuzz_img), and an
        # 8-bit one whose palette of 4 its pixels overrun.
        'regress-bmp-palette-negative.bmp': bytes.fromhex(
            '424d6600000000000000340000002800000005000000030000000100'
            '04000000cccccccc4d415856414c000001b500000107ccccccccccf9'
            '00cccccc36ccccd2d9e0e7eef5fccccccccccc3bcccccccccccccccc'
            'cccc0000020000000000000000009065f5cc030a11181f270a26262d'
            '353b424990651800'),
        # The OS/2 core header: stb counts its palette four entries short,
        # here none at all (found in review).
        'regress-bmp-core-palette.bmp': b'BM' + struct.pack(
            '<IHHI', 28, 0, 0, 24) + struct.pack('<IHHHH', 12, 1, 1, 1, 1) +
            bytes(2),
        # Pixels at byte 13958 of 53: what is read of it stops short of
        # its header (CI's fuzz_img found the check reading past it).
        'regress-bmp-short-read.bmp': bytes.fromhex(
            '424d65000000000080360000000028000000050000000300000000180100'
            '000000003000000013eef5fc030a11181f262d343b4249'),
        # A file shorter than its own header: stb reads zeros past its end
        # and went on (fuzz_img's second reading differed).
        'regress-bmp-short-header.bmp': bytes.fromhex(
            '424d4e0000000008000009000000280000000400000006000000010001000000'
            '000000230000000000004600000000ff00000400'),
        'regress-bmp-palette-short.bmp': b'BM' + struct.pack(
            '<IHHI', 78, 0, 0, 70) + struct.pack(
            '<IiiHHIIiiII', 40, 4, 2, 1, 8, 0, 8, 0, 0, 4, 0) +
            bytes(16) + bytes([0, 1, 2, 200, 3, 2, 1, 0]),
    }


def regressions31():
    """Issue 31's reproducers: each must be refused in 3 s and 400 MB."""
    small = jpeg(8, 8, 1)
    big = jpeg(64, 64, 1)
    cut = jpeg(256, 256, 1)
    deflated = zlib.compress(bytes(2048 * 2048), 9)
    deflated4k = zlib.compress(bytes(4096 * 4096), 9)
    return {
        # 1: an 8x8 JPEG in a 64x64 page (libtiff warns and goes on).
        'regress-tiff-jpeg-small-strip.tif': tiff_pages(
            [tiff_page(64, 64, 7, [('blob', 0)], [('len', 0)])], [small]),
        'regress-tiff-jpeg-page2-small.tif': tiff_pages(
            [tiff_page(64, 64, 7, [('blob', 0)], [('len', 0)]),
             tiff_page(64, 64, 7, [('blob', 1)], [('len', 1)])], [big, small]),
        # 2: a SOF that promises what no entropy data follows.
        'regress-jpeg-sos-eoi-16384.jpg': jpeg_head(16384, 16384) +
            jpeg_sos([1]) + b'\xff\xd9',
        'regress-jpeg-sos-eoi-65500x4098.jpg': jpeg_head(65500, 4098, 3) +
            jpeg_sos([1, 2, 3]) + b'\xff\xd9',
        'regress-jpeg-truncated-eoi.jpg': cut[:len(cut) // 2] + b'\xff\xd9',
        # 3: scans: 500 bare ones, and a legal progression of 883.
        'regress-jpeg-scans-500.jpg': jpeg_head(16384, 16384, 1, 0xc2) +
            jpeg_sos([1], 0, 0) * 500 + b'\xff\xd9',
        'regress-jpeg-scans-883.jpg': jpeg_scan_bomb(4096),
        # 4: a 16384x16384 screen, a 1x1 frame.
        'regress-gif-screen-16384.gif': gif_screen(16384, 16384, 1, 1),
        'regress-gif-frame-16384.gif': gif_screen(16384, 16384, 1, 1,
                                                  (16384, 16384)),
        # 5: a JPEG strip of no data; pages sharing one strip.
        'regress-tiff-jpeg-nodata.tif': tiff_pages(
            [tiff_page(16384, 16384, 7, [('blob', 0)], [('len', 0)], spp=3,
                       photometric=2)],
            [jpeg_head(16384, 16384, 3) + jpeg_sos([1, 2, 3]) + b'\xff\xd9']),
        'regress-tiff-shared-strip-20.tif': tiff_pages(
            [tiff_page(2048, 2048, 8, [('blob', 0)], [('len', 0)])] * 20,
            [deflated]),
        'regress-tiff-shared-strip-1000.tif': tiff_pages(
            [tiff_page(4096, 4096, 8, [('blob', 0)], [('len', 0)])] * 1000,
            [deflated4k]),
        # 6: four strips, one offset.
        'regress-tiff-few-offsets.tif': tiff_pages(
            [tiff_page(64, 64, 1, [('blob', 0)], [1024] * 4, rps=16)],
            [bytes(range(256)) * 16]),
    }


def jpeg_filled(data, fill):
    """The JPEG data with fill bytes (0xff) before each marker after its
    SOI, as the standard allows: the walk must pass them once."""
    out, i = bytearray(data[:2]), 2
    while i < len(data):
        if data[i] == 0xff and data[i + 1] != 0x00 and not \
                0xd0 <= data[i + 1] <= 0xd7:
            out += b'\xff' * fill
            if data[i + 1] == 0xda:     # SOS: the rest is its scan and EOI
                out += data[i:-2] + b'\xff' * fill + data[-2:]
                return bytes(out)
            n = 2 + struct.unpack('>H', data[i + 2:i + 4])[0]
            out += data[i:i + n]
            i += n
        else:
            raise ValueError('not a marker at %d' % i)
    return bytes(out)


def jpeg_app1s(orientation, count):
    """A small gray JPEG whose EXIF APP1 says orientation, then count
    APP1 markers of 1000 bytes, EXIF ones saying 1 among them: the first
    EXIF one is the one read, and the others are not held."""
    base = exif_jpeg(orientation)
    first = base.index(b'\xff\xdb')   # after SOI and the EXIF APP1
    later = exif_jpeg(1)[2:first]
    other = jpeg_segment(0xe1, bytes(1000))
    pad = jpeg_segment(0xe1, later[4:] + bytes(1000 - len(later) + 4))
    return base[:first] + (other + pad) * count + base[first:]


def regressions45_jpeg():
    """Issue 45's JPEG reproducers, small (tests/t_stream_bounds.sh makes
    them large): fill bytes the frame walk took again on every chunk
    read, APP1 markers every one of which was held."""
    return {
        'regress-jpeg-fill-ff.jpg': b'\xff\xd8' + b'\xff' * 60000,
        'jpeg-fill-before-markers.jpg': jpeg_filled(jpeg(16, 8, 1), 5000),
        'jpeg-app1-many.jpg': jpeg_app1s(6, 25),
        # A stream of both: each frame read as alone.
        'stream-jpeg-fill-app1.jpg': jpeg_filled(jpeg(16, 8, 1), 3000) +
            jpeg_app1s(6, 10) + jpeg_filled(jpeg(9, 9, 3), 1000),
    }


def arith_jpeg():
    """fuzz_jpegcheck's find (issue 42's session): an arithmetic-coded
    frame (SOF9) whose scan names DC table 15, which the JPEG engines'
    walk took as a Huffman table's index (of four) and read past them."""
    return (b'\xff\xd8' + jpeg_segment(0xdb, b'\x00' + b'\x01' * 64) +
            jpeg_segment(0xc9, b'\x08\x00\x08\x00\x10\x01\x01\x11\x00') +
            jpeg_segment(0xc4, b'\x00\x01' + b'\x00' * 16) +
            jpeg_segment(0xda, b'\x01\x01\xf7\x00\x3f\x00') + b'\x0f\xff\xd9')


def kspec_seeds():
    return ['1 2 1; 2 4 2; 1 2 1', 'gauss:1.4', 'gauss:2:7', 'gauss:0.001',
            'box:3', 'sharpen', 'laplace', 'emboss', 'sobelx', 'sobely',
            'identity', '0.5 -0.25\n1e3 2', '1,2,1;2,4,2;1,2,1', '-1 0 1',
            '1 2 1; 2 4', 'gauss:1e-200', '1e400',
            'log:1.4', 'dog:1,2', 'unsharp:1.5,0.75', 'laplacian:4',
            'scharrx', '3x3: -1,-1,-1,-1,8,-1,-1,-1,-1', '2x2+0+1: 1 2 3 4',
            '5: ' + ' '.join(['1'] * 25), ','.join(['-1'] * 4 + ['8'] + ['-1'] * 4)]


def icc_profile(space, n=256):
    """An ICC profile libpng takes: header, a white point, a private tag
    over the rest."""
    head = struct.pack('>I4sI4s4s4s', n, b'gpft', 0x04300000, b'mntr',
                       space, b'XYZ ') + bytes(12) + b'acsp' + bytes(28) + \
        struct.pack('>III', 0xf6d6, 0x10000, 0xd32d) + bytes(48)
    tags = struct.pack('>I', 2) + b'wtpt' + struct.pack('>II', 156, 20) + \
        b'gpfP' + struct.pack('>II', 176, n - 176)
    white = b'XYZ ' + bytes(4) + struct.pack('>III', 0xf6d6, 0x10000, 0xd32d)
    return head + tags + white + bytes(i * 7 & 0xff for i in range(n - 176))


def icc_seeds():
    """Images with ICC profiles (issue 43): a gray JPEG's profile in three
    APP2 markers, in order and out of it, one repeated; a PNG's iCCP; a
    WebP's ICCP chunk."""
    s = {}
    g, c = icc_profile(b'GRAY', 300), icc_profile(b'RGB ', 400)

    def app2(seq, count, part):
        return jpeg_segment(0xe2, b'ICC_PROFILE\0' + bytes([seq, count]) + part)
    base = jpeg(16, 8, 1)
    parts = [g[:100], g[100:200], g[200:]]
    for name, order in (('', (1, 2, 3)), ('-reordered', (3, 1, 2)),
                        ('-repeated', (1, 2, 2, 3))):
        s['icc-gray%s.jpg' % name] = base[:2] + b''.join(
            app2(k, 3, parts[k - 1]) for k in order) + base[2:]
    s['icc-gray8.png'] = png(5, 3, 8, 0, png_rows(5, 3, 1), png_chunk(
        b'iCCP', b'gray test\0\0' + zlib.compress(g)))
    s['icc-rgb8.png'] = png(4, 4, 8, 2, png_rows(4, 4, 3), png_chunk(
        b'iCCP', b'rgb\0\0' + zlib.compress(c)))
    vp8l = webp_seeds()['lossless-rgb.webp'][12:]
    bits = struct.unpack('<I', vp8l[9:13])[0]
    s['icc-rgb.webp'] = webp_riff(webp_chunk(b'VP8X', struct.pack(
        '<B3x', 0x20) + struct.pack('<I', bits & 0x3fff)[:3] +
        struct.pack('<I', bits >> 14 & 0x3fff)[:3]) + webp_chunk(b'ICCP', c) +
        vp8l)
    return s


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: seeds.py OUTDIR')
    out = sys.argv[1]
    for d in ('img', 'png', 'tiff', 'webp', 'kspec', 'jpeg'):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    files = image_seeds()
    files.update(regressions())
    files.update(regressions31())
    files.update(regressions45())
    files.update(regressions45_jpeg())
    files['jpeg-arith-table-15.jpg'] = arith_jpeg()
    files.update(icc_seeds())
    here = os.path.dirname(os.path.abspath(__file__))
    real = os.path.join(here, '..', '..', 'samples', 'small.jpg')
    if os.path.exists(real):        # a real photograph's JPEG tables
        with open(real, 'rb') as f:
            files['small.jpg'] = f.read()
        # Issue 31: a photograph cut short, with its EOI put back.
        cut = files['small.jpg'][:len(files['small.jpg']) * 6 // 10]
        files['regress-jpeg-photo-truncated-eoi.jpg'] = cut + b'\xff\xd9'
    for name, data in files.items():
        with open(os.path.join(out, 'img', name), 'wb') as f:
            f.write(data)
    for name, data in files.items():
        for ext, d in (('.tif', 'tiff'), ('.webp', 'webp'),
                       ('.jpg', 'jpeg')):  # fuzz_tiff's, fuzz_webp's, fuzz_jpegcheck's
            if name.endswith(ext):
                with open(os.path.join(out, d, name), 'wb') as f:
                    f.write(data)
    # A WebP, then what may follow it in a stream (issue 45).
    w = files['lossless-rgb.webp']
    for name, tail in (('then-jpeg', files['gray.jpg']), ('then-webp', w),
                       ('then-junk', b'JUNK'), ('then-space', b'\n ')):
        with open(os.path.join(out, 'webp', 'stream-' + name + '.webp'),
                  'wb') as f:
            f.write(w + tail)
    files.update(png_seeds())
    for name, data in files.items():
        if name.endswith('.png'):
            with open(os.path.join(out, 'png', name), 'wb') as f:
                f.write(data)
    for i, text in enumerate(kspec_seeds()):
        with open(os.path.join(out, 'kspec', 'k%02d' % i), 'w') as f:
            f.write(text)


if __name__ == '__main__':
    main()
