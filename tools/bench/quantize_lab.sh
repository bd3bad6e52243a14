#!/usr/bin/env bash
# tools/bench/quantize_lab.sh [old]: builds tools/bench/quantize_lab.cu with nvcc
# (seconds, no project build) and runs it: the copy and thread mappings of
# groupedBlockQuantize's kernel on quantize_bench's cases. With `old`, tools/bench/lab_old/
# holds copies of runtime/fp4.cuh, layout_op.cuh and block_quantize.cuh from before a change
# (make them with `mkdir -p tools/bench/lab_old && for f in fp4.cuh layout_op.cuh
# block_quantize.cuh; do git show REV:runtime/$f > tools/bench/lab_old/$f; done`; the folder
# is not committed): the lab also runs that runtime (`old`) and
# checks the current one against it byte for byte. Output
# folder: $MINIFUSER_LAB_DIR (default /tmp/quantize_lab).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${MINIFUSER_LAB_DIR:-/tmp/quantize_lab}"
mkdir -p "$out"
old=()
if [ "${1:-}" = old ]; then old=(-DMF_LAB_OLD); fi
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v "${old[@]}" "$root/tools/bench/quantize_lab.cu" \
  -o "$out/lab" 2> "$out/ptxas.txt"
grep -E "registers" "$out/ptxas.txt" || true
"$out/lab"
