#!/usr/bin/env bash
# tests/gpu/tools/prebuild-variants.sh — compile every line of kernels/variants.txt for both
# dtypes (or of VARIANTS_FILE) on this (CPU) machine into OUT_DIR/<dtype>/vNN.cubin, with OUT_DIR/index.txt
# mapping vNN to the line, for tests/gpu/tools/suite.sh to carry to the GPU machine. A line the
# knob rules reject for one dtype (e.g. a stage count whose shared memory only the smaller
# e4m3 stage fits) is left out for that dtype, with a note; any other build failure stops it.
# Usage: tests/gpu/tools/prebuild-variants.sh BIN_DIR OUT_DIR [VARIANTS_FILE]
set -eu
B=${1:?}; OUT=${2:?}; LIST=${3:-$(dirname "$0")/../../../kernels/variants.txt}
mkdir -p "$OUT/f16" "$OUT/e4m3"; : > "$OUT/index.txt"
RCS=$(mktemp -d); trap 'rm -rf "$RCS"' EXIT
n=0
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  n=$((n + 1)); name=$(printf 'v%02d' $n)
  echo "$name|$line" >> "$OUT/index.txt"
  for dtype in f16 e4m3; do
    rc=0; msg=$("$B/croqtuner" knobs --check --dtype $dtype --set "$line" 2>&1) || rc=$?
    case $rc in
      0) ;;
      1) echo "$name $dtype: left out, the knob rules reject it ($line)" >&2; continue ;;
      *) echo "$name: not a configuration ($line): $msg" >&2; exit 2 ;;
    esac
    # each build's status in a file: wait -n misses a job that ended before it was called
    { rc=0; "$B/croqtuner" build --strict --dtype $dtype --set "$line" --out "$OUT/$dtype" --name $name >/dev/null ||
        rc=$?; echo $rc > "$RCS/$name-$dtype"; } &
    while [ "$(jobs -r | wc -l)" -ge 2 ]; do wait -n || true; done
  done
done < "$LIST"
wait
for f in "$RCS"/*; do
  [ -e "$f" ] || continue
  [ "$(cat "$f")" = 0 ] || { echo "build ${f##*/} failed (exit $(cat "$f"))" >&2; exit 1; }
done
