#!/usr/bin/env bash
# Issue 17 item 7: temp files of atomic writes that kill -9 cut off between the write and
# the rename (".<name>.tmp.<pid>") are removed when the shape is next opened, in every
# directory that holds its files, fresh ones too (t0267); one whose writer is alive,
# another shape's and any other name stay. The run then ends as an uninterrupted one.
set -u
. "$(dirname "$0")/lib.sh"
tune=(tune --backend sim --quiet --dtype f16 --shape 512x512x1024 --mode scratch --iters 5)
key=f16_512x512x1024_fs
for d in ref w; do # another shape first: its checkpoint is not to be touched
    "$bin" tune --backend sim --quiet --dtype f16 --shape 256x256x256 --mode scratch --iters 2 --tuning "$tmp/$d" \
        >/dev/null || fail "other shape"
done
"$bin" "${tune[@]}" --tuning "$tmp/ref" >/dev/null || fail "reference run failed"
CROQ_CRASHPOINT=store.row@3 "$bin" "${tune[@]}" --tuning "$tmp/w" >/dev/null 2>&1
[ $? -eq 137 ] || fail "could not stop the run in the middle"
dead=$(sh -c 'echo $$') # a process that has exited
t=$tmp/w
mkdir -p "$t/progress" "$t/kernels/gemm_sp_f16" "$t/perf/$key/iter002-profile"
stale=(".state.json.tmp.$dead" ".RESUME.md.tmp.$dead" "checkpoints/.$key.json.tmp.$dead"
       "progress/.$key.json.tmp.$dead" "logs/$key/.results.tsv.tmp.$dead" "srcs/$key/.iter003.cu.tmp.$dead"
       "perf/$key/.iter002-cand.json.tmp.$dead" "perf/$key/iter002-profile/.profile.json.tmp.$dead"
       "kernels/gemm_sp_f16/.${key}_best.cu.tmp.$dead" "logs/$key/.idea-log.jsonl.tmp.4242424")
kept=("logs/$key/.results.tsv.tmp.$$"             # its writer (this shell) is alive
      "checkpoints/.f16_256x256x256_fs.json.tmp.$dead" # another shape's: not opened
      "srcs/$key/iter004.cu.tmp.$dead" "srcs/$key/.iter004.cu.tmp.${dead}a" "srcs/$key/notes.tmp")
for f in "${stale[@]}" "${kept[@]}"; do
    echo partial >"$t/$f" || fail "cannot plant $f"
    touch -d '5 minutes ago' "$t/$f"
done
touch -d '2 days ago' "$t/logs/$key/.idea-log.jsonl.tmp.4242424" # any pid, abandoned
echo partial >"$t/logs/$key/.attempts.tsv.tmp.$dead"  # fresh, but its writer held the shape's lock: goes (t0267)
stale+=("logs/$key/.attempts.tsv.tmp.$dead")

"$bin" resume --tuning "$t" --quiet >/dev/null 2>"$tmp/err" || fail "resume exited $?: $(cat "$tmp/err")"
for f in "${stale[@]}"; do
    [ -e "$t/$f" ] && fail "stale temp file $f was left"
done
for f in "${kept[@]}"; do
    [ -e "$t/$f" ] || fail "$f was removed"
done
for f in "logs/$key/results.tsv" "logs/$key/idea-log.jsonl" "checkpoints/$key.json"; do
    diff <(norm "$tmp/ref/$f") <(norm "$t/$f") >/dev/null || fail "$f differs from the uninterrupted run"
done
echo ok
