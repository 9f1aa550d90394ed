#!/usr/bin/env python3
"""rewrite.py IN.cu OUT.cc - a kernel file made for emu.h: each launch
K<<<g, b[, smem[, stream]]>>>(args) becomes emu_launch(g, b, smem, stream,
[=]() { K(args); }); each extern __shared__ T name[] points into
emu_dyn_smem."""
import re, sys

src = open(sys.argv[1]).read()

def split_top(s):
    parts, depth, cur = [], 0, ''
    for c in s:
        if c in '([{':
            depth += 1
        elif c in ')]}':
            depth -= 1
        if c == ',' and depth == 0:
            parts.append(cur.strip()); cur = ''
        else:
            cur += c
    parts.append(cur.strip())
    return parts

out, i = '', 0
pat = re.compile(r'([A-Za-z_][\w:]*(?:<[\w:, ]+>)?)<<<')
while True:
    m = pat.search(src, i)
    if not m:
        out += src[i:]
        break
    out += src[i:m.start()]
    j = src.index('>>>', m.end())
    cfg = split_top(src[m.end():j])
    while len(cfg) < 4:
        cfg.append('0')
    assert src[j + 3] == '('
    k, depth = j + 3, 0
    while True:
        if src[k] == '(':
            depth += 1
        elif src[k] == ')':
            depth -= 1
            if depth == 0:
                break
        k += 1
    args = src[j + 4:k]
    out += 'emu_launch(%s, [=]() { %s(%s); })' % (', '.join(cfg), m.group(1), args)
    i = k + 1
out = re.sub(r'extern __shared__ (?:__align__\(\d+\) )?([\w ]+?) (\w+)\[\];',
             r'static \1 *\2 = (\1 *)emu_dyn_smem;', out)
sys.stdout.write('#include "emu.h"\n' + out)
