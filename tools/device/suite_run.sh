#!/usr/bin/env bash
# On the GPU machine: builds `splinebench` and runs the GPU suites through the harness
# (oracle-checked records, the same schema as every other run), then packs the run
# folders into $OUT/results-<machine>.tar.gz for committing under results/<machine>/.
# Usage there: MACHINE=h100 tools/device/suite_run.sh   (SUITES default: "gpu thesis ruijters")
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
machine=${MACHINE:-h100}
out=${OUT:-$root/suite-run}
mkdir -p "$out"
deps="$root/.deps/usr"
export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" \
  > "$out/build.log" 2>&1
cmake --build build-device -j "$(nproc)" --target splinebench >> "$out/build.log" 2>&1 ||
  { tail -40 "$out/build.log"; exit 1; }
bin=build-device/bin/splinebench
"$bin" list | tee "$out/list.txt"
rm -rf "results/$machine.device"
status=0
for suite in ${SUITES:-gpu thesis ruijters}; do
  impl_args=()
  # cpu_scalar takes minutes on the 64^4 thesis rows; on the GPU machine the thesis and
  # ruijters suites compare the GPU implementations with cpu_sse (the thesis' own CPU
  # baseline: SSE, one core) and cpu_simd (all cores).
  [[ $suite != gpu ]] && impl_args=(--impl "${IMPLS:-cpu_sse,cpu_simd,gpu_naive,gpu_texture,gpu_texture_binned,gpu_flex,gpu_flex_fixed}")
  "$bin" run --suite "$suite" --results-dir "results/$machine.device" --machine "$machine" \
    --threads "$(nproc)" "${impl_args[@]}" 2>&1 | tee "$out/run-$suite.log" || status=1
done
tar -C "results/$machine.device/$machine" --exclude=.partial -czf "$out/results-$machine.tar.gz" .
exit $status
