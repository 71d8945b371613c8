#!/usr/bin/env bash
# Same-session A/B of the GPU prefilter benchmark: the product's bench_gpu_prefilter
# against the one built from an older source tree (carried as .ab-base/, e.g.
# `git archive <rev> CMakeLists.txt impls harness datasets bench tests tools | tar -C .ab-base -x`),
# run alternately so that both see the same card state.
# Usage on the GPU machine: lab/ab_prefilter.sh OUT_DIR [ROUNDS]   (after tools/device/checks.sh built HEAD)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: lab/ab_prefilter.sh OUT_DIR [ROUNDS]}
rounds=${2:-3}
mkdir -p "$out"
deps="$root/.deps/usr"
export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
base_build="$root/.ab-base/build"
if [[ ! -x $base_build/bin/bench_gpu_prefilter ]]; then
  cmake -S "$root/.ab-base" -B "$base_build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" > "$out/base-build.log" 2>&1
  cmake --build "$base_build" -j "$(nproc)" --target bench_gpu_prefilter >> "$out/base-build.log" 2>&1
fi
head_bin="$root/${BUILD_DIR:-build-device}/bin/bench_gpu_prefilter"
for r in $(seq 1 "$rounds"); do
  "$base_build/bin/bench_gpu_prefilter" --out "$out/base-$r.json" --machine h100 > "$out/base-$r.log" 2>&1
  "$head_bin" --out "$out/head-$r.json" --machine h100 > "$out/head-$r.log" 2>&1
done
