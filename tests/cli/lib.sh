# tests/cli/lib.sh — the set-up the CLI tests share (tests/README.md). Source it first:
#   . "$(dirname "$0")/lib.sh"
# It defines
#   bin      the croqtuner under test ($CROQ_BIN/croqtuner)
#   fail     fail MESSAGE: print "FAIL: MESSAGE" to stderr and exit 1
#   tmp      a fresh directory for this test, on /dev/shm when writable (the tests
#            fsync a lot), removed on exit by the EXIT trap set here; a test that
#            needs its own trap sets it again and removes "$tmp" itself
#   norm     norm FILE: the file with its UTC timestamps replaced by T (artifacts of
#            two runs compared, timestamps aside)
#   fixture  the tests' shapes.json (tests/fixtures/shapes.json: the protocol's rules and
#            budgets over a few small shapes)
#   small_plan FILE: write a small shapes.json to FILE (two scenarios: 3 square and 2
#            deep-K shapes, one near region, one typical shape per dtype; budgets 150/30),
#            the plan the sweep tests share
#   snapshot_edit SNAPSHOT DIR PY: another generator made from a snapshot
#            (generators/<id>.json): the Python statements PY change its files (a dict
#            `f`, name -> text), the result is written into DIR under the identity its
#            files hash to (src/codegen/generator.h), which is printed
bin="$CROQ_BIN/croqtuner"
fixture="$CROQ_SOURCE_DIR/tests/fixtures/shapes.json"
fail() { echo "FAIL: $*" >&2; exit 1; }
norm() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/T/g' "$1"; }
tmp=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/croq-$(basename "$0" .sh | cut -d- -f1).XXXXXX") ||
    exit 1
trap 'rm -rf "$tmp"' EXIT
small_plan() {
    cat >"$1" <<'JSON'
{"scenarios": {
   "sq": {"type": "single", "M": "S", "N": "S", "K": "S", "sizes": [256, 512, 2048]},
   "vk": {"type": "single", "M": 2048, "N": 4096, "K": "S", "sizes": [4096, 8192]}},
 "size_constraints": {"min_M": 128, "min_N": 256, "min_K": 128},
 "regions": {"near": {"M": [2048, 8192], "N": [4096, 16384], "K": [4096, 16384]}},
 "typical_shapes_for_scratch": {"f16": [[512, 512, 512]], "e4m3": [[2048, 2048, 2048]]},
 "iteration_budgets": {"from_scratch": 150, "from_current_best": 30}}
JSON
}
snapshot_edit() {
    python3 - "$@" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
f = s["files"]
exec(sys.argv[3])
h = 14695981039346656037
def fnv(h, b):
    for c in b:
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h
h = fnv(h, b"croqtuner codegen %d\0" % s["codegen_version"])  # hash_fnv1a64_str: with the NUL
for name in sorted(f, key=lambda n: n.encode()):
    t = f[name].encode()
    h = fnv(fnv(fnv(h, name.encode() + b"\0"), str(len(t)).encode() + b"\0"), t)
s["identity"] = "%016x" % h
json.dump(s, open(sys.argv[2] + "/" + s["identity"] + ".json", "w"))
print(s["identity"])
PY
}
