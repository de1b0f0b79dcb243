#!/usr/bin/env bash
# croq-runner health on the GPU: one NVML snapshot as JSON (name, clocks, temperature,
# throttle reasons, power, processes), status ok, exit 0.
set -u
runner="$CROQ_BIN/croq-runner"
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! nvidia-smi -L >/dev/null 2>&1 || [ ! -e /dev/nvidia0 ]; then
    echo "skip: no NVIDIA GPU here (nvidia-smi -L failed or /dev/nvidia0 missing)"
    exit 77
fi
out=$("$runner" health); rc=$?
echo "$out"
[ "$rc" -eq 0 ] || fail "health exited $rc"
grep -q '^{"schema":1,"command":"health","status":"ok"' <<<"$out" || fail "not an ok health object"
for key in name sm_clock_mhz sm_clock_max_mhz temp_c throttle_reasons power_w processes; do
    grep -q "\"$key\":" <<<"$out" || fail "snapshot lacks '$key'"
done
grep -q '"sm_clock_max_mhz":null' <<<"$out" && fail "NVML gave no max SM clock"
echo "ok"
