#!/usr/bin/env python3
"""tests/gpu/tools/oracle-self.py — how well croqsparse-check's oracle agrees with itself.

Reads library.sh's JSON lines (plain or .gz) whose oracle candidates carry their rounds
(croqsparse_check.c oracle(): 7 interleaved rounds of every pack kernel, each one's trial
times). For every split of a case's rounds into a picking half (4 rounds) and a judging
half (the other 3), the kernel with the lowest median time in the picking half is judged
by the judging half: its speed over the judging half's fastest. That is the search /
oracle ratio a search that timed every candidate exactly as the oracle does would score
from the noise alone; per case the median and the 10th percentile over the 35 splits.
Usage: oracle-self.py LIBRARY.jsonl[.gz] ...
"""
import gzip
import itertools
import json
import statistics
import sys


def cases(path):
    with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)) as f:
        for no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"oracle-self: {path} line {no}: not JSON ({e})")
            if isinstance(r, dict) and 'dtype' in r and r.get('oracle'):
                yield r


def self_scores(cands, pick_rounds=4):
    times = [c['rounds']['trial_ms'] for c in cands]
    n = min(len(t) for t in times)
    out = []
    for a in itertools.combinations(range(n), pick_rounds):
        b = [i for i in range(n) if i not in a]
        pa = [statistics.median(t[i] for i in a) for t in times]
        pb = [statistics.median(t[i] for i in b) for t in times]
        pick = min(range(len(times)), key=lambda j: pa[j])
        out.append(min(pb) / pb[pick])
    return sorted(out)


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    below_med = below_p10 = total = 0
    for p in paths:
        for r in cases(p):
            cands = [c for c in r['oracle']['candidates'] if c.get('rounds')]
            if len(cands) < 2:
                continue
            sc = self_scores(cands)
            med, p10 = statistics.median(sc), sc[len(sc) // 10]
            total += 1
            below_med += med < 0.98
            below_p10 += p10 < 0.98
            shape = f"{r['m']}x{r['n']}x{r['k']}"
            print(f"{r['dtype']:5} {shape:18} self s/o median {med:.3f} p10 {p10:.3f} "
                  f"(search/oracle measured {r['oracle']['search_over_oracle']:.3f})")
    print(f"cases {total}: self s/o median < 0.98 on {below_med}, 10th percentile < 0.98 on {below_p10}")


if __name__ == '__main__':
    try:
        main(sys.argv[1:])
    except OSError as e:
        sys.exit(f"oracle-self: {e}")
