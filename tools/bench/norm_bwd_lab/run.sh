#!/usr/bin/env bash
# tools/bench/norm_bwd_lab/run.sh: writes the inner-outer scheduler's kernels for bf16 layer norm
# backward of [32Ki, 4096] with build/tools/norm_bwd_lab_kernels (CPU only; build that target
# first): as the heuristics make it (k_gen), with project_to_inputs (k_projgen), and with the
# column sums in shared memory too at 2, 3 and 4 blocks per SM (k_smem2, k_smem3, k_smem4).
# Then builds norm_bwd_lab.cu with nvcc (seconds; static cudart, so a binary built here also
# runs on the GPU machine) and runs it when a GPU is there: the generated kernels and
# hand-written variants, each checked against k_gen, which is checked against the formula on
# the host. Output folder: $MINIFUSER_LAB_DIR (default /tmp/norm_bwd_lab).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${MINIFUSER_LAB_DIR:-/tmp/norm_bwd_lab}"
gen="${MINIFUSER_BUILD_DIR:-$here/../../../build}/tools/norm_bwd_lab_kernels"
mkdir -p "$out"
"$gen" k_gen 0 0 2 > "$out/k_gen.cuh"
"$gen" k_projgen 1 0 2 > "$out/k_projgen.cuh"
for n in 2 3 4; do "$gen" "k_smem$n" 1 1 "$n" > "$out/k_smem$n.cuh"; done
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I"$out" "$here/norm_bwd_lab.cu" -o "$out/lab" \
  2> "$out/ptxas.txt"
grep -E "registers|spill" "$out/ptxas.txt" | paste - - || true
if command -v nvidia-smi > /dev/null && nvidia-smi > /dev/null 2>&1; then "$out/lab"; fi
