#!/usr/bin/env bash
# Temp files of writers killed between the write and the rename are removed at the next
# resume even when they are fresh (issue 24, item 6): every writer of a shape's own files
# holds the shape's lock, which resume holds, so a dead writer's temp file of them goes
# whatever its age, as state.json's does. Covered: checkpoints/.<key>.json.tmp.<pid>,
# srcs/<key>/.iterNNN.cu.tmp.<pid>, and the other writers' (logs, perf and its profile
# directories, progress, build/<key>, the published best, .gitignore of --git).
# generators/ is shared by every shape's runs: a fresh temp there stays, a stale one
# goes. Another shape's temps, even one whose key starts with this one's, stay.
set -u
. "$(dirname "$0")/lib.sh"
key=f16_512x512x1024
t=$tmp/t
"$bin" tune --backend sim --quiet --dtype f16 --shape 512x512x1024 --mode scratch --iters 2 --tuning "$t" >/dev/null ||
    fail "first shape"
CROQ_CRASHPOINT=store.row@2 "$bin" tune --backend sim --quiet --dtype f16 --shape 512x512x1024 --mode best --iters 4 \
    --tuning "$t" >/dev/null 2>&1
[ $? -eq 137 ] || fail "could not stop the run in the middle"
dead=$(sh -c 'echo $$') # a process that has exited
mkdir -p "$t/progress" "$t/kernels/gemm_sp_f16" "$t/perf/$key/iter001-profile" "$t/build/$key/spec" "$t/generators"
fresh=("checkpoints/.$key.json.tmp.$dead" "srcs/$key/.iter002.cu.tmp.$dead" "srcs/$key/.iter002.gen.json.tmp.$dead"
       "logs/$key/.results.tsv.tmp.$dead" "perf/$key/.iter001-cand.json.tmp.$dead"
       "perf/$key/iter001-profile/.profile.json.tmp.$dead" "progress/.$key.json.tmp.$dead"
       "build/$key/spec/.iter003.cu.tmp.$dead" "kernels/gemm_sp_f16/.${key}_best.cu.tmp.$dead"
       "..gitignore.tmp.$dead" ".state.json.tmp.$dead")
kept=("checkpoints/.${key}_fs.json.tmp.$dead"             # another shape's, whose key starts with ours
      "kernels/gemm_sp_f16/.${key}_fs_best.cu.tmp.$dead"  # the same
      "generators/.abcdef0123456789.json.tmp.$dead"       # shared, fresh: another shape may be writing it
      "srcs/$key/.iter003.cu.tmp.$$")                     # its writer (this shell) is alive
for f in "${fresh[@]}" "${kept[@]}"; do
    echo partial >"$t/$f" || fail "cannot plant $f"
done
echo partial >"$t/generators/.fedcba9876543210.json.tmp.$dead"
touch -d '5 minutes ago' "$t/generators/.fedcba9876543210.json.tmp.$dead" # shared, stale: goes
"$bin" resume --tuning "$t" >"$tmp/out" 2>"$tmp/err" || fail "resume exited $?: $(cat "$tmp/err")"
for f in "${fresh[@]}" "generators/.fedcba9876543210.json.tmp.$dead"; do
    [ -e "$t/$f" ] && fail "the temp file $f of a killed writer survived the resume"
done
for f in "${kept[@]}"; do
    [ -e "$t/$f" ] || fail "$f was removed"
done
grep -q "^$key: removed 10 temporary file(s) of writes cut by a crash" "$tmp/out" &&
    grep -q "^removed 2 temporary file(s) of state.json writes" "$tmp/out" ||
    fail "resume did not say what it removed: $(cat "$tmp/out")"
"$bin" audit --tuning "$t" --key $key >/dev/null || fail "audit after the resume: $("$bin" audit --tuning "$t" --key $key)"
echo ok
