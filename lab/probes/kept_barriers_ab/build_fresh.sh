#!/usr/bin/env bash
# bench_gpu_prefilter with the barriers initialised per tile (fresh_barriers.patch: the
# code before the kept barriers), built from a copy of this tree beside the product build,
# for an interleaved A/B on one device. Usage: build_fresh.sh DIR (DIR/build/bin/...).
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
dest=${1:?usage: build_fresh.sh DIR}
mkdir -p "$dest" && dest=$(cd "$dest" && pwd)
rm -rf "$dest/src" && mkdir -p "$dest/src"
tar -C "$root" --exclude='./build*' --exclude=./.venv --exclude=./.cache --exclude=./results \
  --exclude=./lab/evidence -cf - . | tar -C "$dest/src" -xf -
(cd "$dest/src" && patch -p1 --quiet < lab/probes/kept_barriers_ab/fresh_barriers.patch)
deps="$root/.deps/usr"
cmake -S "$dest/src" -B "$dest/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" > "$dest/configure.log"
cmake --build "$dest/build" -j "${JOBS:-$(nproc)}" --target bench_gpu_prefilter > "$dest/build.log"
