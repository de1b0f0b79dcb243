#!/usr/bin/env bash
# croqtuner bench measures the way the tuner does (issue 15 item 1): one measurement
# worker (croq-runner serve) per shape, an unpaired measure request with the worker's
# defaults (10 trials, warm-up by time alone), and --trials/--iters/--warmup sent as the
# request's pairs/max_iters/warmup_min_launches. The worker is the fake of
# tests/fixtures/serve/fake-serve.sh (100 TFLOPS for every kernel), nvcc and cuobjdump are
# stand-ins, so no GPU or CUDA toolkit is needed. The fake names the module it measured (the
# identity the build put in the cubin): bench's table is of that module.
. "$(dirname "$0")/lib.sh"
cat > "$tmp/nvcc" <<EOF
#!/bin/sh
case " \$* " in *" --version "*) echo "stand-in nvcc 1.0"; exit 0 ;; esac
echo compile >> "$tmp/nvcc.calls"
{ echo cubin; cat croq_module_id.h; } > kernel.cubin # the identity the build asks for (-include)
EOF
printf '#!/bin/sh\necho "        /*0100*/                   HGMMA.SP.64x128x32.F32 R24, gdesc[UR4], RZ, R2, 0x0 ;"\n' \
    > "$tmp/cuobjdump"
chmod +x "$tmp/nvcc" "$tmp/cuobjdump"
export CROQ_NVCC=$tmp/nvcc CROQ_CUOBJDUMP=$tmp/cuobjdump CROQ_CACHE_DIR=$tmp/cache
fake=$CROQ_SOURCE_DIR/tests/fixtures/serve/fake-serve.sh

FAKE_SERVE_LOG=$tmp/log1 "$bin" bench --dtype f16 --shapes 128x256x256,256x256x512 --runner "$fake" \
    --json > "$tmp/b.json" 2> "$tmp/err" || fail "bench exited $?: $(tail -n 3 "$tmp/err")"
[ "$(grep -c '^start ' "$tmp/log1")" -eq 2 ] || fail "want one worker per shape: $(cat "$tmp/log1")"
[ "$(grep -c '"op":"measure"' "$tmp/log1")" -eq 2 ] || fail "want one measure request per shape: $(cat "$tmp/log1")"
grep '"op":"measure"' "$tmp/log1" | grep -q '"paired":true' && fail "bench asked for paired timing"
grep '"op":"measure"' "$tmp/log1" | grep -Eq '"pairs":10[,}]' || fail "default trials are not the worker's 10: $(cat "$tmp/log1")"
grep -q 'warmup_min_launches' "$tmp/log1" && fail "the default warm-up has a launch minimum: $(cat "$tmp/log1")"
grep -q '"all_verified": true' "$tmp/b.json" || fail "not all verified: $(head -c 400 "$tmp/b.json")"
[ "$(grep -c '"command": "serve"' "$tmp/b.json")" -eq 2 ] || fail "the worker's replies are not embedded"
grep -Eq '^128x256x256 +f16 .* yes +8\.4 +0\.0020 ' "$tmp/err" || fail "the table line lacks the worker's 8.4 TFLOPS (2 x 128x256x256 / 0.002 ms): $(cat "$tmp/err")"

# --l2 cold: the request says "l2":"cold" (the default "warm"), and the table line, the
# CSV / Markdown and the JSON say what the worker timed with
grep '"op":"measure"' "$tmp/log1" | grep -qv '"l2":"warm"' && fail "the default request is not warm L2: $(cat "$tmp/log1")"
grep -Eq '^128x256x256 +f16 .* yes .* warm$' "$tmp/err" || fail "the table line does not say warm: $(cat "$tmp/err")"
FAKE_SERVE_LOG=$tmp/log4 "$bin" bench --dtype f16 --shape 128x256x256 --runner "$fake" --l2 cold --json \
    --out "$tmp/cold" > "$tmp/c.json" 2> "$tmp/err" || fail "bench --l2 cold exited $?: $(tail -n 3 "$tmp/err")"
grep '"op":"measure"' "$tmp/log4" | grep -q '"l2":"cold"' || fail "--l2 cold not asked for: $(cat "$tmp/log4")"
grep -Eq '^128x256x256 +f16 .* yes .* cold$' "$tmp/err" || fail "the table line does not say cold: $(cat "$tmp/err")"
python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["l2"] == "cold" and d["results"][0]["l2"] == "cold" and d["results"][0]["runner"]["l2"] == "cold", d' \
    < "$tmp/c.json" || fail "bench --l2 cold --json: $(head -c 600 "$tmp/c.json")"
