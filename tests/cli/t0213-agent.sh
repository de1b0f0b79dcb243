#!/usr/bin/env bash
# Agent mode: 'tune --agent' stops at IDEATE; 'propose' candidates are built, measured,
# decided and stored by the engine like its own; idea text with quotes, $(...),
# backquotes, tabs and newlines round-trips through results.tsv and idea-log.jsonl and
# runs nothing; repeated sources (also with only a comment added), invalid input and
# out-of-order calls are refused and change nothing (t0262: deduplication by tokens).
set -u
. "$(dirname "$0")/lib.sh"
t="$tmp/tuning"
key=f16_2048x4096x4096_fs
res="$t/logs/$key/results.tsv"

out=$("$bin" tune --agent --backend sim --dtype f16 --shape 2048x4096x4096 --mode scratch --iters 4 --tuning "$t" 2>&1) ||
    fail "tune --agent exited $?: $out"
grep -q "waiting at IDEATE" <<<"$out" || fail "tune --agent did not say it waits: $out"
[ $(($(wc -l <"$res") - 2)) -eq 1 ] || fail "tune --agent went past the baseline"
"$bin" status --tuning "$t" | grep -q "IDEATE(agent)" || fail "status does not show the shape waiting for an agent"

# the baseline's source, whole or (once the shape is done) regenerated from its recipe
src() { { "$bin" source --tuning "$t" --key "$key" --iter 0; echo "__device__ int croq_agent_variant_$1;"; } >"$tmp/$1.cu"; }
propose() { "$bin" propose --tuning "$t" --key "$key" "$@"; }
refused() { # WANT args...: exit 1 with WANT in the message, results.tsv untouched
    local want=$1; shift
    cp "$res" "$tmp/res.before"
    err=$(propose "$@" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 1 ] || fail "propose $* exited $rc, want 1 (refused)"
    grep -q -- "$want" <<<"$err" || fail "propose $*: message does not say '$want': $err"
    cmp -s "$res" "$tmp/res.before" || fail "a refused propose changed results.tsv"
}

# --dataset is the replay backend's: on a sim shape it is refused, not ignored
touch "$tmp/ds.jsonl"
src z
refused "replay backend's; shape '$key' is measured by the sim backend" --idea x --category micro --src "$tmp/z.cu" --dataset "$tmp/ds.jsonl"

idea=$'it\'s "quoted" $(touch '"$tmp"$'/pwned) `touch '"$tmp"$'/pwned2` ; rm -rf /nonexistent\tTAB\nNEWLINE \\ back\\nslash ✓'
src a
out=$(propose --idea "$idea" --category micro --src "$tmp/a.cu" --set raster=1 --json) || fail "propose exited $?: $out"
grep -q '"iteration": 1' <<<"$out" || fail "propose --json: $out"
grep -q '"decision": "\(KEEP\|DISCARD\)"' <<<"$out" || fail "propose --json has no decision: $out"
[ ! -e "$tmp/pwned" ] && [ ! -e "$tmp/pwned2" ] || fail "idea text was executed"
[ $(($(wc -l <"$res") - 2)) -eq 2 ] || fail "results.tsv does not have 2 rows"
[ "$(awk -F'\t' 'NR > 1 && NF != 18' "$res" | wc -l)" -eq 0 ] || fail "idea text broke the TSV columns"
[ "$(wc -l <"$t/logs/$key/idea-log.jsonl")" -eq 2 ] || fail "idea text broke the idea log lines"
grep -q '"origin":"agent"' "$t/logs/$key/idea-log.jsonl" || fail "idea-log does not say origin agent"
cmp -s "$tmp/a.cu" "$t/srcs/$key/iter001.cu" || fail "the agent's source is not the recorded iter001.cu"
if command -v python3 >/dev/null; then
    IDEA="$idea" python3 - "$res" "$t/logs/$key/idea-log.jsonl" <<'PY' || fail "idea text did not round-trip"
