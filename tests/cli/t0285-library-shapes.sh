#!/usr/bin/env bash
# build/bin/library-shapes (tests/gpu/tools/library_shapes.c): the shape list of
# library.sh's run on untuned shapes. Per dtype the typical shapes, then COUNT scenario
# shapes drawn with the seed, none tuned in the pack, none typical; deterministic. The
# pack is written here by an independent writer of format 3 (src/pack/pack.h), so the
# format's sums are checked against a second implementation too.
set -u
bin="$CROQ_BIN/library-shapes"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
shapes=$CROQ_SOURCE_DIR/tests/fixtures/shapes.json
python3 - "$tmp/p" <<'PY'
import sys
def fnv(b):
    h = 14695981039346656037
    for x in b:
        h = ((h ^ x) * 1099511628211) % 2**64
    return '%016x' % h
cub = b'\x7fELF not a real cubin'
out = b'croqsparse-pack 3\ngpu G\ncuda 13.0\ndriver d\nentries 2\n'
for line in [b'entry f16 2048 4096 4096 700.000 0 0123456789abcdef 0123456789abcdef f16_2048x4096x4096 dtype=f16,kernel=1,tile_m=128,tile_n=256,tile_k=64,stages=4,consumers=2,swizzle=128,raster=0,group=1,meta_path=1,epilogue=0,l2_a=0,l2_b=0,persistent=0,cluster_m=1,cluster_n=1,split_k=1 pair - warm',
             b'entry f16 0 0 0 0.000 1 0123456789abcdef - - dtype=f16,kernel=1,tile_m=128,tile_n=256,tile_k=64,stages=4,consumers=2,swizzle=128,raster=0,group=1,meta_path=1,epilogue=0,l2_a=0,l2_b=0,persistent=0,cluster_m=1,cluster_n=1,split_k=1 - - -']:
    out += line + b' %d %s\n' % (len(cub), fnv(cub).encode()) + cub + b'\n'
out += b'sum %s\n' % fnv(out).encode()
open(sys.argv[1], 'wb').write(out)
PY
out=$("$bin" "$shapes" "$tmp/p" 3 2>&1) || fail "rc=$?: $out"
f16=$(grep -c '^f16:' <<<"$out"); e4m3=$(grep -c '^e4m3:' <<<"$out")
# f16: 2 typical + 3 of {256^3, 2048^3, 2048x4096x8192} (2048x4096x4096 is tuned, 512^3 typical)
[ "$f16" -eq 5 ] && [ "$e4m3" -eq 4 ] || fail "counts f16 $f16 e4m3 $e4m3: $out"
[ "$(grep '^f16:' <<<"$out" | head -n 2 | tr '\n' ' ')" = "f16:512x512x512 f16:1024x1024x1024 " ] || fail "typical first: $out"
grep -q '^f16:2048x4096x4096$' <<<"$out" && fail "a tuned shape drawn: $out"
[ "$(grep -c '^f16:512x512x512$' <<<"$out")" -eq 1 ] || fail "a typical shape drawn again: $out"
grep -q '^e4m3:2048x4096x4096$' <<<"$out" || fail "e4m3 lost a shape the pack has only for f16: $out"
[ "$("$bin" "$shapes" "$tmp/p" 3)" = "$out" ] || fail "not deterministic"
# more than qualify: all of them, and a word on stderr
"$bin" "$shapes" "$tmp/p" 10 > "$tmp/all" 2> "$tmp/err" || fail "count 10"
[ "$(grep -c '^f16:' "$tmp/all")" -eq 5 ] && grep -q "only 3 f16 scenario shapes qualify" "$tmp/err" || fail "count 10: $(cat "$tmp/err")"
# the default pack parses too (format 3); bad usage and a damaged pack
"$bin" "$shapes" "$CROQ_BIN/../croqsparse_default.pack" > /dev/null || fail "the default pack"
"$bin" "$shapes" 2> /dev/null; [ $? -eq 2 ] || fail "usage not rc 2"
printf 'x' >> "$tmp/p"
out=$("$bin" "$shapes" "$tmp/p" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "1 bytes after the sum line" <<<"$out" || fail "damaged pack: rc=$rc: $out"
echo ok
