#!/usr/bin/env bash
# Progress lines reach a redirected stdout as they are printed (issue 24, item 16): read
# while the tuner runs (--sim-delay-ms makes each iteration last), the log shows each
# iteration's line before the next iteration's line is printed and while the tuner is
# still running; after a kill -9 the log holds every line printed before it; a resume
# into a log shows its first line while it runs. (stdio block-buffers a redirected stdout:
# before, the lines came in 4 KiB bursts, seven iterations late, and a kill -9 lost them.)
set -u
. "$(dirname "$0")/lib.sh"
delay=400 # ms per measurement: an iteration lasts at least this long
tune=(tune --backend sim --dtype f16 --shape 512x512x1024 --mode scratch --sim-delay-ms $delay)
line() { grep -c "^f16_512x512x1024_fs iter $(printf %03d "$1")/" "$2"; }
# wait_line I LOG PID: poll until iteration I's line is in LOG (fail after 60 s)
wait_line() {
    for _ in $(seq 1 1200); do
        [ "$(line "$1" "$2")" -ge 1 ] && return 0
        kill -0 "$3" 2>/dev/null || { [ "$(line "$1" "$2")" -ge 1 ] && return 0; fail "the tuner ended without iteration $1's line: $(cat "$2")"; }
        sleep 0.05
    done
    fail "no line for iteration $1 after 60 s: $(cat "$2")"
}

"$bin" "${tune[@]}" --iters 4 --tuning "$tmp/a" >"$tmp/a.log" 2>&1 &
pid=$!
for i in 1 2 3; do
    wait_line $i "$tmp/a.log" $pid
    [ "$(line $((i + 1)) "$tmp/a.log")" -eq 0 ] || fail "iteration $i's line came only with iteration $((i + 1))'s"
    kill -0 $pid 2>/dev/null || fail "iteration $i's line came only when the tuner ended"
done
wait $pid || fail "tune exited $?: $(tail -n 3 "$tmp/a.log")"
[ "$(line 4 "$tmp/a.log")" -eq 1 ] || fail "no line for the last iteration"

# kill -9 after iteration 3's line: every line printed before it is in the log
"$bin" "${tune[@]}" --iters 8 --tuning "$tmp/b" >"$tmp/b.log" 2>&1 &
pid=$!
wait_line 3 "$tmp/b.log" $pid
kill -9 $pid; wait $pid 2>/dev/null
for i in 1 2 3; do
    [ "$(line $i "$tmp/b.log")" -eq 1 ] || fail "after kill -9 the log lacks iteration $i: $(cat "$tmp/b.log")"
done
"$bin" resume --tuning "$tmp/b" --sim-delay-ms $delay >"$tmp/r.log" 2>&1 &
pid=$!
wait_line 6 "$tmp/r.log" $pid
kill -0 $pid 2>/dev/null || fail "resume's line for iteration 6 came only when it ended"
wait $pid || fail "resume exited $?: $(tail -n 3 "$tmp/r.log")"
echo ok
