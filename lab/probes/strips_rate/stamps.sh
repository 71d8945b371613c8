#!/usr/bin/env bash
# On the device, after a build in build-device: which of flex_strips' six warps sets the
# step (stamp_warps.py's per-warp cycle sums), for one strip and for 2048^2, M = 3 and 31;
# strips.cu is restored afterwards (rebuild to leave the binary as committed).
# Usage: lab/probes/strips_rate/stamps.sh OUT
set -uo pipefail
out=${1:?}
here=lab/probes/strips_rate src=systems/iir2d/cuda/strips.cu
mkdir -p "$out"
cp "$src" "$out/strips.cu.orig"
python3 $here/stamp_warps.py "$src" &&
  cmake --build build-device --target splinebench -j "$(nproc)" > "$out/build-stamps.log" 2>&1 &&
  build-device/bin/splinebench run --suite-file $here/suite.json --impl flex_strips --machine h200 \
    --results-dir "$out/runs-stamps" --filter '/(1x2048|2048x2048)/' --repetitions 9 > "$out/run-stamps.log" 2>&1
grep "strips stamp" "$out/run-stamps.log" > "$out/stamps.txt"
cp "$out/strips.cu.orig" "$src"
