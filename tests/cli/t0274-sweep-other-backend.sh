#!/usr/bin/env bash
# A sim sweep started into a GPU tuning directory (the committed fixture: shapes of the
# gpu backend, a gpu sweep record) is refused once, up front, before any shape is claimed
# or the sweep record changes: one message, exit 2, and nothing left behind (no
# checkpoints/*.lock of the refused shapes). A single refused new shape (tune) removes
# the lock file it created too.
set -u
. "$(dirname "$0")/lib.sh"

g="$tmp/gpu"
cp -a "$CROQ_SOURCE_DIR/tests/fixtures/tuning" "$g"
: >"$g/.lock" # the directory's lock, which every state.json reader under it creates
listing() { (cd "$g" && find . -print | LC_ALL=C sort); }
listing >"$tmp/before"
cp "$g/state.json" "$tmp/state.before"
unchanged() { # unchanged WHAT: nothing was added to or changed in the directory
    listing | diff "$tmp/before" - >"$tmp/diff" || fail "$1 left files behind: $(head -n 5 "$tmp/diff")"
    cmp -s "$g/state.json" "$tmp/state.before" || fail "$1 changed state.json"
}

for par in "" "--workers 2"; do
    # shellcheck disable=SC2086 # $par is two words or none
    err=$("$bin" sweep --dtype all --backend sim --iters 2 --shapes "$fixture" --tuning "$g" $par 2>&1); rc=$?
    [ $rc -eq 2 ] || fail "sim sweep ${par:+($par) }into a GPU directory exited $rc: $(head -n 3 <<<"$err")"
    [ "$(wc -l <<<"$err")" -eq 1 ] || fail "sim sweep ${par:+($par) }: $(wc -l <<<"$err") messages, not one: $(head -n 3 <<<"$err")"
    grep -qF "sweep: '$g' holds shapes tuned with backend 'gpu' (f16_1024x8192x1024, ...), not 'sim': results of different backends are never mixed in one tuning directory; give --tuning ANOTHER_DIR for backend 'sim' (no shape was started)" <<<"$err" ||
        fail "sim sweep ${par:+($par) }message: $err"
    unchanged "the refused sim sweep${par:+ ($par)}"
done

# slurm writes no scripts and records nothing for a refused sweep
err=$("$bin" slurm --dtype all --backend sim --iters 2 --shapes "$fixture" --tuning "$g" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF "holds shapes tuned with backend 'gpu'" <<<"$err" || fail "slurm of a sim sweep: rc=$rc: $err"
unchanged "the refused slurm"

# one new shape of another backend (tune): refused as before (exit 1), and its lock file
# is removed with it
err=$("$bin" tune --dtype f16 --shape 512x512x512 --mode scratch --backend sim --iters 2 --tuning "$g" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -qF "holds shapes tuned with backend 'gpu'" <<<"$err" || fail "tune --backend sim: rc=$rc: $err"
[ ! -e "$g/checkpoints/f16_512x512x512_fs.lock" ] || fail "the refused tune left checkpoints/f16_512x512x512_fs.lock"
unchanged "the refused tune"
exit 0
