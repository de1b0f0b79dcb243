#!/usr/bin/env bash
# Issue 17 item 6: a FIFO, or a symlink to /dev/zero, in place of a file the tool reads
# (state.json, a checkpoint, results.tsv, idea-log.jsonl, attempts.tsv, a progress
# file, a shape's lock or the directory's lock, shapes.json) never hangs 'status',
# 'resume', 'sweep' or 'audit' and never grows memory: each refuses with a message
# naming the file and saying it is not a regular file (status too for state.json and
# the directory's lock), and replaces nothing. Put the
# original back and resume finishes as an uninterrupted run.
set -u
. "$(dirname "$0")/lib.sh"
ulimit -v 4000000 # a reader of /dev/zero runs out of this long before the timeout
tune=(tune --backend sim --quiet --dtype f16 --shape 512x512x1024 --mode scratch --iters 6)
key=f16_512x512x1024_fs
CROQ_SIM_FAULTS=compile@2 "$bin" "${tune[@]}" --tuning "$tmp/ref" >/dev/null || fail "reference run failed"
CROQ_SIM_FAULTS=compile@2 CROQ_CRASHPOINT=ideate.saved@4 "$bin" "${tune[@]}" --tuning "$tmp/mid" >/dev/null 2>&1
[ $? -eq 137 ] || fail "could not stop the run in the middle"
mkdir -p "$tmp/mid/progress" && cp "$tmp/ref/progress/$key.json" "$tmp/mid/progress/" 2>/dev/null
[ -f "$tmp/mid/logs/$key/attempts.tsv" ] || fail "no attempts.tsv to replace"

# plant KIND FILE in directory D: a FIFO, or a symlink to /dev/zero
plant() {
    rm -f "$3/$2"
    case $1 in
    fifo) mkfifo "$3/$2" ;;
    zero) ln -s /dev/zero "$3/$2" ;;
    esac
}
is_planted() { [ "$1" = fifo ] && [ -p "$2" ] || { [ "$1" = zero ] && [ -L "$2" ]; }; }

n=0
for file in state.json "checkpoints/$key.json" "logs/$key/results.tsv" "logs/$key/idea-log.jsonl" \
            "logs/$key/attempts.tsv" "checkpoints/$key.lock" .lock "progress/$key.json"; do
    for kind in fifo zero; do
        d="$tmp/$kind-$(basename "$file")"
        cp -a "$tmp/mid" "$d"
        [ -e "$d/$file" ] || fail "$file: not in the interrupted run"
        cp -a "$d/$file" "$tmp/orig"
        plant "$kind" "$file" "$d"
        for cmd in status resume audit; do
            err=$(timeout 20 "$bin" $cmd --tuning "$d" 2>&1); rc=$? # audit reports on stdout
            [ $rc -eq 124 ] && fail "$kind $file: '$cmd' hangs"
            is_planted "$kind" "$d/$file" || fail "$kind $file: '$cmd' replaced it"
            # status shows a live progress file only while the shape is locked: not read here
            [ "$file" = "progress/$key.json" ] && [ $cmd != resume ] && continue
            # audit opens no lock
            [ $cmd = audit ] && [ "${file##*.}" = lock ] && continue
            # status reads state.json and checks the directory's lock, which every write of
            # state.json opens (issue 24 item 7); a shape's lock it cannot open is held by
            # nobody (it only must not hang)
            [ $cmd = status ] && [ "$file" != state.json ] && [ "$file" != .lock ] && continue
            if [ "$file" = "progress/$key.json" ]; then
                # nothing reads it to decide: resume goes on and replaces it at the next STORE
                [ $rc -eq 0 ] || fail "$kind $file: resume exited $rc: $err"
                continue
            fi
            [ $rc -eq 1 ] || fail "$kind $file: '$cmd' exited $rc, want 1: $err"
            grep -q "$(basename "$file")" <<<"$err" || fail "$kind $file: '$cmd' does not name the file: $err"
            grep -Eq "not a regular file|a symbolic link, where the tool keeps its own file" <<<"$err" ||
                fail "$kind $file: '$cmd' does not say why: $err"
            n=$((n + 1))
        done
        [ "$file" = "progress/$key.json" ] && continue
        rm -f "$d/$file"
        cp -a "$tmp/orig" "$d/$file"
        "$bin" resume --tuning "$d" --quiet >/dev/null 2>"$tmp/err" || fail "$kind $file: resume after repair: $(cat "$tmp/err")"
        for f in "logs/$key/results.tsv" "logs/$key/idea-log.jsonl" "checkpoints/$key.json"; do
            diff <(norm "$tmp/ref/$f") <(norm "$d/$f") >/dev/null || fail "$kind $file: $f differs after repair"
        done
    done
done
[ "$n" -ge 22 ] || fail "only $n refusals checked"

# shapes.json of a sweep
for kind in fifo zero; do
    plant "$kind" shapes.json "$tmp"
    err=$(timeout 20 "$bin" sweep --dtype f16 --backend sim --iters 2 --shapes "$tmp/shapes.json" --tuning "$tmp/sw" \
          2>&1 >/dev/null); rc=$?
    [ $rc -eq 124 ] && fail "$kind shapes.json: sweep hangs"
    # a --shapes that is not a regular file is bad usage, refused before the sweep starts
    # (issue 24 item 13), and nothing is created
    [ $rc -eq 2 ] || fail "$kind shapes.json: sweep exited $rc: $err"
    grep -Eq "option '--shapes': .*shapes.json' is not a regular file" <<<"$err" ||
        fail "$kind shapes.json: message: $err"
    [ ! -e "$tmp/sw" ] || fail "$kind shapes.json: the sweep created its tuning directory"
done
echo ok
