#!/usr/bin/env bash
# report into a directory it cannot write (issue 24, item 15): one line that names the
# output directory, says it is not writable and suggests --out, exit 1, before anything
# is rendered: no line per file, no false "missing dygraph.min.js" (the copy failed, not
# the source), no index.html named as written. With --out elsewhere the report is made.
# Permissions do not stop root, so as root the report runs as nobody (setpriv).
set -u
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -eq 0 ]; then
    command -v setpriv >/dev/null || { echo "as root this needs setpriv to run as nobody"; exit 77; }
    as_user() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
else
    as_user() { "$@"; }
fi
chmod 755 "$tmp"
t=$tmp/t
cp -r "$CROQ_SOURCE_DIR/tests/fixtures/tuning" "$t"
report() { as_user "$bin" report --tuning "$t" --anchors "$t/vendor-anchors.json" "$@"; }
chmod -R a+rX "$t"

# 1. a read-only tuning directory without a report/ yet
chmod a-w "$t"
err=$(report 2>&1 >"$tmp/out"); rc=$?
[ $rc -eq 1 ] || fail "read-only tuning directory: rc=$rc: $err"
[ "$err" = "croqtuner: report: cannot create the output directory '$t/report': Permission denied; give --out DIR to write the report elsewhere" ] ||
    fail "read-only tuning directory said: $err"
[ ! -s "$tmp/out" ] || fail "stdout: $(cat "$tmp/out")"

# 2. report/ exists (an earlier report) and is read-only
chmod u+w "$t" && mkdir "$t/report" && chmod a+rx,a-w "$t/report" "$t"
err=$(report 2>&1 >"$tmp/out"); rc=$?
[ $rc -eq 1 ] || fail "read-only report/: rc=$rc: $err"
[ "$err" = "croqtuner: report: the output directory '$t/report' is not writable (Permission denied); give --out DIR to write the report elsewhere" ] ||
    fail "read-only report/ said: $err"
grep -q "dygraph\|index.html" "$tmp/out" && fail "stdout names files: $(cat "$tmp/out")"
[ -z "$(ls -A "$t/report")" ] || fail "files appeared in the read-only report/: $(ls -A "$t/report")"

# 3. --out somewhere writable: the report is made
mkdir "$tmp/elsewhere" && chmod 777 "$tmp/elsewhere"
report --out "$tmp/elsewhere/r" >"$tmp/out" 2>"$tmp/err" || fail "report --out: $(cat "$tmp/err")"
[ -s "$tmp/elsewhere/r/index.html" ] || fail "no index.html with --out"
grep -q "^report: $tmp/elsewhere/r/index.html" "$tmp/out" || fail "stdout: $(cat "$tmp/out")"
chmod -R u+w "$t"
echo ok
