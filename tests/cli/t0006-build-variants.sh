#!/usr/bin/env bash
# Every line of kernels/variants.txt compiles for sm_90a in both dtypes, without spills
# and with sparse tensor-core MMA in the SASS (`build --strict`). Then a rebuild of the
# first one is a cache hit.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
list="$CROQ_SOURCE_DIR/kernels/variants.txt"
[ -f "$list" ] || { echo "skip: $list does not exist yet"; exit 77; }
# The SASS check needs cuobjdump; use the project's pip copy when none is configured.
if [ -z "${CROQ_CUOBJDUMP:-}" ] && [ -x "$CROQ_SOURCE_DIR/.deps/pip/nvidia/cu13/bin/cuobjdump" ]; then
    export CROQ_CUOBJDUMP="$CROQ_SOURCE_DIR/.deps/pip/nvidia/cu13/bin/cuobjdump"
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export CROQ_CACHE_DIR="$tmp/cache"

n=0; failed=0; first=
while IFS= read -r line; do
    line=${line%%#*}
    [ -n "${line//[[:space:]]/}" ] || continue
    for dtype in f16 e4m3; do
        n=$((n + 1))
        out=$("$bin" build --strict --dtype "$dtype" --set "$line" --out "$tmp/v$n" 2>&1); rc=$?
        if [ "$rc" -ne 0 ]; then
            echo "variant $n ($dtype: $line) failed (exit $rc):" >&2
            echo "$out" | head -20 >&2
            failed=$((failed + 1))
            continue
        fi
        [ -s "$tmp/v$n/kernel.cubin" ] || fail "variant $n: no cubin"
        grep -q '"has_sparse_gmma": true' "$tmp/v$n/kernel.build.json" || fail "variant $n: record lacks sparse MMA"
        echo "ok $dtype: $line | $(grep '^ptxas' <<<"$out" | cut -d: -f2 | cut -d, -f1)"
        [ -n "$first" ] || first="$dtype|$line"
    done
done < "$list"
[ "$n" -gt 0 ] || fail "no variants in $list"
[ "$failed" -eq 0 ] || fail "$failed of $n variant builds failed"

out=$("$bin" build --strict --dtype "${first%%|*}" --set "${first#*|}" --out "$tmp/again") || fail "rebuild: $out"
grep -q '(cache hit)' <<<"$out" || fail "rebuild of an identical variant was not a cache hit: $out"
echo "$n variant builds passed"
