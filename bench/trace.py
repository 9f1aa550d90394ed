"""trace.py FILE... - where the images of a run waited, from GPUFILT_TRACE.

Run a tool with GPUFILT_TRACE=FILE; the engine writes each step of each
image (lib/engine/engine_trace.c).  For each file this prints: when the GPUs and
the JPEG engines were ready; the images done per tenth of the run; for
each gap between two steps (read, waiting for a lane, the lane, waiting
for the writer's order, writing, ...) its median and 90th percentile and
its share of an image's time in flight, and on several GPUs the lane's
time on each apart; and how many threads of each
stage were at work, on average and at most, over the steady middle of
the run (from the 10th to the 90th percentile of the images' ends),
with the readers' time between jobs (waiting for a slot or an end
marker) and the images in flight.
"""
import signal
import sys
from collections import defaultdict

# Gaps between steps, in an image's order, and what each one is.
GAPS = [
    ("A", "R", "read (decode or keep the bytes)"),
    ("R", "d", "wait for the JPEG decoder"),
    ("d", "D", "JPEG engines' batch"),
    ("D", "l", "decoded, wait for a lane"),
    ("R", "l", "read, wait for a lane"),
    ("l", "L", "lane (GPU work, copies)"),
    ("L", "o", "wait for the writer's order"),
    ("o", "e", "wait for an encoder"),
    ("e", "E", "encode and write"),
    ("E", "g", "written, wait to be told"),
]
BUSY = [("reader", "r", "A", "R"), ("lane", "l", "l", "L"), ("encoder", "e", "e", "E")]


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def gap_row(what, xs):
    """A gap's line: median, 90th percentile, mean and count of xs."""
    if xs:
        print("  %-34s %7.2fms %7.2fms %7.2fms  (%d)" % (
            what, pct(xs, 0.5), pct(xs, 0.9), sum(xs) / len(xs), len(xs)))


