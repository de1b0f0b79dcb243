#!/usr/bin/env bash
# 'croqtuner slurm' without a cluster: option checks; the array and merge scripts (valid
# bash, the directives asked for, absolute paths, an array sized by the widest pending
# wave); --submit through a stand-in sbatch (the array, then the merge after it); the
# array tasks' command run by hand as a job would run it; 'slurm --merge' on a finished
# and on an unfinished sweep; nothing to submit once everything is done.
set -u
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1

cp "$fixture" shapes.json # 5 scenario shapes per dtype, 3 typical ones, the protocol's budgets

# usage
for bad in "--dtype f16 --time 1:00" "--dtype f16 --time 00:61:00" "--dtype f16 --gpus-per-task 17" \
           "--dtype f16 --partition a;b" "--dtype f16 --tasks 0" "--dtype f16 --mode fast" "--dtype f8" ""; do
    # shellcheck disable=SC2086 # the words of $bad are the options
    err=$("$bin" slurm --shapes shapes.json --tuning bad $bad 2>&1); rc=$?
    [ $rc -eq 2 ] || fail "slurm $bad exited $rc, want 2: $err"
    grep -q "^croqtuner: slurm: " <<<"$err" || fail "slurm $bad: message '$err'"
done
[ -e bad ] && fail "a refused command created its tuning directory"
err=$("$bin" slurm --dtype f16 --shapes shapes.json --tuning "my tuning" 2>&1) && fail "a blank in the path was accepted"
grep -q "cannot be written into #SBATCH lines" <<<"$err" || fail "message: $err"

# the scripts
out=$("$bin" slurm --dtype all --mode scratch --partition h200 --gpus-per-task 2 --time 01:30:00 \
      --shapes shapes.json --tuning t --iters 3 --backend sim) || fail "slurm exited $?"
t=$(cd t && pwd -P)
exe=$(cd "$CROQ_BIN" && pwd -P)/croqtuner
a=$t/slurm/sweep.sbatch m=$t/slurm/sweep-merge.sbatch
grep -q "^wrote $a (array of 2 task(s), 2 GPU(s) each, for 11 pending shape(s)) and $m (merge)" <<<"$out" ||
    fail "summary: $out"
[ -x "$a" ] && [ -x "$m" ] || fail "scripts not written executable"
bash -n "$a" && bash -n "$m" || fail "a script is not valid bash"
for want in "#SBATCH --array=0-1" "#SBATCH --gpus-per-task=2" "#SBATCH --cpus-per-task=8" "#SBATCH --partition=h200" \
            "#SBATCH --time=01:30:00" "#SBATCH --output=$t/slurm/%A_%a.out" \
            "exec '$exe' sweep --array-task --tuning '$t' --shapes '"; do
    grep -qF -- "$want" "$a" || fail "array script lacks '$want'"
done
# the shapes path is absolute (the jobs run elsewhere) and names the tuning directory's
# copy of the plan (docs/artifacts.md), which the tasks follow whatever becomes of the
# file given to slurm
sp=$(sed -nE "s/.* --shapes '([^']*)'.*/\1/p" "$a")
[ "$sp" = "$t/plan/shapes.json" ] || fail "shapes path '$sp', not '$t/plan/shapes.json'"
cmp -s "$sp" "$tmp/shapes.json" || fail "the plan's copy is not the shapes.json given to slurm"
grep -qF -- "--dtype 'all' --mode 'scratch' --backend 'sim' --iters '3' --gpus \"\$gpus\"" "$a" || fail "worker options"
grep -qF -- "exec '$exe' slurm --merge --tuning '$t'" "$m" || fail "merge command"
grep -q '"waves": true' t/state.json && grep -q '"status": "running"' t/state.json || fail "sweep not recorded"
# --waves 1: the typical shapes only, passed to the tasks and recorded
out=$("$bin" slurm --dtype all --waves 1 --gpus-per-task 0 --shapes shapes.json --tuning tw --backend sim) ||
    fail "slurm --waves 1 exited $?"
grep -q "for 3 pending shape(s)" <<<"$out" || fail "slurm --waves 1: $out"
grep -qF -- "--dtype 'all' --backend 'sim' --waves '1'" tw/slurm/sweep.sbatch || fail "the tasks lack --waves 1"
grep -q '"last_wave": 1' tw/state.json || fail "slurm --waves 1 not recorded"

