#!/bin/sh
# Next session, on the H100 (one call, ~300 s held): the dp4a path of
# conv2d's 8-bit fast kernels.  Its tests (unit, t_conv2d), the
# sanitizers on the integer kernels it takes, then the bench with it
# and without (GPUFILT_DP4A=0), each row a fraction of copy.
#   timeout 560 sh scripts/.run10.sh; cat $OUT/res.txt
. .deps/env.sh
R=$OUT
make -j16 all build/bench/bench build/tests/gpu_probe $(ls tests/*_test.c | sed 's#tests/\(.*\)\.c#build/tests/\1#') >$R/build.log 2>&1 || { tail -20 $R/build.log; exit 1; }
sh tests/run.sh -P 4 $R/t unit t_conv2d t_engine >$R/t.txt 2>&1
echo "tests: $(tail -n 1 $R/t.txt)" >$R/res.txt
grep '^FAIL' $R/t.txt | head >>$R/res.txt
for t in memcheck racecheck; do for m in shared sliding; do for k in sharpen '1 2 0 -1 3; 2 -4 1 0 1; 0 1 8 1 0; 1 0 1 -4 2; 3 -1 0 2 1' @tests/kernels/nonsep9x9.txt; do
	compute-sanitizer --tool $t --error-exitcode 9 bin/conv2d -q -m $m -k "$k" samples/retina1023x517.pgm /tmp/o.pgm >/tmp/san.txt 2>&1 &&
	    echo "clean $t $m $k" >>$R/res.txt || { echo "DIRTY $t $m $k" >>$R/res.txt; tail -5 /tmp/san.txt >>$R/res.txt; }
done; done; done
for m in shared sliding; do
	build/bench/bench -z 12288x12288 -m $m conv2d >$R/b-$m.txt 2>&1
	GPUFILT_DP4A=0 build/bench/bench -z 12288x12288 -m $m conv2d >$R/b0-$m.txt 2>&1
	echo "== $m, dp4a:" >>$R/res.txt; cat $R/b-$m.txt >>$R/res.txt
	echo "== $m, float:" >>$R/res.txt; cat $R/b0-$m.txt >>$R/res.txt
done
