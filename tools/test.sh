#!/usr/bin/env bash
# tools/test.sh: builds minifuser (tools/build.sh) and runs every test not labelled `gpu`
# (those need a device: tools/gpu_test.sh runs them on a GPU machine). Prints ctest's
# summary, then counts in which a skipped test is not a passed one. Exits non-zero when a
# test fails. .ci/run runs this.
# MINIFUSER_SANITIZE=1 runs the same suite in a Debug build with AddressSanitizer and
# UndefinedBehaviorSanitizer (folder build-asan; any report fails the test).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [[ ${MINIFUSER_SANITIZE:-0} == 1 ]]; then
  export MINIFUSER_BUILD_DIR="${MINIFUSER_BUILD_DIR:-$root/build-asan}"
  export MINIFUSER_CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Debug -DMINIFUSER_SANITIZE=ON"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
  export ASAN_OPTIONS="detect_leaks=1"
fi
build_dir="${MINIFUSER_BUILD_DIR:-$root/build}"

"$root/tools/build.sh"
[[ ${MINIFUSER_SETUP_DRY_RUN:-0} == 1 ]] && exit 0

log="$build_dir/Testing/test_sh.log"
mkdir -p "$(dirname "$log")"
status=0
ctest --test-dir "$build_dir" --output-on-failure --no-tests=error -LE gpu \
  -j "${MINIFUSER_JOBS:-2}" 2>&1 | tee "$log" || status=$?

total=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$log" || true)
passed=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed ' "$log" || true)
skipped=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' "$log" || true)
echo "tools/test.sh: $passed passed, $skipped skipped (did not run), $((total - passed - skipped))" \
     "failed, of $total tests run without label gpu"
exit "$status"
