#!/bin/sh
# One H100 call: the whole bench (same run), 4K, conv2d fast kernels at two blocks an SM, then ncu.
. .deps/env.sh
R=$OUT
make -j16 all build/bench/bench >$R/build.log 2>&1 || { tail -20 $R/build.log; exit 1; }
echo "built $(date +%s)" >$R/res.txt
timeout 150 build/bench/bench -z 12288x12288 >$R/b-all.txt 2>&1; echo "bench rc=$? $(date +%s)" >>$R/res.txt
{ timeout 40 build/bench/bench -z 3840x2160 sobel; timeout 40 build/bench/bench -z 3840x2160 edge; } >$R/b-4k.txt 2>&1
touch kernels/conv2d.cu
make -j16 all build/bench/bench NVCCFLAGS="-O3 -DFAST_MINB=2" >$R/build2.log 2>&1 || { tail -20 $R/build2.log >>$R/res.txt; }
for m in shared sliding; do echo "== MINB=2 $m" >>$R/res.txt; timeout 60 build/bench/bench -z 12288x12288 -m $m conv2d >>$R/res.txt 2>&1; done
touch kernels/conv2d.cu
make -j16 all build/bench/bench >$R/build.log 2>&1
echo "ncu $(date +%s)" >>$R/res.txt
OUT=/tmp/p KERNELS='^(conv8|copy)' timeout 100 sh scripts/prof.sh conv2d >>$R/res.txt 2>&1
OUT=/tmp/p timeout 80 sh scripts/prof.sh sobel >>$R/res.txt 2>&1
OUT=/tmp/p timeout 100 sh scripts/prof.sh edge 12288x12288 sliding >>$R/res.txt 2>&1
echo "end $(date +%s)" >>$R/res.txt
for t in conv2d sobel edge; do cat /tmp/p/ncu-$t-* >$R/ncu-$t.txt 2>/dev/null; done
