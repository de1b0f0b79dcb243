#!/usr/bin/env bash
# tests/gpu/ladder.sh — on the GPU machine: the final ladder's device side alone (croq-runner
# serve, op ladder; docs/runner-protocol.md "serve"), without the engine: four configurations
# of f16 4096x4096x4096 (lines of kernels/variants.txt) built with `croqtuner build`, then ONE
# worker answers two ladder requests of all of them (ROUNDS rounds each, rotating order),
# each kernel's reported module id checked against the identity in its cubin's bytes,
# then requests the worker must refuse (bad_args: no cubins, 17 cubins, rounds 0 and 101,
# l2 "tepid") and a ladder of one kernel; each kernel's median, TFLOPS, clock and spread are
# recomputed from the printed trials the way the tuner does (src/backend/backend.c
# backend_ladder_summarise: the middle trial, the mean of the two middle ones for an even
# count; rel: the median over rounds of its trial / the round's geometric mean) and printed
# last, with the second ladder's median over the first's (how well a ladder repeats).
# Usage (GPU machine, repo root): tests/gpu/ladder.sh BIN_DIR OUT_DIR
#   env: SHAPE (4096x4096x4096), DTYPE (f16), ROUNDS (12), L2 (warm|cold), CONFIGS (';'-separated
#   knob lists, default 4 lines of kernels/variants.txt), RUNNER (default BIN_DIR/croq-runner;
#   tests/fixtures/serve/fake-serve.sh to try the script without a GPU, with CROQ_NVCC and
#   CROQ_CUOBJDUMP stand-ins as in tests/cli/t0105).
# Exit 0 when both ladders are ok and every refusal was a bad_args reply.
set -u
B=${1:?bin dir}; OUT=${2:?out dir}
SHAPE=${SHAPE:-4096x4096x4096}; DTYPE=${DTYPE:-f16}; ROUNDS=${ROUNDS:-12}; L2=${L2:-warm}
RUNNER=${RUNNER:-$B/croq-runner}
CONFIGS=${CONFIGS:-kernel=1;stages=5;group=8;raster=1 group=4}
export PATH=/usr/local/cuda/bin:$PATH
[ -n "${CROQ_CUOBJDUMP:-}" ] || export CROQ_CUOBJDUMP=$(command -v cuobjdump)
W=$(mktemp -d /tmp/croq-ladder.XXXXXX) # builds stay out of OUT
trap 'rm -rf "$W"' EXIT
export CROQ_CACHE_DIR=${CROQ_CACHE_DIR:-$W/cache}
mkdir -p "$OUT"
: > "$OUT/stderr.txt"

names=() cubins=()
IFS=';' read -r -a sets <<<"$CONFIGS"
s=$(date +%s)
for i in "${!sets[@]}"; do # the builds at once (one nvcc each)
    args=(); for k in ${sets[$i]}; do args+=(--set "$k"); done
    "$B/croqtuner" build --dtype "$DTYPE" --shape "$SHAPE" "${args[@]}" --out "$W/k$i" >/dev/null 2>"$W/build$i.err" &
done
wait
for i in "${!sets[@]}"; do
    cat "$W/build$i.err" >> "$OUT/stderr.txt"
    if [ -s "$W/k$i/kernel.cubin" ]; then
        names+=("${sets[$i]}"); cubins+=("$W/k$i/kernel.cubin")
    else
        echo "build of '${sets[$i]}' failed (left out; $OUT/stderr.txt)"
    fi
