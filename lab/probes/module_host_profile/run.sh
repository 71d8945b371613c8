#!/usr/bin/env bash
# Host time of the module's device path without a GPU (device_path_host_time.py says how):
#   lab/probes/module_host_profile/run.sh BUILD/python [BUILD/python ...]   (each: a build's <build>/python)
# Runs each given module three times, interleaved. PYTHON (default python3) needs NumPy.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lib=$(mktemp -d)
trap 'rm -rf "$lib"' EXIT
echo 'libcudart.so.13 { global: *; };' > "$lib/version.map"
cc -O2 -shared -fPIC -w -o "$lib/libcudart.so.13" "$here/cudart_stub.c" \
  -Wl,--version-script="$lib/version.map" -Wl,-soname,libcudart.so.13
for run in 1 2 3; do
  for module in "$@"; do
    echo "== run $run: $module"
    OPENBLAS_NUM_THREADS=1 LD_LIBRARY_PATH="$lib" "${PYTHON:-python3}" "$here/device_path_host_time.py" "$module"
  done
done
