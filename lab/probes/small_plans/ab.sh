#!/usr/bin/env bash
# On the GPU machine, after a build: bench_gpu_prefilter with the committed plans ("old")
# against the plans of no_bulk_l2_fields.patch ("new": a field of at most 80 MB in, out and
# temporary keeps the register stream_only tile, so the launch has no bulk tile's 131 KB of
# shared memory, holds more blocks per SM and takes more, shorter stream ranges), case by
# case in one session (lab/probes/ab_bench.sh). The patch is applied for the run and
# reverted after it.
# Usage: lab/probes/small_plans/ab.sh OUT   (CASES and ROUNDS as ab_bench.sh takes them)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:?usage: ab.sh OUT}
old=/tmp/small-plans-old
rm -rf "$old" && mkdir -p "$old/impls/gpu_common/flex"
cp "$root/impls/gpu_common/flex/flex_plan.cpp" "$old/impls/gpu_common/flex/"
cd "$root"
git apply lab/probes/small_plans/no_bulk_l2_fields.patch
trap 'git -C "$root" apply -R lab/probes/small_plans/no_bulk_l2_fields.patch' EXIT
CASES=${CASES:-"3d_128 4d_48 3d_256 frames_160x120_rgba_x100"} ROUNDS=${ROUNDS:-3} lab/probes/ab_bench.sh "$old" "$out"
