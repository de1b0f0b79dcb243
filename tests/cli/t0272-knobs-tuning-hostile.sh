#!/usr/bin/env bash
# `knobs --tuning DIR --key KEY` on a damaged directory (attack finding 2): a FIFO, a
# symlink to /dev/zero or a directory in place of the shape's baseline recipe or of the
# snapshot of the generator it is pinned to never hangs and exits 1 naming the file and
# saying it is not a regular file (the recipe's reader said "Invalid argument"); a
# missing snapshot is named as missing; nothing is replaced. The engine's writer of a
# snapshot refuses a FIFO or a directory at generators/<id>.json (it took anything there
# for the snapshot every recipe then names) and the shape writes nothing; a key of
# another form is bad usage (2); a key the directory does not hold gets the directory's
# generator (the pin rule for a new shape); --check of another dtype or shape than the
# key's is bad usage (it printed the key's generator over another shape's check).
set -u
. "$(dirname "$0")/lib.sh"
ulimit -v 4000000 # a reader of /dev/zero runs out of this long before the timeout
tune() { "$bin" tune --backend sim --dtype f16 --quiet "$@"; }
d=$tmp/d
key=f16_2048x4096x4096_fs
tune --mode scratch --shape 2048x4096x4096 --iters 1 --tuning "$d" || fail "first shape"
cur=$(ls "$d/generators" | sed 's/\.json$//')
old=$(snapshot_edit "$d/generators/$cur.json" "$d/generators" \
    'f["knobs.def"] = f["knobs.def"].replace("1, 2, 4, 8, 16)", "1, 2, 4, 8)", 1)') || fail "older snapshot"
sed -i "s/\"generator\": \"$cur\"/\"generator\": \"$old\"/" "$d/srcs/$key/iter000.gen.json"
out=$("$bin" knobs --tuning "$d" --key $key 2>&1) || fail "knobs --tuning: $out"
grep -qxF "# $key: generator $old (its baseline's); it lacks group=16" <<<"$out" || fail "first line: $out"

plant() { # KIND FILE: a FIFO, a symlink to /dev/zero or a directory in place of FILE
    rm -rf "$2"
    case $1 in
    fifo) mkfifo "$2" ;;
    zero) ln -s /dev/zero "$2" ;;
    dir) mkdir "$2" ;;
    esac
}
for file in "srcs/$key/iter000.gen.json" "generators/$old.json"; do
    cp "$d/$file" "$tmp/orig"
    for kind in fifo zero dir; do
        plant $kind "$d/$file"
        for args in "" "--check"; do
            err=$(timeout 20 "$bin" knobs $args --tuning "$d" --key $key 2>&1 >/dev/null); rc=$?
            [ $rc -eq 124 ] && fail "$kind $file: knobs $args hangs"
            [ $rc -eq 1 ] || fail "$kind $file: knobs $args exited $rc, want 1: $err"
            grep -qF "$file" <<<"$err" || fail "$kind $file: knobs $args does not name the file: $err"
            if [ $kind = dir ]; then want="Is a directory"; else want="not a regular file"; fi
            grep -qF "$want" <<<"$err" || fail "$kind $file: knobs $args does not say why: $err"
        done
        case $kind in
        fifo) [ -p "$d/$file" ] ;; zero) [ -L "$d/$file" ] ;; dir) [ -d "$d/$file" ] ;;
        esac || fail "$kind $file: replaced"
    done
    rm -rf "$d/$file"
    cp "$tmp/orig" "$d/$file"
done
mv "$d/generators/$old.json" "$tmp/orig"
err=$("$bin" knobs --tuning "$d" --key $key 2>&1 >/dev/null) && fail "knobs without the snapshot passed"
grep -qF "has no snapshot: generators/$old.json is missing" <<<"$err" || fail "missing snapshot: $err"
mv "$tmp/orig" "$d/generators/$old.json"

# keys: another form is bad usage; one the directory does not hold takes the directory's generator
for k in "../$key" "f16_2048x4096x4096_fs " "f16_2048x4096x4096_fs'" "$(printf 'f16_%0300dx64x64' 64)"; do
    err=$("$bin" knobs --tuning "$d" --key "$k" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] || fail "key '$k': exited $rc, want 2: $err"
    grep -qF "option '--key'" <<<"$err" || fail "key '$k': $err"
done
# --check of another dtype or shape than the key's: bad usage (its knobs are that shape's)
for args in "--dtype e4m3" "--shape 2048x4096x8192"; do
    err=$("$bin" knobs --check --tuning "$d" --key $key $args 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] || fail "knobs --check $args: exited $rc, want 2: $err"
    opt=${args%% *}
    grep -qF -e "$args is not the ${opt#--} of --key $key" <<<"$err" || fail "knobs --check $args: $err"
done
"$bin" knobs --check --tuning "$d" --key $key --dtype f16 --shape 2048x4096x4096 >/dev/null || fail "the key's own"
out=$("$bin" knobs --tuning "$d" --key f16_1024x1024x1024 2>&1) || fail "a new key: $out"
grep -qxF "# f16_1024x1024x1024: generator $old (the directory's); it lacks group=16" <<<"$out" || fail "a new key: $out"

# the engine writing a snapshot over a FIFO or a directory: refused, nothing recorded
for kind in fifo dir; do
    e=$tmp/e-$kind
    mkdir -p "$e/generators"
    plant $kind "$e/generators/$cur.json"
    err=$(timeout 20 "$bin" tune --backend sim --dtype f16 --quiet --mode scratch --shape 1024x1024x1024 --iters 1 \
        --tuning "$e" 2>&1); rc=$?
    [ $rc -eq 124 ] && fail "$kind snapshot: tune hangs"
    [ $rc -ne 0 ] || fail "$kind snapshot: tune passed"
    grep -qF "cannot write the generator snapshot '$e/generators/$cur.json'" <<<"$err" || fail "$kind snapshot: $err"
    ls "$e/srcs/f16_1024x1024x1024_fs/"*.gen.json 2>/dev/null && fail "$kind snapshot: a recipe was written"
done
echo ok
