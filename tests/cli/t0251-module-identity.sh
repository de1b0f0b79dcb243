#!/usr/bin/env bash
# Issue 22: a measurement is the candidate's only when it is of the candidate's module and
# answers the candidate's request. Through `tune --backend gpu` with the fake worker
# (tests/fixtures/serve/fake-serve.sh, which names the module it loaded, as the runner
# does) and stand-ins for nvcc and cuobjdump:
#   - a reply of another module (a cubin swapped behind the tuner's back) is refused and
#     kept as iterNNN-cand-foreign.json, the module rebuilt without the cache and measured
#     again: the row is the re-measurement's, its note says what happened, audit is clean;
#   - twice another module: the engine stops with that reason and records nothing of the
#     iteration; resume then measures it;
#   - a late duplicate of an earlier reply and a line with an id never sent are dropped
#     (the latter on a new worker): no candidate is blamed, every row a DISCARD;
#   - twice a foreign line: the engine stops (the tuner's side), nothing recorded.
. "$(dirname "$0")/lib.sh"
cat > "$tmp/nvcc" <<'EOF'
#!/bin/sh
case " $* " in *" --version "*) echo "stand-in nvcc 1.0"; exit 0 ;; esac
{ echo STANDIN; echo "src-cksum $(cksum < kernel.cu)"; cat croq_module_id.h; } > kernel.cubin
echo "ptxas info    : Compiling entry function 'croq_gemm_sp' for 'sm_90a'" >&2
echo "ptxas info    : Used 168 registers, used 1 barriers, 200704 bytes smem" >&2
EOF
printf '#!/bin/sh\necho "        /*0100*/                   HGMMA.SP.64x128x32.F32 R24, gdesc[UR4], RZ, R2, 0x0 ;"\n' \
    > "$tmp/cuobjdump"
chmod +x "$tmp/nvcc" "$tmp/cuobjdump"
export CROQ_NVCC=$tmp/nvcc CROQ_CUOBJDUMP=$tmp/cuobjdump CROQ_NCU=/bin/false CROQ_SPECULATE=0
fake=$CROQ_SOURCE_DIR/tests/fixtures/serve/fake-serve.sh
key=f16_256x256x256_fs
tune() { # DIR, then env settings for the fake
    local d=$1; shift
    env CROQ_CACHE_DIR="$tmp/cache-${d##*/}" FAKE_SERVE_LOG="$d.log" FAKE_SERVE_RAN="$d.ran" "$@" "$bin" tune --dtype f16 \
        --shape 256x256x256 --mode scratch --iters 3 --backend gpu --runner "$fake" --tuning "$d" --quiet
}
decisions() { awk -F'\t' 'NR > 2 {printf "%s ", $10}' "$1/logs/$key/results.tsv"; }
note() { awk -F'\t' -v i="$2" 'NR > 2 && $1 == i {print $NF}' "$1/logs/$key/results.tsv"; }

# 1. measure request 2 (iteration 1's candidate) reports another module
t=$tmp/swap
tune "$t" FAKE_SERVE_SWAP_AT=2 > "$t.out" 2>&1 || fail "swap: tune exited $?: $(tail -n 3 "$t.out")"
[ "$(decisions "$t")" = "BASELINE DISCARD DISCARD DISCARD " ] || fail "swap: decisions $(decisions "$t")"
grep -q "iteration 1 (cand): module '0000000000000bad' measured, the candidate's build is '[0-9a-f]\{16\}'" "$t.out" ||
    fail "swap: no warning: $(cat "$t.out")"
n=$(note "$t" 1)
grep -q "module '0000000000000bad' measured.*that reply refused (kept as perf/$key/iter001-cand-foreign.json), rebuilt without the cache and measured again (cand); speedup over the best 0.5000" <<<"$n" ||
    fail "swap: the row's note: $n"
