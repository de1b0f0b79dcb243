#!/usr/bin/env bash
# `croqtuner report` over a sweep run with `--waves 1`: its gap note counts the shapes of the
# waves the sweep runs (src/scale's plan, as `croqtuner status` counts them), and the shapes
# of the later waves get a note of their own instead of reading as missing. The fixture's
# plan per dtype: wave 1 the typical shape (from scratch), wave 2 768³, wave 3
# {2048,4096}x8192x8192; started: f16 1024x8192x1024 (both modes) and 4096x8192x8192 of each dtype.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp -r "$CROQ_SOURCE_DIR/tests/fixtures/tuning" "$tmp/t"
python3 - "$tmp/t/state.json" <<'PY' || fail "cannot edit the fixture's state.json"
import json, sys
p = sys.argv[1]
s = json.load(open(p))
s["sweep"]["last_wave"] = 1
json.dump(s, open(p, "w"))
PY
"$bin" report --tuning "$tmp/t" --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr" || fail "report: $(cat "$tmp/stderr")"
n="$tmp/out/notes.txt"
grep -qF "1 of 1 e4m3 shapes not started yet (e4m3_768x768x768_fs)" "$n" || fail "wave 1's gap: $(cat "$n")"
grep -q "f16 shapes not started yet" "$n" && fail "f16's wave 1 is started, yet a gap is noted: $(cat "$n")"
grep -qF "the sweep runs waves 1-1; the waves after 1 hold 2 more f16 shapes, not started" "$n" \
    || fail "the later waves' f16 shapes: $(cat "$n")"
grep -qF "the waves after 1 hold 1 more e4m3 shapes, not started" "$n" || fail "the later waves' e4m3 shapes: $(cat "$n")"
grep -q "^missing.*hold .* more" "$n" && fail "the later waves read as missing: $(cat "$n")"
grep -qF "waves 1-1 of 4" "$tmp/out/index.html" || fail "the page does not say which waves the sweep runs"
echo ok
