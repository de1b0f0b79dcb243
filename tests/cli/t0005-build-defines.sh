#!/usr/bin/env bash
# `build --no-compile` writes a self-contained .cu whose defines match --set, and the
# configuration file; invalid configurations and fault injection.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ ! -f "$CROQ_SOURCE_DIR/kernels/family.cu" ] || [ ! -f "$CROQ_SOURCE_DIR/kernels/baseline.cu" ]; then
    echo "skip: kernels/family.cu or kernels/baseline.cu does not exist yet"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

out=$("$bin" build --no-compile --dtype e4m3 --set tile_n=128 --set "stages=3,group=8" --out "$tmp/a") \
    || fail "build --no-compile exited $?: $out"
src="$tmp/a/kernel.cu"
[ -s "$src" ] || fail "no $src"
grep -qx "source  $src" <<<"$out" || fail "output does not name the source: $out"
for d in "CROQ_DTYPE 1" "CROQ_TILE_N 128" "CROQ_STAGES 3" "CROQ_GROUP 8" "CROQ_KERNEL 1"; do
    grep -q "^#define $d\b" "$src" || fail "$src lacks '#define $d'"
done
# One define per knob of the table up to the late ones (src/knobs/knobs.h: at their
# default they are left to the kernel sources), no quoted include left, no fault injected.
n_knobs=$(sed '/^KNOB(SCHEDULE,/q' "$CROQ_SOURCE_DIR/src/knobs/knobs.def" | grep -c '^KNOB(')
n_knobs=$((n_knobs - 1))
# (counted in the generated prelude, before the first inlined kernel file)
n_defs=$(sed '/^\/\* ==== begin /q' "$src" | grep -Ec '^#define CROQ_[A-Z0-9_]+ -?[0-9]+$')
[ "$n_defs" -eq "$n_knobs" ] || fail "$n_defs knob defines, want $n_knobs"
! grep -Eq '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src" || fail "quoted include left in $src"
! grep -q '^#define CROQ_INJECT_FAULT' "$src" || fail "fault define without --inject-fault"
grep -q '^ \* config: dtype=e4m3,kernel=1,' "$src" || fail "no config signature in the header"
grep -q '"tile_n": 128' "$tmp/a/kernel.config.json" || fail "config file: $(cat "$tmp/a/kernel.config.json")"

# A late knob set away from its default is written.
"$bin" build --no-compile --dtype f16 --set "persistent=1 schedule=1 tile_n=128" --out "$tmp/pp" >/dev/null \
    || fail "ping-pong build exited $?"
grep -q '^#define CROQ_SCHEDULE 1$' "$tmp/pp/kernel.cu" || fail "no '#define CROQ_SCHEDULE 1'"
! sed '/^\/\* ==== begin /q' "$src" | grep -q '^#define CROQ_SCHEDULE' || fail "default schedule written as a define"

# The baseline entry for kernel=0.
"$bin" build --no-compile --dtype f16 --set "kernel=0 tile_m=64 tile_n=128 stages=2 consumers=1" \
    --out "$tmp/b" --name base >/dev/null || fail "baseline build exited $?"
grep -q '^ \* entry: baseline.cu$' "$tmp/b/base.cu" || fail "baseline entry not used"

# Test-only fault injection.
"$bin" build --no-compile --dtype f16 --inject-fault hang --out "$tmp/c" >/dev/null || fail "inject exited $?"
grep -q '^#define CROQ_INJECT_FAULT 2\b' "$tmp/c/kernel.cu" || fail "no CROQ_INJECT_FAULT 2"

# An invalid combination writes nothing and says why.
err=$("$bin" build --no-compile --dtype f16 --set tile_m=64 --out "$tmp/d" 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "invalid config exited $rc, want 1"
grep -q "invalid configuration: tile_m=64 must be a multiple of 64 x consumers" <<<"$err" || fail "message: $err"
[ ! -e "$tmp/d/kernel.cu" ] || fail "source written for an invalid configuration"
echo "ok"
