#!/usr/bin/env bash
# CLI basics a new user meets (issue 17, item 14): a name that does not exist is bad
# usage (exit 2) for knobs --check, propose and audit; a backend clash says what to do; 'help tune' is tune's help;
# --version names the version, the commit, the CUDA toolkit and the driver found now;
# status lists shapes in numeric order with a totals line, says "starting" for a shape
# whose lock is held before any progress is written, and a shape locked by another
# process is reported as locked by that pid (tune, sweep).
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/croq-t0261.XXXXXX") || exit 1
lockpid=
trap '[ -n "$lockpid" ] && kill $lockpid 2>/dev/null; rm -rf "$tmp"' EXIT
t="$tmp/t"

usage() { # WANT args...: exit 2 and WANT in the message
    local want=$1; shift
    out=$("$bin" "$@" 2>&1); rc=$?
    [ $rc -eq 2 ] || fail "'$*' exited $rc, want 2: $out"
    grep -qF -- "$want" <<<"$out" || fail "'$*' does not say '$want': $out"
}
"$bin" tune --backend sim --quiet --dtype f16 --shape 12288x1024x1024 --mode scratch --iters 1 --tuning "$t" || fail tune
"$bin" tune --backend sim --quiet --dtype f16 --shape 128x1024x1024 --mode scratch --iters 1 --tuning "$t" || fail tune
"$bin" tune --backend sim --quiet --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 2 --tuning "$t" || fail tune
echo "// x" >"$tmp/k.cu"

usage "unknown knob 'nosuch'" knobs --check --dtype f16 --set nosuch=1
usage "'nosuch' is not a shape key" propose --tuning "$t" --key nosuch --idea x --category micro --src "$tmp/k.cu"
usage "'nosuch' is not a shape key" audit --tuning "$t" --key nosuch
usage "unknown command 'nosuch'" help nosuch

diff <("$bin" help tune) <("$bin" tune --help) >/dev/null || fail "'help tune' is not tune's --help"
"$bin" help | grep -q "^commands:" || fail "'help' without a topic lists the commands"

v=$("$bin" --version) || fail "--version exited $?"
grep -Eq '^croqtuner [0-9]+\.[0-9]+\.[0-9]+$' <<<"$v" || fail "--version has no version line: $v"
grep -Eq '^built with CUDA [0-9]+\.[0-9]+' <<<"$v" || fail "--version has no CUDA line: $v"
grep -Eq '^driver ([0-9]+\.[0-9.]+|none .*)$' <<<"$v" || fail "--version has no driver line: $v"
commit=$(sed -n 's/^commit //p' <<<"$v")
if head=$(git -C "${CROQ_SOURCE_DIR:-.}" rev-parse HEAD 2>/dev/null); then
    [ "${head:0:12}" = "${commit:0:12}" ] || fail "--version commit '$commit', the source tree is at $head"
else
    [ -n "$commit" ] || fail "--version has no commit line: $v"
fi

st=$("$bin" status --tuning "$t") || fail "status exited $?"
order=$(awk 'NR > 1 && /^f16_/ { print $1 }' <<<"$st" | tr '\n' ' ')
[ "$order" = "f16_128x1024x1024_fs f16_1024x1024x1024_fs f16_12288x1024x1024_fs " ] ||
    fail "status does not sort shapes numerically: $order"
grep -q '^total: 3 shapes: 3 done; 4 of 4 budgeted iterations run; 0 being tuned now$' <<<"$st" ||
    fail "status has no totals line: $st"

# another backend on a shape of this directory: refused, with what to do instead (finding 11)
err=$("$bin" tune --backend gpu --quiet --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 3 --tuning "$t" 2>&1)
[ $? -eq 1 ] || fail "tune --backend gpu on a sim shape did not fail: $err"
grep -qF "give --tuning ANOTHER_DIR to tune it with 'gpu', or --backend sim to go on in '$t'" <<<"$err" ||
    fail "a backend clash gives no advice: $err"

# a shape whose lock another process holds, before any progress is written
key=f16_1024x1024x1024_fs
rm -f "$t/progress/$key.json"
# hold a file's flock in a process of known pid
hold() { python3 -c 'import fcntl, sys, time; f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); time.sleep(30)' "$1" & }
hold "$t/checkpoints/$key.lock"; lockpid=$!
held() { ! flock -n "$1" true; }
for i in $(seq 50); do held "$t/checkpoints/$key.lock" && break; sleep 0.1; done
st=$("$bin" status --tuning "$t")
grep -q "^  now: $key starting: no progress recorded yet$" <<<"$st" || fail "status at a shape's start: $st"
grep -q "iteration 0/0\|0.0 TFLOPS\|ETA ?" <<<"$st" && fail "status shows made-up numbers: $st"
grep -q "1 being tuned now" <<<"$st" || fail "the totals do not count the live shape: $st"
err=$("$bin" tune --backend sim --quiet --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 3 --tuning "$t" 2>&1)
[ $? -eq 1 ] || fail "tune on a locked shape did not fail"
grep -q "is locked by pid $lockpid: another croqtuner process is tuning it" <<<"$err" ||
    fail "tune on a locked shape does not name the holder $lockpid: $err"

# a sweep that meets the locked shape names the holder, and tunes the other shapes
cat >"$tmp/shapes.json" <<'JSON'
{"scenarios": {"sq": {"type": "single", "M": "S", "N": "S", "K": "S", "sizes": [512]}},
 "size_constraints": {"min_M": 128, "min_N": 256, "min_K": 128},
 "regions": {"near": {"M": [2048, 8192], "N": [4096, 16384], "K": [4096, 16384]}},
 "typical_shapes_for_scratch": {"f16": [[1024, 1024, 1024]], "e4m3": [[1024, 1024, 1024]]},
 "iteration_budgets": {"from_scratch": 150, "from_current_best": 30}}
JSON
rm -rf "$tmp/s" && mkdir -p "$tmp/s/checkpoints"
hold "$tmp/s/checkpoints/$key.lock"; lp2=$!
for i in $(seq 50); do held "$tmp/s/checkpoints/$key.lock" && break; sleep 0.1; done
"$bin" sweep --dtype f16 --mode scratch --backend sim --iters 1 --shapes "$tmp/shapes.json" --tuning "$tmp/s" \
    --quiet >"$tmp/sweep.out" 2>&1
kill $lp2 2>/dev/null
grep -q "'$key' is locked by pid $lp2: another croqtuner process is tuning it" "$tmp/sweep.out" ||
    fail "the sweep does not report the shape as locked: $(cat "$tmp/sweep.out")"
"$bin" status --tuning "$tmp/s" | grep -q "^f16_512x512x512_fs .* done " || fail "the sweep stopped at the locked shape"
echo ok
