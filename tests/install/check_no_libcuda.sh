#!/usr/bin/env bash
# Fails if any given binary needs the CUDA driver library (libcuda) to start: minifuser loads
# the driver with dlopen at run time and must run, and say "no device", where it is absent.
set -euo pipefail
status=0
for bin in "$@"; do
  if readelf -d "$bin" | grep -E "NEEDED.*libcuda\.so" >/dev/null; then
    echo "check_no_libcuda: $bin links libcuda:"
    readelf -d "$bin" | grep NEEDED
    status=1
  fi
done
[ $status -eq 0 ] && echo "check_no_libcuda: $# binaries, none links libcuda"
exit $status
