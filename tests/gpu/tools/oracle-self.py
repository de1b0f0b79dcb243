#!/usr/bin/env python3
"""tests/gpu/tools/oracle-self.py — how well croqsparse-check's oracle agrees with itself.

Reads library.sh's JSON lines (plain or .gz) whose oracle candidates carry their rounds
(croqsparse_check.c oracle(): 7 interleaved rounds of every pack kernel, each one's trial
times). For every split of a case's rounds into a picking part (4 rounds) and a judging
part (the rest, at least one), the kernel with the lowest median time in the picking part
is judged by the judging part: its speed over the judging part's fastest. That is the
search / oracle ratio a search that timed every candidate exactly as the oracle does would
score from the noise alone; per case the median and the 10th percentile over the splits.
Beside it, the paired judgement of the search's actual pick: per oracle round, the
oracle's fastest kernel's trial over the pick's trial (the fastest chosen by the medians
of all rounds, so the ratio leans low: the winner's curse of picking among noisy
medians), with the median and its 95% interval from order statistics (the sign-test
interval of src/util/paired.h; with fewer than 6 rounds no interval reaches 95% and the
extremes are given). A case whose interval lies wholly below 0.98 is a miss
the rounds can tell; one whose interval reaches 0.98 is not distinguishable from the
target. A case whose oracle has no rounds (library-7 and earlier) or fewer than two
candidates with rounds is skipped and counted. Last, per dtype, the issue's targets as
measured: the search / oracle ratios (geomean, min and its shape, how many >= 0.98) and
the model / oracle ones (>= 0.90), over every record with an oracle. Every file is read
whole before anything is printed; a malformed one is refused with its line, exit 1.
Usage: oracle-self.py LIBRARY.jsonl[.gz] ...
"""
import gzip
import itertools
import json
import math
import os
import statistics
import sys

PICK_ROUNDS = 4


class Refused(Exception):
    pass


def lines(path):
    if not os.path.exists(path):
        raise Refused(f"{path}: no such file")
    if not os.path.isfile(path):  # a FIFO would block, a directory has no lines
        raise Refused(f"{path}: not a regular file")
    try:
        with open(path, 'rb') as f:
            data = f.read()
        if data[:2] == b'\x1f\x8b':
            data = gzip.decompress(data)
        return data.decode('utf-8').splitlines()
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise Refused(f"{path}: {e}")
    except UnicodeDecodeError:
        raise Refused(f"{path}: not UTF-8 text")


def trials(c, where):
    r = c.get('rounds')
    if r is None:
        return None
    t = r.get('trial_ms') if isinstance(r, dict) else None
    if not isinstance(t, list) or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0 for x in t):
        raise Refused(f"{where}: 'rounds.trial_ms' is not a list of positive finite milliseconds")
    return t


def ratio(o, key, where):
    """o[key] as a ratio, None when absent or 0 (croqsparse-check's "the pick is not
    among the oracle's candidates"); anything but a finite number >= 0 is refused."""
    v = o.get(key)
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0):
        raise Refused(f"{where}: '{key}' is not a number >= 0")
    return v or None


def case(r, where):
    """(dtype, shape, search_over_oracle or None, trial lists, index of the search's
    pick among them or None, model_over_oracle or None) of one record, or None when it
    has no oracle (a line of library.sh without one, e.g. the compress record)."""
    if not isinstance(r, dict):
        raise Refused(f"{where}: not a JSON object")
    o = r.get('oracle')
    if o is None or 'dtype' not in r:
        return None
    if not isinstance(o, dict) or not isinstance(o.get('candidates'), list):
        raise Refused(f"{where}: 'oracle' is not an object with a 'candidates' list")
    dims = [r.get(k) for k in ('m', 'n', 'k')]
    if not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in dims):
        raise Refused(f"{where}: 'm', 'n', 'k' are not positive integers")
    so, mo = ratio(o, 'search_over_oracle', where), ratio(o, 'model_over_oracle', where)
    ts, pick = [], None
    srch = r.get('search') if isinstance(r.get('search'), dict) else {}
    for c in o['candidates']:
        if not isinstance(c, dict):
            raise Refused(f"{where}: an oracle candidate is not an object")
        t = trials(c, where)
        if t is not None:
            if pick is None and 'kernel' in srch and (c.get('kernel'), c.get('config')) == (srch['kernel'], srch.get('config')):
                pick = len(ts)
            ts.append(t)
    if ts and len({len(t) for t in ts}) != 1:
        raise Refused(f"{where}: the candidates' rounds differ in number ({sorted({len(t) for t in ts})})")
    if ts and len(ts[0]) <= PICK_ROUNDS:
        raise Refused(f"{where}: {len(ts[0])} rounds; a split needs more than {PICK_ROUNDS}")
    return r['dtype'], 'x'.join(map(str, dims)), so, ts, pick, mo


