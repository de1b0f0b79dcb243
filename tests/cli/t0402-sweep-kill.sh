#!/usr/bin/env bash
# A worker of 'sweep --gpus' killed with SIGKILL in the middle of a shape:
#  1. with other workers running, one of them takes the stale claim over and finishes
#     the shape; the sweep ends 0 and equals an undisturbed sweep (timestamps aside);
#  2. the only worker killed: the sweep ends 1 'incomplete', 'status' shows the stale
#     claim and why, and 'resume' finishes the parallel sweep (in waves) to the same
#     artifacts and a state.json without claims;
#  3. the sweep itself killed with SIGKILL: no worker outlives it by more than a few
#     seconds, and 'resume' finishes the sweep to the same artifacts, auditing clean.
set -u
bin="$CROQ_BIN/croqtuner"
# a worker waiting for a claim that never goes stale would wait forever: bound every run
run() { timeout 120 "$bin" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/croq-t0402.XXXXXX") || exit 1
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
norm() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/T/g' "$1"; }

cat >"$tmp/shapes.json" <<'JSON'
{"scenarios": {"sq": {"type": "single", "M": "S", "N": "S", "K": "S", "sizes": [256, 512, 1024, 2048]}},
 "size_constraints": {"min_M": 128, "min_N": 256, "min_K": 128},
 "regions": {"near": {"M": [2048, 8192], "N": [4096, 16384], "K": [4096, 16384]}},
 "typical_shapes_for_scratch": {"f16": [[512, 512, 512], [1024, 1024, 1024], [2048, 2048, 2048]], "e4m3": []},
 "iteration_budgets": {"from_scratch": 150, "from_current_best": 30}}
JSON
args=(--dtype f16 --backend sim --iters 16 --shapes "$tmp/shapes.json" --quiet)

run sweep "${args[@]}" --tuning "$tmp/ref" --workers 1 || fail "reference sweep exited $?"

# The pid of a worker tuning a shape in the first half of its run (iteration 1-8 of 16:
# the kill lands mid-shape even when a loaded machine makes 'status' slow), and that
# shape: "PID KEY". Text status and sed: cheap enough to poll every 20 ms.
victim() {
    local t=$1 line
    for _ in $(seq 1 1500); do
        line=$("$bin" status --tuning "$t" 2>/dev/null |
               sed -nE 's|^  pid ([0-9]+) on [^,]+, GPU [^:]+: tune ([a-z0-9_]+), [A-Z_]+ iteration ([1-8])/16, .*|\1 \2|p' |
               head -n 1)
        [ -n "$line" ] && { echo "$line"; return 0; }
        sleep 0.02
    done
    return 1
}

same_as_ref() {
    local t=$1 f rel
    for f in "$tmp"/ref/logs/*/results.tsv "$tmp"/ref/logs/*/idea-log.jsonl "$tmp"/ref/checkpoints/*.json; do
        rel=${f#"$tmp/ref/"}
        diff <(norm "$f") <(norm "$t/$rel") >/dev/null || fail "$t: $rel differs from the undisturbed sweep"
    done
    python3 - "$tmp/ref/state.json" "$t/state.json" <<'PY' || fail "$t: state.json differs from the undisturbed sweep"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for s in (a, b):
    for e in s["shapes"].values():
        e.pop("updated_at")
assert a["shapes"] == b["shapes"], [k for k in a["shapes"] if a["shapes"][k] != b["shapes"].get(k)]
assert b["scale"]["claims"] == {} and b["scale"]["failed"] == {}, b["scale"]
assert b["sweep"]["status"] == "done", b["sweep"]
PY
}

# 1. three workers, one killed: another finishes its shape
t="$tmp/three"
timeout 120 "$bin" sweep "${args[@]}" --tuning "$t" --gpus 0,1,2 --sim-delay-ms 30 >"$tmp/three.out" 2>&1 & pid=$!
read -r vpid vkey < <(victim "$t") || fail "no worker was seen tuning"
kill -9 "$vpid" || fail "cannot kill worker $vpid"
wait $pid || fail "sweep with a killed worker exited $?: $(tail -n 3 "$tmp/three.out")"
pid=
grep -q "worker $vpid (GPU [012]) was killed by signal 9" "$tmp/three.out" || fail "the death was not reported"
line=$(awk -F'\t' -v k="$vkey" '$2=="takeover" && $3==k' "$t/scale/claims.log")
[ -n "$line" ] || fail "no takeover of $vkey in claims.log"
[ "$(cut -f6 <<<"$line")" != "$vpid" ] || fail "the dead worker took its own shape over"
grep -q "process $vpid on '[^']*' is gone" <<<"$line" || fail "takeover reason: $line"
same_as_ref "$t"

# 2. the only worker killed: a stale claim, shown by status, then resume finishes
t="$tmp/alone"
timeout 120 "$bin" sweep "${args[@]}" --tuning "$t" --gpus 5 --sim-delay-ms 30 >"$tmp/alone.out" 2>&1 & pid=$!
read -r vpid vkey < <(victim "$t") || fail "the worker was not seen tuning"
kill -9 "$vpid"
wait $pid; rc=$?
pid=
[ $rc -eq 1 ] || fail "a sweep whose only worker died exited $rc, want 1"
grep -q "sweep incomplete: [0-9]* shape(s) left and no worker running (1 killed)" "$tmp/alone.out" || fail "$(cat "$tmp/alone.out")"
st=$("$bin" status --tuning "$t") || fail "status exited $?"
grep -q "^stale claims" <<<"$st" && grep -q "^  $vkey (tune, GPU 5): process $vpid on '[^']*' is gone" <<<"$st" ||
    fail "status does not show the stale claim: $st"
grep -q "^workers:" <<<"$st" && fail "a dead worker shown as a worker: $st"
"$bin" status --json --tuning "$t" | grep -q "\"why\": \"process $vpid on" || fail "status --json: no stale claim"
run resume --tuning "$t" --quiet || fail "resume exited $?"
same_as_ref "$t"
a=$("$bin" audit --tuning "$t") || fail "the parallel sweep does not audit clean: $(grep -v 're-derived' <<<"$a" | head -n 5)"

# 3. the sweep (the workers' parent) killed with SIGKILL mid-shape: its workers go with it
t="$tmp/parent"
# (slow iterations: the sweep has >= 10 s of work left after the kill, so a worker that
# outlived it would still be seen at the end of the 3 s wait)
"$bin" sweep "${args[@]}" --tuning "$t" --workers 2 --sim-delay-ms 400 >"$tmp/parent.out" 2>&1 & pid=$!
read -r vpid vkey < <(victim "$t") || fail "no worker of the sweep was seen tuning"
workers=$(pgrep -P "$pid" | tr '\n' ' ')
[ -n "$workers" ] && grep -qw "$vpid" <<<"$workers" || fail "the workers are not children of the sweep $pid: '$workers'"
kill -9 "$pid"; wait "$pid" 2>/dev/null
pid=
# alive: a process that is there and not a zombie (one left unreaped is dead)
alive() { [ -r "/proc/$1/stat" ] && ! sed -E 's/^[0-9]+ \(.*\) //' "/proc/$1/stat" 2>/dev/null | grep -q '^Z'; }
for _ in $(seq 1 30); do
    left=; for w in $workers; do alive "$w" && left="$left $w"; done
    [ -z "$left" ] && break
    sleep 0.1
done
[ -z "$left" ] || { kill -9 $left; fail "worker(s)$left outlived the sweep killed with SIGKILL by 3 s"; }
run resume --tuning "$t" --quiet || fail "resume after the sweep was killed exited $?"
same_as_ref "$t"
a=$("$bin" audit --tuning "$t") || fail "the sweep resumed after kill -9 does not audit clean: $(grep -v 're-derived' <<<"$a" | head -n 5)"
echo ok
