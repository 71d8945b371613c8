#!/usr/bin/env bash
# On the GPU machine: Nsight Compute's view of the matrix-free operator's apply_rows at
# 256^3 (3.36 M samples), one launch of test_scattered_gpu_operator's large CG test:
# speed of light, shared-memory and issue utilisation, occupancy and warp stall reasons.
# The question it answers (lab/NOTES.md): is apply_rows bound by memory, by shared-memory
# traffic, or by latency?
#
# Usage there:  lab/probes/scattered_apply_rows_ncu.sh BUILD_DIR OUT_DIR
#   BUILD_DIR  a configured build with test_scattered_gpu_operator built
set -euo pipefail
build=${1:?usage: scattered_apply_rows_ncu.sh BUILD_DIR OUT_DIR}
out=${2:?usage: scattered_apply_rows_ncu.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
# Skip the warm-up CG's launches; one launch, every section named below.
"$ncu" --kernel-name regex:apply_rows --launch-skip 40 --launch-count 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
  --section InstructionStats \
  "$build/tests/test_scattered_gpu_operator" --gtest_filter='GpuOperatorLarge.CgIteration*' \
  > "$out/ncu-apply_rows-256.txt" 2>&1
grep -E "Duration|Throughput|Pipe|Occupancy|Registers|Stall|Issue|Shared|Warp Cycles|Eligible|Block Limit" \
  "$out/ncu-apply_rows-256.txt" | head -80
