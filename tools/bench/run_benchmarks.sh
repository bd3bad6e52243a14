#!/usr/bin/env bash
# Builds and runs the benchmarks on a GPU machine and prints the comparison with memcpy,
# PyTorch eager and torch.compile measured in the same run. Usage: tools/bench/run_benchmarks.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${MINIFUSER_GPU_BUILD:-$root/build-gpu}"
cmake -S "$root" -B "$build" >/dev/null
cmake --build "$build" -j"$(nproc)" --target layout_op_bench quantize_bench pointwise_bench \
  reduction_bench persistent_bench shape_bench transpose_bench >/dev/null
"$build/tools/layout_op_bench" | tee "$build/layout_op_bench.txt"
python3 "$root/tools/bench/compare_layout_op.py" < "$build/layout_op_bench.txt"
"$build/tools/quantize_bench" | tee "$build/quantize_bench.txt"
python3 "$root/tools/bench/compare_quantize.py" < "$build/quantize_bench.txt"
"$build/tools/pointwise_bench" | tee "$build/pointwise_bench.txt"
python3 "$root/tools/bench/compare_pointwise.py" < "$build/pointwise_bench.txt"
"$build/tools/reduction_bench" | tee "$build/reduction_bench.txt"
python3 "$root/tools/bench/compare_reduction.py" < "$build/reduction_bench.txt"
"$build/tools/persistent_bench" | tee "$build/persistent_bench.txt"
python3 "$root/tools/bench/compare_persistent.py" < "$build/persistent_bench.txt"
"$build/tools/shape_bench" | tee "$build/shape_bench.txt"
python3 "$root/tools/bench/compare_shape.py" < "$build/shape_bench.txt"
"$build/tools/transpose_bench" | tee "$build/transpose_bench.txt"
python3 "$root/tools/bench/compare_transpose.py" < "$build/transpose_bench.txt"
