#!/usr/bin/env bash
# croqtuner export: bad usage exits 2 naming what is wrong; a directory that is not a
# tuning directory, bests with no record of their GPU, a key given by two directories or a
# best that is not results.tsv's exit 1 and write nothing; the index's TFLOPS is the
# best's results.tsv row.
# A pack exported from a tuning directory holds, per best, its configuration and the
# hash of the source that was measured: equal to the hash of the pack's own source when
# the generator is unchanged (a short sim run, relabelled as a GPU run), different (and
# said on stderr) when the measured source is not what this build regenerates.
# (The default pack, built at build time, is checked by unit.test_croqsparse.)
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$("$bin" export --tuning "$tmp" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "'--out PACK' are required" <<<"$out" || fail "no --out: rc=$rc: $out"
out=$("$bin" export --tuning "$tmp" --out "$tmp/p" --nope 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '--nope'" <<<"$out" || fail "unknown option: rc=$rc: $out"
out=$("$bin" export --tuning "$tmp/none" --out "$tmp/p" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "has no state.json" <<<"$out" || fail "not a tuning dir: rc=$rc: $out"
[ ! -e "$tmp/p" ] || fail "a pack was written after a failure"
"$bin" export --help | grep -q "fallback configuration per dtype" || fail "--help"

# A tuning directory: 3 sim iterations, its best relabelled as measured on a GPU.
t=$tmp/t
"$bin" tune --backend sim --dtype f16 --shape 1024x1024x4096 --mode scratch --iters 3 --tuning "$t" \
    --shapes "$CROQ_SOURCE_DIR/tests/fixtures/shapes.json" > "$tmp/tune.log" 2>&1 || fail "sim tune: $(tail -n 3 "$tmp/tune.log")"
out=$("$bin" export --tuning "$t" --out "$tmp/p" --gpu G 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "tuned on the 'sim' backend" <<<"$out" || fail "sim bests exported: rc=$rc: $out"
python3 - "$t/state.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for v in s["shapes"].values():
    v["backend"] = "gpu"
json.dump(s, open(sys.argv[1], "w"))
PY
key=f16_1024x1024x4096_fs
read -r cfg rel < <(python3 -c "import json,sys; b=json.load(open(sys.argv[1]))['shapes']['$key']['best']; print(b['config'], b['kernel'])" "$t/state.json")
hash=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['source_hash'])" "$t/${rel%.cu}.gen.json")
entry() { grep -a "^entry f16 1024 1024 4096 " "$1"; }
"$bin" export --tuning "$t" --out "$tmp/p" --gpu G > "$tmp/export.log" 2>&1 || fail "export: $(tail -n 3 "$tmp/export.log")"
# entry <dtype> <m> <n> <k> <tflops> <fallback> <hash> <tuned_hash> <key> <config> <bytes>
read -r _ _ _ _ _ _ fb h th k c _ < <(entry "$tmp/p")
[ "$fb $k $c" = "0 $key $cfg" ] || fail "entry: '$(entry "$tmp/p")', want key $key config $cfg"
[ "$h" = "$hash" ] && [ "$th" = "$hash" ] || fail "entry hashes $h / $th, the measured source's is $hash"
grep -q "regenerated" "$tmp/export.log" && fail "an unchanged source reported as regenerated"
[ "$(grep -ac '^entry ' "$tmp/p")" -eq 3 ] || fail "not 1 best + 2 fallbacks: $(grep -a '^entry' "$tmp/p")"
# Format 3 (issue 24 item 1): how the TFLOPS was measured (the final ladder's, at the SM
# clock state.json records), the L2 mode, the cubin's sum; the file ends with its sum line.
# One tuned shape is too few for a cost model: no model section, and export says so.
read -r -a f < <(entry "$tmp/p")
clock=$(python3 -c "import json,sys; print('%.1f' % json.load(open(sys.argv[1]))['shapes']['$key']['best']['sm_clock_mhz'])" \
    "$t/state.json")
[ "${f[11]} ${f[12]} ${f[13]}" = "ladder $clock warm" ] || fail "entry provenance '${f[11]} ${f[12]} ${f[13]}', want 'ladder $clock warm'"
[[ ${f[15]} =~ ^[0-9a-f]{16}$ ]] || fail "entry cubin sum '${f[15]}'"
head -n 1 "$tmp/p" | grep -qx 'croqsparse-pack 3' || fail "not format 3: $(head -n 1 "$tmp/p")"
tail -n 1 "$tmp/p" | grep -Eqx 'sum [0-9a-f]{16}' || fail "no sum line at the end"
grep -aq '^model ' "$tmp/p" && fail "a cost model from one shape"
grep -q "no f16 cost model" "$tmp/export.log" || fail "export did not say there is no f16 model"
# Two tuned shapes: a model section, fitted on their rows (issue 26 item 1).
# (1024x1024x4096 in both modes too: one kernel per shape, the faster, goes in)
for s3 in 1024x1024x4096:scratch 2048x1024x4096:scratch 1024x1024x4096:best; do
  "$bin" tune --backend sim --dtype f16 --shape ${s3%:*} --mode ${s3#*:} --iters 3 --tuning "$tmp/t3" \
      --shapes "$CROQ_SOURCE_DIR/tests/fixtures/shapes.json" > "$tmp/tune3.log" 2>&1 || fail "sim tune $s3: $(tail -n 3 "$tmp/tune3.log")"
done
python3 - "$tmp/t3/state.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for v in s["shapes"].values():
    v["backend"] = "gpu"
json.dump(s, open(sys.argv[1], "w"))
PY
"$bin" export --tuning "$tmp/t3" --out "$tmp/p3" --gpu G > "$tmp/export3.log" 2>&1 || fail "export 3: $(tail -n 3 "$tmp/export3.log")"
grep -aEq '^model [0-9]+ [0-9a-f]{16}$' "$tmp/p3" || fail "no model section with two shapes"
grep -q "f16 cost model fitted on [0-9]* rows of 2 shapes" "$tmp/export3.log" || fail "model: $(grep model "$tmp/export3.log")"
[ "$(entry "$tmp/p3" | wc -l)" -eq 1 ] || fail "not one kernel for f16 1024x1024x4096: $(entry "$tmp/p3" | cut -c1-80)"
grep -q "^export: 'f16_1024x1024x4096\(_fs\)\?' ([0-9.]* TFLOPS) left out: 'f16_1024x1024x4096\(_fs\)\?' is the same shape, faster" \
    "$tmp/export3.log" || fail "the slower mode not said: $(grep 'left out' "$tmp/export3.log")"
read -r _ _ _ _ _ kept _ < <(entry "$tmp/p3")
best=$(python3 -c "
import json, sys
s = json.load(open(sys.argv[1]))['shapes']
print(max(s[k]['best']['tflops'] for k in ('f16_1024x1024x4096', 'f16_1024x1024x4096_fs')))" "$tmp/t3/state.json")
python3 -c "import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > 0.01)" "$kept" "$best" ||
    fail "kept $kept TFLOPS, the faster mode measured $best"
# The index quotes the registered best's TFLOPS: the final ladder's number for its winner
# (the checkpoint's ladder record); a best edited into state.json is refused, and so is one
# key given by two directories.
read -r _ _ _ _ _ tf _ < <(entry "$tmp/p")
want=$(python3 -c "
import json, sys
l = json.load(open(sys.argv[1]))['ladder']
print('%.3f' % l['entries'][l['winner']]['tflops'])" "$t/checkpoints/$key.json")
[ -n "$want" ] && [ "$tf" = "$want" ] || fail "entry TFLOPS $tf, the final ladder's winner says '$want'"
cp -a "$t" "$tmp/t2"
out=$("$bin" export --tuning "$t" --tuning "$tmp/t2" --out "$tmp/dup" --gpu G 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "'$key' is in more than one --tuning directory (again in $tmp/t2)" <<<"$out" ||
    fail "one key from two directories: rc=$rc: $out"
[ ! -e "$tmp/dup" ] || fail "a pack was written with a key given twice"
python3 - "$tmp/t2/state.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for v in s["shapes"].values():
    v["best"]["tflops"] = 9999.0
json.dump(s, open(sys.argv[1], "w"))
PY
out=$("$bin" export --tuning "$tmp/t2" --out "$tmp/fake" --gpu G 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "state.json's best is not the final ladder's winner the checkpoint records" <<<"$out" ||
    fail "a best edited into state.json: rc=$rc: $out"
[ ! -e "$tmp/fake" ] || fail "a pack was written with an edited best"
# the clock and L2 mode the pack quotes beside the TFLOPS: the checkpoint's, or refused
for edit in clock l2; do
    rm -rf "$tmp/t4" && cp -a "$t" "$tmp/t4"
    python3 - "$tmp/t4/state.json" "$edit" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for v in s["shapes"].values():
    if sys.argv[2] == "clock":
        v["best"]["sm_clock_mhz"] = 9999.0
    else:
        v["l2"] = "cold"
json.dump(s, open(sys.argv[1], "w"))
PY
    out=$("$bin" export --tuning "$tmp/t4" --out "$tmp/fake-$edit" --gpu G 2>&1); rc=$?
    [ $rc -eq 1 ] && [ ! -e "$tmp/fake-$edit" ] && grep -qF "best clock or L2 mode is not what the checkpoint records" <<<"$out" ||
        fail "state.json's $edit edited: rc=$rc: $out"
done
# The measured source kept whole and different from what this build generates (an older
# generator's: results.tsv records its hash for the best's row): the index keeps the
# measured hash beside the pack's, and export says so. (A source that does not hash to
# its row is refused: t0264.)
"$bin" source --tuning "$t" --key $key --iter "$(basename "$rel" .cu | sed 's/^iter0*//; s/^$/0/')" --out "$t/$rel" ||
    fail "croqtuner source"
rm "$t/${rel%.cu}.gen.json"
printf '// edited after measuring\n' >> "$t/$rel"
# record_hash: the best's source hash (FNV-1a 64 of $t/$rel) into results.tsv and the
# checkpoint, as a run with an older generator would have recorded it; prints the hash
record_hash() {
    local h biter
    h=$(python3 -c "
import sys
h = 14695981039346656037
for b in open(sys.argv[1], 'rb').read(): h = ((h ^ b) * 1099511628211) % 2**64
print('%016x' % h)" "$t/$rel")
    biter=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['shapes']['$key']['best']['iter'])" "$t/state.json")
    awk -F'\t' -v OFS='\t' -v i="$biter" -v h="$h" 'NR > 2 && $1 == i {$3 = h} {print}' "$t/logs/$key/results.tsv" \
        > "$tmp/results.tsv" && cp "$tmp/results.tsv" "$t/logs/$key/results.tsv"
    python3 - "$t/checkpoints/$key.json" "$biter" "$h" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); it = int(sys.argv[2])
if c["best"]["iter"] == it:
    c["best"]["source_hash"] = sys.argv[3]
for e in c.get("ladder", {}).get("entries", []):
    if e["iter"] == it:
        e["source_hash"] = sys.argv[3]
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY
    echo "$h"
}
old=$(record_hash)
"$bin" export --tuning "$t" --out "$tmp/p2" --gpu G > "$tmp/export2.log" 2>&1 || fail "export 2: $(tail -n 3 "$tmp/export2.log")"
read -r _ _ _ _ _ _ _ h2 th2 _ < <(entry "$tmp/p2")
# the pack ships the measured source, compiled as it was recorded (issue 27: never today's
# kernels/), so the entry's source is the measured one, not this build's generation
[ "$th2" = "$old" ] && [ "$h2" = "$old" ] || fail "entry hashes $h2 / $th2, want $old / $old (this build generates $hash)"
grep -q "$key .*its measured source" "$tmp/export2.log" || fail "export did not say it compiled the measured source"
# A source generated from another configuration, its hash recorded in results.tsv and the
# checkpoint alike (another iteration's source copied in): its cubin would not be the
# entry's configuration, so export refuses it and writes nothing
cp "$t/$rel" "$tmp/measured.cu"
python3 - "$t/$rel" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
n = re.search(r"\n \* config: .*?tile_n=(\d+)", s)
s = s[:n.start(1)] + ("128" if n.group(1) != "128" else "64") + s[n.end(1):]
open(sys.argv[1], "w").write(s)
PY
cmp -s "$t/$rel" "$tmp/measured.cu" && fail "the test's edit of the config line did not apply"
record_hash > /dev/null
out=$("$bin" export --tuning "$t" --out "$tmp/p-config" --gpu G 2>&1); rc=$?
[ $rc -eq 1 ] && [ ! -e "$tmp/p-config" ] && grep -qF "was generated from" <<<"$out" ||
    fail "a source of another configuration: exit $rc: $out"
cp "$tmp/measured.cu" "$t/$rel" && record_hash > /dev/null
# A committed H200 directory measured with ABI-1 kernels: its measured modules cannot be
# loaded by this library, so export refuses it unless --regenerate (the default pack's way)
out=$("$bin" export --tuning "$CROQ_SOURCE_DIR/results/h200/tuning-typical" --out "$tmp/abi1" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "was measured with kernels of ABI 1; this library loads ABI 2" <<<"$out" ||
    fail "an ABI-1 directory without --regenerate: rc=$rc: $out"
[ ! -e "$tmp/abi1" ] || fail "a pack was written from ABI-1 modules"
echo ok
