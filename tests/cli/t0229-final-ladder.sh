#!/usr/bin/env bash
# The final ladder (docs/engine.md, "Final ladder"): a rules-4 shape ends with its top
# configurations timed together; the registered best (state.json, the published kernel,
# status) is the winner at the ladder's numbers; a kill -9 during the ladder (the sweep's
# worker killed from outside while it runs) resumes to exactly the uninterrupted run's
# records; an entry that fails in the ladder is left out, said in the note, and the ladder
# runs once more without it; every outcome audits clean.
set -u
. "$(dirname "$0")/lib.sh"
key=f16_4096x4096x4096_fs
tune=(tune --backend sim --quiet --dtype f16 --shape 4096x4096x4096 --mode scratch --iters 30 --seed 5)
"$bin" "${tune[@]}" --tuning "$tmp/ref" || fail "tune exited $?"
ck="$tmp/ref/checkpoints/$key.json"
python3 - "$ck" "$tmp/ref/state.json" "$key" <<'PY' || fail "the ladder's records"
import json, sys
c = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))["shapes"][sys.argv[3]]
l = c["ladder"]
assert l["ok"] and 2 <= len(l["entries"]) <= 11, l
iters = [e["iter"] for e in l["entries"]]
assert iters == sorted(iters) and c["best"]["iter"] in iters, (iters, c["best"]["iter"])
rels = [e["rel"] for e in l["entries"]]
assert l["winner"] == rels.index(min(rels)), (l["winner"], rels)
w = l["entries"][l["winner"]]
b = s["best"]
assert b["measured"] == "ladder" and b["iter"] == w["iter"] and b["tflops"] == w["tflops"], (b, w)
assert b["sm_clock_mhz"] == w["sm_clock_mhz"] and b["config"] == w["config"], (b, w)
assert s["ladder"]["tuning_best"]["iter"] == c["best"]["iter"], s["ladder"]
PY
cmp -s "$tmp/ref/kernels/gemm_sp_f16/${key}_best.cu" \
    <("$bin" source --tuning "$tmp/ref" --key $key --iter "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shapes"][sys.argv[2]]["best"]["iter"])' "$tmp/ref/state.json" $key)") ||
    fail "the published kernel is not the ladder winner's source"
"$bin" status --tuning "$tmp/ref" | grep -q " L@[0-9]*  *budget of 30 iterations spent" || fail "status: $("$bin" status --tuning "$tmp/ref")"
out=$("$bin" audit --tuning "$tmp/ref") || fail "audit: $out"

# killed from outside while the ladder runs, then resumed: the same records as the run
# that was never killed (stopped at iteration 30's last write, then resumed with a 1.5 s
# delay per simulated request so the kill falls inside the ladder)
d="$tmp/killed"
CROQ_CRASHPOINT=store.state@31 "$bin" "${tune[@]}" --tuning "$d" >/dev/null 2>&1
[ $? -eq 137 ] || fail "the crash point after iteration 30 did not kill the run"
"$bin" resume --tuning "$d" --quiet --sim-delay-ms 1500 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do
    grep -q '"phase": "LADDER"' "$d/checkpoints/$key.json" 2>/dev/null && break
    sleep 0.1
done
grep -q '"phase": "LADDER"' "$d/checkpoints/$key.json" || { kill -9 $pid; fail "the run never reached LADDER"; }
sleep 0.5
kill -9 $pid; wait $pid 2>/dev/null
grep -q '"ladder"' "$d/checkpoints/$key.json" && fail "the kill came after the ladder was recorded (test timing)"
"$bin" resume --tuning "$d" --quiet || fail "resume exited $?"
for f in logs/$key/results.tsv logs/$key/idea-log.jsonl checkpoints/$key.json perf/$key/ladder-final.json \
         kernels/gemm_sp_f16/${key}_best.cu; do
    diff <(norm "$tmp/ref/$f") <(norm "$d/$f") >/dev/null || fail "after kill -9 and resume, $f differs"
done
python3 - "$tmp/ref/state.json" "$d/state.json" <<'PY' || fail "state.json differs after kill -9 and resume"
import json, sys
a, b = (json.load(open(p))["shapes"] for p in sys.argv[1:])
for s in (a, b):
    for e in s.values():
        e.pop("updated_at")
assert a == b, (a, b)
PY
out=$("$bin" audit --tuning "$d") || fail "audit after resume: $out"

# an entry that crashes in the first ladder: left out, noted, the ladder runs again
first=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ladder"]["entries"][0]["iter"])' "$ck")
"$bin" "${tune[@]}" --tuning "$tmp/fault" --sim-faults "ladder@$first" || fail "tune with a ladder fault exited $?"
python3 - "$tmp/fault/checkpoints/$key.json" "$first" <<'PY' || fail "the failed entry"
import json, sys
l = json.load(open(sys.argv[1]))["ladder"]; it = int(sys.argv[2])
assert l["ok"] and it not in [e["iter"] for e in l["entries"]], l
assert ("iteration %d left out" % it) in l["note"] and "ILLEGAL_ADDRESS" in l["note"], l["note"]
assert l["raw"].endswith("ladder-final-2.json"), l["raw"]
PY
[ -f "$tmp/fault/perf/$key/ladder-final.json" ] || fail "the failed ladder's raw file is gone"
out=$("$bin" audit --tuning "$tmp/fault") || fail "audit of the ladder with a failed entry: $out"
# a row found broken never enters the ladder: one discarded as incorrect (it failed its
# verification on a new operand set) or measured above the physical peak
for fault in memo abovepeak; do
    "$bin" tune --backend sim --quiet --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 6 \
        --tuning "$tmp/$fault" --sim-faults "$fault@2" || fail "$fault: tune exited $?"
    python3 - "$tmp/$fault/checkpoints/f16_1024x1024x1024_fs.json" <<'PY' || fail "$fault: iteration 2 is in the ladder"
