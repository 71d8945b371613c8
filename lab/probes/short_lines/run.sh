#!/usr/bin/env bash
# On the device machine, from the repository root, once build-device exists (its core
# library is built here if missing): compiles the probe (ptxas -v kept), runs it, and keeps
# its output. Exit status: the probe's (1 on an accuracy failure).
#   lab/probes/short_lines/run.sh OUT   ->  OUT/short_lines.txt, OUT/ptxas.txt
set -euo pipefail
mkdir -p "${1:?usage: run.sh OUT}"
out=$(cd "$1" && pwd)
root=$(pwd)
lib=$root/build-device/impls/core/libsplinebench_core.a
[ -f "$lib" ] || cmake --build "$root/build-device" --target splinebench_core
cd "$root/lab/probes/short_lines"
nvcc -O3 -arch=sm_90 -std=c++20 -I"$root/impls/core/include" short_lines.cu "$lib" -Xcompiler -fopenmp \
  -Xptxas -v -o /tmp/short_lines >"$out/ptxas.txt" 2>&1 || { tail -50 "$out/ptxas.txt"; exit 1; }
{ echo "commit $(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"; /tmp/short_lines "${@:2}"; } 2>&1 | tee "$out/short_lines.txt"
