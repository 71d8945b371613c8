#!/usr/bin/env bash
# From the repository root on the GPU machine. Question: is gpu_lines slower inside
# bench_gpu_prefilter (after gpu_flex's large-shared-memory tiles) than alone because the
# SMs stay configured for shared memory, and does a preferred carveout of maximum L1 for
# the strided passes (carveout.patch; with CARVEOUT_STAGED also for the staged pass) fix it?
# Three binaries of the smoke probe (product, patch, patch + staged carveout), each timed
# without and with a preceding 200 KiB kernel, ROUNDS rounds interleaved.
# Usage: lab/probes/lines_carveout/ab.sh OUT
set -euo pipefail
out=${1:?usage: ab.sh OUT}
mkdir -p "$out"
here=lab/probes/lines_carveout
BIN=/tmp/sm_base NORUN=1 lab/probes/gpu_lines_smoke/run.sh "$out/base" &
BIN=/tmp/sm_l1 PATCH=$here/carveout.patch NORUN=1 lab/probes/gpu_lines_smoke/run.sh "$out/l1" &
BIN=/tmp/sm_l1s PATCH=$here/carveout.patch LINES_FLAGS=-DCARVEOUT_STAGED=45 NORUN=1 lab/probes/gpu_lines_smoke/run.sh "$out/l1s" &
wait
for round in $(seq "${ROUNDS:-2}"); do
  for kb in 0 200; do
    for b in base l1 l1s; do
      SMOKE_TIMED_ONLY=1 SMOKE_PRECEDE_SMEM_KB=$kb /tmp/sm_$b | awk -v t="$b kb$kb r$round" -F'|' '/^\| [0-9a-z_]+ \| mirror/ {print t, $2, $9}'
    done
  done
done | tee "$out/ab.log"
