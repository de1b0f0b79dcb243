#!/usr/bin/env bash
# nvcc and cuobjdump pass file names to a shell internally: a user-chosen output path
# with $(...), backticks and quotes must reach neither (src/build/nvcc.c, work_dir_make).
set -u
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
marker=$T/pwned
out="$T/o \$(touch $marker) \`touch $marker\` \"q'"
CROQ_CACHE_DIR=$T/cache "$CROQ_BIN/croqtuner" build --dtype f16 --set kernel=0,tile_m=64,tile_n=64,stages=2,consumers=1 \
    --out "$out" --name k > "$T/log" 2>&1 || { cat "$T/log"; echo "build failed"; exit 1; }
[ -e "$marker" ] && { echo "a shell ran text from the output path"; exit 1; }
[ -s "$out/k.cubin" ] || { echo "no cubin in the hostile directory"; exit 1; }
grep -q '"has_sparse_gmma": true' "$out/k.build.json" || { echo "SASS not checked"; cat "$out/k.build.json"; exit 1; }
exit 0
