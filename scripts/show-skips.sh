#!/usr/bin/env bash
# scripts/show-skips.sh LOG — print why each skipped test skipped. ctest shows only
# "***Skipped"; the reason is the test's own "skip: ..." line, kept in ctest's log
# (Testing/Temporary/LastTest.log).
log=${1:?ctest LastTest.log}
[ -f "$log" ] || exit 0
awk '/^[0-9]+\/[0-9]+ Testing: / { name = $3 } /^skip: / { printf "skipped %s: %s\n", name, substr($0, 7) }' "$log"
