#!/usr/bin/env bash
# tests/gpu/sweep-typical-finish.sh — on the GPU machine, one call (~5 min): what issue 27
# (and issue 23's profile) still owe after session 14, in the order of their worth:
#  1. tests/gpu/library.sh on the two default-pack entries session 14's run did not reach
#     (12288^3 per dtype): exact match, every element verified, ours beside cuSPARSELt;
#  2. `croqtuner compare --mode scratch` of the reference shape's from-scratch bests, so
#     each run of 4096x8192x8192 has its own vendor record (the from-best compare had
#     replaced them); the records come back in OUT_DIR/vendor.tgz, to unpack over the
#     checkout (tar xzf vendor.tgz -C results/h200/sweep-typical);
#  3. tests/gpu/profile-vs-vendor.sh on e4m3 12288^3 and 12288x4096x4096 (the cuSPARSELt
#     row of the searched plan's kernel, which session 14's run missed).
# Each part is cut by its own limit so the next still runs; the table of each is printed.
# Needs: BIN_DIR with croqtuner, croq-runner, croqsparse-check (carry build/bin and
# build/lib/libcroqsparse.so.1.<minor>: the soname link is made here, the device tool carries
# no links), TUNING_DIR = results/h200/sweep-typical.
# Usage (GPU machine, repo root): tests/gpu/sweep-typical-finish.sh BIN_DIR TUNING_DIR OUT_DIR
set -u
B=${1:?bin dir}; T=${2:?tuning dir}; OUT=${3:?out dir}
export PATH=/usr/local/cuda/bin:$PATH CROQ_CUOBJDUMP=${CROQ_CUOBJDUMP:-$(command -v cuobjdump)}
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cusparselt/lib:${LD_LIBRARY_PATH:-}
if ! nvidia-smi -L >/dev/null 2>&1; then echo "skip: no NVIDIA GPU here"; exit 77; fi
lib=$B/../lib
# the header's version, not whichever file sorts first: an older build's file may linger
minor=$(awk '$1 == "#define" && $2 == "CROQSPARSE_VERSION_MINOR" { print $3 }' "$(dirname "$0")/../../include/croqsparse.h")
[ -f "$lib/libcroqsparse.so.1.$minor" ] || { echo "no $lib/libcroqsparse.so.1.$minor: carry build/lib"; exit 2; }
ln -sfn "libcroqsparse.so.1.$minor" "$lib/libcroqsparse.so.1"
mkdir -p "$OUT/lib" "$OUT/prof"
rc=0

echo "== 1. library.sh, 12288^3 per dtype"
LIB_SHAPES=12288x12288x12288 RUNNER_SCALED=0 CHECK_LIMIT=${CHECK_LIMIT:-150} \
    bash tests/gpu/library.sh "$B" "$OUT/lib" > "$OUT/lib/tables.txt" 2>&1 || rc=1
rm -rf "$OUT/lib/plan-cache" "$OUT/lib/runner-scaled.jsonl"
grep -E '^(dtype|f16|e4m3) ' "$OUT/lib/tables.txt" | cut -c1-200

echo "== 2. compare --mode scratch, the reference shape's from-scratch bests"
for dt in f16 e4m3; do
    key=${dt}_4096x8192x8192_fs
    cfg=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['shapes'][sys.argv[2]]['best']['config'].split(',', 1)[1])" \
          "$T/state.json" "$key") || { echo "no best for $key"; rc=1; continue; }
    timeout "${COMPARE_LIMIT:-90}" "$B/croqtuner" compare --dtype "$dt" --shape 4096x8192x8192 --set "$cfg" \
        --tuning "$T" --mode scratch > "$OUT/compare-$key.txt" 2>&1 || rc=1
    tail -n 8 "$OUT/compare-$key.txt"
done
tar czf "$OUT/vendor.tgz" -C "$T" perf/f16_4096x8192x8192_fs/vendor.json perf/e4m3_4096x8192x8192_fs/vendor.json || rc=1

echo "== 3. profile-vs-vendor, e4m3"
CASES="e4m3:12288x12288x12288 e4m3:12288x4096x4096" timeout "${PROFILE_LIMIT:-200}" \
    bash tests/gpu/profile-vs-vendor.sh "$B" "$T" "$OUT/prof" > "$OUT/prof/table.txt" 2>&1 || rc=1
tail -n 8 "$OUT/prof/table.txt" | cut -c1-400
exit $rc
