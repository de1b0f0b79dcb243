#!/usr/bin/env bash
# croqtuner export takes a best's source only from inside its tuning directory and only
# when it is the source that was measured (issue 24, item 2): a best that names
# "../outside.cu" (state.json, results.tsv and the checkpoint edited alike), a symlink in its place, a
# symlinked srcs/<key>/ directory, or a file whose bytes no longer hash to the
# source_hash results.tsv recorded for its row are each refused with the reason, exit 1,
# and no pack is written. The untouched directory still exports.
set -u
. "$(dirname "$0")/lib.sh"
key=f16_1024x1024x4096_fs
t=$tmp/t
"$bin" tune --backend sim --dtype f16 --shape 1024x1024x4096 --mode scratch --iters 3 --tuning "$t" \
    --shapes "$fixture" > "$tmp/tune.log" 2>&1 || fail "sim tune: $(tail -n 3 "$tmp/tune.log")"
python3 - "$t/state.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for v in s["shapes"].values():
    v["backend"] = "gpu"
json.dump(s, open(sys.argv[1], "w"))
PY
rel=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['shapes']['$key']['best']['kernel'])" "$t/state.json")
iter=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['shapes']['$key']['best']['iter'])" "$t/state.json")
"$bin" source --tuning "$t" --key $key --iter "$iter" --out "$tmp/outside.cu" || fail "croqtuner source"
printf '// not what was measured\n' >> "$tmp/outside.cu"

# refused KIND DIR MESSAGE: export of DIR exits 1 with MESSAGE and writes nothing
refused() {
    local out rc
    out=$("$bin" export --tuning "$2" --out "$tmp/$1.pack" --gpu G 2>&1); rc=$?
    [ $rc -eq 1 ] && grep -qF -- "$3" <<<"$out" || fail "$1: rc=$rc, want 1 and '$3': $out"
    [ ! -e "$tmp/$1.pack" ] || fail "$1: a pack was written"
}

# 1. The records name a file outside the directory.
cp -a "$t" "$tmp/out"
sed -i "s#$rel#../outside.cu#" "$tmp/out/state.json" "$tmp/out/logs/$key/results.tsv" "$tmp/out/checkpoints/$key.json"
refused outside "$tmp/out" "is not a measured results.tsv row with its config, source srcs/$key/"

# 2. A symlink where the best's source is (the recipe taken away, as a kept-whole source).
cp -a "$t" "$tmp/sym"
rm "$tmp/sym/${rel%.cu}.gen.json"
ln -s "$tmp/outside.cu" "$tmp/sym/$rel"
refused symlink "$tmp/sym" "'$rel' is a symbolic link, not a file of the tuning directory"

# 3. The best's directory srcs/<key> is a symlink to another copy.
cp -a "$t" "$tmp/symdir"
mv "$tmp/symdir/srcs/$key" "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$tmp/symdir/srcs/$key"
refused symdir "$tmp/symdir" "'srcs/$key' is a symbolic link"

# 4. The source kept whole but edited after it was measured.
cp -a "$t" "$tmp/edited"
"$bin" source --tuning "$tmp/edited" --key $key --iter "$iter" --out "$tmp/edited/$rel" || fail "croqtuner source"
rm "$tmp/edited/${rel%.cu}.gen.json"
printf '// edited after measuring\n' >> "$tmp/edited/$rel"
want=$(awk -F'\t' -v i="$iter" 'NR > 2 && $1 == i {print $3}' "$t/logs/$key/results.tsv")
refused edited "$tmp/edited" "results.tsv recorded $want for iteration $iter: not the source that was measured"

# 5. The untouched directory exports its best.
"$bin" export --tuning "$t" --out "$tmp/ok.pack" --gpu G > "$tmp/export.log" 2>&1 ||
    fail "export of the untouched directory: $(tail -n 3 "$tmp/export.log")"
grep -aq "^entry f16 1024 1024 4096 .* $want $want $key " "$tmp/ok.pack" || fail "entry: $(grep -a '^entry' "$tmp/ok.pack")"
echo ok
