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
# compute-sanitizer over the reduction tests: barriers and shared slots of the block
# reductions (racecheck), the grid reduction's work buffer and semaphores (memcheck); each
# must report 0 errors. Skip with MINIFUSER_SKIP_SANITIZER=1.
if [ "${MINIFUSER_SKIP_SANITIZER:-0}" = "0" ] && command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    for t in ${MINIFUSER_SANITIZER_TESTS:-test_reduction_gpu test_reduction_scheduler_gpu test_persistent_gpu}; do
      log="$build/sanitizer.$tool.$t.log"
      compute-sanitizer --tool "$tool" --error-exitcode 1 "$build/tests/$t" > "$log" 2>&1 || status=1
      echo "compute-sanitizer --tool $tool $t: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 1) ($(grep -cE "^\[       OK \]" "$log") tests passed)"
    done
  done
fi
# Random fusions (default 10,000 pointwise, then 10,000 with reductions) through
# FusionExecutorCache against the reference, in 8 processes of consecutive seeds (each
# compiles its own kernels with NVRTC).
random_fusions() {  # random_fusions <name> <count> [--reductions]
  local name=$1 count=$2 flag=${3:-} chunk p
  [ "$count" -gt 0 ] || return 0
  chunk=$(( (count + 7) / 8 ))
  for p in 0 1 2 3 4 5 6 7; do
    "$build/tests/random_fusions" $flag "$chunk" $((p * chunk)) > "$build/$name.$p.log" 2>&1 &
  done
  wait || true
  { grep -h "^seed" "$build"/$name.*.log || true; } | head -n 40 || true
  awk -v name="$name" '/^random_fusions:/ {n+=$2; r+=$4; f+=$6; m+=$8; e+=$10}
       END {printf "%s: %d fusions, %d ran, %d refused, %d mismatches, %d errors\n", name, n, r, f, m, e;
            exit (m + e > 0)}' "$build"/$name.*.log || status=1
}
random_fusions random_fusions "${MINIFUSER_RANDOM_FUSIONS:-10000}"
random_fusions random_fusions_reductions "${MINIFUSER_RANDOM_REDUCTION_FUSIONS:-10000}" --reductions
# Counted separately, so a skip is never mistaken for a pass.
skipped=$(grep -c "Skipped" "$build/gpu_ctest.log" || true)
echo "tools/gpu_test.sh: gpu tests skipped: $skipped"
if [ "${MINIFUSER_SKIP_BENCH:-0}" = "0" ]; then
  "$root/tools/bench/run_benchmarks.sh" || status=1
fi
exit $status
