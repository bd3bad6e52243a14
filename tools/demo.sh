#!/usr/bin/env bash
# tools/demo.sh: builds minifuser (tools/build.sh: installs missing Debian packages, checks
# the CUDA toolkit, builds into <repo>/build) and runs the demo, build/tools/minifuser_demo:
# fusions built, printed, evaluated (the automatic path: compiled, then run on the GPU or
# the CPU reference) and checked. Exits non-zero on failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${MINIFUSER_BUILD_DIR:-$root/build}"

"$root/tools/build.sh" minifuser_demo
[[ ${MINIFUSER_SETUP_DRY_RUN:-0} == 1 ]] && exit 0
"$build_dir/tools/minifuser_demo"
