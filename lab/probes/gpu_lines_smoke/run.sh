#!/usr/bin/env bash
# From the repository root on the GPU machine: compiles smoke.cu with gpu_lines' own sources
# and the few core and CUDA-support sources they need (no CMake: a bare machine runs it
# in about a minute), runs it. Usage: lab/probes/gpu_lines_smoke/run.sh OUT
# Environment: BIN (the binary, default /tmp/gpu_lines_smoke), PATCH (a patch applied to a
# copy of impls/gpu_lines/lines_kernels.cu for this binary), LINES_FLAGS (more nvcc flags for
# that file), NORUN=1 (build only), SRC_OVERRIDE (a folder laid out like impls/ whose
# gpu_lines/ files replace the tree's: other versions of the kernels and their headers).
set -euo pipefail
out=${1:?usage: run.sh OUT}
mkdir -p "$out"
bin=${BIN:-/tmp/gpu_lines_smoke}
obj=$bin.obj
rm -rf "$obj" && mkdir -p "$obj"
inc="-Iimpls -Iimpls/core/include -Iimpls/cuda_support/include"
kernels=impls/gpu_lines/lines_kernels.cu
if [[ -n ${SRC_OVERRIDE:-} ]]; then
  inc="-I$SRC_OVERRIDE $inc"
  [[ -f $SRC_OVERRIDE/gpu_lines/lines_kernels.cu ]] && kernels=$SRC_OVERRIDE/gpu_lines/lines_kernels.cu
fi
if [[ -n ${PATCH:-} ]]; then
  mkdir -p "$obj/src/impls/gpu_lines" && cp "$kernels" "$obj/src/$kernels"
  patch -s -d "$obj/src" -p1 < "$PATCH"
  kernels=$obj/src/$kernels
fi
pids=()
for f in impls/core/src/*.cpp impls/cuda_support/src/*.cpp impls/gpu_lines/lines_plan.cpp; do
  nvcc -O2 -std=c++20 $inc -Xcompiler -fopenmp -c "$f" -o "$obj/$(echo "$f" | tr / _).o" > "$obj/$(basename "$f").log" 2>&1 &
  pids+=($!)
done
for f in lab/probes/gpu_lines_smoke/smoke.cu "$kernels"; do
  # shellcheck disable=SC2086
  nvcc -O3 -arch=sm_90 -std=c++20 $inc ${LINES_FLAGS:-} -c "$f" -o "$obj/$(basename "$f").o" > "$obj/$(basename "$f").log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || { cat "$obj"/*.log | tail -40; exit 1; }; done
nvcc -arch=sm_90 "$obj"/*.o -Xcompiler -fopenmp -o "$bin" > "$out/link.log" 2>&1 || { tail -30 "$out/link.log"; exit 1; }
[[ ${NORUN:-0} == 1 ]] || "$bin" | tee "$out/smoke.txt"
