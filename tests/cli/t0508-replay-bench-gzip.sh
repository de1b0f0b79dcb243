#!/usr/bin/env bash
# replay-bench reads gzip-compressed datasets (X.jsonl.gz, the committed form of the wide
# explore datasets) as their plain form: the same table to the digit; a dataset present in
# both forms is refused (which one would count?), naming both files.
set -u
. "$(dirname "$0")/lib.sh"
ds="$CROQ_SOURCE_DIR/bench/explore"
mkdir -p "$tmp/plain" "$tmp/gz"
for f in "$ds"/f16_*.jsonl; do cp "$f" "$tmp/plain/"; gzip -9c "$f" >"$tmp/gz/$(basename "$f").gz"; done
[ "$(ls "$tmp/gz" | wc -l)" -ge 3 ] || fail "expected the committed f16 datasets in $ds"
a=$("$bin" replay-bench --datasets "$tmp/plain" --seeds 2 --iters 30 --jobs 2) || fail "plain: $a"
b=$("$bin" replay-bench --datasets "$tmp/gz" --seeds 2 --iters 30 --jobs 2) || fail "gzip: $b"
grep -Eq "^replay-bench: min@10 [01]\.[0-9]{3} min@30 [01]\.[0-9]{3}$" <<<"$b" || fail "gzip summary: $b"
[ "$a" = "$b" ] || fail "the gzip datasets replay differently: $(diff <(echo "$a") <(echo "$b"))"
one=$(ls "$tmp/plain" | head -n 1)
cp "$tmp/plain/$one" "$tmp/gz/"
err=$("$bin" replay-bench --datasets "$tmp/gz" --seeds 1 --iters 10 --jobs 1 2>&1)
[ $? -eq 2 ] && grep -qF "'$tmp/gz/$one' and '$tmp/gz/$one.gz' are one dataset twice" <<<"$err" ||
  fail "both forms of one dataset: $err"
echo ok
