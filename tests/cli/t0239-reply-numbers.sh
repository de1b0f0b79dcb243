#!/usr/bin/env bash
# Issue 22 item 2: a measurement worker's reply whose numbers cannot be recorded — a
# "nan" TFLOPS, negative trial times, a zero TFLOPS or a zero trial — is bad output naming
# the field and the value: the candidate (or the baseline) is a DISCARD_RUNTIME_CRASH with
# that reason, nothing of the numbers is recorded, and every shape of the directory stays
# readable: status, resume and audit work on all of them. The GPU is a fake worker whose
# replies depend on the shape it serves; nvcc builds the kernels (skipped without it).
set -u
. "$(dirname "$0")/lib.sh"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "skip: no nvcc"; exit 77; }
# the worker: verified, timed replies as the runner prints them (2MNK / 0.002 ms; paired,
# the incumbent at 0.001 ms, so every candidate is a DISCARD), except by shape:
#   512x256x256: the paired candidate's TFLOPS "nan" (its ratios alone would make it a KEEP)
#   256x512x256: every timing has negative trial times (-0.000138 ms: -242.8 TFLOPS at 256^3)
#   256x256x512: the paired candidate's TFLOPS 0 (its ratios alone would make it a KEEP)
#   512x512x256: a paired incumbent trial of 0 ms
cat > "$tmp/runner" <<'EOF2'
#!/bin/bash
prev=; for a in "$@"; do [ "$prev" = --shape ] && shape=$a; prev=$a; done
IFS=x read -r m n k <<<"$shape"
ver='"verify":{"passed":true,"reference":"cpu","checked":65536,"mismatches":0,"max_abs_err":0.01,"max_err_over_tol":0.4,"nan_or_unwritten":0}'
med=0.002; [ "$shape" = 256x512x256 ] && med=-0.000138
tf=$(awk -v m=$m -v n=$n -v k=$k -v t=$med 'BEGIN { printf "%.7g", 2 * m * n * k / t / 1e9 }')
eff=$(awk -v t=$tf 'BEGIN { printf "%.7g", t / 1499 * 100 }')
tr="[$med,$med,$med,$med,$med,$med,$med,$med,$med,$med]"
inc='[0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001,0.001]'
fast='[0.004,0.004,0.004,0.004,0.004,0.004,0.004,0.004,0.004,0.004]' # the candidate 2x faster: a KEEP by the ratios
# like the runner, it names the modules it loaded (the identity in the cubin's bytes)
mid() { LC_ALL=C grep -ao 'croq-module-id:[0-9a-f]\{16\}' "$1" | head -n 1 | cut -d: -f2; }
echo '{"schema":1,"command":"serve","event":"ready","protocol":1,"status":"ok"}'
incid=
while read -r line; do
    id=$(echo "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
    cubin=$(echo "$line" | sed -n 's/.*"cubin":"\([^"]*\)".*/\1/p')
    head='"schema":1,"command":"serve","id":'$id',"status":"ok","gpu":"FAKE","device":0,"dtype":"f16","m":'$m',"n":'$n',"k":'$k
    case "$line" in
    *'"op":"quit"'*) exit 0 ;;
    *set_incumbent*) incid=$(mid "$cubin"); echo "{$head,\"op\":\"set_incumbent\",\"module_id\":\"$incid\",$ver}"; continue ;;
    esac
    head=$head',"module_id":"'$(mid "$cubin")'","incumbent_module_id":"'$incid'"'
    t=$tf; pinc=$inc
    case "$line" in *'"paired":true'*)
        case $shape in 512x256x256) t='"nan"'; pinc=$fast ;; 256x256x512) t=0; pinc=$fast ;; 512x512x256) pinc='[0.001,0.001,0.001,0,0.001,0.001,0.001,0.001,0.001,0.001]' ;; esac ;;
    esac
    timing='"timing":{"warmup":10,"iters":500,"trials":'$tr',"median_ms":'$med',"spread_pct":0,"tflops":'$t'},"gpu_state":{"sm_clock_median_mhz":1500},"peak":{"sparse_tflops_at_clock":1499,"hw_eff_pct":'$eff'}'
    case "$line" in
    *'"paired":true'*) echo "{$head,\"op\":\"measure\",$ver,$timing,\"paired\":{\"candidate_ms\":$tr,\"incumbent_ms\":$pinc}}" ;;
    *) echo "{$head,\"op\":\"measure\",$ver,$timing}" ;;
    esac
done
EOF2
chmod +x "$tmp/runner"
run() { CROQ_NCU=/bin/false CROQ_CACHE_DIR=$tmp/cache CROQ_SPECULATE=0 "$bin" "$@" --tuning "$tmp/t" --quiet; }
tune() { run tune --dtype f16 --shape "$1" --mode scratch --iters 2 --backend gpu --runner "$tmp/runner" 2>"$tmp/err"; }
col() { awk -F'\t' -v it="$2" -v c="$3" 'NR > 2 && $1 == it { print $c }' "$tmp/t/logs/f16_$1_fs/results.tsv"; }
tune 256x256x256 || fail "the healthy shape: $(tail -n 3 "$tmp/err")"
[ "$(col 256x256x256 0 5)" = 16.777 ] || fail "the healthy baseline: $(col 256x256x256 0 5)"
for case in "512x256x256:1:timing.tflops nan is not a positive number" \
            "256x512x256:0:timing.median_ms -0.000138 is not a positive number" \
            "256x256x512:1:timing.tflops 0 is not a positive number" \
            "512x512x256:1:paired.incumbent_ms[3] 0 is not a positive number"; do
    IFS=: read -r shape it want <<<"$case"
    tune "$shape" || fail "$shape: tune exited $?: $(tail -n 3 "$tmp/err")"
    [ "$(col "$shape" "$it" 10)" = DISCARD_RUNTIME_CRASH ] || fail "$shape: iteration $it is $(col "$shape" "$it" 10)"
    [ -z "$(col "$shape" "$it" 5)$(col "$shape" "$it" 6)" ] || fail "$shape: iteration $it has numbers"
    grep -qF "bad_output: runner output: $want" <<<"$(col "$shape" "$it" 18)" ||
        fail "$shape: iteration $it's note: $(col "$shape" "$it" 18)"
    out=$("$bin" status --tuning "$tmp/t" 2>&1) || fail "$shape: status exited $?: $out"
    out=$("$bin" audit --tuning "$tmp/t" 2>&1) || fail "$shape: audit exited $?: $out"
done
# the negative baseline left its shape without a best: done, "baseline failed"
grep -Eq '^f16_256x512x256_fs .* done .*baseline failed \(DISCARD_RUNTIME_CRASH\): bad_output: runner output: timing.median_ms -0.000138' <<<"$("$bin" status --tuning "$tmp/t")" ||
    fail "status of the failed baseline: $("$bin" status --tuning "$tmp/t")"
[ "$("$bin" status --tuning "$tmp/t" | grep -c '^f16_')" -eq 5 ] || fail "status does not list the 5 shapes"
# every shape resumes: one more iteration each for those with a best
for s in 256x256x256 512x256x256 256x256x512 512x512x256; do
    run tune --dtype f16 --shape $s --mode scratch --iters 3 --backend gpu --runner "$tmp/runner" 2>"$tmp/err" ||
        fail "$s: continuing: $(tail -n 3 "$tmp/err")"
done
run resume --runner "$tmp/runner" >/dev/null 2>"$tmp/err" || fail "resume: $(tail -n 3 "$tmp/err")"
out=$("$bin" audit --tuning "$tmp/t" 2>&1) || fail "audit at the end: $out"
echo ok
