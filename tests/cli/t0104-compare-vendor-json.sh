#!/usr/bin/env bash
# compare --tuning records the verified vendor numbers as perf/<key>/vendor.json for the
# report; unverified or unavailable ones are null; with our kernel, its verified number
# and exact configuration too (ours_*). A fake runner stands in for the GPU.
set -u
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat > "$T/runner" <<'JSON'
#!/bin/sh
cat <<'END'
{"schema":1,"command":"compare","status":"ok","gpu":"NVIDIA H200","dtype":"e4m3","results":{"cusparselt_default":{"name":"cusparselt_default","available":true,"status":"incorrect","verify":{"passed":false,"max_err_over_tol":3}},"cusparselt_search":{"name":"cusparselt_search","available":false,"status":"unavailable"},"cublas":{"name":"cublas","available":true,"status":"ok","verify":{"passed":true,"max_err_over_tol":0.2},"timing":{"tflops":1200.5,"median_ms":0.22,"spread_pct":0.5},"gpu_state":{"sm_clock_median_mhz":1500},"peak":{"hw_eff_pct":30.0}}},"ratios":{"ours_over_cusparselt_search":null,"ours_over_cusparselt_default":null,"ours_over_cublas":null,"cusparselt_search_over_cublas":null}}
END
JSON
chmod +x "$T/runner"
"$CROQ_BIN/croqtuner" compare --no-ours --dtype e4m3 --shape 256x256x256 --runner "$T/runner" \
    --tuning "$T/tuning" > "$T/out" 2>&1 || { cat "$T/out"; echo "compare failed"; exit 1; }
f=$T/tuning/perf/e4m3_256x256x256/vendor.json
[ -f "$f" ] || { echo "no $f"; exit 1; }
fail=0
grep -q '"cublas_tflops": 1200.5' "$f" || { echo "cublas_tflops missing"; fail=1; }
grep -q '"cusparselt_default_tflops": null' "$f" || { echo "unverified cuSPARSELt number recorded"; fail=1; }
grep -q '"cusparselt_search_tflops": null' "$f" || { echo "unavailable cuSPARSELt number recorded"; fail=1; }
grep -q '"key": "e4m3_256x256x256"' "$f" || { echo "key missing"; fail=1; }
grep -q '"ours_' "$f" && { echo "--no-ours wrote ours_*"; fail=1; }
[ $fail = 0 ] || cat "$f"
# With ours: the runner's "ours" entry (verified) and the configuration it was built from.
sed 's/"results":{/"results":{"ours":{"name":"ours","available":true,"status":"ok","verify":{"passed":true,"max_err_over_tol":0.1},"timing":{"tflops":1300.25,"median_ms":0.2,"spread_pct":0.4},"gpu_state":{"sm_clock_median_mhz":1500},"peak":{"hw_eff_pct":33.0}},/' \
    "$T/runner" > "$T/runner2"
chmod +x "$T/runner2"
"$CROQ_BIN/croqtuner" compare --dtype e4m3 --shape 256x256x256 --family --set tile_n=128 --runner "$T/runner2" \
    --tuning "$T/tuning" > "$T/out" 2>&1 || { cat "$T/out"; echo "compare with ours failed"; exit 1; }
grep -q '"ours_tflops": 1300.25' "$f" || { echo "ours_tflops missing"; fail=1; }
grep -q '"ours_config": "dtype=e4m3,kernel=1,.*tile_n=128,' "$f" || { echo "ours_config missing"; fail=1; }
[ $fail = 0 ] || cat "$f"
exit $fail
