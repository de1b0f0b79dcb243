#!/usr/bin/env bash
# `knobs` lists every row of src/knobs/knobs.def, as text and as JSON.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }

names=$(sed -n 's/^KNOB([A-Z0-9_]*, *"\([a-z0-9_]*\)".*/\1/p' "$CROQ_SOURCE_DIR/src/knobs/knobs.def")
[ "$(wc -l <<<"$names")" -ge 10 ] || fail "could not read knob names from knobs.def: $names"

text=$("$bin" knobs) || fail "knobs exited $?"
json=$("$bin" knobs --json) || fail "knobs --json exited $?"
for n in $names; do
    grep -Eq "^$n +[0-9]" <<<"$text" || fail "text listing lacks '$n'"
    grep -q "\"name\": \"$n\"" <<<"$json" || fail "JSON listing lacks '$n'"
done
# Row count matches the table: header + one line per knob.
[ "$(wc -l <<<"$text")" -eq $(( $(wc -l <<<"$names") + 1 )) ] || fail "text has extra or missing rows"
grep -Eq '^tile_m +128 +64,128,192,256 +macro ' <<<"$text" || fail "tile_m row: $(grep ^tile_m <<<"$text")"
grep -q '"category": "structural"' <<<"$json" || fail "JSON lacks categories"
echo "ok"
