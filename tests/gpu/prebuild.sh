#!/usr/bin/env bash
# tests/gpu/prebuild.sh — compile every line of VARIANTS_FILE for both dtypes into
# CROQ_CACHE_DIR on this (CPU) machine, so a GPU run finds them in the build cache.
# Usage: tests/gpu/prebuild.sh BIN_DIR CACHE_DIR VARIANTS_FILE
set -eu
B=${1:?}; export CROQ_CACHE_DIR=${2:?}; VARIANTS=${3:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for dtype in f16 e4m3; do
  while IFS= read -r line; do
    case "$line" in ''|'#'*) continue ;; esac
    "$B/croqtuner" build --dtype $dtype --set "$line" --out "$tmp" >/dev/null &
    while [ "$(jobs -r | wc -l)" -ge 2 ]; do wait -n; done
  done < "$VARIANTS"
done
wait