python3 - "$t/perf/$key" <<'PY' || fail "swap: raw files"
import json, sys
d = sys.argv[1]
bad = json.load(open(d + "/iter001-cand-foreign.json"))
good = json.load(open(d + "/iter001-cand.json"))
assert bad["module_id"] == "0000000000000bad", bad
assert len(good["module_id"]) == 16 and good["module_id"] != bad["module_id"], good
assert good["id"] > bad["id"], (good["id"], bad["id"])  # the row's evidence is the re-measurement
PY
cubin=$t/build/$key/iter001.cubin
[ "$(grep -c "^measure $cubin " "$t.ran")" -eq 2 ] || fail "swap: iteration 1 measured $(grep -c "^measure $cubin " "$t.ran") times, want 2"
[ "$(grep -c '^set_incumbent ' "$t.ran")" -eq 2 ] || fail "swap: the incumbent was not set again after the rebuild: $(cat "$t.ran")"
out=$("$bin" audit --tuning "$t") || fail "swap: audit: $out"

# 2. twice another module: a fault of the tuner's side, the engine stops, nothing recorded
t=$tmp/swap2
tune "$t" FAKE_SERVE_SWAP_AT=2,3 > "$t.out" 2>&1 && fail "swap twice: tune went on: $(tail -n 3 "$t.out")"
grep -q "iteration 1: iteration 1 (cand): module '0000000000000bad' measured, the candidate's build is '[0-9a-f]\{16\}', again after a rebuild without the cache (reply kept as perf/$key/iter001-cand-foreign2.json)" "$t.out" ||
    fail "swap twice: reason: $(cat "$t.out")"
[ "$(decisions "$t")" = "BASELINE " ] || fail "swap twice: recorded $(decisions "$t")"
env CROQ_CACHE_DIR="$tmp/cache-swap2" FAKE_SERVE_LOG="$t.log" "$bin" resume --tuning "$t" --quiet --runner "$fake" \
    > "$t.out" 2>&1 || fail "swap twice: resume exited $?: $(tail -n 3 "$t.out")"
[ "$(decisions "$t")" = "BASELINE DISCARD DISCARD DISCARD " ] || fail "swap twice, resumed: $(decisions "$t")"
out=$("$bin" audit --tuning "$t") || fail "swap twice: audit: $out"

# 3. a late duplicate (before request 3's reply) and a line of an id never sent (request 4)
t=$tmp/lines
tune "$t" FAKE_SERVE_STALE_AT=3 FAKE_SERVE_FOREIGN_AT=4 > "$t.out" 2>&1 ||
    fail "stale/foreign: tune exited $?: $(tail -n 3 "$t.out")"
[ "$(decisions "$t")" = "BASELINE DISCARD DISCARD DISCARD " ] || fail "stale/foreign: decisions $(decisions "$t")"
grep -q "sent a late reply to an earlier request" "$t.out" || fail "stale: no warning: $(cat "$t.out")"
grep -q "its id 1005 was never sent): the worker is dropped; the request is repeated on a new worker" "$t.out" ||
    fail "foreign: no warning: $(cat "$t.out")"
[ "$(grep -c '^start ' "$t.log")" -eq 2 ] || fail "foreign: want 2 workers: $(grep -c '^start ' "$t.log")"
grep -q "dropped a late reply" "$t/perf/$key/iter002-cand.json" && fail "stale: the dropped line is in the evidence"
out=$("$bin" audit --tuning "$t") || fail "stale/foreign: audit: $out"

# 4. a foreign line on two workers: the engine stops, nothing of the iteration recorded
t=$tmp/foreign2
tune "$t" FAKE_SERVE_FOREIGN_AT=2,3 > "$t.out" 2>&1 && fail "foreign twice: tune went on: $(tail -n 3 "$t.out")"
grep -q "iteration 1: measurement of iteration 1 (cand): twice, on two workers, a reply line answered no request of ours" "$t.out" ||
    fail "foreign twice: reason: $(cat "$t.out")"
[ "$(decisions "$t")" = "BASELINE " ] || fail "foreign twice: recorded $(decisions "$t")"
echo ok