import json, sys
l = json.load(open(sys.argv[1]))["ladder"]
assert 2 not in [e["iter"] for e in l["entries"]], l["entries"]
PY
done

# resume refuses a checkpoint whose ladder winner names a file outside srcs/ (it would be
# published), and changes nothing
cp -a "$tmp/ref" "$tmp/outside"
python3 - "$tmp/outside/checkpoints/$key.json" "$tmp/outside/state.json" "$key" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); c["ladder"]["entries"][c["ladder"]["winner"]]["kernel"] = "../outside.cu"
c["phase"] = "SHAPE_COMPLETE"; json.dump(c, open(sys.argv[1], "w"), indent=1)
s = json.load(open(sys.argv[2])); s["shapes"][sys.argv[3]]["status"] = "active"; s["shapes"][sys.argv[3]]["phase"] = "SHAPE_COMPLETE"
json.dump(s, open(sys.argv[2], "w"), indent=1)
PY
echo '// not measured' > "$tmp/outside.cu"
before=$(cat "$tmp/outside/kernels/gemm_sp_f16/${key}_best.cu")
err=$("$bin" resume --tuning "$tmp/outside" --quiet 2>&1) && fail "resume accepted a ladder winner outside srcs/"
grep -q "the final ladder's entry .* is not a measured results.tsv row" <<<"$err" || fail "resume said: $err"
[ "$before" = "$(cat "$tmp/outside/kernels/gemm_sp_f16/${key}_best.cu")" ] || fail "the published kernel changed"

# a reopened shape is being tuned again: its old ladder and published kernel go until its
# new end brings a new ladder; it audits clean throughout
cp -a "$tmp/ref" "$tmp/reopen"
"$bin" tune --backend sim --quiet --dtype f16 --shape 4096x4096x4096 --mode scratch --iters 32 --seed 5 \
    --tuning "$tmp/reopen" --agent || fail "reopen with --agent exited $?"
[ ! -e "$tmp/reopen/kernels/gemm_sp_f16/${key}_best.cu" ] || fail "the reopened shape still publishes the old winner"
out=$("$bin" audit --tuning "$tmp/reopen") || fail "audit of the reopened shape: $out"
"$bin" tune --backend sim --quiet --dtype f16 --shape 4096x4096x4096 --mode scratch --iters 32 --seed 5 \
    --tuning "$tmp/reopen" || fail "finishing the reopened shape exited $?"
grep -q '"measured": "ladder"' "$tmp/reopen/state.json" || fail "the reopened shape got no new ladder"
out=$("$bin" audit --tuning "$tmp/reopen") || fail "audit after the new ladder: $out"

# status keeps its columns whatever follows a best's number: the numbers end under
# "best" and "stopped because" starts under its header, also after the widest note,
# " (baseline) L@MHz" of a 4-digit best (the e4m3 fixture shapes: some keep their
# baseline, some gain), and for an active shape without a reason (the H200 sweep's)
CROQ_SHAPES="$CROQ_SOURCE_DIR/tests/fixtures/shapes.json" "$bin" sweep --dtype e4m3 --backend sim --quiet --iters 2 \
    --tuning "$tmp/cols" || fail "the fixture sweep exited $?"
for d in "$tmp/cols" "$CROQ_SOURCE_DIR/results/h200/sweep-typical"; do
    "$bin" status --tuning "$d" >"$tmp/status.txt" || fail "status --tuning $d exited $?"
    python3 - "$tmp/status.txt" <<'PY' || fail "status columns of $d: $(cat "$tmp/status.txt")"
import re, sys
lines = open(sys.argv[1]).read().split("\n")
head = lines[0]
end, why = head.index(" best ") + 5, head.index("stopped because")
rows = [l for l in lines[1:] if re.match(r"(f16|e4m3)_", l)]
notes = set()
for r in rows:
    assert re.match(r"[0-9]", r[end - 1]) and r[end:end + 1] in ("", " "), ("best", end, r)
    m = re.match(r"( \((baseline|x[0-9.]+)\))?( L@[0-9]+)?", r[end:])
    notes.add(m.group(2) == "baseline")
    if "budget of" in r:
        assert r.index("budget of") == why, ("stopped because", why, r)
    else:
        assert r.rstrip() == r and r.endswith(m.group(0)), ("a row without a reason", r)
print(len(rows), "rows", notes)
PY
done
"$bin" status --tuning "$tmp/cols" | grep -q "^e4m3_.* [0-9]\{4\}\.[0-9] (baseline) L@[0-9]*  budget" ||
    fail "no 4-digit '(baseline) L@' row in the fixture sweep: $("$bin" status --tuning "$tmp/cols")"
echo ok
