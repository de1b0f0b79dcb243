#!/usr/bin/env bash
# Bad usage is exit 2 with a clear message, found before any work and leaving nothing
# behind, on every command's one option parser (src/util/opts.h; issue 24 items 12-14):
# a missing or wrong input file, a file where a directory belongs (and the reverse), a
# repeated single-valued option, a driver version that is not one, a shape with a blank
# or a sign, a replay tune without its dataset, a category that does not exist, a new
# shape without a budget. And every command's --help lists exactly its table's options
# (the parser checks that when --help is printed, and says so on stderr).
. "$(dirname "$0")/lib.sh"

usage() { # WANT args...: exit 2 and WANT in stderr
    local want=$1; shift
    err=$("$bin" "$@" 2>&1 >/dev/null); rc=$?
    [ $rc -eq 2 ] || fail "'$*' exited $rc, want 2: $err"
    grep -qF -- "$want" <<<"$err" || fail "'$*' does not say '$want': $err"
}
t=$tmp/t
tune=(tune --quiet --dtype f16 --mode scratch --iters 1 --tuning "$t")
echo plain >"$tmp/afile"
mkdir "$tmp/adir"

# an engine option a command neither documents nor uses is unknown there, not ignored
usage "unknown option '--shapes'" ladder --tuning "$t" --shapes "$tmp/afile"
usage "unknown option '--quiet'" propose --tuning "$t" --quiet
usage "unknown option '--git'" slurm --dtype f16 --tuning "$t" --git
usage "unknown option '--dataset'" sweep --dtype f16 --tuning "$t" --dataset "$tmp/afile"
[ ! -e "$t" ] || fail "a refused option created the tuning directory"

# item 12: usage errors exit 2
usage "--backend replay needs --dataset FILE" "${tune[@]}" --shape 1024x1024x1024 --backend replay
[ ! -e "$t" ] || fail "a replay tune without --dataset created the tuning directory"
echo "// k" >"$tmp/k.cu"
usage "option '--category': 'nope' is not macro, structural, variant or micro" \
    propose --tuning "$t" --key f16_1024x1024x1024_fs --idea x --category nope --src "$tmp/k.cu"
err=$(CROQ_SHAPES=/nonexistent/shapes.json "$bin" tune --backend sim --quiet --tuning "$t" --dtype f16 \
      --shape 512x512x512 --mode scratch 2>&1); rc=$?
[ $rc -eq 2 ] || fail "tune without shapes.json exited $rc, want 2: $err"
grep -qF "f16_512x512x512_fs: no iteration budget for a new shape (give --iters N): CROQ_SHAPES='/nonexistent/shapes.json'" \
    <<<"$err" || fail "tune without shapes.json: $err"
[ ! -e "$t" ] || fail "tune without shapes.json left $(find "$t" | tr '\n' ' ')"

# item 13: arguments named and wrong are refused, not ignored
usage "option '--anchors': '/nonexistent' does not exist" report --tuning "$tmp/adir" --anchors /nonexistent
# CROQ_ANCHORS naming no file is a note of the report, without jansson's line -1
CROQ_ANCHORS=/nonexistent "$bin" report --tuning "$CROQ_SOURCE_DIR/tests/fixtures/tuning" --out "$tmp/rep" \
    --gnuplot "$tmp/no-gnuplot" >/dev/null 2>&1 || fail "report with CROQ_ANCHORS=/nonexistent exited $?"
grep -qF "'/nonexistent': No such file or directory" "$tmp/rep/notes.txt" || fail "no note of the anchors: $(cat "$tmp/rep/notes.txt")"
grep -qF "':-1" "$tmp/rep/notes.txt" && fail "a note shows line -1: $(grep -F "':-1" "$tmp/rep/notes.txt")"
usage "option '--dataset': '/nonexistent' does not exist" "${tune[@]}" --shape 1024x1024x1024 --backend sim \
    --dataset /nonexistent
echo '{}' >"$tmp/data.jsonl"
usage "--dataset is the replay backend's; --backend sim measures without one" "${tune[@]}" --shape 1024x1024x1024 \
    --backend sim --dataset "$tmp/data.jsonl"
usage "option '--shapes': '/nonexistent' does not exist" "${tune[@]}" --shape 1024x1024x1024 --backend sim \
    --shapes /nonexistent
usage "option '--shapes': '/nonexistent' does not exist" sweep --dtype f16 --backend sim --shapes /nonexistent \
    --tuning "$t"
usage "option '--shapes': '/nonexistent' does not exist" plan-sim --measured "$tmp/adir" --shapes /nonexistent
[ ! -e "$t" ] || fail "a refused option created the tuning directory"
usage "tune: option '--dtype' is given twice: it takes one value" "${tune[@]}" --shape 1024x1024x1024 --dtype e4m3
usage "sweep: option '--tuning' is given twice" sweep --dtype f16 --tuning "$t" --tuning "$tmp/t2"
usage "bench: option '--iters' is given twice" bench --dtype f16 --shape 128x256x128 --iters 3 --iters 4
usage "option '--driver': 'abc' is not a driver version like 580.95.05" \
    export --tuning "$tmp/adir" --out "$tmp/p" --driver abc
