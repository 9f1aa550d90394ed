#!/bin/sh
# One H100 call: dp4a tests + sanitizers + bench, then the whole suite, then gpu.sh sanitize.
. .deps/env.sh
R=$OUT
make -j16 all build/bench/bench build/tests/gpu_probe build/bench/framegen build/bench/pnmcopy $(ls tests/*_test.c | sed 's#tests/\(.*\)\.c#build/tests/\1#') >$R/build.log 2>&1 || { tail -20 $R/build.log; exit 1; }
echo "built $(date +%s)" >$R/res.txt
for t in memcheck racecheck; do for m in shared sliding; do for k in sharpen '1 2 0 -1 3; 2 -4 1 0 1; 0 1 8 1 0; 1 0 1 -4 2; 3 -1 0 2 1' @tests/kernels/nonsep9x9.txt; do
	compute-sanitizer --tool $t --error-exitcode 9 bin/conv2d -q -m $m -k "$k" samples/retina1023x517.pgm /tmp/o.pgm >/tmp/san.txt 2>&1 &&
	    echo "clean $t $m $k" >>$R/res.txt || { echo "DIRTY $t $m $k" >>$R/res.txt; tail -5 /tmp/san.txt >>$R/res.txt; }
done; done; done &
for m in shared sliding; do
	build/bench/bench -z 12288x12288 -m $m conv2d >$R/b-$m.txt 2>&1
	GPUFILT_DP4A=0 build/bench/bench -z 12288x12288 -m $m conv2d >$R/b0-$m.txt 2>&1
	echo "== $m, dp4a:" >>$R/res.txt; cat $R/b-$m.txt >>$R/res.txt
	echo "== $m, float:" >>$R/res.txt; cat $R/b0-$m.txt >>$R/res.txt
done
wait
echo "bench done $(date +%s)" >>$R/res.txt
timeout 280 sh tests/run.sh -P 16 /tmp/t >/tmp/t.txt 2>&1
echo "suite rc=$? $(date +%s): $(tail -n 1 /tmp/t.txt)" >>$R/res.txt
grep -E '^(FAIL|not ok)' /tmp/t.txt | head -30 >>$R/res.txt
head -n 60 /tmp/t.txt | grep -v ' passed, ' | head -30 >>$R/res.txt
OUT=/tmp/g timeout 200 sh scripts/gpu.sh sanitize >/tmp/san.log 2>&1
echo "sanitize rc=$? $(date +%s)" >>$R/res.txt
tail -n 25 /tmp/san.log >>$R/res.txt
