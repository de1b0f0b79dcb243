#!/usr/bin/env bash
# A crash (SIGKILL) at every write boundary of the engine — including halfway through
# an append, which leaves a torn record — and a second crash at the same point while
# resume recovers: resume must end with the artifacts of an uninterrupted run
# (timestamps aside), and keep the torn fragment in <log>.torn. Crash points are the
# engine's CROQ_CRASHPOINT test hook (src/engine/crashpoint.c).
set -u
. "$(dirname "$0")/lib.sh"

export CROQ_SIM_FAULTS="compile@2*2,crash@4,spike@6,abovepeak@8,incorrect@9"
tune=(tune --backend sim --seed 3 --quiet --dtype e4m3 --shape 2048x4096x4096 --mode scratch --iters 10)
key=e4m3_2048x4096x4096_fs
"$bin" "${tune[@]}" --tuning "$tmp/ref" >/dev/null || fail "uninterrupted run failed"
norm() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/TIMESTAMP/g' "$1"; }

points="init.state init.logs baseline.pending implement.source measure.first measure.saved
store.row store.row.torn store.idea store.idea.torn store.checkpoint store.state profile.saved
ideate.saved attempt.row attempt.row.torn ladder.measured ladder.saved complete.state"
n=0
for p in $points; do
    for at in 1 3; do
        case $p in init.*|baseline.*|ladder.*|complete.*) [ $at -eq 1 ] || continue ;; esac
        d="$tmp/$p@$at"
        CROQ_CRASHPOINT="$p@$at" "$bin" "${tune[@]}" --tuning "$d" >/dev/null 2>"$d.err"
        rc=$?
        # every point is passed at least once; a later pass may not happen in 10 iterations
        [ $rc -eq 0 ] && [ $at -gt 1 ] && continue
        [ $rc -eq 137 ] || fail "$p@$at: the run was not killed at its crash point (exit $rc)"
        # crash again at the same point while recovering, then recover for good
        CROQ_CRASHPOINT="$p@1" "$bin" resume --tuning "$d" --quiet >/dev/null 2>>"$d.err"
        rc=$?
        [ $rc -eq 137 ] || [ $rc -eq 0 ] || fail "$p@$at: resume under the crash point exited $rc: $(tail -n 2 "$d.err")"
        "$bin" resume --tuning "$d" --quiet >/dev/null 2>>"$d.err" || fail "$p@$at: resume failed: $(tail -n 2 "$d.err")"
        for f in logs/$key/results.tsv logs/$key/idea-log.jsonl logs/$key/attempts.tsv state.json; do
            diff <(norm "$tmp/ref/$f") <(norm "$d/$f") >"$d.diff" || fail "$p@$at: $f differs: $(head -n 6 "$d.diff")"
        done
        a=$("$bin" audit --tuning "$d") || fail "$p@$at: the recovered run does not audit clean: $a"
        case $p in
        *.torn)
            torn=$(ls "$d"/logs/$key/*.torn 2>/dev/null | head -n 1)
            [ -s "$torn" ] || fail "$p@$at: the torn fragment was not kept in a .torn file"
            grep -q "torn by a crash" "$d.err" || fail "$p@$at: resume did not say it repaired a torn line"
            ;;
        esac
        n=$((n + 1))
    done
done
echo "ok: $n crash points recovered"