usage "option '--driver': '580.95.05.1' is not a driver version" \
    export --tuning "$tmp/adir" --out "$tmp/p" --driver 580.95.05.1
for s in " 1024x1024x1024" "+1024x1024x1024" "1024x1024x1024 " "1024x+1024x1024"; do
    # one check of a shape string in every command's table (bench's list takes named sets too)
    for c in "${tune[*]}" "explore --dtype f16 --out $tmp/x.jsonl" "knobs --check --dtype f16" \
             "build --dtype f16 --out $tmp/b" "compare --dtype f16"; do
        # shellcheck disable=SC2086
        usage "option '--shape': bad shape '$s': expected MxNxK with positive integers" $c --shape "$s"
    done
    usage "bad shape '$s'" bench --dtype f16 --shape "$s"
done
[ ! -e "$t" ] || fail "a refused shape created the tuning directory"

for c in "propose --idea x --category micro --src $tmp/k.cu" "audit" "source --iter 0" "ladder"; do
    # shellcheck disable=SC2086
    usage "option '--key': '../f16_1x1x1_fs' is not a shape key" $c --tuning "$tmp/adir" --key ../f16_1x1x1_fs
done

# item 14: what a path is, said in words, before any work
usage "option '--dataset': '/dev/zero' is not a regular file" "${tune[@]}" --shape 1024x1024x1024 \
    --backend replay --dataset /dev/zero
usage "option '--out': '/dev/null' is not a regular file" \
    explore --dtype f16 --shape 1024x1024x1024 --backend sim --out /dev/null
usage "option '--out': '$tmp/adir' is a directory, not a regular file" \
    export --tuning "$CROQ_SOURCE_DIR/results/h200/tuning-typical" --out "$tmp/adir" --regenerate
grep -q "B cubin" <<<"$err" && fail "export compiled kernels before refusing its --out: $err"
usage "option '--tuning': '$tmp/afile' is not a directory" sweep --dtype f16 --backend sim --tuning "$tmp/afile"
usage "option '--tuning': '$tmp/afile' is not a directory" status --tuning "$tmp/afile"
usage "option '--datasets': '$tmp/afile' is not a directory" replay-bench --datasets "$tmp/afile"
[ "$(cat "$tmp/afile")" = plain ] || fail "a refused command changed the plain file"

# the table and --help: for every command, --help exits 0 and the parser's drift check
# (every table option in the help, every option of the synopsis in the table) is silent
cmds=$("$bin" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ "$(wc -w <<<"$cmds")" -ge 19 ] || fail "croqtuner --help lists only: $cmds"
for c in $cmds; do
    out=$("$bin" "$c" --help 2>"$tmp/help.err") || fail "$c --help exited $?"
    [ -s "$tmp/help.err" ] && fail "$c --help: $(cat "$tmp/help.err")"
    grep -q "^usage: croqtuner $c" <<<"$out" || fail "$c --help has no usage line"
    usage "$c: unknown option '--no-such-option'" "$c" --no-such-option
done
# a value forgotten before the next option: not taken as the value (no directory '--quiet')
cd "$tmp" || fail "cd $tmp"
usage "tune: option '--tuning' needs a value, and '--quiet' is an option" \
    tune --backend sim --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 1 --tuning --quiet
[ ! -e "$tmp/--quiet" ] || fail "a directory '--quiet' was made"
usage "status: option '--tuning' needs a value, and '--help' is an option" status --tuning --help
"$bin" tune --backend sim --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 1 --quiet --tuning=--quiet >/dev/null ||
    fail "--tuning=--quiet is refused"
[ -d "$tmp/--quiet" ] || fail "--tuning=--quiet made no directory '--quiet'"
# an output that would replace a file of a tuning directory of the same command (its
# records: attack finding 2) is refused before anything is written, also through a
# symbolic link; the records are left as they were
o=$tmp/own
"$bin" tune --backend sim --dtype f16 --shape 1024x1024x1024 --mode scratch --iters 2 --quiet --tuning "$o" ||
    fail "tune into $o"
k=f16_1024x1024x1024_fs
cp "$o/state.json" "$tmp/state.before"; cp "$o/logs/$k/results.tsv" "$tmp/res.before"
ln -s "$o/logs" "$tmp/loglink"
usage "is a file of the tuning directory '$o'" source --tuning "$o" --key "$k" --iter 1 --out "$o/state.json"
usage "is a file of the tuning directory '$o'" costmodel --tuning "$o" --backend sim --out "$tmp/loglink/$k/results.tsv"
usage "is a file of the tuning directory '$o'" export --tuning "$o" --out "$o/logs/$k/results.tsv"
cmp -s "$o/state.json" "$tmp/state.before" && cmp -s "$o/logs/$k/results.tsv" "$tmp/res.before" ||
    fail "a refused output changed the tuning records"
"$bin" source --tuning "$o" --key "$k" --iter 1 --out "$tmp/iter1.cu" || fail "source --out outside the directory"

echo ok
