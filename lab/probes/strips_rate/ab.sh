#!/usr/bin/env bash
# On the device, after a build in build-device: flex_strips's step rate (suite.json) with
# the committed constants, then with each variant of strips.cu's constants rebuilt in turn.
# Usage: lab/probes/strips_rate/ab.sh OUT "NAME:sed-expression" ...
set -uo pipefail
out=${1:?}; shift
here=lab/probes/strips_rate src=systems/iir2d/cuda/strips.cu
mkdir -p "$out"
cp "$src" "$out/strips.cu.orig"
run() {  # label
  build-device/bin/splinebench run --suite-file $here/suite.json --impl flex_strips --machine h200 \
    --results-dir "$out/runs-$1" > "$out/run-$1.log" 2>&1
  python3 $here/summarise.py "$out/runs-$1" "$1"
}
run base
for v in "$@"; do
  name=${v%%:*} expr=${v#*:}
  cp "$out/strips.cu.orig" "$src" && sed -i "$expr" "$src"
  cmake --build build-device --target splinebench -j "$(nproc)" > "$out/build-$name.log" 2>&1 || { echo "$name: build failed"; continue; }
  run "$name"
done
cp "$out/strips.cu.orig" "$src"
