#!/usr/bin/env bash
# Every configuration recorded in tests/fixtures/sass-digests.tsv (kernels/variants.txt
# and tests/gpu/ceiling-variants.txt in both dtypes, every committed best, export's
# fallback: tests/sass_identity.sh --list; recorded again on 2026-12-07 for the ld.shared
# metadata read, which changed exactly the meta_path=0 ones) still compiles to the SASS
# recorded there, so a refactor of kernels/ or
# src/codegen that changes machine code fails here and names the configurations. Then
# the check fails on a digest file with one digest changed (it can fail). Skips (77)
# without nvcc or cuobjdump, or with another nvcc than the one the digests were recorded
# with (its SASS legitimately differs). Compiles every configuration once (minutes).
. "$(dirname "$0")/lib.sh"
check="$CROQ_SOURCE_DIR/tests/sass_identity.sh"
digests="$CROQ_SOURCE_DIR/tests/fixtures/sass-digests.tsv"
[ -f "$digests" ] || fail "no $digests"
want=$(grep -vc '^#' "$digests")
[ "$want" -gt 0 ] || fail "no digests in $digests"

out=$("$check" --new "$bin" --against "$digests" --work "$tmp/w" 2>&1); rc=$?
if [ "$rc" -eq 77 ]; then echo "$out" | tail -1; exit 77; fi
echo "$out" | grep -v '^same' | head -40
[ "$rc" -eq 0 ] || fail "SASS differs from $digests (exit $rc); if the change is meant to change machine code, rewrite it with tests/sass_identity.sh --record"
grep -qx "sass identity: $want configurations: $want same, 0 differ, 0 refused by both, 0 failed builds" <<<"$out" ||
    fail "not every recorded configuration was checked: $(echo "$out" | tail -3)"

# One digest changed: that configuration must be named and the check must fail (the
# cubin comes from the cache of the run above).
awk -F'\t' 'BEGIN { OFS = "\t" } !/^#/ && !done { $3 = "0000" substr($3, 5); done = 1 } { print }' "$digests" >"$tmp/bad.tsv"
first=$(grep -v '^#' "$digests" | head -1 | cut -f1,2 | tr '\t' ' ')
out=$("$check" --new "$bin" --against "$tmp/bad.tsv" --pick 1,2 --work "$tmp/w" 2>&1); rc=$?
[ "$rc" -eq 1 ] || fail "a changed digest passed (exit $rc): $(echo "$out" | tail -3)"
grep -qF "DIFF     1 $first (other SASS than recorded)" <<<"$out" || fail "the changed digest is not named: $out"
grep -q "^same     2 " <<<"$out" || fail "the unchanged digest beside it does not pass: $out"
echo "ok: $want configurations, SASS as recorded"
