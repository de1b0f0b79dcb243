#!/usr/bin/env bash
# `croqtuner report` over a sweep run with `--waves 1`: its gap note counts the shapes of the
# waves the sweep runs (src/scale's plan, as `croqtuner status` counts them), and the shapes
# of the later waves get a note of their own instead of reading as missing. The fixture's
# plan: f16 wave 1 1024x8192x1024 (from scratch), wave 2 768³, wave 3 {2048,4096}x8192x8192;
# e4m3 wave 1 768³ (its typical shape), wave 3 the same two; started: f16 1024x8192x1024
# (both modes) and 4096x8192x8192 of each dtype.
# A sweep record no sweep writes (last_wave out of range, an unknown dtype or plan: only the
# lenient reader accepts it) gets a note and no plan.
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

# a record no sweep writes names no plan: a note says so, and no shape is called missing
for edit in 'last_wave=99' 'last_wave="2"' 'dtype="bf16"' 'plan="fast"'; do
    python3 - "$tmp/t/state.json" "$edit" <<'PY' || fail "cannot edit state.json ($edit)"
import json, sys
p, (k, v) = sys.argv[1], sys.argv[2].split("=", 1)
s = json.load(open(p))
s["sweep"].update({"last_wave": 1, "dtype": "all", "plan": "default"})
s["sweep"][k] = json.loads(v)
json.dump(s, open(p, "w"))
PY
    "$bin" report --tuning "$tmp/t" --out "$tmp/out" >/dev/null 2>"$tmp/stderr" || fail "report ($edit): $(cat "$tmp/stderr")"
    grep -q "^skipped.*the sweep record's ${edit%%=*} .*is not one a sweep writes: shapes not started cannot be listed" "$n" \
        || fail "$edit: $(cat "$n")"
    grep -q "not started yet\|more .* shapes" "$n" && fail "$edit: shapes listed from a record no sweep writes: $(cat "$n")"
done
echo ok
