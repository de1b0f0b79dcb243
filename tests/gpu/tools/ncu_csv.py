"""tests/gpu/tools/ncu_csv.py — reading `ncu --csv --page raw --print-units base` output, for
the GPU scripts that profile (profile-vs-vendor.sh, streamk-profile.sh): one place for the
row, number and stall conventions. Import it with tests/gpu/tools on sys.path."""
import csv

# the stall reasons, in either form ncu's WarpStateStats gives them (src/profile reads both)
STALLS = (("smsp__average_warp_latency_issue_stalled_", ".ratio"),
          ("smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"))


def row_of(path):
    """The last kernel row of an ncu CSV file (its stdout may hold other lines: only those
    that start with a quote are the CSV's), or None when there is none or no file."""
    try:
        rows = [r for r in csv.DictReader(l for l in open(path) if l.startswith('"'))
                if r.get("ID", "").isdigit()]
    except OSError:
        return None
    return rows[-1] if rows else None


def num(r, k):
    """Metric k of row r as a float ("1,234.5" reads as 1234.5); NaN when absent or not a number."""
    try:
        return float(str(r.get(k, "nan")).replace(",", ""))
    except ValueError:
        return float("nan")


def top_stalls(r, n=5):
    """The n largest stall reasons of row r as "name value, ..." (either metric form)."""
    stalls = sorted(((num(r, k), k[len(a):-len(b)]) for k in r for a, b in STALLS
                     if k.startswith(a) and k.endswith(b) and not k.endswith("_not_issued" + b)), reverse=True)
    return ", ".join("%s %.2f" % (name, v) for v, name in stalls[:n] if v == v)
