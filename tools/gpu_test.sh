#!/usr/bin/env bash
# One command for the GPU machine: builds minifuser there, then runs, in order, the steps of
# MINIFUSER_GPU_STEPS (default "ctest python sanitizer random bench"):
#   ctest      the GPU tests (ctest label `gpu`), summary and skipped count
#   python     the Python frontend with CUDA torch tensors (tests/python/test_gpu.py) and its
#              host overhead against C++ and torch.compile (tools/bench/python_overhead.py);
#              the module builds when python3 has nanobind (pytest and torch to run)
#   sanitizer  compute-sanitizer memcheck and racecheck over the reduction tests (the ported
#              nvFuser schedules, the persistent and inner-outer ones included) and the
#              transpose tests
#   random     10,000 random pointwise fusions, then 10,000 with reductions, then 10,000
#              with shape ops (reshape, squeeze, expand, permute, pad, slice, cat, size-0
#              axes), on the GPU against the CPU reference (MINIFUSER_RANDOM_FUSIONS,
#              MINIFUSER_RANDOM_REDUCTION_FUSIONS, MINIFUSER_RANDOM_SHAPE_FUSIONS set the
#              counts; each prints its fusion, mismatch and error counts)
#   bench      tools/bench/run_benchmarks.sh (the tables against copy, eager, torch.compile)
# Each step's log goes to the build folder. Usage (from anywhere): tools/gpu_test.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MINIFUSER_GPU_BUILD:-$root/build-gpu}"
export MINIFUSER_GPU_BUILD="$build"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPython_EXECUTABLE="$(command -v python3 || echo python3)" >/dev/null
cmake --build "$build" -j"$(nproc)"
export MINIFUSER_CACHE_DIR="$build/kernel-cache"
status=0

step_ctest() {
  ctest --test-dir "$build" -L gpu --output-on-failure -j4 | tee "$build/gpu_ctest.log" || status=1
  # Counted separately, so a skip is never mistaken for a pass.
  echo "tools/gpu_test.sh: gpu tests skipped: $(grep -c "Skipped" "$build/gpu_ctest.log" || true)"
}

# Barriers and shared slots of the block reductions and of the layout op's tile form
# (racecheck), the grid reduction's work buffer and semaphores and the layout op's writes
# for bad offsets (memcheck): each must report 0 errors.
step_sanitizer() {
  command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer: not installed"; return; }
  # MINIFUSER_SANITIZER_TIMEOUT (seconds per run, default none) and MINIFUSER_SANITIZER_FILTER
  # (a --gtest_filter) bound a run; a run cut short says so and fails the step.
  local tool t log rc
  for tool in memcheck racecheck; do
    for t in ${MINIFUSER_SANITIZER_TESTS:-test_reduction_gpu test_reduction_scheduler_gpu test_persistent_gpu test_inner_outer_gpu test_transpose_gpu test_lowering_ports_gpu}; do
      log="$build/sanitizer.$tool.$t.log"
      rc=0
      timeout "${MINIFUSER_SANITIZER_TIMEOUT:-0}" compute-sanitizer --tool "$tool" --error-exitcode 1 \
        "$build/tests/$t" --gtest_filter="${MINIFUSER_SANITIZER_FILTER:-*}" > "$log" 2>&1 || rc=$?
      [ "$rc" -eq 0 ] || status=1
      [ "$rc" -eq 124 ] && echo "compute-sanitizer --tool $tool $t: timed out"
      echo "compute-sanitizer --tool $tool $t: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 1) ($(grep -cE "^\[       OK \]" "$log") tests passed, $(grep -cE "^\[  FAILED  \] [A-Za-z]" "$log") failed)"
    done
    # The layout op's tile form (shared staging, one barrier), its bad-offset runs and the
    # block quantizations (whole-block loads and stores, the grouped scales' bounds).
    log="$build/sanitizer.$tool.layout.log"
    rc=0
    timeout "${MINIFUSER_SANITIZER_TIMEOUT:-0}" compute-sanitizer --tool "$tool" --error-exitcode 1 \
      "$build/tests/test_gpu" --gtest_filter='LayoutOpGpu.TileFormMatchesReferenceSmall:LayoutOpGpu.*Bad*:Fp4Gpu.*' \
      > "$log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || status=1
    echo "compute-sanitizer --tool $tool layout op: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 1)"
  done
}

# <name> <count> [--reductions]: in 8 processes of consecutive seeds (each compiles its own
# kernels with NVRTC), device inputs, poisoned outputs.
random_fusions() {
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
step_random() {
  random_fusions random_fusions "${MINIFUSER_RANDOM_FUSIONS:-10000}"
  random_fusions random_fusions_reductions "${MINIFUSER_RANDOM_REDUCTION_FUSIONS:-10000}" --reductions
  random_fusions random_fusions_shape_ops "${MINIFUSER_RANDOM_SHAPE_FUSIONS:-10000}" --shape-ops
}

step_python() {
  [[ -f $build/python/minifuser/__init__.py ]] || {
    echo "python: the module was not built (python3 needs nanobind)"; status=1; return; }
  PYTHONPATH="$build/python" python3 -m pytest -q -p no:cacheprovider -rs -m gpu \
    "$root/tests/python/test_gpu.py" 2>&1 | tee "$build/gpu_python.log" || status=1
  PYTHONPATH="$build/python" python3 "$root/tools/bench/python_overhead.py" "$build" 2>&1 |
    tee "$build/python_overhead.txt" || status=1
}

step_bench() {
  "$root/tools/bench/run_benchmarks.sh" || status=1
}

for step in ${MINIFUSER_GPU_STEPS:-ctest python sanitizer random bench}; do
  case "$step" in
    ctest | python | sanitizer | random | bench) "step_$step" ;;
    *) echo "tools/gpu_test.sh: unknown step '$step' (ctest, python, sanitizer, random, bench)"; exit 2 ;;
  esac
done
exit $status
