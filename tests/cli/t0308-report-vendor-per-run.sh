#!/usr/bin/env bash
# The report's vendor numbers per run of a shape: a from-scratch run reads its own record
# (perf/<key>_fs/vendor.json, `compare --mode scratch`) before the shape's
# (perf/<key>/vendor.json, the from-best run's), so the two rows of one shape keep the
# vendors measured beside each one's best; without a record of its own it reads the
# shape's. (Session 14: the reference shape's from-scratch row showed the from-best
# compare's cuSPARSELt, 982.4 instead of the 886.3 measured beside its best.)
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skip: python3 (CSV checks) not installed"; exit 77; }
fx="$CROQ_SOURCE_DIR/tests/fixtures/tuning"
t="$tmp/tuning"
cp -r "$fx" "$t"
record() { # KEY CUSPARSELT_SEARCH_TFLOPS
    mkdir -p "$t/perf/$1"
    cat >"$t/perf/$1/vendor.json" <<EOF
{"schema": 1, "key": "$1", "dtype": "f16", "M": 1024, "N": 8192, "K": 1024, "cublas_tflops": 500.0,
 "cusparselt_default_tflops": 400.0, "cusparselt_search_tflops": $2, "sm_clock_mhz": 1500.0,
 "timestamp": "2026-12-03T13:00:01Z", "gpu": "NVIDIA H200", "l2": "warm", "protocol": "interleaved", "rounds": 10}
EOF
}
slt() { # RUN (from-scratch|from-current-best): the summary's cuSPARSELt column of f16 1024x8192x1024
    python3 - "$tmp/out/tables/summary.csv" "$1" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if (r["M"], r["N"], r["K"], r["dtype"], r["run"]) == ("1024", "8192", "1024", "f16", sys.argv[2])]
print(rows[0]["cuSPARSELt (TFLOPS)"] if len(rows) == 1 else "rows: %d" % len(rows))
EOF
}
rep() {
    rm -rf "$tmp/out"
    "$bin" report --tuning "$t" --out "$tmp/out" --gnuplot "$tmp/no-gnuplot" --dygraphs "$tmp/no-dygraphs" \
        >"$tmp/log" 2>&1 || fail "report: $(tail -n 3 "$tmp/log")"
}
record f16_1024x8192x1024 700.0
rep
[ "$(slt from-scratch)" = 700.0 ] || fail "from scratch without its own record: cuSPARSELt $(slt from-scratch), want the shape's 700.0"
[ "$(slt from-current-best)" = 700.0 ] || fail "from best: cuSPARSELt $(slt from-current-best), want 700.0"
record f16_1024x8192x1024_fs 650.0
rep
[ "$(slt from-scratch)" = 650.0 ] || fail "from scratch with its own record: cuSPARSELt $(slt from-scratch), want 650.0"
[ "$(slt from-current-best)" = 700.0 ] || fail "from best beside a from-scratch record: $(slt from-current-best), want 700.0"
# A record of its own that is there but unusable (torn, another shape, not a file, its
# directory a file) is not replaced by the other run's: the row has no same-run vendors.
for bad in torn shape dir dirfile; do
    rm -rf "$t/perf/f16_1024x8192x1024_fs"
    record f16_1024x8192x1024_fs 650.0
    f=$t/perf/f16_1024x8192x1024_fs/vendor.json
    case $bad in
    torn) head -c 40 "$f" >"$f.x" && mv "$f.x" "$f" ;;
    shape) sed -i 's/"M": 1024/"M": 2048/' "$f" ;;
    dir) rm "$f" && mkdir "$f" ;;
    dirfile) rm -r "$t/perf/f16_1024x8192x1024_fs" && echo x >"$t/perf/f16_1024x8192x1024_fs" ;;
    esac
    rep
    got=$(slt from-scratch)
    case $got in 650.0 | 700.0) fail "$bad record of its own: cuSPARSELt $got taken" ;; esac
    [ "$(slt from-current-best)" = 700.0 ] || fail "$bad: from best $(slt from-current-best), want 700.0"
done
exit 0
