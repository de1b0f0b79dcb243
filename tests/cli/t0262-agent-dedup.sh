#!/usr/bin/env bash
# Agent mode deduplicates submissions by their source's tokens, not by their knob
# configuration (docs/agent.md): a code change with the same --set is a new candidate; a
# fixed kernel after a COMPILE_ERROR may keep its --set; a byte-identical or a
# token-identical resubmission (comments, blank lines, indentation changed) is refused,
# of a stored candidate and of a failed compile alike; the audit accepts agent rows whose
# configs repeat (their sources differ); --set takes a whole signature as status prints it.
set -u
. "$(dirname "$0")/lib.sh"
t="$tmp/tuning"
key=f16_2048x4096x4096_fs
res="$t/logs/$key/results.tsv"
rows() { echo $(($(wc -l <"$res") - 2)); }

"$bin" tune --agent --backend sim --dtype f16 --shape 2048x4096x4096 --mode scratch --iters 4 --tuning "$t" \
    --quiet >/dev/null || fail "tune --agent exited $?"
propose() { "$bin" propose --tuning "$t" --key "$key" "$@"; }
# a variant of the baseline source with one more declaration: a token change
variant() { { "$bin" source --tuning "$t" --key "$key" --iter 0 || fail "croqtuner source"; echo "__device__ int croq_agent_variant_$1;"; } >"$tmp/$1.cu"; }
# the same tokens as FILE: a comment on top, blank lines, indentation turned into tabs
cosmetic() { { echo "/* reformatted */"; echo; sed 's/^    /\t/' "$1"; echo; echo "// end"; } >"$2"; }
refused() { # WANT args...
    local want=$1; shift
    cp "$res" "$tmp/res.before"
    err=$(propose "$@" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 1 ] || fail "propose $* exited $rc, want 1 (refused)"
    grep -q -- "$want" <<<"$err" || fail "propose $*: message does not say '$want': $err"
    cmp -s "$res" "$tmp/res.before" || fail "a refused propose changed results.tsv"
}

variant a
[ "$(wc -l <"$tmp/a.cu")" -gt 100 ] || fail "the variant is not the baseline's whole source"
propose --idea "raster one" --category micro --src "$tmp/a.cu" --set raster=1 >/dev/null || fail "first propose"
[ "$(rows)" -eq 2 ] || fail "the first proposal was not stored"

# a code change under the same configuration is a new idea
variant b
out=$(propose --idea "same knobs, new code" --category structural --src "$tmp/b.cu" --set raster=1) ||
    fail "a new source with the same --set was refused: $out"
[ "$(rows)" -eq 3 ] || fail "the code change was not stored"
[ "$(awk -F'\t' 'NR == 4 { print $4 }' "$res")" = "$(awk -F'\t' 'NR == 5 { print $4 }' "$res")" ] ||
    fail "iterations 1 and 2 should claim the same configuration"

# comments and whitespace do not make a new kernel
cosmetic "$tmp/a.cu" "$tmp/a2.cu"
cmp -s "$tmp/a.cu" "$tmp/a2.cu" && fail "the cosmetic copy is byte-identical"
refused "has the same tokens as srcs/$key/iter001.cu (iteration 1)" --idea again --category micro \
    --src "$tmp/a2.cu" --set group=2
refused "repeat: this source (hash" --idea again --category micro --src "$tmp/b.cu" --set group=2

# a compile failure, then the same --set with a fixed kernel
variant c
out=$(CROQ_SIM_FAULTS=compile@3 propose --idea "group four" --category micro --src "$tmp/c.cu" --set group=4) ||
    fail "propose with a compile failure exited $?"
grep -q "COMPILE_ERROR" <<<"$out" || fail "no compile failure: $out"
refused "a failed compile" --idea "group four again" --category micro --src "$tmp/c.cu" --set group=4
cosmetic "$tmp/c.cu" "$tmp/c2.cu"
refused "same tokens as .*a failed compile" --idea "group four again" --category micro --src "$tmp/c2.cu" --set group=4
variant cfixed
best=$("$bin" status --tuning "$t" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["shapes"][0]["best"]["config"])')
out=$(propose --idea "group four, fixed" --category micro --src "$tmp/cfixed.cu" --set "$best" --set group=4 --json) ||
    fail "the fixed kernel with the same --set was refused: $out"
grep -q '"iteration": 3' <<<"$out" || fail "the fixed kernel is not iteration 3: $out"

a=$("$bin" audit --tuning "$t") || fail "agent rows with repeated configs do not audit clean: $a"
echo ok
