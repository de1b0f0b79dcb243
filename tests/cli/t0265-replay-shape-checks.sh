#!/usr/bin/env bash
# A replay shape and its dataset, and the backend of a tuning directory (issue 24, item 4):
# - tune --backend replay with a dataset of another shape is refused before the shape is
#   registered (no state.json entry, no checkpoint), saying which shape the dataset holds
#   and what to do; resume of a replay shape with such a dataset is refused the same way
#   and leaves its checkpoint as it was;
# - resume --help lists --dataset;
# - a replay shape records its dataset (absolute path, FNV-1a 64 of its bytes): resume
#   reopens it without --dataset; a dataset explored further since (other bytes) is
#   refused, naming both hashes, the checkpoint unchanged; a moved or recompressed one
#   (the same records) is given by --dataset once, and recorded;
# - a replay shape is refused in a sim directory, and a sim shape in a replay directory,
#   naming the other backend, the directory's state.json unchanged.
set -u
. "$(dirname "$0")/lib.sh"
grid="$CROQ_SOURCE_DIR/tests/fixtures/explore/grid-small.txt"
d=$tmp/f16_1024x1024x4096.jsonl
"$bin" explore --backend sim --quiet --dtype f16 --shape 1024x1024x4096 --grid "$grid" --out "$d" >/dev/null ||
    fail "explore"
replay() { "$bin" tune --backend replay --dataset "$1" --dtype f16 --shape "$2" --mode scratch --iters 3 --quiet \
    --tuning "$3"; }
entries() { python3 -c "import json,sys; print(' '.join(sorted(json.load(open(sys.argv[1]))['shapes'])))" "$1/state.json" 2>/dev/null; }

