#!/usr/bin/env bash
# tools/bench/layout_tile_lab.sh [edited_layout_op.cuh]: builds tools/bench/layout_tile_lab.cu
# with nvcc (seconds, no project build) and runs it: the copy and the tile form of
# runtime/layout_op.cuh on layout_op_bench's cases; given a copy of that file, edited, builds
# the harness a second time with it and runs both, so that a variant is timed against the
# current code in one device call. Output folder: $MINIFUSER_LAB_DIR (default /tmp/layout_lab).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${MINIFUSER_LAB_DIR:-/tmp/layout_lab}"
mkdir -p "$out"
nvcc -O3 -std=c++17 -arch=sm_90 "$root/tools/bench/layout_tile_lab.cu" -o "$out/lab_current"
if (($#)); then
  nvcc -O3 -std=c++17 -arch=sm_90 -DMF_LAB_LAYOUT_OP="\"$(realpath "$1")\"" \
    "$root/tools/bench/layout_tile_lab.cu" -o "$out/lab_edited"
fi
"$out/lab_current"
if (($#)); then "$out/lab_edited"; fi
