#!/usr/bin/env bash
# On the GPU machine (configures build-device if it is not there): apply_rows at 256^3 (the CG iteration
# test's problem) with parts of its work compiled out, to say where its time goes:
#   all   R p and F^T y (the shipped kernel)
#   r     R p only (the F^T y fill and reduction compiled out)
#   ft    F^T y only (apply_rows_kernel<false>, as for lambda = 0)
#   none  neither: the march, the plane loads' bookkeeping and the store
# parts.patch is applied for the build and reverted after it.
# Usage: lab/probes/apply_rows_parts/run.sh OUT
set -uo pipefail
out=${1:?usage: run.sh OUT}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
git apply lab/probes/apply_rows_parts/parts.patch || exit 1
trap 'git -C "$root" apply -R lab/probes/apply_rows_parts/parts.patch' EXIT
deps=$root/.deps/usr
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -f build-device/CMakeCache.txt ] || cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DSPLINEBENCH_TEST_IMPLS=ON -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" \
  -DCMAKE_INCLUDE_PATH="$deps/include" > "$out/configure.log" 2>&1
cmake --build build-device --target test_scattered_gpu_operator -j "$(nproc)" > "$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
for round in 1 2; do
  for parts in all r ft none; do
    SB_APPLY_PARTS=$parts build-device/tests/test_scattered_gpu_operator --gtest_filter='GpuOperatorLarge.CgIteration*' \
      > "$out/$parts-$round.txt" 2>&1
    echo "$parts r$round: $(grep -E '^  apply_rows:' "$out/$parts-$round.txt")"
  done
done | tee "$out/parts.txt"
