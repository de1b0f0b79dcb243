#!/usr/bin/env python3
"""bench/pair-coupling.py — how much of a pair's state the replay backend should share.

On the GPU, DECIDE times the candidate and the incumbent in alternating trials of one
worker (docs/runner-protocol.md, "serve"), so both trials of a pair run at one SM clock.
The replay backend (src/backend/replay.c) rebuilds a pair from two explore records whose
trials were timed apart. This reads every paired measurement a GPU tuning directory holds
(perf/<shape>/*-cand*.json, "paired": the per-pair times as measured) and compares the
width of the sign-test interval of the median ratio (src/util/paired.h: for 10 pairs
[r_(2), r_(9)]) / median ratio, as measured, against the same trials re-paired by the
replay's model for several values of REPLAY_STATE_SHARED: each pair draws the candidate's
trial at random and, with that probability, the incumbent's trial at a quantile inside the
candidate's trial's rank (rank + uniform) / n of its own record (else an independent one).

Usage: bench/pair-coupling.py TUNING_DIR   (e.g. results/h200/sweep-typical)
Prints one line per model (20 re-pairings of every measurement, seeded). No one value fits
both columns: the median width is matched near 0.57, the 90th percentile near 0.7; replay.c
takes 0.6 between them.
"""
import glob
import json
import os
import random
import statistics
import sys


def interval_width(ratios):
    """(r_(k) .. r_(n+1-k)) / median for 10 pairs, k = 2 (paired.h)."""
    r = sorted(ratios)
    return (r[-2] - r[1]) / statistics.median(r)


def rank(trials, k):
    return sum(t < trials[k] or (t == trials[k] and q < k) for q, t in enumerate(trials))


def at_quantile(trials, u):
    want = int(u * len(trials))
    return next(k for k in range(len(trials)) if rank(trials, k) == want)


def model_pairs(cand, inc, shared, g):
    out = []
    for _ in range(10):
        k = g.randrange(len(cand))
        u = (rank(cand, k) + g.random()) / len(cand)
        if g.random() < shared:
            j = at_quantile(inc, u)
        else:
            j = g.randrange(len(inc))
        out.append(inc[j] / cand[k])
    return out


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: bench/pair-coupling.py TUNING_DIR")
    pairs = []
    for f in sorted(glob.glob(os.path.join(sys.argv[1], "perf", "*", "*-cand*.json"))):
        try:
            p = json.load(open(f)).get("paired") or {}
        except (OSError, ValueError) as e:
            sys.exit(f"{f}: {e}")
        c, i = p.get("candidate_ms") or [], p.get("incumbent_ms") or []
        if len(c) == len(i) == 10:
            pairs.append((c, i))
    if not pairs:
        sys.exit(f"no paired measurement of 10 pairs under {sys.argv[1]}/perf")

    def show(name, widths):
        widths.sort()
        print(f"{name:28s} median {100 * statistics.median(widths):5.2f} %   "
              f"p90 {100 * widths[int(0.9 * len(widths))]:5.2f} %")

    print(f"{len(pairs)} paired measurements of 10 pairs; interval width / median ratio:")
    show("as measured", [interval_width([b / a for a, b in zip(c, i)]) for c, i in pairs])
    for shared in (0.0, 0.3, 0.5, 0.55, 0.6, 0.7, 0.8, 1.0):
        g = random.Random(5)
        show(f"replay model, shared {shared:.2f}",
             [interval_width(model_pairs(c, i, shared, g)) for c, i in pairs for _ in range(20)])


if __name__ == "__main__":
    main()
