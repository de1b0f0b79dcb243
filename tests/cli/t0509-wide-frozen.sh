#!/usr/bin/env bash
# The frozen wide datasets (bench/explore/wide-h100/FROZEN.txt, issue 25 item 4) are what
# the search strategies were tuned and judged on: every dataset of the directory is listed,
# each line's record count and sha256 (of the uncompressed JSONL) match the file, and
# exactly one dataset per dtype is held out. tests/gpu/explore.sh refuses to add to a
# frozen directory (checked here with the sim backend, before it measures anything).
set -u
. "$(dirname "$0")/lib.sh"
dir="$CROQ_SOURCE_DIR/bench/explore/wide-h100"
man="$dir/FROZEN.txt"
[ -f "$man" ] || fail "no $man"
listed=0; declare -A held=()
while read -r sum n name role; do
  case "$sum" in ''|'#'*) continue ;; esac
  f="$dir/$name.jsonl.gz"
  [ -f "$f" ] || fail "$name is listed but $f is missing"
  got=$(gzip -dc "$f" | sha256sum | cut -d' ' -f1)
  [ "$got" = "$sum" ] || fail "$name changed since it was frozen (sha256 $got, frozen $sum)"
  [ "$(gzip -dc "$f" | wc -l)" -eq "$n" ] || fail "$name: not $n records"
  [ "$n" -ge 500 ] || fail "$name: $n records, issue 25 asks for at least 500"
  case "$role" in
    tuning) ;;
    held-out) dt=${name%%_*}; [ -z "${held[$dt]:-}" ] || fail "two held-out $dt datasets"; held[$dt]=$name ;;
    *) fail "$name: role '$role' is neither tuning nor held-out" ;;
  esac
  listed=$((listed + 1))
done < "$man"
[ "$listed" -eq "$(ls "$dir"/*.jsonl.gz | wc -l)" ] || fail "$man lists $listed datasets, $dir holds $(ls "$dir"/*.jsonl.gz | wc -l)"
[ "$listed" -eq 6 ] && [ -n "${held[f16]:-}" ] && [ -n "${held[e4m3]:-}" ] ||
  fail "expected 6 datasets, one held out per dtype (f16: ${held[f16]:-none}, e4m3: ${held[e4m3]:-none})"
cp "$dir"/f16_1024x8192x1024.jsonl.gz "$man" "$tmp/"
before=$(sha256sum "$tmp"/*)
out=$(BACKEND=sim LIMITS="1 1 1" bash "$CROQ_SOURCE_DIR/tests/gpu/explore.sh" "$CROQ_BIN" "$tmp" 2>&1)
[ $? -eq 2 ] && grep -qF "is frozen" <<<"$out" || fail "explore.sh on a frozen directory: $out"
[ "$before" = "$(sha256sum "$tmp"/*)" ] && [ "$(ls "$tmp" | wc -l)" -eq 2 ] || fail "explore.sh touched the frozen directory"
echo ok
