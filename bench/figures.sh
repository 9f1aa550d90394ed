#!/bin/sh
# make bench: runs the kernel bench (its arguments) and keeps what it
# prints in bench/figures.md, under a line naming the date, the commit
# and the GPU (each table names its image size): the one place the
# project's figures live, which comments and man pages point to.  The
# file is replaced only when the bench succeeds.
#
# Usage: sh bench/figures.sh build/bench/bench [ARGS...]
# (GF_COMMIT names the commit where the tree is not a git checkout.)
out=bench/figures.md
commit=${GF_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
"$@" >"$out.body" || { st=$?; cat "$out.body"; rm -f "$out.body"; exit $st; }
{
	echo "# Figures of make bench"
	echo
	echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit, ${gpu:-GPU unknown};"
	echo "written by make bench (bench/figures.sh); each table names its size."
	cat "$out.body"
} >"$out.tmp" && mv "$out.tmp" "$out" && rm -f "$out.body"
cat "$out"
