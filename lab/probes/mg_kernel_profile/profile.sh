#!/usr/bin/env bash
# On the GPU machine: where MG-PCG's whole run goes, kernel by kernel. Nsight Compute times
# every launch (graph nodes too) of one warm-up plus one timed run of the default variant of
# scattered_gpu_multigrid_timing (gravel 512^2), and summarise.py sums the durations by
# kernel name. Launch gaps and host work are not in it: the whole run minus this sum is.
# With SOLVE=1: caches not flushed between kernels, grid sizes too, and solve_split.py
# sums the solve's kernels (by name and grid, so by level) apart from the preparation's.
# Usage there:  [SOLVE=1] lab/probes/mg_kernel_profile/profile.sh BUILD_DIR OUT_DIR [LAUNCHES]
set -euo pipefail
build=${1:?usage: profile.sh BUILD_DIR OUT_DIR [LAUNCHES]}
out=${2:?usage: profile.sh BUILD_DIR OUT_DIR [LAUNCHES]}
count=${3:-4000}
mkdir -p "$out"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
if [ "${SOLVE:-0}" = 1 ]; then
  "$ncu" --clock-control none --cache-control none --metrics gpu__time_duration.sum,launch__grid_size --csv \
    --print-units base --launch-count "$count" "$build/bin/scattered_gpu_multigrid_timing" --image-only --repeat 1 \
    > "$out/ncu-solve.csv" 2> "$out/ncu-solve.err" || true
  python3 "$(dirname "$0")/solve_split.py" "$out/ncu-solve.csv" | tee "$out/ncu-solve-summary.txt"
  exit 0
fi
"$ncu" --clock-control none --metrics gpu__time_duration.sum --csv --print-units base --launch-count "$count" \
  "$build/bin/scattered_gpu_multigrid_timing" --image-only --repeat 1 > "$out/ncu-mg.csv" 2> "$out/ncu-mg.err" || true
python3 "$(dirname "$0")/summarise.py" "$out/ncu-mg.csv" | tee "$out/ncu-mg-summary.txt"
