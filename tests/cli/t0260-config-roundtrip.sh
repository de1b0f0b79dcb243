#!/usr/bin/env bash
# Every configuration the tool prints is accepted back as it is printed: the signature
# of 'status --json' (best and baseline), 'knobs --check' (text and JSON; its 'valid:' and
# 'config:' lines pasted whole), results.tsv,
# idea-log.jsonl and the checkpoint, explore's short labels and a generated .cu's config:
# line by 'knobs --check --set' and 'build --set'; the files
# (a checkpoint, 'knobs --check --json' output, build's kernel.config.json, a signature
# line) by '--config'. Each round trip must give back the same signature.
set -u
. "$(dirname "$0")/lib.sh"
t="$tmp/t"
key=e4m3_1024x2048x4096_fs
"$bin" tune --backend sim --quiet --dtype e4m3 --shape 1024x2048x4096 --mode scratch --iters 3 --tuning "$t" ||
    fail "tune exited $?"

# signature of 'knobs --check' for the given arguments (exit 0 required)
sig_of() {
    local out
    out=$("$bin" knobs --check "$@") || fail "knobs --check $* exited $?: $out"
    sed -n 's/^valid: //p' <<<"$out" | head -n 1
}
# a printed signature: accepted by --set (knobs --check and build), and gives itself back
accepts_sig() { # WHERE SIG [DTYPE, default e4m3]
    local where=$1 sig=$2 dtype=${3:-e4m3}
    [ -n "$sig" ] || fail "$where printed no configuration"
    [ "$(sig_of --set "$sig")" = "$sig" ] || fail "knobs --check --set <$where> did not give it back: $sig"
    [ "$(sig_of --dtype "$dtype" --set "$sig")" = "$sig" ] || fail "knobs --check --dtype $dtype --set <$where>"
    rm -rf "$tmp/b"
    "$bin" build --set "$sig" --no-compile --out "$tmp/b" >/dev/null 2>"$tmp/err" ||
        fail "build --set <$where> exited $?: $(cat "$tmp/err")"
    [ "$(sig_of --config "$tmp/b/kernel.config.json")" = "$sig" ] || fail "build's kernel.config.json of <$where>"
}
# a printed file: accepted by --config
accepts_file() { # WHERE FILE WANT
    [ "$(sig_of --config "$2")" = "$3" ] || fail "knobs --check --config <$1> did not give '$3'"
    rm -rf "$tmp/b"
    "$bin" build --config "$2" --no-compile --out "$tmp/b" >/dev/null 2>"$tmp/err" ||
        fail "build --config <$1> exited $?: $(cat "$tmp/err")"
}

js=$("$bin" status --tuning "$t" --json) || fail "status --json"
best=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["shapes"][0]["best"]["config"])' <<<"$js")
base=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["shapes"][0]["baseline"]["config"])' <<<"$js")
grep -q '^dtype=e4m3,' <<<"$best" || fail "status --json best.config: $best"
accepts_sig "status --json best.config" "$best"
accepts_sig "status --json baseline.config" "$base"
accepts_sig "knobs --check" "$(sig_of --dtype e4m3 --set tile_n=128)"
# knobs --check's own lines pasted whole: 'valid: SIG' of a valid configuration, and the
# '  config: SIG' line under an invalid one's reasons
vline=$("$bin" knobs --check --dtype e4m3 --set tile_n=128 | head -n 1)
[ "$(sig_of --set "$vline")" = "$(sig_of --dtype e4m3 --set tile_n=128)" ] ||
    fail "knobs --check --set '<its valid: line>' did not give it back: $vline"
cline=$("$bin" knobs --check --dtype f16 --set schedule=1,persistent=1 | grep '^  config: ') &&
    [ "$(sig_of --dtype f16 --set "$cline" --set schedule=0)" = "$(sig_of --dtype f16 --set persistent=1)" ] ||
    fail "knobs --check --set '<its config: line>' (an invalid configuration's): $cline"
for row in 3 4 5; do
    accepts_sig "results.tsv row $row" "$(awk -F'\t' -v r=$row 'NR == r { print $4 }' "$t/logs/$key/results.tsv")"
done
accepts_sig "idea-log.jsonl" "$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["config"])' \
    "$t/logs/$key/idea-log.jsonl")"

