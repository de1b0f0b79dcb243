#!/usr/bin/env bash
# croqtuner bench on the GPU: the baseline kernel of both dtypes on small shapes, on and
# off the tile grid, is built, run by croq-runner, verified on every element and timed;
# the CSV / Markdown tables hold one verified row per (dtype, shape).
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! nvidia-smi -L >/dev/null 2>&1 || [ ! -e /dev/nvidia0 ]; then
    echo "skip: no NVIDIA GPU here (nvidia-smi -L failed or /dev/nvidia0 missing)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

shapes=128x256x512,256x512x1024,777x1032x512,1000x1000x1024
out=$("$bin" bench --dtype all --shapes "$shapes" --warmup 3 --iters 20 --trials 3 \
      --out "$tmp/res" --work "$tmp/work" 2>"$tmp/err"); rc=$?
echo "$out"
cat "$tmp/err" >&2
[ "$rc" -eq 0 ] || fail "bench exited $rc, want 0 (every kernel verified)"
[ "$(grep -Ec '^[0-9]+x[0-9]+x[0-9]+ +(f16|e4m3) .* yes ' <<<"$out")" -eq 8 ] || fail "want 8 verified lines"
grep -q "^8 of 8 verified" <<<"$out" || fail "summary line missing"

csv="$tmp/res.csv"
[ -f "$csv" ] && [ -f "$tmp/res.md" ] || fail "--out did not write res.csv and res.md"
head -1 "$csv" | grep -qx "shape,dtype,kernel,TFLOPS,median_ms,spread_pct,max_err_over_tol,verified,sm_clock_mhz,pct_peak_at_clock,date,gpu,l2" \
    || fail "CSV header: $(head -1 "$csv")"
[ "$(tail -n +2 "$csv" | wc -l)" -eq 8 ] || fail "CSV rows: $(cat "$csv")"
# every row: verified, TFLOPS > 0, error within tolerance, a GPU name
awk -F, 'NR > 1 && !($8 == "yes" && $4 > 0 && $7 < 1 && $12 != "") { bad = 1; print "bad row: " $0 }
         END { exit bad }' "$csv" || fail "CSV rows not all verified with positive TFLOPS"
grep -q "8 of 8 kernels verified" "$tmp/res.md" || fail "Markdown summary missing"
grep -q '^Command: `croqtuner bench ' "$tmp/res.md" || fail "the Markdown table does not name its command"
ls "$tmp/work"/bench_f16.cubin "$tmp/work"/bench_e4m3.cubin >/dev/null || fail "--work does not hold the cubins"

# --json: one document, runner output embedded, all verified
"$bin" bench --dtype f16 --shape 128x256x512 --iters 10 --trials 2 --json >"$tmp/b.json" 2>/dev/null \
    || fail "bench --json exited $?"
grep -q '"all_verified": true' "$tmp/b.json" || fail "bench --json: $(head -c 600 "$tmp/b.json")"
grep -q '"command": "serve"' "$tmp/b.json" || fail "bench --json lacks the measurement worker's JSON"
echo "ok"