head -n 1 "$tmp/cold.csv" | grep -q ',gpu,l2$' || fail "CSV header: $(head -n 1 "$tmp/cold.csv")"
tail -n 1 "$tmp/cold.csv" | grep -q ',cold$' || fail "CSV row: $(cat "$tmp/cold.csv")"
grep -q '| cold |$' "$tmp/cold.md" || fail "Markdown row: $(cat "$tmp/cold.md")"
# a worker that timed with a warm L2 when asked for cold: not this command's number
FAKE_SERVE_L2=warm "$bin" bench --dtype f16 --shape 128x256x256 --runner "$fake" --l2 cold > "$tmp/out" 2>&1 &&
    fail "bench took a warm timing for --l2 cold: $(cat "$tmp/out")"
grep -q "the worker timed with l2 'warm', asked for 'cold': refused" "$tmp/out" || fail "warm reply to cold: $(cat "$tmp/out")"

FAKE_SERVE_LOG=$tmp/log2 "$bin" bench --dtype f16 --shape 128x256x256 --runner "$fake" --trials 3 --iters 7 \
    --warmup 4 > "$tmp/out" 2>&1 || fail "bench with options exited $?: $(tail -n 3 "$tmp/out")"
req=$(grep '"op":"measure"' "$tmp/log2")
for want in '"pairs":3' '"max_iters":7' '"warmup_min_launches":4' '"time":true'; do
    grep -qF "$want" <<<"$req" || fail "request lacks $want: $req"
done
grep -q '^1 of 1 verified' "$tmp/out" || fail "summary: $(cat "$tmp/out")"

# a worker that reports another module than the one built: that measurement is refused
FAKE_SERVE_LOG=$tmp/log3 FAKE_SERVE_SWAP_AT=1 "$bin" bench --dtype f16 --shape 128x256x256 --runner "$fake" \
    > "$tmp/out" 2>&1 && fail "bench took another module's numbers: $(cat "$tmp/out")"
grep -q "the worker measured module '0000000000000bad', not the build's '[0-9a-f]\{16\}': refused" "$tmp/out" ||
    fail "swapped module: $(cat "$tmp/out")"
grep -q '^0 of 1 verified' "$tmp/out" || fail "swapped module: $(cat "$tmp/out")"

# no worker to start, or one that finds no GPU: found before anything is compiled (finding
# 15), that shape is the failure, no further shape is tried, and the count is of all asked
export CROQ_CACHE_DIR=$tmp/cache-probe # (a cached cubin would hide a compile)
rm -f "$tmp/nvcc.calls"
"$bin" bench --dtype f16 --shapes 128x256x256,256x256x512 --runner "$tmp/none/croq-runner" > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "a missing runner: exit $rc, want 1: $(cat "$tmp/out")"
grep -q 'bench: cannot measure (no_runner): nothing was compiled and no shape is run' "$tmp/out" ||
    fail "a missing runner: $(cat "$tmp/out")"
grep -q '^0 of 2 verified (1 not run)$' "$tmp/out" || fail "a missing runner: $(cat "$tmp/out")"
[ -e "$tmp/nvcc.calls" ] && fail "a missing runner: bench compiled first"
FAKE_SERVE_START=no_gpu "$bin" bench --dtype f16 --shapes 128x256x256,256x256x512,256x256x256 --runner "$fake"     > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "no GPU: exit $rc, want 1: $(cat "$tmp/out")"
grep -q 'bench: cannot measure (no_gpu): nothing was compiled' "$tmp/out" || fail "no GPU: $(cat "$tmp/out")"
grep -q '^0 of 3 verified (2 not run)$' "$tmp/out" || fail "no GPU: $(cat "$tmp/out")"
[ -e "$tmp/nvcc.calls" ] && fail "no GPU: bench compiled first"
out=$(FAKE_SERVE_START=no_gpu "$bin" bench --dtype f16 --shapes 128x256x256,256x256x512 --runner "$fake" --json 2>/dev/null)
python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["requested"] == 2 and not d["all_verified"] and d["results"][0]["status"] == "no_gpu" and d["results"][0]["build"] is None, d' <<<"$out" ||
    fail "no GPU, --json: $out"
echo ok