# (a checkpoint's configuration is the registered best: the final ladder's winner when the
# ladder timed its entries, else the tuning's own best)
ckbest=$(python3 -c 'import json,sys
c = json.load(open(sys.argv[1])); l = c.get("ladder") or {}
print(l["entries"][l["winner"]]["config"] if l.get("ok") else c["best"]["config"])' "$t/checkpoints/$key.json")
accepts_file "checkpoint" "$t/checkpoints/$key.json" "$ckbest"
# a committed H200 checkpoint whose ladder registered iteration 24 over the tuning's own best
# (iteration 2): --config gives the registered one, as status --json and export do
h200=$CROQ_SOURCE_DIR/results/h200/sweep-typical
reg=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shapes"]["f16_12288x4096x4096_fs"]["best"]["config"])' \
    "$h200/state.json") || fail "no registered best in $h200/state.json"
accepts_file "a laddered checkpoint" "$h200/checkpoints/f16_12288x4096x4096_fs.json" "$reg"
"$bin" knobs --check --json --dtype e4m3 --set tile_n=128 >"$tmp/check.json" || fail "knobs --check --json"
accepts_file "knobs --check --json" "$tmp/check.json" "$(sig_of --dtype e4m3 --set tile_n=128)"
printf '%s\n' "$best" >"$tmp/sig.txt"
accepts_file "a signature line" "$tmp/sig.txt" "$best"

# the short label explore and bench print: each one read back by --set gives the
# configuration explore measured (its dataset record), and prints itself again
"$bin" explore --backend sim --dtype f16 --shape 1024x1024x4096 --grid "$(dirname "$0")/../fixtures/explore/grid-small.txt" \
    --jobs 2 --out "$tmp/x.jsonl" >/dev/null 2>"$tmp/x.err" || fail "explore: $(cat "$tmp/x.err")"
labels=$(sed -n 's/^explore \[[0-9]*\/[0-9]*\] .*spread *[0-9.]*%  //p' "$tmp/x.err")
[ "$(wc -l <<<"$labels")" -eq 14 ] || fail "explore labels: $labels"
grep -qx "ws 128x256x64 s5 c2 group=8 meta_path=0 cluster_m=2" <<<"$labels" || fail "labels: $labels"
grep -qx "base 64x128x64 s2" <<<"$labels" || fail "labels: $labels"
while IFS= read -r label; do
    sig=$(sig_of --dtype f16 --set "$label")
    accepts_sig "explore label '$label'" "$sig" f16
done <<<"$labels"
[ "$(sig_of --dtype f16 --set "base 64x128x64 s2")" = "$(sig_of --dtype f16 --set "kernel=0 tile_m=64 tile_n=128 stages=2 consumers=1")" ] ||
    fail "a base label is not the baseline"
[ "$(sig_of --dtype f16 --set "ws 128x128x64 s5 c1")" = "$(sig_of --dtype f16 --set "tile_n=128 stages=5 consumers=1")" ] ||
    fail "a ws label"
out=$("$bin" knobs --check --dtype f16 --set "ws 128x256" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF "expected 'ws TILE_MxTILE_NxTILE_K sSTAGES cCONSUMERS'" <<<"$out" || fail "a cut label: $rc $out"
# the config: line of a generated .cu, pasted as it is
"$bin" build --set "$best" --no-compile --out "$tmp/cu" >/dev/null 2>"$tmp/err" || fail "build: $(cat "$tmp/err")"
line=$(grep '^ \* config: ' "$tmp/cu/kernel.cu") || fail "no config: line in kernel.cu"
accepts_sig "the config: line of kernel.cu" "$(sig_of --set "$line")"
[ "$(sig_of --set "$line")" = "$best" ] || fail "the config: line gave another configuration: $line"

# what is not one configuration is refused with the reason, as bad usage
out=$("$bin" knobs --check --set "${best/dtype=e4m3/dtype=f16}" --dtype e4m3 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "disagrees with the configuration's dtype e4m3" <<<"$out" || fail "a dtype clash: $rc $out"
"$bin" status --tuning "$t" --json >"$tmp/status.json"
out=$("$bin" knobs --check --config "$tmp/status.json" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "status file holds every shape" <<<"$out" || fail "a status file as --config: $rc $out"
echo ok
