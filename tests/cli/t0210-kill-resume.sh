#!/usr/bin/env bash
# SIGKILL at >= 50 random moments of 'tune --backend sim' (then of 'resume'), each
# followed by resume, until the shape is done: the artifacts must equal an uninterrupted
# run's (timestamps aside). Faults are injected too, so compile failures (attempts.tsv),
# crashes, time-outs, wrong results and re-measurements are interrupted as well.
# A kill before the tune recorded anything (no state.json yet) is a legal outcome: resume
# then says there is nothing recorded (exit 1), and the cycle re-runs the tune command as a
# user would. The temp of a state.json write cut by the kill never outlives the next open.
# Reproduce a failure with T0210_SEED=<seed printed below>.
set -u
. "$(dirname "$0")/lib.sh"

seed=${T0210_SEED:-$(( $(date +%s) % 32768 ))}
RANDOM=$seed
echo "random seed $seed"
export CROQ_SIM_FAULTS="compile@3*2,crash@5,timeout@9,incorrect@12,spike@20,abovepeak@30,compile@41"
shape=(--dtype f16 --shape 4096x8192x8192 --mode scratch)
tune=(tune --backend sim --seed 7 --quiet "${shape[@]}" --shapes "$fixture")

"$bin" "${tune[@]}" --tuning "$tmp/ref" >/dev/null || fail "uninterrupted run failed"

# what a kill before the first state.json write leaves (finding 1): locks and the temp of
# a dead writer, just written
early=$tmp/early key=f16_4096x8192x8192_fs
mkdir -p "$early/checkpoints" && : >"$early/.lock" && : >"$early/checkpoints/$key.lock"
sh -c 'exit 0' & deadpid=$!; wait $deadpid
printf '{"schema": 1, "sha' >"$early/.state.json.tmp.$deadpid"
out=$("$bin" resume --tuning "$early" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "resume of a directory that records nothing exited $rc: $out"
grep -qF "resume: nothing recorded in '$early' yet" <<<"$out" && grep -qF "run the tune command again" <<<"$out" ||
    fail "resume of a directory that records nothing: $out"
grep -q "every shape is done" <<<"$out" && fail "resume claims every shape is done: $out"
[ -e "$early/.state.json.tmp.$deadpid" ] && fail "the dead writer's state.json temp is still there after resume"
printf '{"schema": 1, "sha' >"$early/.state.json.tmp.$deadpid"
"$bin" tune --backend sim --quiet "${shape[@]}" --iters 1 --tuning "$early" || fail "tune after an early kill"
[ -e "$early/.state.json.tmp.$deadpid" ] && fail "the dead writer's state.json temp is still there after tune"
grep -q '"status": "done"' "$early/state.json" || fail "tune after an early kill did not finish"

kills=0 cycles=0 early_kills=0
done_yet() { grep -q '"status": "done"' "$tmp/work/state.json" 2>/dev/null; }
while ! done_yet && [ $cycles -lt 600 ]; do
    cycles=$((cycles + 1))
    if [ ! -e "$tmp/work/state.json" ]; then
        # nothing recorded yet (the first cycle, or a kill that landed before the first
        # state.json write): resume must say so, and the user runs the tune command again
        if [ $cycles -gt 1 ]; then
            out=$("$bin" resume --tuning "$tmp/work" --quiet 2>&1); rc=$?
            [ $rc -eq 1 ] && grep -qE "nothing recorded in '$tmp/work' yet|no tuning directory '$tmp/work'" <<<"$out" ||
                fail "cycle $cycles: resume before anything was recorded exited $rc: $out"
            early_kills=$((early_kills + 1))
        fi
        "$bin" "${tune[@]}" --tuning "$tmp/work" --sim-delay-ms 15 >/dev/null 2>>"$tmp/stderr" &
    else
        "$bin" resume --tuning "$tmp/work" --quiet --sim-delay-ms 15 >/dev/null 2>>"$tmp/stderr" &
    fi
    pid=$!
    sleep "0.0$(( RANDOM % 30 + 2 ))" 2>/dev/null || sleep 0.01
    kill -9 "$pid" 2>/dev/null && kills=$((kills + 1))
    wait "$pid" 2>/dev/null
    rc=$?
    # killed (137) or finished (0); anything else is a refusal to resume
    [ $rc -eq 0 ] || [ $rc -eq 137 ] || fail "cycle $cycles: exit $rc: $(tail -n 3 "$tmp/stderr")"
done
"$bin" resume --tuning "$tmp/work" --quiet >/dev/null 2>>"$tmp/stderr" || fail "final resume: $(tail -n 3 "$tmp/stderr")"
done_yet || fail "not done after $cycles cycles"
left=$(ls -A "$tmp/work" | grep -E '^\.(state\.json|RESUME\.md)\.tmp\.' | tr '\n' ' ')
[ -z "$left" ] || fail "temps of state.json writes cut by kills outlived the resumes: $left"
[ $kills -ge 50 ] || fail "only $kills kills landed before the run finished (want >= 50)"

norm() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/TIMESTAMP/g' "$1"; }
for f in logs/$key/results.tsv logs/$key/idea-log.jsonl logs/$key/attempts.tsv state.json; do
    diff <(norm "$tmp/ref/$f") <(norm "$tmp/work/$f") >"$tmp/diff" ||
        fail "$f differs after $kills kills (seed $seed): $(head -n 8 "$tmp/diff")"
done
rows=$(($(wc -l <"$tmp/work/logs/$key/results.tsv") - 2))
[ $rows -eq 151 ] || fail "results.tsv has $rows rows, want 151"
cmp -s "$tmp/ref/kernels/gemm_sp_f16/${key}_best.cu" "$tmp/work/kernels/gemm_sp_f16/${key}_best.cu" ||
    fail "the best kernel differs"
a=$("$bin" audit --tuning "$tmp/work") || fail "the resumed run does not audit clean: $a"
echo "ok: $kills kills in $cycles cycles ($early_kills before anything was recorded), identical artifacts"