def report(path):
    steps = defaultdict(dict)       # (job, index) -> step -> (ms, who)
    events = []
    for line in open(path):
        f = line.split()
        if len(f) != 5:
            continue
        ms, step, job, idx, who = float(f[0]), f[1], int(f[2]), int(f[3]), f[4]
        events.append((ms, step, job, idx, who))
        if job >= 0 and idx > 0:
            steps[(job, idx)].setdefault(step, (ms, who))
        elif job >= 0 and step == "a":
            pass
    # A reader's 'a'/'A' are per job (index 0): the image's read starts at
    # the reader's last 'A' of its job, or the job's 'r' when no wait.
    began = {}
    for ms, step, job, idx, who in events:
        if step in ("r", "A") and job >= 0:
            began[job] = ms
        if step == "R":
            steps[(job, idx)]["A"] = (began.get(job, ms), who)
            began[job] = ms
    images = {k: v for k, v in steps.items() if "g" in v and "l" in v}
    if not images:
        print("%s: no images" % path)
        return
    ends = sorted(v["g"][0] for v in images.values())
    t_end = max(e[0] for e in events)
    print("%s: %d images, %.1f ms" % (path, len(images), t_end))
    for ms, step, job, idx, who in events:
        if step in "SOGJjHMPZX":
            what = {"S": "the run's threads started",
                    "O": "the opener decided",
                    "G": "GPUs decided", "J": "JPEG engines open",
                    "j": "JPEG engines failed to open",
                    "H": "JPEG engines opened early, with a decode state",
                    "M": "their decode state set up for the first image",
                    "P": "the process began", "Z": "the run's teardown began",
                    "X": "the run's teardown ended"}[step]
            print("  %8.1f ms  %s (%s)" % (ms, what, who))
    first = min(v["A"][0] for v in images.values() if "A" in v)
    print("  first image read at %.1f ms, first told at %.1f, last at %.1f"
          % (first, ends[0], ends[-1]))
    tenth = []
    for k in range(10):
        a, b = t_end * k / 10, t_end * (k + 1) / 10
        tenth.append(sum(1 for e in ends if a <= e < b or (k == 9 and e == b)))
    print("  images told per tenth of the run: " + " ".join(map(str, tenth)))
    lo, hi = pct(ends, 0.1), pct(ends, 0.9)
    n_mid = sum(1 for e in ends if lo <= e <= hi)
    if hi > lo:
        print("  steady middle %.1f-%.1f ms: %.1f images/s"
              % (lo, hi, 1000.0 * n_mid / (hi - lo)))
    print("  %-34s %8s %8s %8s" % ("gap", "median", "p90", "mean"))
    for a, b, what in GAPS:
        xs = [v[b][0] - v[a][0] for v in images.values() if a in v and b in v]
        gap_row(what, xs)
    # G's job: the GPUs the lanes use, lane n on GPU n modulo their count.
    ngpu = max([job for ms, step, job, idx, who in events if step == "G"] + [0])
    for k in range(ngpu if ngpu > 1 else 0):
        xs = [v["L"][0] - v["l"][0] for v in images.values()
              if "l" in v and "L" in v and int(v["l"][1][1:]) % ngpu == k]
        gap_row("lane on the run's GPU %d" % k, xs)
    lat = [v["g"][0] - v["A"][0] for v in images.values() if "A" in v]
    print("  %-34s %7.2fms %7.2fms %7.2fms" % ("in flight, read to told",
          pct(lat, 0.5), pct(lat, 0.9), sum(lat) / len(lat)))
    # A decoder's batches: b (taken, job = size), p (ready, job = those
    # for the engines), c (engines called), y (back).  The next batch is
    # made ready while one is on the engines, so each step belongs to the
    # oldest batch of that decoder still without it.
    batches = defaultdict(list)
    for ms, step, job, idx, who in events:
        if step == "b":
            batches[who].append({"b": ms, "n": job})
        elif step in "pcy":
            todo = [x for x in batches[who] if step not in x]
            if todo:
                todo[0][step] = ms
                if step == "p":
                    todo[0]["m"] = job
    for who, bs in sorted(batches.items()):
        rows = [x for x in bs if "y" in x and "c" in x and "p" in x]
        if not rows:
            continue
        k, calls, syncs, prev = len(rows), [], [], None
        for x in rows:
            start = max(x["p"], prev["y"]) if prev else x["p"]
            calls.append((x["c"] - start) / max(1, x["m"]))
            syncs.append(x["y"] - x["c"])
            prev = x
        span = rows[-1]["y"] - rows[0]["c"]
        print("  decoder %s: %d batches of %.1f images, %.0f ms apart; the "
              "engines' call %.2f ms an image (median; p90 %.2f), then "
              "%.1f ms to have them back" % (
                  who, k, sum(x["m"] for x in rows) / k,
                  span / max(1, k - 1), pct(calls, 0.5), pct(calls, 0.9),
                  pct(syncs, 0.5)))
    if hi <= lo:
        return
    for name, who, a, b in BUSY:
        spans = defaultdict(float)
        threads = set()
        for v in images.values():
            if a in v and b in v:
                s, e = max(v[a][0], lo), min(v[b][0], hi)
                threads.add(v[b][1])
                if e > s:
                    spans[v[b][1]] += e - s
        if not threads:
            continue
        tot = sum(spans.values())
        print("  %-8s %2d threads, %.2f busy on average over the middle"
              " (%.0f%% each)" % (name, len(threads), tot / (hi - lo),
                                 100.0 * tot / (hi - lo) / len(threads)))
    # A reader claims its next job only with a slot and an end marker of
    # its own free (engine_read.c's reader_ready; a one-image job holds
    # its marker until its image is told): the time from its last step
    # of one job to the start ('r') of its next is mostly that wait.
    # When the readers are idle, this says whether they wait on those.
    last, waits, waited = {}, [], defaultdict(float)
    for ms, step, job, idx, who in events:
        if not who.startswith("r"):
            continue
        if step == "r" and who in last:
            s, e = last[who], ms
            waits.append(e - s)
            if min(e, hi) > max(s, lo):
                waited[who] += min(e, hi) - max(s, lo)
        last[who] = ms
    if waits:
        tot = sum(waited.values())
        print("  readers between jobs (for a slot or marker): %.2f on average over the"
              " middle; %.2f ms a time (median; p90 %.2f) (%d)" % (
                  tot / (hi - lo), pct(waits, 0.5), pct(waits, 0.9), len(waits)))
    held = sum(max(0.0, min(v["g"][0], hi) - max(v["A"][0], lo))
               for v in images.values() if "A" in v)
    print("  images in flight (read to told): %.1f on average over the middle"
          % (held / (hi - lo)))


# Piped into head, stop quietly when it has read enough.
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
for p in sys.argv[1:]:
    report(p)
