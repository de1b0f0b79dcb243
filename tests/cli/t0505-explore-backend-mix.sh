#!/usr/bin/env bash
# A dataset holds the numbers of one backend (issue 24, item 3): explore refuses to append
# records of another backend to an existing dataset (exit 2, naming both backends, the
# file unchanged), as tune refuses to mix backends in a shape; a dataset that already
# mixes them is refused where it is read, by explore and by replay-bench, naming the line.
set -u
. "$(dirname "$0")/lib.sh"
grid="$CROQ_SOURCE_DIR/tests/fixtures/explore/grid-small.txt"
ex() { "$bin" explore --backend sim --dtype f16 --shape 1024x1024x4096 --grid "$grid" --quiet "$@"; }
ex --out "$tmp/d.jsonl" >/dev/null 2>"$tmp/err" || fail "explore: $(cat "$tmp/err")"
# The first 9 records as a GPU dataset would hold them (explore on --backend gpu labels
# each record "backend":"gpu"); the 5 other configurations of the grid are missing.
mkdir "$tmp/ds"
head -n 9 "$tmp/d.jsonl" | sed 's/"backend":"sim"/"backend":"gpu"/' >"$tmp/ds/gpu.jsonl"
cp "$tmp/ds/gpu.jsonl" "$tmp/before.jsonl"
err=$(ex --out "$tmp/ds/gpu.jsonl" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF "'$tmp/ds/gpu.jsonl' holds records of the 'gpu' backend, not 'sim': give another --out" <<<"$err" ||
    fail "sim records into a gpu dataset: rc=$rc: $err"
cmp -s "$tmp/ds/gpu.jsonl" "$tmp/before.jsonl" || fail "the gpu dataset was changed: $(grep -c '"backend":"sim"' "$tmp/ds/gpu.jsonl") sim records"
# A dataset that already mixes them (made by hand, or by an explore before this check).
sed -n 10p "$tmp/d.jsonl" >>"$tmp/ds/gpu.jsonl"
err=$(ex --out "$tmp/ds/gpu.jsonl" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF "gpu.jsonl:10: a record of backend 'sim' in a dataset of backend 'gpu'" <<<"$err" ||
    fail "explore on a mixed dataset: rc=$rc: $err"
err=$("$bin" replay-bench --datasets "$tmp/ds" --seeds 2 --iters 5 2>&1); rc=$?
[ $rc -ne 0 ] && grep -qF "gpu.jsonl:10: a record of backend 'sim' in a dataset of backend 'gpu'" <<<"$err" ||
    fail "replay-bench scored a mixed dataset: rc=$rc: $err"
# The same backend still continues its own dataset.
head -n 9 "$tmp/d.jsonl" >"$tmp/sim.jsonl"
ex --out "$tmp/sim.jsonl" | grep -q "5 measured now (5 ok, 0 failed), 9 were already" || fail "sim dataset not continued"
echo ok