def sign_interval(ratios, confidence=0.95):
    """(median, lo, hi) of ratios: lo the k-th smallest and hi the k-th largest for the
    largest k whose coverage 1 - 2 P(Binomial(n, 1/2) <= k - 1) is at least confidence
    (k = 1, the extremes, when none is)."""
    n, xs = len(ratios), sorted(ratios)
    k, cdf = 1, 0.0
    for j in range(1, n // 2 + 1):
        cdf += math.comb(n, j - 1) / 2 ** n
        if 1 - 2 * cdf < confidence:
            break
        k = j
    return statistics.median(xs), xs[k - 1], xs[n - k]


def paired_pick(times, pick):
    """The search's pick judged in the oracle's rounds: sign_interval of the per-round
    ratios fastest / pick, the fastest by the medians of all rounds."""
    med = [statistics.median(t) for t in times]
    best = min(range(len(times)), key=lambda j: med[j])
    return sign_interval([b / p for b, p in zip(times[best], times[pick])])


def self_scores(times):
    n = len(times[0])
    out = []
    for a in itertools.combinations(range(n), PICK_ROUNDS):
        b = [i for i in range(n) if i not in a]
        pa = [statistics.median(t[i] for i in a) for t in times]
        pb = [statistics.median(t[i] for i in b) for t in times]
        pick = min(range(len(times)), key=lambda j: pa[j])
        out.append(min(pb) / pb[pick])
    return sorted(out)


def main(paths):
    if not paths:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    cases, every, skipped = [], [], 0
    try:
        for p in paths:
            for no, line in enumerate(lines(p), 1):
                if not line.strip():
                    continue
                where = f"{p} line {no}"
                try:
                    r = json.loads(line)
                except (ValueError, RecursionError) as e:
                    raise Refused(f"{where}: not JSON ({str(e)[:80]})")
                c = case(r, where)
                if c is None:
                    continue
                every.append(c)
                if len(c[3]) < 2:
                    skipped += 1
                else:
                    cases.append(c)
    except Refused as e:
        print(f"oracle-self: {e}", file=sys.stderr)
        return 1
    below_med = below_p10 = told = untold = 0
    for dtype, shape, so, ts, pick, _ in cases:
        sc = self_scores(ts)
        med, p10 = statistics.median(sc), sc[len(sc) // 10]
        below_med += med < 0.98
        below_p10 += p10 < 0.98
        measured = f"{so:.3f}" if so is not None else "-"
        paired = "pick not among the oracle's candidates"
        if pick is not None:
            pm, lo, hi = paired_pick(ts, pick)
            paired = f"pick paired {pm:.3f} [{lo:.3f}, {hi:.3f}]"
            told += hi < 0.98
            untold += pm < 0.98 <= hi
        print(f"{dtype:5} {shape:18} self s/o median {med:.3f} p10 {p10:.3f} (search/oracle measured {measured}); "
              f"{paired}")
    print(f"cases {len(cases)} (skipped {skipped} without rounds of 2 or more candidates): self s/o median < 0.98 "
          f"on {below_med}, 10th percentile < 0.98 on {below_p10}; the search's pick paired below 0.98 with its "
          f"interval wholly below on {told}, with the interval reaching 0.98 on {untold}")
    for dtype in dict.fromkeys(c[0] for c in every):
        parts = []
        for name, at, target in (("search / oracle", 2, 0.98), ("model / oracle", 5, 0.90)):
            got = [(c[at], c[1]) for c in every if c[0] == dtype and c[at] is not None]
            if not got:
                parts.append(f"{name}: none recorded")
                continue
            geo = math.exp(sum(math.log(v) for v, _ in got) / len(got))
            low = min(got)
            parts.append(f"{name} over {len(got)}: geomean {geo:.3f}, min {low[0]:.3f} ({low[1]}), "
                         f">= {target:.2f} on {sum(v >= target for v, _ in got)}")
        print(f"{dtype}: " + "; ".join(parts))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
