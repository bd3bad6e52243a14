#!/usr/bin/env bash
# tools/build.sh [target...]: gets a Debian 12 machine ready and builds minifuser.
#   1. installs the Debian packages that are missing (apt-get update only then; needs root
#      or sudo): cmake g++ make libfmt-dev libgtest-dev libgmock-dev, and ccache, which is
#      optional (a failed install of it only prints a notice);
#   2. checks the CUDA toolkit (nvcc, NVRTC, headers; no GPU needed) and exits 1 with
#      instructions when it is absent;
#   3. sets up <build>/venv (nanobind, numpy, pytest) for the Python module, or builds
#      without the module, with a notice, when that cannot be done;
#   4. configures <repo>/build (reused when present) and builds it (all, or the targets).
#      CMakeLists.txt compiles through ccache when it is on the PATH; CCACHE_BASEDIR=<repo>
#      and CCACHE_NOHASHDIR=true (unless already set) make a clone in another folder hit
#      what earlier builds of the same sources cached.
# Runs from any working directory; tools/demo.sh and tools/test.sh start with it.
# Environment:
#   MINIFUSER_BUILD_DIR=dir           build folder (default <repo>/build)
#   MINIFUSER_JOBS=n                  parallel build jobs (default 2)
#   MINIFUSER_CMAKE_ARGS="..."        extra arguments for the first configure of the folder
#   MINIFUSER_SETUP_DRY_RUN=1         print (and simulate with apt-get -s) what would be
#                                     installed, install nothing, stop before building
#   MINIFUSER_SETUP_PRETEND_MISSING="pkg ..."  treat these packages as missing (to test step 1)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${MINIFUSER_BUILD_DIR:-$root/build}"
jobs="${MINIFUSER_JOBS:-2}"
dry_run="${MINIFUSER_SETUP_DRY_RUN:-0}"
packages=(cmake g++ make libfmt-dev libgtest-dev libgmock-dev)

say() { echo "minifuser: $*"; }
die() {
  echo "minifuser: error: $*" >&2
  exit 1
}

# ---- 1. Debian packages ---------------------------------------------------------------
installed() {
  [[ " ${MINIFUSER_SETUP_PRETEND_MISSING:-} " != *" $1 "* ]] &&
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'
}

if [[ $(id -u) -eq 0 ]]; then
  sudo=()
elif command -v sudo >/dev/null; then
  sudo=(sudo)
else
  sudo=(none)
