#!/usr/bin/env bash
# On the GPU machine: builds the GPU targets, runs the GPU tests, a compute-sanitizer
# pass (memcheck and racecheck) over the GPU test binary, and the standalone GPU
# benchmark (bench/gpu_eval). Logs and the benchmark JSON go to the output folder.
#
# Usage there:  tools/device/gpu_checks.sh [out-dir]     (default: $OUT, else ./gpu-checks)
# Environment:
#   GIT_SHA           recorded in the benchmark JSON (the GPU machine may have no .git)
#   STEPS             any of: build tests memcheck racecheck bench profile (default: all but profile)
#   MEMCHECK_FILTER   gtest filter for memcheck (default: every test except the one that
#                     makes cudaMalloc fail on purpose, which the sanitizer would report)
#   RACECHECK_FILTER  gtest filter for racecheck (default: a subset covering every kernel)
#   BENCH_ARGS        extra arguments for gpu_eval_bench (e.g. --quick)
#   BUILD_DIR         build folder (default build-device)
#   PREBUILT=1        skip the build when BUILD_DIR already holds test_gpu and
#                     gpu_eval_bench that run here (binaries built elsewhere and carried)
#   TIMEOUT_TESTS, TIMEOUT_BENCH, TIMEOUT_MEMCHECK, TIMEOUT_RACECHECK, TIMEOUT_PROFILE
#                     seconds per step
# Exit status: non-zero when a step fails (tests, sanitizer errors, benchmark).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-${OUT:-$root/gpu-checks}}
mkdir -p "$out"
build="$root/${BUILD_DIR:-build-device}"
deps="$root/.deps/usr"
export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
steps=${STEPS:-"build tests memcheck racecheck bench"}
memcheck_filter=${MEMCHECK_FILTER:-"-GpuErrors.OutOfMemoryIsUnsupported"}
racecheck_filter=${RACECHECK_FILTER:-"*_D1_1000_*:*_D2_17x5_*:*_D3_17x17x17_*:*_D4_5x3x17x2_*:*_D6_3x2x5x3x2x4_*:GpuApi.*:GpuLimits.TextureTiles*"}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
status=0
has() { [[ " $steps " == *" $1 "* ]]; }
step() { echo "== $1 ($(date +%T))"; }

if has build && [[ ${PREBUILT:-0} == 1 ]] && "$build/tests/test_gpu" --gtest_list_tests > /dev/null 2>&1 &&
   "$build/bin/gpu_eval_bench" --help 2>&1 | grep -q usage; then
  echo "== using the binaries already in $build (PREBUILT=1)"
elif has build; then
  step build
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" \
    > "$out/build.log" 2>&1 &&
  cmake --build "$build" -j "$(nproc)" --target test_gpu gpu_eval_bench >> "$out/build.log" 2>&1 ||
    { echo "build failed (see build.log)"; tail -40 "$out/build.log"; exit 1; }
fi

{ nvidia-smi; nvidia-smi -q -d CLOCK; nvcc --version; "$sanitizer" --version; } > "$out/environment.txt" 2>&1 || true

if has tests; then
  step "GPU tests"
  timeout -k 5 "${TIMEOUT_TESTS:-300}" "$build/tests/test_gpu" > "$out/test_gpu.log" 2>&1
  rc=$?
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |texture error" "$out/test_gpu.log"
  [[ $rc -eq 0 ]] || { echo "GPU tests failed (rc=$rc)"; grep -E "^\[  FAILED" "$out/test_gpu.log" | head -40; status=1; }
fi

if has bench; then
  step "gpu_eval_bench"
  # shellcheck disable=SC2086
  timeout -k 5 "${TIMEOUT_BENCH:-600}" "$build/bin/gpu_eval_bench" --out "$out/gpu_eval.json" \
    --git-sha "${GIT_SHA:-unknown}" ${BENCH_ARGS:-} 2> "$out/gpu_eval.log" || { echo "benchmark failed"; tail -20 "$out/gpu_eval.log"; status=1; }
fi

for tool in memcheck racecheck; do
  has $tool || continue
  filter=$memcheck_filter
  [[ $tool == racecheck ]] && filter=$racecheck_filter
  step "compute-sanitizer $tool"
  limit=${TIMEOUT_MEMCHECK:-600}
  [[ $tool == racecheck ]] && limit=${TIMEOUT_RACECHECK:-600}
  timeout -k 5 "$limit" "$sanitizer" --tool "$tool" --error-exitcode 1 "$build/tests/test_gpu" \
    --gtest_filter="$filter" > "$out/$tool.log" 2>&1
  rc=$?
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) " "$out/$tool.log"
  [[ $rc -eq 0 ]] || { echo "$tool failed (rc=$rc)"; grep -m 20 -E "=========" "$out/$tool.log"; status=1; }
done

if has profile; then
  # L2 / DRAM traffic of the evaluate kernels, eval3d cases only (needs access to the
  # performance counters; reported as unavailable otherwise).
  step "ncu"
  timeout -k 5 "${TIMEOUT_PROFILE:-300}" ncu --kernel-name regex:"evaluate_global|texture_eval_3d" --launch-count 8 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum \
    --csv "$build/bin/gpu_eval_bench" --out "${TMPDIR:-/tmp}/profile_run.json" --profile ${BENCH_ARGS:-} \
    > "$out/ncu.csv" 2>&1 || { echo "ncu failed (see ncu.csv)"; tail -5 "$out/ncu.csv"; }
fi

step "done (status $status)"
exit $status
