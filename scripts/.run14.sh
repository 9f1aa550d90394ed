#!/bin/sh
# One H100 call: conv2d with two blocks an SM up to 5x5: tests, sanitizers, bench; ncu digests.
. .deps/env.sh
R=$OUT
make -j16 all build/bench/bench build/tests/gpu_probe $(ls tests/*_test.c | sed 's#tests/\(.*\)\.c#build/tests/\1#') >$R/build.log 2>&1 || { tail -20 $R/build.log; exit 1; }
echo "built $(date +%s)" >$R/res.txt
K5='1 2 0 -1 3; 2 -4 1 0 1; 0 1 8 1 0; 1 0 1 -4 2; 3 -1 0 2 1'
R5='0.5 1 0 -1 1.5; 1 -2 0.5 0 0.5; 0 0.5 4 0.5 0; 0.5 0 0.5 -2 1; 1.5 -0.5 0 1 0.5'
for t in memcheck racecheck; do for m in shared sliding; do for k in sharpen "$K5" "$R5" '0.25 0.5 0.25; 0.5 1 0.5; 0.25 0.5 0.25'; do
	compute-sanitizer --tool $t --error-exitcode 9 bin/conv2d -q -m $m -k "$k" samples/retina1023x517.pgm /tmp/o.pgm >/tmp/san.txt 2>&1 &&
	    echo "clean $t $m $k" >>$R/res.txt || { echo "DIRTY $t $m $k" >>$R/res.txt; tail -5 /tmp/san.txt >>$R/res.txt; }
done; done; done &
timeout 200 sh tests/run.sh -P 8 /tmp/t unit t_conv2d >/tmp/t.txt 2>&1
wait
echo "tests rc=$? $(date +%s): $(tail -n 1 /tmp/t.txt)" >>$R/res.txt
grep -E '^FAIL' /tmp/t.txt | head -20 >>$R/res.txt
for m in shared sliding; do echo "== $m" >>$R/res.txt; timeout 60 build/bench/bench -z 12288x12288 -m $m conv2d >>$R/res.txt 2>&1; done
echo "ncu $(date +%s)" >>$R/res.txt
OUT=/tmp/p KERNELS='^(conv8|copy)' timeout 90 sh scripts/prof.sh conv2d >>$R/res.txt 2>&1
OUT=/tmp/p timeout 80 sh scripts/prof.sh sobel >>$R/res.txt 2>&1
echo "end $(date +%s)" >>$R/res.txt
