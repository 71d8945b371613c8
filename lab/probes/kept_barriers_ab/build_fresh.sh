#!/usr/bin/env bash
# bench_gpu_prefilter with the barriers initialised per tile, built from a copy of this
# tree beside the product build, for an interleaved A/B on one device. The variant is a
# patch made where git is (the device's copy has no .git): 6fe5836 is the last commit on
# main whose barriers are initialised per tile, b90a2ba the first that keeps them:
#   git diff b90a2ba 6fe5836 -- impls/gpu_common/flex > fresh_barriers.patch
# Usage: build_fresh.sh PATCH DIR (the bench at DIR/build/bin/bench_gpu_prefilter).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
patch_file=$(realpath "${1:?usage: build_fresh.sh PATCH DIR}") dest=${2:?usage: build_fresh.sh PATCH DIR}
mkdir -p "$dest" && dest=$(cd "$dest" && pwd)
rm -rf "$dest/src" && mkdir -p "$dest/src"
tar -C "$root" --exclude='./build*' --exclude=./.venv --exclude=./.cache --exclude=./results \
  --exclude=./lab/evidence -cf - . | tar -C "$dest/src" -xf -
(cd "$dest/src" && patch -p1 --quiet < "$patch_file")
deps="$root/.deps/usr"
cmake -S "$dest/src" -B "$dest/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" > "$dest/configure.log"
cmake --build "$dest/build" -j "${JOBS:-$(nproc)}" --target bench_gpu_prefilter > "$dest/build.log"