# --submit: the array first, then the merge after it (a stand-in sbatch records the calls)
mkdir fakebin
cat >fakebin/sbatch <<'SH'
#!/bin/sh
echo "$*" >>"$FAKE_SBATCH_LOG"
n=$(wc -l <"$FAKE_SBATCH_LOG")
[ "$n" -eq 1 ] && echo "4242;cluster" || echo 4243
SH
chmod +x fakebin/sbatch
out=$(FAKE_SBATCH_LOG=$tmp/sbatch.log PATH="$tmp/fakebin:$PATH" "$bin" slurm --dtype f16 --gpus-per-task 0 \
      --tasks 1 --shapes shapes.json --tuning t2 --iters 2 --backend sim --sim-delay-ms 20 --out "$tmp/job.sh" \
      --submit) ||
    fail "slurm --submit exited $?"
grep -q "submitted array job 4242 and merge job 4243" <<<"$out" || fail "submit summary: $out"
[ "$(sed -n 1p sbatch.log)" = "--parsable $tmp/job.sh" ] || fail "first sbatch: $(sed -n 1p sbatch.log)"
[ "$(sed -n 2p sbatch.log)" = "--parsable --dependency=afterany:4242 $tmp/job-merge.sh" ] ||
    fail "second sbatch: $(sed -n 2p sbatch.log)"
grep -q "^#SBATCH --array=0-0$" job.sh && grep -q " --workers 1$" job.sh || fail "--tasks 1 / no GPU"
grep -q "gpus-per-task" job.sh && fail "GPUs requested with --gpus-per-task 0"
err=$(PATH=/nonexistent "$bin" slurm --dtype f16 --gpus-per-task 0 --shapes shapes.json --tuning t2 --iters 2 \
      --backend sim --out "$tmp/job.sh" --submit 2>&1) && fail "--submit without sbatch succeeded"
grep -q "'sbatch' failed (could not start" <<<"$err" || fail "message without sbatch: $err"

# the merge before any task ran: everything pending, exit 1
err=$("$bin" slurm --merge --tuning t2 2>&1) && fail "merge of an untouched sweep exited 0"
grep -q "merge: 6 shape(s) of the sweep not finished" <<<"$err" || fail "merge message: $err"
# what two array tasks do, by hand; then the merge
SLURM_ARRAY_JOB_ID=4242 SLURM_ARRAY_TASK_ID=0 timeout 120 bash job.sh >task0.out 2>&1 & p0=$!
SLURM_ARRAY_JOB_ID=4242 SLURM_ARRAY_TASK_ID=1 timeout 120 bash job.sh >task1.out 2>&1 || fail "task 1: $(tail -3 task1.out)"
wait $p0 || fail "task 0: $(tail -3 task0.out)"
out=$("$bin" slurm --merge --tuning t2) || fail "merge exited $?: $out"
grep -q "merge: sweep done, state.json consistent" <<<"$out" || fail "merge: $out"
grep -Pzo '"sweep": \{[^}]*"status": "done"' t2/state.json >/dev/null || fail "sweep not recorded done"
jobs=$(awk -F'\t' '$2=="claim" && $4=="tune" {print $8}' t2/scale/claims.log | sort -u | tr '\n' ' ')
[ "$jobs" = "4242_0 4242_1 " ] || [ "$jobs" = "4242_0 " ] || [ "$jobs" = "4242_1 " ] ||
    fail "claims do not name the array tasks: '$jobs'"
# 6 shapes, plus a from-scratch rerun of each from-best shape the sweep flagged needs_scratch
rerun=$(awk -F'\t' '$2=="claim" && $4=="tune" { k[$3] = 1 } END { for (x in k) if (x ~ /_fs$/ && (substr(x, 1, length(x) - 3) in k)) n++; print n + 0 }' t2/scale/claims.log)
[ "$(awk -F'\t' '$2=="claim" && $4=="tune"' t2/scale/claims.log | wc -l)" -eq $((6 + rerun)) ] || fail "not 6 + $rerun tune claims"
out=$("$bin" slurm --dtype f16 --gpus-per-task 0 --shapes shapes.json --tuning t2 --iters 2 --backend sim) ||
    fail "slurm on a finished sweep exited $?"
grep -q "nothing to submit: every shape of this sweep is done" <<<"$out" || fail "$out"
err=$("$bin" slurm --merge --tuning nowhere 2>&1); [ $? -eq 1 ] || fail "merge of a missing directory"
mkdir plain && "$bin" tune --dtype f16 --shape 512x512x512 --mode scratch --iters 1 --backend sim --tuning plain \
    --quiet || fail "tune"
err=$("$bin" slurm --merge --tuning plain 2>&1) && fail "merge without a parallel sweep exited 0"
grep -q "has no parallel sweep recorded" <<<"$err" || fail "message: $err"
echo ok
