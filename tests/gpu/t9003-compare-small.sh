#!/usr/bin/env bash
# croqtuner compare on the GPU: ours, cuSPARSELt (default and searched) and dense cuBLAS
# on one small shape per dtype, in one runner process; every subject that ran must be
# verified against the same reference, and the ratios must be present.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! nvidia-smi -L >/dev/null 2>&1 || [ ! -e /dev/nvidia0 ]; then
    echo "skip: no NVIDIA GPU here (nvidia-smi -L failed or /dev/nvidia0 missing)"
    exit 77
fi
for dt in f16 e4m3; do
    out=$("$bin" compare --dtype "$dt" --shape 1024x1024x1024 --warmup 3 --iters 20 --trials 3); rc=$?
    echo "$out"
    [ "$rc" -eq 0 ] || fail "compare $dt exited $rc"
    grep -Eq '^ours +ok +yes ' <<<"$out" || fail "$dt: ours not ok and verified"
    grep -Eq '^cublas +ok +yes ' <<<"$out" || fail "$dt: cublas not ok and verified"
    for s in cusparselt_default cusparselt_search; do
        line=$(grep -E "^$s " <<<"$out")
        if grep -q "without cuSPARSELt" <<<"$line"; then
            echo "note: runner built without cuSPARSELt"
        else
            grep -Eq "^$s +ok +yes " <<<"$line" || fail "$dt: $s not ok and verified: $line"
        fi
    done
    grep -q '^ratios: ours/cuSPARSELt-search ' <<<"$out" || fail "$dt: no ratios line"
    grep -Eq 'ours/cuBLAS [0-9]' <<<"$out" || fail "$dt: no ours/cuBLAS ratio"
done
# --no-ours: vendors only, nothing compiled
out=$("$bin" compare --dtype f16 --shape 512x512x512 --no-ours --iters 10 --trials 2 --json); rc=$?
[ "$rc" -eq 0 ] || fail "compare --no-ours exited $rc: $out"
grep -q '"ours":{"name":"ours","available":false' <<<"$out" || fail "--no-ours still measured ours: $out"
echo "ok"