done
echo "${#cubins[@]} of ${#sets[@]} configurations built in $(( $(date +%s) - s )) s"
[ ${#cubins[@]} -ge 1 ] || { echo "nothing built"; exit 1; }

list() { local IFS=,; echo "$*"; } # a JSON array's members
quoted=(); for c in "${cubins[@]}"; do quoted+=("\"$c\""); done
seventeen=(); for _ in $(seq 17); do seventeen+=("\"${cubins[0]}\""); done
{
    echo "{\"op\":\"ladder\",\"id\":1,\"cubins\":[$(list "${quoted[@]}")],\"rounds\":$ROUNDS,\"l2\":\"$L2\"}"
    echo "{\"op\":\"ladder\",\"id\":2,\"cubins\":[$(list "${quoted[@]}")],\"rounds\":$ROUNDS,\"l2\":\"$L2\"}"
    echo "{\"op\":\"ladder\",\"id\":3,\"cubins\":[]}"
    echo "{\"op\":\"ladder\",\"id\":4,\"cubins\":[$(list "${seventeen[@]}")]}"
    echo "{\"op\":\"ladder\",\"id\":5,\"cubins\":[${quoted[0]}],\"rounds\":0}"
    echo "{\"op\":\"ladder\",\"id\":6,\"cubins\":[${quoted[0]}],\"rounds\":101}"
    echo "{\"op\":\"ladder\",\"id\":7,\"cubins\":[${quoted[0]}],\"l2\":\"tepid\"}"
    echo "{\"op\":\"ladder\",\"id\":8,\"cubins\":[${quoted[0]}],\"rounds\":3,\"l2\":\"$L2\"}"
    echo '{"op":"health","id":9}'
    echo '{"op":"quit"}'
} > "$OUT/requests.jsonl"
s=$(date +%s)
"$RUNNER" serve --dtype "$DTYPE" --shape "$SHAPE" < "$OUT/requests.jsonl" > "$OUT/replies.jsonl" 2>>"$OUT/stderr.txt"
rc=$?
echo "one worker, $(( $(date +%s) - s )) s, exit $rc; replies in $OUT/replies.jsonl"
printf '%s\n' "${names[@]}" > "$OUT/names.txt"

python3 - "$OUT/replies.jsonl" "$OUT/names.txt" "$SHAPE" <<'PY'
import json, math, re, sys
replies = {}
for line in open(sys.argv[1]):
    j = json.loads(line)
    if "id" in j: replies[j["id"]] = j
names = [l.rstrip("\n") for l in open(sys.argv[2])]
m, n, k = (int(x) for x in sys.argv[3].split("x"))
ok = True

def median(v):
    s = sorted(v); h = len(s) // 2
    return s[h] if len(s) % 2 else 0.5 * (s[h - 1] + s[h])

# what the worker must refuse, each with bad_args, the worker going on
for i, what in ((3, "no cubins"), (4, "17 cubins"), (5, "rounds 0"), (6, "rounds 101"), (7, "l2 tepid")):
    j = replies.get(i, {})
    good = j.get("status") == "bad_args"
    ok &= good
    print("refused %-11s %s: %s" % (what, "PASS" if good else "FAIL", j.get("status"), ) + " " + j.get("error", "")[:90])
one = replies.get(8, {})
one_ok = one.get("status") == "ok" and len(one.get("ladder", {}).get("kernels", [])) == 1 and \
    len(one["ladder"]["kernels"][0].get("trial_ms", [])) == 3
ok &= one_ok
print("ladder of one kernel, 3 rounds: %s (%s)" % ("PASS" if one_ok else "FAIL", one.get("status")))

tables = []
for i in (1, 2):
    j = replies.get(i)
    if not j or j.get("status") != "ok":
        ok = False
        print("ladder %d: %s %s (failed: kernel %s)" % (i, j and j.get("status"), j and j.get("error", ""),
                                                       j and j.get("failed")))
        tables.append(None); continue
    ks = j["ladder"]["kernels"]
    w = j["ladder"].get("warmup", {})
    for x in ks: # the module that ran is the one built (kernels/module_id.h: the marker in its bytes)
        ids = re.findall(rb"croq-module-id:([0-9a-f]{16})", open(x["cubin"], "rb").read())
        if ids != [x.get("module_id", "").encode()]:
            ok = False
            print("ladder %d: %s ran module '%s', its bytes carry %s: FAIL" % (i, x["cubin"], x.get("module_id"), ids))
    rounds = len(ks[0]["trial_ms"])
    assert all(len(x["trial_ms"]) == rounds for x in ks), "every kernel one trial a round"
    gm = [math.exp(sum(math.log(x["trial_ms"][r]) for x in ks) / len(ks)) for r in range(rounds)]
    rows = []
    for x in ks:
        t = x["trial_ms"]; med = median(t)
        clocks = [c for c in x.get("sm_clock_mhz", []) if c]
        rows.append({"median": med, "tflops": 2.0 * m * n * k / (med * 1e-3) / 1e12,
                     "spread": (max(t) - min(t)) / med * 100, "clock": median(clocks) if clocks else float("nan"),
                     "rel": median([t[r] / gm[r] for r in range(rounds)]), "iters": x.get("iters"),
                     "verify": x.get("verify", {}).get("passed"), "module_id": x.get("module_id")})
    print("ladder %d: %d kernels x %d rounds, %s L2, warm-up %.0f ms %s, phases %s" % (
        i, len(ks), rounds, j.get("l2"), w.get("ms", float("nan")), "steady" if w.get("steady") else "NOT steady",
        ", ".join("%s %.1f s" % kv for kv in j.get("phase_s", {}).items())))
    tables.append(rows)

print()
print("%-24s %-16s %10s %9s %7s %8s %7s %5s %s" % ("kernel", "module_id", "median ms", "TFLOPS", "clock", "spread%",
                                               "rel", "rank", "2nd/1st"))
for li, rows in enumerate(tables):
    if rows is None: continue
    order = sorted(range(len(rows)), key=lambda r: rows[r]["rel"])
    for r, row in enumerate(rows):
        again = tables[1][r]["median"] / row["median"] if li == 0 and tables[1] else float("nan")
        print("%-24s %-16s %10.5f %9.1f %7.0f %8.2f %7.4f %5d %s" % (
            ("L%d " % (li + 1)) + (names[r] if r < len(names) else "?")[:21], row["module_id"] or "-", row["median"],
            row["tflops"], row["clock"], row["spread"], row["rel"], order.index(r) + 1,
            "%.4f" % again if not math.isnan(again) else ""))
if all(tables):
    w1 = min(range(len(tables[0])), key=lambda r: tables[0][r]["rel"])
    w2 = min(range(len(tables[1])), key=lambda r: tables[1][r]["rel"])
    print("winner: ladder 1 '%s', ladder 2 '%s' (%s)" % (names[w1], names[w2], "the same" if w1 == w2 else "DIFFER"))
sys.exit(0 if ok else 1)
PY
