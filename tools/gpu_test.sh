#!/usr/bin/env bash
# One command for the GPU machine: builds minifuser there, runs the GPU tests (ctest label
# `gpu`) and then the benchmarks (skip them with MINIFUSER_SKIP_BENCH=1), printing the ctest
# summary and the benchmark table. Usage (from anywhere): tools/gpu_test.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MINIFUSER_GPU_BUILD:-$root/build-gpu}"
export MINIFUSER_GPU_BUILD="$build"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"
export MINIFUSER_CACHE_DIR="$build/kernel-cache"
status=0
ctest --test-dir "$build" -L gpu --output-on-failure -j4 | tee "$build/gpu_ctest.log" || status=1
# Random pointwise fusions (default 10,000) through FusionExecutorCache against the reference,
# in 8 processes of consecutive seeds (each compiles its own kernels with NVRTC).
count="${MINIFUSER_RANDOM_FUSIONS:-10000}"
if [ "$count" -gt 0 ]; then
  chunk=$(( (count + 7) / 8 ))
  for p in 0 1 2 3 4 5 6 7; do
    "$build/tests/random_fusions" "$chunk" $((p * chunk)) > "$build/random_fusions.$p.log" 2>&1 &
  done
  wait || true
  { grep -h "^seed" "$build"/random_fusions.*.log || true; } | head -n 40 || true
  awk '/^random_fusions:/ {n+=$2; r+=$4; f+=$6; m+=$8; e+=$10}
       END {printf "random_fusions: %d fusions, %d ran, %d refused, %d mismatches, %d errors\n", n, r, f, m, e;
            exit (m + e > 0)}' "$build"/random_fusions.*.log || status=1
fi
# compute-sanitizer over the reduction tests: barriers and shared slots of the block
# reductions (racecheck), the grid reduction's work buffer and semaphores (memcheck). Skip
# with MINIFUSER_SKIP_SANITIZER=1.
if [ "${MINIFUSER_SKIP_SANITIZER:-0}" = "0" ] && command -v compute-sanitizer >/dev/null; then
  for tool in racecheck memcheck; do
    for t in test_reduction_gpu test_reduction_scheduler_gpu; do
      log="$build/sanitizer.$tool.$t.log"
      compute-sanitizer --tool "$tool" --error-exitcode 1 "$build/tests/$t" > "$log" 2>&1 || status=1
      echo "compute-sanitizer $tool $t: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 1)"
    done
  done
fi
# Counted separately, so a skip is never mistaken for a pass.
skipped=$(grep -c "Skipped" "$build/gpu_ctest.log" || true)
echo "tools/gpu_test.sh: gpu tests skipped: $skipped"
if [ "${MINIFUSER_SKIP_BENCH:-0}" = "0" ]; then
  "$root/tools/bench/run_benchmarks.sh" || status=1
fi
exit $status
