#!/usr/bin/env bash
# `croqtuner report` without tuning data: a missing directory, an empty one, and one
# whose only entries are not tuning artifacts each fail with exit 1 and a message that
# names the directory; no report is written.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

expect_no_data() { # dir, message
    local dir=$1 msg=$2
    "$bin" report --tuning "$dir" --out "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"; rc=$?
    [ "$rc" -eq 1 ] || fail "'$dir': exit $rc, want 1"
    grep -qF "croqtuner: report: $msg" "$tmp/stderr" || fail "'$dir': stderr '$(cat "$tmp/stderr")', want '$msg'"
    [ ! -e "$tmp/out/index.html" ] || fail "'$dir': a report was written"
}

expect_no_data "$tmp/missing" "cannot open tuning directory '$tmp/missing': No such file or directory"
touch "$tmp/file"
expect_no_data "$tmp/file" "tuning directory '$tmp/file' is not a directory"
mkdir "$tmp/empty"
expect_no_data "$tmp/empty" "no tuning data in '$tmp/empty': no state.json shapes and no logs/<key>/ directories"
# Directories that are not shape keys, an empty shape directory, a state.json without shapes.
mkdir -p "$tmp/junk/logs/not-a-key" "$tmp/junk/logs/f16_128x256x128"
echo '{"schema": 1, "shapes": {}}' >"$tmp/junk/state.json"
expect_no_data "$tmp/junk" "no tuning data in '$tmp/junk': no readable logs/<key>/results.tsv and no shape in state.json"
grep -qF "logs/not-a-key: not a shape key" "$tmp/stderr" && fail "notes printed although no report was made"
echo ok
