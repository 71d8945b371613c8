#!/usr/bin/env bash
# From the repository root on the GPU machine: compiles smoke.cu with gpu_lines' own sources
# and the few core and CUDA-support sources they need (no CMake: a bare machine runs it
# in about a minute), runs it. Usage: lab/probes/gpu_lines_smoke/run.sh OUT
set -euo pipefail
out=${1:?usage: run.sh OUT}
mkdir -p "$out"
obj=/tmp/gpu_lines_smoke_obj
rm -rf "$obj" && mkdir -p "$obj"
inc="-Iimpls -Iimpls/core/include -Iimpls/cuda_support/include"
pids=()
for f in impls/core/src/*.cpp impls/cuda_support/src/*.cpp impls/gpu_lines/lines_plan.cpp; do
  nvcc -O2 -std=c++20 $inc -Xcompiler -fopenmp -c "$f" -o "$obj/$(echo "$f" | tr / _).o" > "$obj/$(basename "$f").log" 2>&1 &
  pids+=($!)
done
for f in lab/probes/gpu_lines_smoke/smoke.cu impls/gpu_lines/lines_kernels.cu; do
  nvcc -O3 -arch=sm_90 -std=c++20 $inc -c "$f" -o "$obj/$(basename "$f").o" > "$obj/$(basename "$f").log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || { cat "$obj"/*.log | tail -40; exit 1; }; done
nvcc -arch=sm_90 "$obj"/*.o -Xcompiler -fopenmp -o /tmp/gpu_lines_smoke > "$out/link.log" 2>&1 || { tail -30 "$out/link.log"; exit 1; }
/tmp/gpu_lines_smoke | tee "$out/smoke.txt"
