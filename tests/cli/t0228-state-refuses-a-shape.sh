#!/usr/bin/env bash
# Issue 22 item 2: state.json's readers refuse a shape, not the file. A number damaged by
# hand in one shape's entry (not finite, not positive, a negative baseline) makes that one
# shape unreadable: status names it with the reason on stderr and shows the other shapes
# as always (exit 1), the audit names it alone, tune of it refuses and changes nothing,
# resume finishes the other shape exactly as an uninterrupted run would and leaves the
# damaged entry as it was written (exit 1, naming it).
set -u
. "$(dirname "$0")/lib.sh"
tune() { "$bin" tune --backend sim --seed 3 --quiet --dtype f16 --mode scratch --iters 6 --tuning "$1" --shape "$2"; }
A=1024x1024x1024 B=2048x1024x1024
ka=f16_${A}_fs kb=f16_${B}_fs
sums() { (cd "$1" && find . -type f ! -name '*.lock' | sort | xargs sha256sum); }
entry() { python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["shapes"][sys.argv[2]], sort_keys=True))' "$1/state.json" "$2"; }
tune "$tmp/ref" $A >/dev/null && tune "$tmp/ref" $B >/dev/null || fail "the uninterrupted runs"
tune "$tmp/mid" $A >/dev/null || fail "shape A"
CROQ_CRASHPOINT=ideate.saved@4 tune "$tmp/mid" $B >/dev/null 2>&1
[ $? -eq 137 ] || fail "could not stop shape B in the middle"

# damage KEY PYTHON: a copy of the directory with one entry (e) changed
damage() {
    rm -rf "$tmp/c"; cp -a "$tmp/mid" "$tmp/c"
    python3 -c 'import json, sys
p = sys.argv[1]; j = json.load(open(p)); e = j["shapes"][sys.argv[2]]; exec(sys.argv[3]); open(p, "w").write(json.dumps(j, indent=2))' \
        "$tmp/c/state.json" "$1" "$2" || fail "could not edit state.json: $2"
}
for case in "best.tflops nan:e['best']['tflops'] = 'nan':'best.tflops' is not a finite number" \
            "best.tflops -1:e['best']['tflops'] = -1.0:'best.tflops' is not a positive number" \
            "best.tflops 0:e['best']['tflops'] = 0:'best.tflops' is not a positive number" \
            "baseline.tflops -242.8:e['baseline']['tflops'] = -242.8:'baseline.tflops' is not a positive number"; do
    IFS=: read -r name edit want <<<"$case"
    damage $ka "$edit"
    # status: the damaged shape named with the reason, the other one listed as always
    out=$("$bin" status --tuning "$tmp/c" 2>"$tmp/err"); rc=$?
    [ $rc -eq 1 ] || fail "$name: status exited $rc, want 1"
    grep -qF "shape '$ka': $want" "$tmp/err" || fail "$name: status does not name the shape: $(cat "$tmp/err")"
    grep -Eq "^$kb +from_scratch +sim +active" <<<"$out" || fail "$name: status does not list shape B: $out"
    grep -q "^$ka " <<<"$out" && fail "$name: status lists the refused shape as a row: $out"
    json=$("$bin" status --json --tuning "$tmp/c" 2>/dev/null)
    python3 -c 'import json, sys; o = json.loads(sys.argv[1]); assert [s["key"] for s in o["shapes"]] == [sys.argv[3]], o
assert [r["key"] for r in o["refused"]] == [sys.argv[2]], o' "$json" $ka $kb || fail "$name: status --json: $json"
    # the audit names it alone; the other shape audits clean
    out=$("$bin" audit --tuning "$tmp/c"); rc=$?
    [ $rc -eq 1 ] && grep -qF "$ka: its state.json entry is refused by status and resume: shape '$ka': $want" <<<"$out" ||
        fail "$name: audit exited $rc: $out"
    out=$("$bin" audit --tuning "$tmp/c" --key $kb) || fail "$name: audit of shape B: $out"
    # tune of the damaged shape refuses with the reason and changes nothing
    sums "$tmp/c" >"$tmp/before"
    err=$(tune "$tmp/c" $A 2>&1); rc=$?
    [ $rc -eq 1 ] && grep -qF "shape '$ka': $want: this shape's entry is refused" <<<"$err" ||
        fail "$name: tune of the refused shape exited $rc: $err"
    sums "$tmp/c" | diff - "$tmp/before" >/dev/null || fail "$name: a refused tune changed files"
    # resume: shape B finishes as the uninterrupted run did, A's entry stays as it was
    before=$(entry "$tmp/c" $ka)
    err=$("$bin" resume --tuning "$tmp/c" --quiet 2>&1); rc=$?
    [ $rc -eq 1 ] && grep -qF "shape '$ka': $want: this shape's entry is refused" <<<"$err" ||
        fail "$name: resume exited $rc: $err"
    [ "$(entry "$tmp/c" $ka)" = "$before" ] || fail "$name: resume rewrote the refused entry"
    for f in logs/$kb/results.tsv logs/$kb/idea-log.jsonl checkpoints/$kb.json; do
        diff <(norm "$tmp/ref/$f") <(norm "$tmp/c/$f") >/dev/null || fail "$name: $f differs from the uninterrupted run"
    done
    grep -q "state.json entry refused: shape '$ka'" "$tmp/c/RESUME.md" || fail "$name: RESUME.md does not name it"
    out=$("$bin" audit --tuning "$tmp/c" --key $kb) || fail "$name: audit of shape B after resume: $out"
done
# deleted, the entry is restored from the checkpoint by resume (the remedy the messages name)
damage $ka "del j['shapes']['$ka']"
"$bin" resume --tuning "$tmp/c" --quiet >/dev/null 2>&1 || fail "resume without A's entry"
"$bin" status --tuning "$tmp/c" >/dev/null || fail "status after the entry was restored"
[ "$(entry "$tmp/c" $ka | sed -E 's/"updated_at": "[^"]*"//')" = "$(entry "$tmp/ref" $ka | sed -E 's/"updated_at": "[^"]*"//')" ] ||
    fail "the restored entry is not the uninterrupted run's"
echo ok