# 1. a dataset of another shape: refused, nothing registered
err=$(replay "$d" 2048x1024x4096 "$tmp/r1" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "dataset '$d' holds f16 1024x1024x4096, not f16 2048x1024x4096: give --dataset a dataset explored on this shape ('croqtuner explore --dtype f16 --shape 2048x1024x4096 --out FILE')" <<<"$err" ||
    fail "another shape's dataset: rc=$rc: $err"
grep -q "once it is fixed" <<<"$err" && fail "says to resume once fixed: $err"
[ -z "$(entries "$tmp/r1")" ] || fail "the shape was registered: $(entries "$tmp/r1")"
[ ! -e "$tmp/r1/checkpoints/f16_2048x1024x4096_fs.json" ] || fail "a checkpoint was written"
"$bin" status --tuning "$tmp/r1" | grep -q "f16_2048x1024x4096_fs" && fail "status shows the refused shape"

# 2. resume --help names --dataset
"$bin" resume --help | grep -q "^usage: croqtuner resume .*\[--dataset FILE\]" || fail "resume --help: no --dataset"
"$bin" resume --help | grep -q "^  --dataset FILE" || fail "resume --help does not explain --dataset"

# 3. resume of a replay shape given another shape's dataset: refused, its checkpoint unchanged
CROQ_CRASHPOINT=ideate.saved replay "$d" 1024x1024x4096 "$tmp/r2" >/dev/null 2>&1
[ -e "$tmp/r2/checkpoints/f16_1024x1024x4096_fs.json" ] || fail "no checkpoint after the crash point"
cp "$tmp/r2/checkpoints/f16_1024x1024x4096_fs.json" "$tmp/ck.json"
mkdir "$tmp/other"
sed 's/"shape":"1024x1024x4096"/"shape":"2048x1024x4096"/' "$d" >"$tmp/other/f16_2048x1024x4096.jsonl"
err=$("$bin" resume --tuning "$tmp/r2" --dataset "$tmp/other/f16_2048x1024x4096.jsonl" --quiet 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "holds f16 2048x1024x4096, not f16 1024x1024x4096: give --dataset" <<<"$err" ||
    fail "resume with another shape's dataset: rc=$rc: $err"
cmp -s "$tmp/ck.json" "$tmp/r2/checkpoints/f16_1024x1024x4096_fs.json" || fail "the checkpoint changed"
"$bin" resume --tuning "$tmp/r2" --dataset "$d" --quiet || fail "resume with its own dataset"

# 4. a replay shape in a sim directory, a sim shape in a replay directory
"$bin" tune --backend sim --quiet --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 2 --tuning "$tmp/s" ||
    fail "sim tune"
cp "$tmp/s/state.json" "$tmp/s.state.json"
err=$(replay "$d" 1024x1024x4096 "$tmp/s" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "'$tmp/s' holds shapes tuned with backend 'sim' (f16_1024x1024x1024_fs), not 'replay': results of different backends are never mixed in one tuning directory; give --tuning ANOTHER_DIR" <<<"$err" ||
    fail "replay shape in a sim directory: rc=$rc: $err"
cmp -s "$tmp/s.state.json" "$tmp/s/state.json" || fail "the sim directory's state.json changed"
err=$("$bin" tune --backend sim --quiet --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 2 --tuning "$tmp/r2" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "'$tmp/r2' holds shapes tuned with backend 'replay' (f16_1024x1024x4096_fs), not 'sim'" <<<"$err" ||
    fail "sim shape in a replay directory: rc=$rc: $err"
[ "$(entries "$tmp/r2")" = f16_1024x1024x4096_fs ] || fail "replay directory holds $(entries "$tmp/r2")"
# 5. the recorded dataset: reopened without --dataset, refused once its bytes changed
mkdir "$tmp/a"
tail -n +2 "$d" >"$tmp/a/ds.jsonl"
CROQ_CRASHPOINT=ideate.saved replay "$tmp/a/ds.jsonl" 1024x1024x4096 "$tmp/r3" >/dev/null 2>&1
ck=$tmp/r3/checkpoints/f16_1024x1024x4096_fs.json
read -r path hash < <(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['dataset']; print(d['path'], d['hash'])" "$ck") ||
    fail "no dataset in the checkpoint: $(cat "$ck")"
[ "$path" = "$(realpath "$tmp/a/ds.jsonl")" ] && [[ "$hash" =~ ^[0-9a-f]{16}$ ]] || fail "recorded dataset: $path $hash"
cp "$ck" "$tmp/ck3.json"
cp "$d" "$tmp/a/ds.jsonl" # explored further: one record more (other bytes)
err=$("$bin" resume --tuning "$tmp/r3" --quiet 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "shape 'f16_1024x1024x4096_fs' started on the dataset '$path' (records FNV-1a 64 $hash); '$path' holds other records (" <<<"$err" &&
    grep -qF "(nothing was changed)" <<<"$err" || fail "resume on a dataset explored further: rc=$rc: $err"
cmp -s "$tmp/ck3.json" "$ck" || fail "the checkpoint changed"
mkdir "$tmp/b"
tail -n +2 "$d" >"$tmp/b/moved.jsonl"
rm "$tmp/a/ds.jsonl"
err=$("$bin" resume --tuning "$tmp/r3" --quiet 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "as its checkpoint records it; give --dataset FILE if it moved" <<<"$err" ||
    fail "resume without the recorded file: rc=$rc: $err"
cmp -s "$tmp/ck3.json" "$ck" || fail "the checkpoint changed"
# moved, and recompressed: the same records (gzip, another file's bytes) are the same dataset;
# the checkpoint then names the new path, so a later resume needs no --dataset
gzip -9c "$tmp/b/moved.jsonl" >"$tmp/b/moved.jsonl.gz"; rm "$tmp/b/moved.jsonl"
( (CROQ_CRASHPOINT=ideate.saved "$bin" resume --tuning "$tmp/r3" --dataset "$tmp/b/moved.jsonl.gz" --quiet) >/dev/null 2>&1 ) 2>/dev/null
[ "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['dataset']['path'])" "$ck")" = "$(realpath "$tmp/b/moved.jsonl.gz")" ] ||
    fail "the moved path is not recorded: $(grep -A3 '"dataset"' "$ck")"
"$bin" resume --tuning "$tmp/r3" --quiet || fail "resume after the move"
grep -q '"phase": *"NEXT_SHAPE"' "$ck" || fail "not finished: $(grep phase "$ck")"
gzip -dc "$tmp/b/moved.jsonl.gz" >"$tmp/b/moved.jsonl"
# resume without --dataset: the recorded path
CROQ_CRASHPOINT=ideate.saved replay "$tmp/b/moved.jsonl" 1024x1024x4096 "$tmp/r4" >/dev/null 2>&1
"$bin" resume --tuning "$tmp/r4" --quiet || fail "resume without --dataset"
grep -q '"phase": *"NEXT_SHAPE"' "$tmp/r4/checkpoints/f16_1024x1024x4096_fs.json" || fail "r4 not finished"
# a dataset path that is not UTF-8: the JSON artifacts could not name it, so refused up front
bad=$tmp/$'bad\xff'
mkdir "$bad" && cp "$d" "$bad/ds.jsonl"
err=$(replay "$bad/ds.jsonl" 1024x1024x4096 "$tmp/r5" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "the dataset path is not UTF-8 text" <<<"$err" || fail "a non-UTF-8 dataset path: rc=$rc: $err"
[ -z "$(entries "$tmp/r5")" ] || fail "the shape was registered: $(entries "$tmp/r5")"
echo ok
