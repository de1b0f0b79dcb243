#!/usr/bin/env bash
# Issue 17 item 8: 'propose --src FILE' keeps its copy in srcs/ no more readable than
# FILE (0640 stays 0640, 0600 stays 0600; never world-readable), and so are the copies
# made from it (a failed compile's attempt source, the published best kernel); a FIFO,
# /dev/zero or a directory as --src is refused at once and changes nothing.
set -u
. "$(dirname "$0")/lib.sh"
umask 022
t="$tmp/tuning"
key=f16_2048x4096x4096_fs
"$bin" tune --agent --backend sim --quiet --dtype f16 --shape 2048x4096x4096 --mode scratch --iters 2 --tuning "$t" \
    >/dev/null || fail "tune --agent"
mode() { stat -c %a "$1"; }
# the baseline's source, kept now: once a proposal is kept, iter000.cu is stored as a recipe
cp "$t/srcs/$key/iter000.cu" "$tmp/base.cu" || fail "no baseline source"
src() { sed "1i static const int agent_variant_$1 = 1;" "$tmp/base.cu" >"$tmp/$1.cu" && chmod "$2" "$tmp/$1.cu"; }
propose() { timeout 20 "$bin" propose --tuning "$t" --key "$key" --idea "$1" --category micro --src "$2" "${@:3}"; }

# non-regular sources: refused, nothing written
mkfifo "$tmp/fifo.cu"
ln -s /dev/zero "$tmp/zero.cu"
mkdir "$tmp/dir.cu"
for s in fifo.cu zero.cu dir.cu; do
    err=$(propose "from $s" "$tmp/$s" --set raster=1 2>&1); rc=$?
    [ $rc -eq 124 ] && fail "--src $s hangs"
    [ $rc -eq 1 ] || fail "--src $s exited $rc: $err"
    grep -Eq "not a (kernel source|regular file)" <<<"$err" || fail "--src $s: message: $err"
    [ -e "$t/srcs/$key/iter001.cu" ] && fail "--src $s wrote a source"
done

# a source that fails to compile: its attempt copy keeps the mode
src a 640
CROQ_SIM_FAULTS=compile@1 propose "a: 0640 source" "$tmp/a.cu" --set raster=1 >/dev/null 2>&1
att=$(ls "$t/srcs/$key/" | grep attempt | head -n 1)
[ -n "$att" ] || fail "no attempt source kept: $(ls "$t/srcs/$key")"
[ "$(mode "$t/srcs/$key/$att")" = 640 ] || fail "attempt source $att has mode $(mode "$t/srcs/$key/$att"), want 640"

src b 640
propose "b: 0640 source" "$tmp/b.cu" --set group=2 >/dev/null || fail "propose b"
[ "$(mode "$t/srcs/$key/iter001.cu")" = 640 ] || fail "iter001.cu has mode $(mode "$t/srcs/$key/iter001.cu"), want 640"
src c 600
propose "c: 0600 source" "$tmp/c.cu" --set group=4 >/dev/null || fail "propose c"
[ "$(mode "$t/srcs/$key/iter002.cu")" = 600 ] || fail "iter002.cu has mode $(mode "$t/srcs/$key/iter002.cu"), want 600"
# the engine's own source: kept as its recipe once an agent's candidate replaced it as the best
[ "$(mode "$t/srcs/$key/iter000.gen.json")" = 644 ] || fail "the engine's own source's recipe is not 0644"

# the published best kernel is as readable as the source it copies, no more
best=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shapes"][sys.argv[2]]["best"]["kernel"])' \
       "$t/state.json" "$key")
pub="$t/kernels/gemm_sp_f16/${key}_best.cu"
[ -f "$pub" ] || fail "no published kernel"
if [ -f "$t/$best" ]; then # an agent's source: kept whole
    [ "$(mode "$pub")" = "$(mode "$t/$best")" ] || fail "published kernel mode $(mode "$pub"), its source $best $(mode "$t/$best")"
else # the engine's own, kept as a recipe: published 0644 like every generated source
    [ "$(mode "$pub")" = 644 ] || fail "published kernel mode $(mode "$pub") of generated $best, want 644"
fi
"$bin" audit --tuning "$t" >/dev/null || fail "audit"
echo ok
