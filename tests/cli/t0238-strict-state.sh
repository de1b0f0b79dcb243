#!/usr/bin/env bash
# state.json and checkpoints are read one way by every reader (docs/artifacts.md): a value
# the engine could not have written (a number out of range or not finite, an unknown
# enum, a duplicated member, a checkpoint best that is not results.tsv's) makes resume
# refuse, changing nothing, status refuse when it is state.json, and the audit name it
# and exit 1. The untouched copy audits clean and resumes.
set -u
. "$(dirname "$0")/lib.sh"
sums() { (cd "$1" && find . -type f ! -name '*.lock' | sort | xargs sha256sum); }
key=f16_2048x2048x4096_fs
CROQ_CRASHPOINT=ideate.saved@7 "$bin" tune --backend sim --seed 3 --quiet --dtype f16 --shape 2048x2048x4096 \
    --mode scratch --iters 10 --tuning "$tmp/mid" >/dev/null 2>&1
[ $? -eq 137 ] || fail "could not stop the run in the middle"
out=$("$bin" audit --tuning "$tmp/mid") || fail "audit of the killed run exited $?: $out"
ck=checkpoints/$key.json

# edit FILE PYTHON: a copy of the killed run with FILE (JSON) changed by PYTHON on j
edit() {
    rm -rf "$tmp/c"; cp -a "$tmp/mid" "$tmp/c"
    python3 -c 'import json, sys
p = sys.argv[1]; j = json.load(open(p)); exec(sys.argv[2]); open(p, "w").write(json.dumps(j, indent=1))' \
        "$tmp/c/$1" "$2" || fail "could not edit $1: $2"
}
# refused NAME WANT [status]: resume (and status with "status") exit 1 saying WANT and
# change nothing; the audit exits 1 and prints WANT
refused() {
    local err rc
    sums "$tmp/c" >"$tmp/before"
    err=$("$bin" resume --tuning "$tmp/c" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 1 ] || fail "$1: resume exited $rc, want 1: $err"
    grep -qF -- "$2" <<<"$err" || fail "$1: resume does not say '$2': $err"
    sums "$tmp/c" | diff - "$tmp/before" >/dev/null || fail "$1: a refused resume changed files"
    if [ "${3:-}" = status ]; then
        err=$("$bin" status --tuning "$tmp/c" 2>&1 >/dev/null); rc=$?
        [ $rc -eq 1 ] && grep -qF -- "$2" <<<"$err" || fail "$1: status exited $rc without '$2': $err"
    fi
    err=$("$bin" audit --tuning "$tmp/c" 2>&1); rc=$?
    [ $rc -eq 1 ] || fail "$1: audit exited $rc, want 1: $err"
    grep -qF -- "$2" <<<"$err" || fail "$1: audit does not say '$2': $err"
}
e="j['shapes']['$key']"
# the checkpoint's best: not finite, not positive, not results.tsv's
for v in '"inf"' '"nan"' '"-inf"'; do
    edit "$ck" "j['best']['tflops'] = $v"; refused "best $v" "'best.tflops' is not a finite number"
done
edit "$ck" "j['best']['tflops'] = -5.0"; refused "best -5" "'best.tflops' is not a positive number"
for v in 1e308:1e+308 1.0:1; do
    edit "$ck" "j['best']['tflops'] = ${v%:*}"
    refused "best ${v%:*}" "the checkpoint's best is ${v#*:} TFLOPS, results.tsv's iteration 6 says best_tflops"
done
edit "$ck" "j['best']['iter'] = j['iteration']"
refused "best iter" "which results.tsv does not keep"
# the checkpoint's identity, counters and phase
edit "$ck" "j['iteration'] = -3"; refused "ck iteration" "'iteration' is not in [-1, 100000]"
edit "$ck" "j['budget'] = 4294967296"; refused "ck budget" "'budget' is not in [1, 100000]"
edit "$ck" "j['key'] = 'f16_1x1x1_fs'"; refused "ck key" "'key' does not match"
edit "$ck" "j['phase'] = 'NOPE'"; refused "ck phase" "'phase' is not a phase"
edit "$ck" "pass"; sed -i '0,/"budget"/s/"budget": \([0-9]*\)/"budget": \1, "budget": 3/' "$tmp/c/$ck"
refused "ck duplicate" "duplicate"
# state.json: schema, enums, identity, ranges, types, duplicates, the sweep record
edit state.json "j['schema'] = 2"; refused schema "schema 2" status
edit state.json "$e['status'] = 'zombie'"; refused status "'status' must be" status
edit state.json "$e['dtype'] = 'f64'"; refused dtype "not those of the key" status
edit state.json "$e['mode'] = 'sideways'"; refused mode "not those of the key" status
edit state.json "$e['m'] = 1024"; refused m "not those of the key" status
edit state.json "$e['seed'] = 1"; refused seed "'seed' is not a string" status
edit state.json "$e['seed'] = '-1'"; refused "seed -1" "'seed' is not a decimal seed" status
for v in 2147483648 -1 0; do
    edit state.json "$e['budget'] = $v"; refused "budget $v" "'budget' is not in [1, 100000]" status
done
edit state.json "$e['iteration'] = -5"; refused iteration "'iteration' is not in [-1, 100000]" status
edit state.json "$e['backend'] = 'quantum'"; refused backend "'backend' is not sim, gpu or replay" status
edit state.json "$e['phase'] = 'EXPLODE'"; refused phase "'phase' is not a phase" status
edit state.json "$e['best']['tflops'] = 'inf'"; refused "state best" "'best.tflops' is not a finite number" status
edit state.json "$e['best']['tflops'] = -1.0"; refused "state best -1" "'best.tflops' is not a positive number" status
edit state.json "pass"; sed -i '0,/"m": /s/"m": \([0-9]*\)/"m": \1, "m": 2048/' "$tmp/c/state.json"
refused "state duplicate" "duplicate" status
for v in -4 1000000000000 '"40"'; do
    edit state.json "j['sweep'] = {'dtype': 'f16', 'plan': 'scratch', 'backend': 'sim', 'seed': '3', 'iters': $v,
                                   'shapes': '$fixture', 'status': 'running'}"
    refused "sweep iters $v" "'sweep.iters' is not" status
done

# the untouched copy: clean, and it resumes
out=$("$bin" audit --tuning "$tmp/mid") || fail "audit of the untouched copy exited $?: $out"
"$bin" resume --tuning "$tmp/mid" --quiet >/dev/null 2>"$tmp/err" || fail "resume of the untouched copy: $(cat "$tmp/err")"
out=$("$bin" audit --tuning "$tmp/mid") || fail "audit after resume exited $?: $out"
echo ok
