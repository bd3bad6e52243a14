#!/usr/bin/env bash
# One command for the GPU machine: builds minifuser there and runs the GPU tests (ctest label
# `gpu`), printing the ctest summary. Usage (from the repo root): tools/gpu_test.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MINIFUSER_GPU_BUILD:-$root/build-gpu}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target test_gpu test_cuda_gpu test_executor test_codegen
export MINIFUSER_CACHE_DIR="$build/kernel-cache"
ctest --test-dir "$build" -L gpu --output-on-failure -j4 | tee "$build/gpu_ctest.log"
# Counted separately, so a skip is never mistaken for a pass.
skipped=$(grep -c "Skipped" "$build/gpu_ctest.log" || true)
echo "tools/gpu_test.sh: gpu tests skipped: $skipped"
