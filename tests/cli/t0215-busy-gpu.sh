#!/usr/bin/env bash
# A GPU used by another process is waited for with backoff, shown in progress, and
# after the limit the tuner stops with a clear message — it never stops the other
# process: no code of the engine or the backends signals a process or resets a GPU.
# An unusable GPU stops tune and sweep with a non-zero exit and the reason.
set -u
. "$(dirname "$0")/lib.sh"
tune() { "$bin" tune --backend sim --quiet --dtype f16 --shape 2048x2048x2048 --mode scratch --iters 4 "$@"; }
key=f16_2048x2048x2048_fs

# busy for 3 checks before iteration 1: waits, then goes on
err=$(tune --tuning "$tmp/a" --sim-faults "busy@1*3" --backoff-s 0.01 2>&1 >/dev/null) || fail "tune exited $?: $err"
[ "$(grep -c "GPU busy: simulated: pid 4242" <<<"$err")" -eq 3 ] || fail "want 3 busy waits: $err"
grep -q '"status": "done"' "$tmp/a/state.json" || fail "not done after the GPU became free"
# the waits double: 0.01, 0.02, 0.04
grep -q "next check in 0.02 s" <<<"$err" || fail "no wait announced: $err"

# busy for good: stop after the limit, the shape stays active and resumes later
err=$(tune --tuning "$tmp/b" --sim-faults "busy@2*100000" --backoff-s 0.02 --busy-limit 0.002 2>&1 >/dev/null)
[ $? -eq 1 ] || fail "tune on a GPU busy past the limit did not exit 1"
grep -q "has been busy for" <<<"$err" || fail "no clear message: $err"
grep -q "never stops other users' processes" <<<"$err" || fail "message does not say it left the process alone: $err"
grep -q '"status": "active"' "$tmp/b/state.json" || fail "the shape is not left active"
grep -q '"waiting": "stopped: GPU busy' "$tmp/b/progress/$key.json" || fail "progress does not show the busy stop"
# status says why the shape stands still (state.json has no stop_reason for an active shape)
"$bin" status --tuning "$tmp/b" | grep -q "^$key .* active .*  stopped: GPU busy for .*; 'croqtuner resume' continues it$" ||
    fail "status does not say the shape stopped on a busy GPU: $("$bin" status --tuning "$tmp/b")"
"$bin" resume --tuning "$tmp/b" --quiet || fail "resume once the GPU is free"
grep -q '"status": "done"' "$tmp/b/state.json" || fail "not done after resume"

# while it waits: the row says so, next to the live line
# (the tuner itself in the background, output closed, so killing $wpid ends it)
"$bin" tune --backend sim --quiet --dtype f16 --shape 2048x2048x2048 --mode scratch --iters 4 --tuning "$tmp/w" \
    --sim-faults "busy@1*100000" --backoff-s 2 --busy-limit 60 >/dev/null 2>&1 &
wpid=$!
row=
for _ in $(seq 1 500); do
    row=$("$bin" status --tuning "$tmp/w" 2>/dev/null | grep "^$key ")
    grep -q "  waiting: GPU busy: simulated: pid 4242" <<<"$row" && break
    sleep 0.02
done
kill $wpid 2>/dev/null; wait $wpid 2>/dev/null
grep -q "  waiting: GPU busy: simulated: pid 4242" <<<"$row" || fail "status of a shape waiting for the GPU: '$row'"

# unusable GPU: stop, say why, exit non-zero
err=$(tune --tuning "$tmp/c" --sim-faults "unusable@3" 2>&1 >/dev/null)
[ $? -eq 1 ] || fail "tune on an unusable GPU did not exit 1"
grep -q "the GPU is unusable: simulated: no GPU" <<<"$err" || fail "message: $err"

# no code path kills a process or resets the GPU (spawn.c kills only its own child group)
src="$CROQ_SOURCE_DIR/src"
hits=$(grep -nE '(^|[^a-z_])(kill|killpg|tgkill)[[:space:]]*\(|SIGKILL|SIGTERM|nvidia-smi|gpu-reset|DeviceReset|nvmlDeviceSet' \
    "$src"/engine/*.c "$src"/backend/*.c | grep -v 'crashpoint.c:.*raise(SIGKILL)' | grep -v '^\S*:[0-9]*: *\*\|/\*')
[ -z "$hits" ] || fail "process-killing or GPU-reset code in the engine/backends: $hits"
echo ok
