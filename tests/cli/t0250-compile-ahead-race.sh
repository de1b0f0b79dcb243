#!/usr/bin/env bash
# Issue 22's race, through `tune --backend gpu` with compile-ahead on: every module the
# worker measured (or held as the incumbent) must be the module of the source recorded
# for it. The fake worker keeps about half the candidates (the paired candidate faster,
# decided by its cubin's bytes), so the proposer re-plans after every KEEP and one
# iteration gets guesses of several sources, compiled at the same time in detached
# processes. Before the fix the guesses of an iteration shared one output path
# (build/<key>/spec/iterNNN.cubin) and the SASS check and the cache store read that
# shared path: a guess finishing while another was in its SASS check filed its module
# under the other's key, and the real step then measured that module under the other's
# configuration. Now guesses are named by source hash, the checks read the private cubin,
# and the identity of every measured module is checked.
. "$(dirname "$0")/lib.sh"
key=f16_1024x1024x1024_fs
t=$tmp/t
# The stand-in nvcc: its "cubin" is the source's checksum and the identity header the build
# asks for; it logs each source it compiles with the iteration the source is for. It makes
# the interleaving of the issue certain instead of likely (on the H200 a bigger kernel's
# longer compile did it): a compile of a guess waits until the engine has written that
# iteration's own source; a guess that is not that source (re-planned away) then waits
# until the one that is has written its cubin, and writes its own 0.2 s later, while that
# build's SASS check (the stand-in cuobjdump: 0.8 s) runs.
cat > "$tmp/nvcc" <<EOF
#!/bin/bash
case " \$* " in *" --version "*) echo "stand-in nvcc 1.0"; exit 0 ;; esac
T=$tmp SRCS=$t/srcs/$key
EOF
cat >> "$tmp/nvcc" <<'EOF'
c=$(cksum < kernel.cu)
it=$(sed -n 's/.* note: croqtuner .* iteration \([0-9]*\) .*/\1/p' kernel.cu)
echo "$it $c" >> "$T/compiled"
sleep 0.2
real=$SRCS/iter$(printf %03d "$it").cu
for k in $(seq 150); do [ -f "$real" ] && break; sleep 0.1; done
if [ -f "$real" ] && ! cmp -s kernel.cu "$real"; then
    rc=$(cksum < "$real")
    for k in $(seq 50); do [ -f "$T/done-${rc// /-}" ] && break; sleep 0.1; done
    sleep 0.2
fi
{ echo STANDIN; echo "src-cksum $c"; cat croq_module_id.h 2>/dev/null || true; } > kernel.cubin
touch "$T/done-${c// /-}"
echo "ptxas info    : Compiling entry function 'croq_gemm_sp' for 'sm_90a'" >&2
echo "ptxas info    : Used 168 registers, used 1 barriers, 200704 bytes smem" >&2
EOF
cat > "$tmp/cuobjdump" <<'EOF'
#!/bin/sh
sleep 0.8
echo "        /*0100*/                   HGMMA.SP.64x128x32.F32 R24, gdesc[UR4], RZ, R2, 0x0 ;"
EOF
chmod +x "$tmp/nvcc" "$tmp/cuobjdump"
CROQ_NVCC=$tmp/nvcc CROQ_CUOBJDUMP=$tmp/cuobjdump CROQ_NCU=/bin/false CROQ_CACHE_DIR=$tmp/cache CROQ_SPECULATE=3 \
    FAKE_SERVE_LOG=$tmp/log FAKE_SERVE_RAN=$tmp/ran FAKE_SERVE_FASTER=half FAKE_SERVE_DELAY_S=0.05 \
    "$bin" tune --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 16 --backend gpu \
    --runner "$CROQ_SOURCE_DIR/tests/fixtures/serve/fake-serve.sh" --tuning "$t" --quiet > "$tmp/out" 2>&1 ||
    fail "tune exited $?: $(tail -n 3 "$tmp/out")"
sleep 5 # compile-ahead builds outlive the tuner by a compile, a wait and a SASS check at most
keeps=$(awk -F'\t' 'NR > 2 && $10 == "KEEP"' "$t/logs/$key/results.tsv" | wc -l)
[ "$keeps" -ge 3 ] || fail "only $keeps KEEPs: the proposer did not re-plan enough to race"
replanned=$(sort -u "$tmp/compiled" | cut -d' ' -f1 | uniq -d | wc -l)
[ "$replanned" -ge 2 ] || fail "only $replanned iterations were compiled from two or more sources: nothing to race"
bad=0 checked=0
for i in $(awk -F'\t' 'NR > 2 {print $1}' "$t/logs/$key/results.tsv"); do
    want="src-cksum $("$bin" source --tuning "$t" --key $key --iter "$i" | cksum)"
    cubin=$t/build/$key/iter$(printf %03d "$i").cubin
    while read -r op path mid got; do
        checked=$((checked + 1))
        [ "$got" = "$want" ] || { echo "iteration $i: $op ran a module of '$got', its source is '$want'"; bad=1; }
    done < <(grep " $cubin " "$tmp/ran")
done
[ $bad = 0 ] || fail "a measured module is not the module of its recorded source"
[ $checked -ge 17 ] || fail "only $checked measurements of the rows' cubins were seen"
grep -q "foreign" "$tmp/out" && fail "a module had to be refused (the race is not fixed at its cause): $(grep foreign "$tmp/out")"
ls "$t/perf/$key" | grep -q foreign && fail "a -foreign.json reply was kept"
out=$("$bin" audit --tuning "$t") || fail "audit: $out"
echo ok
