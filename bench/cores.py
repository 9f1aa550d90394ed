"""cores.py LABEL COMMAND - where the host's cores go while a shell COMMAND
runs: the CPU seconds of every thread of the tools and of gpufiltd, read
from /proc every 20 ms (a thread's last reading counts: the client's end
with it), summed by process name, with the busiest threads of each.  A
served run's bound shows here when -v and the trace say only that its
lanes wait on the server: a thread near one core (the JPEG queue's), or
workers that spin while they wait for the GPU.  Linux only."""

import os
import subprocess
import sys
import time

NAMES = ("sobel", "conv2d", "edge", "gpufiltd")


def sample(seen):
    """Adds each thread's user and system ticks so far to seen."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % pid) as f:
                name = f.read().strip()
            tids = os.listdir("/proc/%s/task" % pid) if name in NAMES else []
        except OSError:
            continue
        for tid in tids:
            try:
                with open("/proc/%s/task/%s/stat" % (pid, tid)) as f:
                    stat = f.read()
            except OSError:
                continue
            v = stat[stat.rfind(")") + 2:].split()
            seen[(name, pid, tid)] = int(v[11]) + int(v[12])


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: cores.py LABEL COMMAND")
    label, cmd = sys.argv[1:]
    hz = os.sysconf("SC_CLK_TCK")
    seen = {}
    sample(seen)
    before = dict(seen)
    t0 = time.time()
    p = subprocess.Popen(cmd, shell=True)
    while p.poll() is None:
        sample(seen)
        time.sleep(0.02)
    wall = time.time() - t0
    sample(seen)
    total, threads = {}, []
    for k, ticks in seen.items():
        s = (ticks - before.get(k, 0)) / hz
        if s > 0:
            total[k[0]] = total.get(k[0], 0) + s
            threads.append((s, k[0]))
    threads.sort(reverse=True)
    print("%s: %.3f s, status %d; CPU seconds: %s" % (label, wall, p.returncode,
          ", ".join("%s %.2f (%.1f cores)" % (n, s, s / wall)
                    for n, s in sorted(total.items())) or "none"))
    for n in sorted(total):
        busy = [s for s, m in threads if m == n]
        print("    %s: %d threads busy, the busiest %s" % (
            n, len(busy), " ".join("%.2f" % s for s in busy[:8])))
    sys.exit(p.returncode)


if __name__ == "__main__":
    main()
