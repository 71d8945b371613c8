#!/usr/bin/env bash
# On the GPU machine (no package registry): configure and build against the unpacked
# packages in .deps/ (made by tools/device/make_deps.sh here and carried along).
# Usage there: tools/device/build.sh [build-dir]   (default build-device)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build-device}
deps="$root/.deps/usr"
export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cmake -S "$root" -B "$root/$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" \
  -DCMAKE_INCLUDE_PATH="$deps/include" >/dev/null
cmake --build "$root/$build" -j "$(nproc)"
