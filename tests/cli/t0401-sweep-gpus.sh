#!/usr/bin/env bash
# 'croqtuner sweep --gpus' on the simulated backend with fake GPU ids: three worker
# processes claim shapes of one tuning directory; every shape is tuned exactly once
# (claims.log), by more than one worker, in waves (a near shape starts from the far
# wave, not from its near neighbour), and every artifact equals a one-worker sweep's
# except for timestamps. 'status' shows the workers with their GPU while they run.
# Usage errors of the new options.
set -u
bin="$CROQ_BIN/croqtuner"
# a worker waiting for a claim that never goes stale would wait forever: bound every run
run() { timeout 120 "$bin" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/croq-t0401.XXXXXX") || exit 1
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
norm() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/T/g' "$1"; }

cp "$CROQ_SOURCE_DIR/tests/fixtures/shapes.json" "$tmp/shapes.json" # 5 scenario shapes per dtype, 3 typical ones, the protocol's budgets
args=(--dtype all --backend sim --iters 4 --shapes "$tmp/shapes.json" --quiet)

run sweep "${args[@]}" --tuning "$tmp/one" --gpus 0 || fail "one-worker sweep exited $?"
timeout 120 "$bin" sweep "${args[@]}" --tuning "$tmp/three" --gpus 0,1,2 --sim-delay-ms 15 & pid=$!
# while it runs: status lists the workers, each with its GPU id, shape and iteration
seen=
for _ in $(seq 1 200); do
    st=$("$bin" status --tuning "$tmp/three" 2>/dev/null)
    js=$("$bin" status --json --tuning "$tmp/three" 2>/dev/null)
    if grep -Eq "^  pid [0-9]+ on [^,]+, GPU [012]: tune [a-z0-9_]+, [A-Z_]+ iteration [0-9]+/4, since " <<<"$st" &&
       grep -Eq '"gpu": "[012]"' <<<"$js"; then
        seen=1
        break
    fi
    sleep 0.05
done
[ -n "$seen" ] || fail "status never showed a tuning worker with its GPU: $st $js"
grep -q '"workers": \[' <<<"$js" && grep -q '"stale_claims": \[\]' <<<"$js" || fail "status --json: $js"
wait $pid || fail "three-worker sweep exited $?"
pid=

# the same artifacts, timestamps aside
n=0
for f in "$tmp"/one/logs/*/results.tsv "$tmp"/one/logs/*/idea-log.jsonl "$tmp"/one/checkpoints/*.json \
         "$tmp"/one/state.json "$tmp"/one/kernels/*/*.cu; do
    rel=${f#"$tmp/one/"}
    [ -f "$tmp/three/$rel" ] || fail "$rel missing from the three-worker sweep"
    diff <(norm "$f") <(norm "$tmp/three/$rel") >/dev/null || fail "$rel differs between one and three workers"
    n=$((n + 1))
done
[ "$n" -ge 40 ] || fail "only $n artifacts compared"
keys=$(ls "$tmp/three/logs")
# 11 shapes of shapes.json, plus those step 4 re-runs from scratch (as the one worker did)
[ "$(wc -l <<<"$keys")" -eq "$(ls "$tmp/one/logs" | wc -l)" ] && [ "$(wc -l <<<"$keys")" -ge 11 ] ||
    fail "want the one-worker sweep's $(ls "$tmp/one/logs" | wc -l) shapes (at least 11), got: $keys"
for k in $keys; do
    [ "$(tail -n +3 "$tmp/three/logs/$k/results.tsv" | cut -f1 | tr '\n' ' ')" = "0 1 2 3 4 " ] ||
        fail "$k: results.tsv rows are not iterations 0..4"
done
python3 - "$tmp/three/state.json" "$(ls "$tmp/one/logs" | wc -l)" <<'PY' || fail "state.json of the three-worker sweep"
import json, sys
s = json.load(open(sys.argv[1]))
bad = [k for k, e in s["shapes"].items() if e["status"] != "done" or e["iteration"] != 4]
assert len(s["shapes"]) == int(sys.argv[2]) and not bad, bad
# waves: the near shape starts from the far wave's nearest shape, not its near neighbour
assert s["shapes"]["f16_2048x4096x8192"]["seed_from"] == "f16_2048x2048x2048", s["shapes"]["f16_2048x4096x8192"]
assert s["scale"] == {"claims": {}, "failed": {}}, s["scale"]
assert s["sweep"]["status"] == "done" and s["sweep"]["waves"] is True, s["sweep"]
PY

# claims.log: each shape INITed once and tuned once, nothing taken over, several workers
log="$tmp/three/scale/claims.log"
for k in $keys; do
    [ "$(awk -F'\t' -v k="$k" '$2=="claim" && $3==k && $4=="tune"' "$log" | wc -l)" -eq 1 ] || fail "$k tune claims"
    [ "$(awk -F'\t' -v k="$k" '$2=="claim" && $3==k && $4=="init"' "$log" | wc -l)" -eq 1 ] || fail "$k init claims"
    [ "$(awk -F'\t' -v k="$k" '$2=="release" && $3==k && $4=="tune"' "$log" | wc -l)" -eq 1 ] || fail "$k release"
done
grep -q "	takeover	" "$log" && fail "a takeover without a dead worker"
[ "$(awk -F'\t' '$2=="claim" && $4=="tune" {print $6}' "$log" | sort -u | wc -l)" -ge 2 ] ||
    fail "one worker tuned everything: no parallelism"
[ "$(awk -F'\t' '$2=="claim" {print $7}' "$log" | sort -u | tr '\n' ' ')" = "0 1 2 " ] || fail "GPU ids in claims"

# running it again changes nothing; no workers are shown afterwards
cp "$tmp/three/state.json" "$tmp/state.before"
run sweep "${args[@]}" --tuning "$tmp/three" --gpus 0,1 || fail "second sweep exited $?"
diff <(grep -v updated_at "$tmp/state.before") <(grep -v updated_at "$tmp/three/state.json") >/dev/null ||
    fail "a second sweep changed finished shapes"
"$bin" status --tuning "$tmp/three" | grep -q "^workers:" && fail "workers shown after the sweep"

# usage
for bad in "--gpus 0,0" "--gpus 0,x" "--gpus 0 --workers 2" "--workers 0" "--array-task"; do
    # shellcheck disable=SC2086
    err=$(run sweep "${args[@]}" --tuning "$tmp/bad" $bad 2>&1); rc=$?
    [ $rc -eq 2 ] || fail "sweep $bad exited $rc, want 2: $err"
    grep -q "^croqtuner: sweep: " <<<"$err" || fail "sweep $bad: message '$err'"
done
[ -e "$tmp/bad" ] && fail "a refused sweep created its tuning directory"
echo ok