import json, os, sys
want = os.environ["IDEA"]
row = open(sys.argv[1], encoding="utf-8").read().split("\n")[3].split("\t")
def unescape(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\":
            c = s[i + 1]
            if c == "x":
                out.append(chr(int(s[i + 2:i + 4], 16))); i += 4; continue
            out.append({"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}[c]); i += 2; continue
        out.append(s[i]); i += 1
    return "".join(out)
assert unescape(row[13]) == want, (unescape(row[13]), want)
rec = json.loads(open(sys.argv[2], encoding="utf-8").read().split("\n")[1])
assert rec["idea"] == want and rec["origin"] == "agent" and rec["iter"] == 1
PY
fi

# refusals
src b
sed '1i // only a comment' "$tmp/a.cu" >"$tmp/a-comment.cu"
refused "repeat: this source has the same tokens" --idea again --category micro --src "$tmp/a-comment.cu" --set group=2
refused "repeat: this source" --idea again --category micro --src "$tmp/a.cu" --set group=2
refused "--set" --idea x --category micro --src "$tmp/b.cu" --set stages=99
refused "invalid" --idea x --category micro --src "$tmp/b.cu" --set consumers=2 --set tile_m=64
# an unknown category is bad usage, refused before the engine is asked (issue 24 item 12)
cp "$res" "$tmp/res.before"
err=$(propose --idea x --category magic --src "$tmp/b.cu" --set group=2 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "propose --category magic exited $rc, want 2 (bad usage)"
grep -qF "option '--category': 'magic' is not macro, structural, variant or micro" <<<"$err" ||
    fail "propose --category magic: $err"
cmp -s "$res" "$tmp/res.before" || fail "a propose with a bad category changed results.tsv"
refused "UTF-8" --idea $'bad \xff byte' --category micro --src "$tmp/b.cu" --set group=2
refused "cannot read" --idea x --category micro --src "$tmp/none.cu" --set group=2
err=$("$bin" propose --tuning "$t" --key f16_4096x4096x4096_fs --idea x --category micro --src "$tmp/b.cu" 2>&1)
[ $? -eq 1 ] && grep -q "is not being tuned" <<<"$err" || fail "propose for an unknown shape: $err"
[ ! -e "$t/checkpoints/f16_4096x4096x4096_fs.json" ] || fail "propose created a shape"

# out of order: killed while measuring, the shape is in DECIDE until resume finishes it
CROQ_CRASHPOINT=measure.saved propose --idea "group two" --category micro --src "$tmp/b.cu" --set group=2 >/dev/null 2>&1
[ $? -eq 137 ] || fail "could not stop a propose in MEASURE"
src c
refused "out of order" --idea x --category micro --src "$tmp/c.cu" --set group=4
"$bin" resume --tuning "$t" --quiet || fail "resume after an interrupted propose"
[ $(($(wc -l <"$res") - 2)) -eq 3 ] || fail "resume did not store the interrupted candidate"
"$bin" status --tuning "$t" | grep -q "IDEATE(agent)" || fail "the shape does not wait again after resume"

# a compile failure consumes no iteration (sim: compile@3 fails the first attempt at 3)
out=$(CROQ_SIM_FAULTS=compile@3 propose --idea "group four" --category micro --src "$tmp/c.cu" --set group=4) ||
    fail "propose with a compile failure exited $?"
grep -q "COMPILE_ERROR" <<<"$out" || fail "propose did not report the compile failure: $out"
[ $(($(wc -l <"$res") - 2)) -eq 3 ] || fail "a compile failure consumed an iteration"
src d
propose --idea "group eight" --category micro --src "$tmp/d.cu" --set group=8 >/dev/null || fail "propose after compile failure"
src e
propose --idea "group sixteen" --category micro --src "$tmp/e.cu" --set group=16 >/dev/null || fail "last propose"
grep -q '"status": "done"' "$t/state.json" || fail "the shape is not done after its budget"
# done: the engine's baseline is kept as a recipe, the agents' sources whole
[ -f "$t/srcs/$key/iter000.gen.json" ] && [ ! -e "$t/srcs/$key/iter000.cu" ] || fail "the baseline is not a recipe only"
cmp -s "$tmp/a.cu" "$t/srcs/$key/iter001.cu" || fail "the agent's iter001.cu is not kept whole"
[ ! -e "$t/srcs/$key/iter001.gen.json" ] || fail "an agent's source got a recipe"
src f
refused "the shape is done" --idea x --category micro --src "$tmp/f.cu" --set l2_a=64

a=$("$bin" audit --tuning "$t") || fail "the agent-driven shapes do not audit clean: $a"

# an engine-driven shape does not take proposals
"$bin" tune --backend sim --dtype f16 --shape 2048x2048x4096 --mode scratch --iters 1 --tuning "$t" --quiet || fail "tune"
err=$("$bin" propose --tuning "$t" --key f16_2048x2048x4096_fs --idea x --category micro --src "$tmp/f.cu" 2>&1)
[ $? -eq 1 ] && grep -q "driven by the engine" <<<"$err" || fail "propose on an engine-driven shape: $err"
echo ok
