#!/usr/bin/env bash
# Usage: run_consumer_test.sh <build dir> <tmp dir> [cmake arguments for the consumer...]
# Installs the built minifuser into <tmp dir>/prefix, then configures, builds and runs the
# user project tests/install/consumer against that prefix alone. Run by ctest
# (install_consumer); the build must be complete.
set -euo pipefail

build_dir=$1
tmp_dir=$2
shift 2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$(cd "$here/../.." && pwd)"
prefix="$tmp_dir/prefix"

fail() {
  echo "install_consumer: FAIL: $*" >&2
  exit 1
}

rm -rf "$tmp_dir"
mkdir -p "$tmp_dir"

echo "== cmake --install $build_dir --prefix $prefix"
cmake --install "$build_dir" --prefix "$prefix" >"$tmp_dir/install.log" ||
  { cat "$tmp_dir/install.log"; fail "cmake --install failed"; }

for f in include/minifuser/minifuser.h include/minifuser/ir/fusion.h \
         include/minifuser/testing/segmentation.h \
         lib/cmake/minifuser/minifuserConfig.cmake \
         lib/cmake/minifuser/minifuserConfigVersion.cmake; do
  [[ -f "$prefix/$f" ]] || fail "$f was not installed"
done
compgen -G "$prefix/lib*/libmf_support.a" >/dev/null || fail "libmf_support.a was not installed"
if grep -rq 'mf_warnings\|mf_runtime_sources' "$prefix"/lib*/cmake/minifuser; then
  fail "the exported targets name a build-only target (mf_warnings or mf_runtime_sources)"
fi

echo "== configure and build tests/install/consumer"
cmake -S "$here/consumer" -B "$tmp_dir/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON "$@"
cmake --build "$tmp_dir/build" -j 2

# The consumer must compile against the installed headers, never the source tree's.
if grep -q -- "$source_dir/csrc" "$tmp_dir/build/compile_commands.json"; then
  fail "the consumer was compiled with the source tree's csrc/ on its include path"
fi

echo "== run the consumer"
"$tmp_dir/build/consumer" | tee "$tmp_dir/output.txt"
grep -q 'relu(T3)' "$tmp_dir/output.txt" || fail "printMath output missing 'relu(T3)'"
grep -q '^consumer: OK$' "$tmp_dir/output.txt" || fail "the consumer's check did not pass"

echo "== run docs/segmenter.md's example (segmentation_test)"
"$tmp_dir/build/segmentation_test" || fail "segmentation_test (docs/segmenter.md's example) failed"
echo "install_consumer: OK"