fi
if command -v dpkg-query >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  missing=()
  for pkg in "${packages[@]}"; do
    installed "$pkg" || missing+=("$pkg")
  done
  updated=0
  if ((${#missing[@]})); then
    [[ ${sudo[*]} != none ]] ||
      die "missing packages: ${missing[*]}; run as root, or: apt-get install ${missing[*]}"
    if [[ $dry_run == 1 ]]; then
      say "dry run: would run: ${sudo[*]:+${sudo[*]} }apt-get update &&" \
          "${sudo[*]:+${sudo[*]} }apt-get install -y --no-install-recommends ${missing[*]}"
      apt-get -s install -y --no-install-recommends "${missing[@]}" | grep -E '^(Inst|Conf) |^[0-9]+ upgraded' || true
    else
      say "installing missing packages: ${missing[*]}"
      "${sudo[@]}" apt-get update
      "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
      updated=1
    fi
  fi
  # ccache only makes rebuilds faster: nothing fails without it.
  if ! installed ccache; then
    if [[ ${sudo[*]} == none ]]; then
      say "ccache is not installed (optional, speeds up rebuilds): apt-get install ccache"
    elif [[ $dry_run == 1 ]]; then
      say "dry run: would run: ${sudo[*]:+${sudo[*]} }apt-get install -y ccache (optional)"
    else
      say "installing ccache (optional)"
      { ((updated)) || "${sudo[@]}" apt-get update; } >/dev/null 2>&1 || true
      "${sudo[@]}" apt-get install -y --no-install-recommends ccache ||
        say "could not install ccache (optional): building without it"
    fi
  fi
else
  say "no dpkg (not Debian?): make sure these are installed: ${packages[*]} (and, optional, ccache)"
fi
# A clone in another folder shares the cache: ccache rewrites paths under the repository
# into relative ones and leaves the working directory out of the hash.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"

# ---- 2. CUDA toolkit --------------------------------------------------------------------
if ! command -v nvcc >/dev/null; then
  for dir in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
    if [[ -n $dir && -x $dir/bin/nvcc ]]; then
      export PATH="$dir/bin:$PATH"
      break
    fi
  done
fi
if ! command -v nvcc >/dev/null; then
  cat >&2 <<'MSG'
minifuser: error: the CUDA toolkit is required, and was not found (no nvcc on PATH, in
$CUDA_HOME or in /usr/local/cuda). minifuser compiles its kernels with NVRTC and needs the
toolkit's nvcc, NVRTC and headers to build, even its CPU-only tests; a GPU is not needed.
Install CUDA 13 (or 12) from NVIDIA's Debian 12 repository, as root:
  wget https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/cuda-keyring_1.1-1_all.deb
  dpkg -i cuda-keyring_1.1-1_all.deb && apt-get update && apt-get install -y cuda-toolkit-13-0
(or see https://developer.nvidia.com/cuda-downloads), then rerun this script; set CUDA_HOME
if the toolkit is not in /usr/local/cuda.
MSG
  exit 1
fi
cuda_root="$(cd "$(dirname "$(readlink -f "$(command -v nvcc)")")/.." && pwd)"
if ! compgen -G "$cuda_root/include/nvrtc.h" >/dev/null &&
   ! compgen -G "$cuda_root/targets/*/include/nvrtc.h" >/dev/null; then
  die "the CUDA toolkit in $cuda_root lacks NVRTC (nvrtc.h); install its NVRTC development" \
      "package (e.g. cuda-nvrtc-dev-13-0) or the whole cuda-toolkit-13-0"
fi
say "CUDA toolkit: $cuda_root ($(nvcc --version | grep -o 'release [0-9.]*'))"

if [[ $dry_run == 1 ]]; then
  say "dry run: stopping before configure and build"
  exit 0
fi

# ---- 3. the Python module's virtual environment ------------------------------------------
# The module (csrc/python, docs/python.md) needs nanobind to build and numpy and pytest for
# its tests: a venv in the build folder holds them. Without python3, or when pip cannot reach
# the registry, the build goes on without the module (one notice). The sanitizer build
# leaves the module out (CMakeLists.txt says why).
python_args=()
if [[ ${MINIFUSER_CMAKE_ARGS:-} == *MINIFUSER_SANITIZE=ON* ]]; then
  :
elif ! command -v python3 >/dev/null; then
  say "no python3: building without the Python module"
  python_args=(-DMINIFUSER_BUILD_PYTHON=OFF)
else
  venv="$build_dir/venv"
  if ! "$venv/bin/python" -c 'import nanobind, numpy, pytest' 2>/dev/null; then
    say "setting up $venv (nanobind, numpy, pytest) for the Python module"
    mkdir -p "$build_dir"
    if ! { python3 -m venv "$venv" >/dev/null &&
           "$venv/bin/python" -m pip install -q --disable-pip-version-check nanobind numpy pytest; }; then
      say "notice: could not set up $venv (no python3-venv, or pip cannot reach the registry):" \
          "building without the Python module"
      python_args=(-DMINIFUSER_BUILD_PYTHON=OFF)
    fi
  fi
  ((${#python_args[@]})) || python_args=(-DMINIFUSER_BUILD_PYTHON=ON -DPython_EXECUTABLE="$venv/bin/python")
fi

# ---- 4. configure and build -------------------------------------------------------------
# A new folder takes about 4.5 GB (release, with debug info) or 6 GB (the sanitizer build);
# a full disk shows up only as a failed link much later, so say it now.
if [[ ! -d $build_dir/tests ]]; then
  probe="$build_dir"
  until [[ -d $probe ]]; do probe="$(dirname "$probe")"; done
  free_gb=$(($(df -Pk "$probe" | awk 'NR == 2 { print $4 }') / 1024 / 1024))
  ((free_gb >= 7)) ||
    say "notice: only ${free_gb} GB free for $build_dir; a new build needs about 5 GB" \
        "(6 GB with MINIFUSER_SANITIZE=1)"
fi
if [[ -f $build_dir/CMakeCache.txt ]]; then
  cached_source="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build_dir/CMakeCache.txt")"
  [[ $cached_source == "$root" ]] ||
    die "$build_dir was configured for another source tree ($cached_source); remove it"
  say "reusing $build_dir"
  # A folder configured before the venv existed (or when it could not be made) follows now.
  for arg in "${python_args[@]}"; do
    grep -qxF "${arg#-D}" <(sed 's/:[A-Z]*=/=/' "$build_dir/CMakeCache.txt") ||
      { cmake "$build_dir" "${python_args[@]}" >/dev/null; break; }
  done
else
  cmake -S "$root" -B "$build_dir" -DCUDAToolkit_ROOT="$cuda_root" ${MINIFUSER_CMAKE_ARGS:-} \
    "${python_args[@]}"
fi
if (($#)); then
  cmake --build "$build_dir" -j "$jobs" --target "$@"
else
  cmake --build "$build_dir" -j "$jobs"
fi
