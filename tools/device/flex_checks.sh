#!/usr/bin/env bash
# On the GPU machine: the gpu_flex checks in one go - device tests, the GPU prefilter
# benchmark (bench/gpu_prefilter) and compute-sanitizer (racecheck, synccheck,
# memcheck) over the reduced case list FlexSanitizer.*. Logs and the benchmark JSON go
# to the output folder (at most 8 files).
#
# Usage there:  tools/device/flex_checks.sh [out-dir]     (default: $OUT, else ./flex-checks)
# Environment:
#   STEPS       any of: build tests bench sanitize profile (default: all but profile)
#   PROFILE_CASE  benchmark case that `profile` runs under ncu (default 3d_256): the
#               first launches of flex_kernel and fixed_kernel, full metric set, details
#               and per-source-line counters as text
#   BIN_DIR     folder holding test_gpu_flex and bench_gpu_prefilter built elsewhere
#               (used when they run here; otherwise they are built in BUILD_DIR)
#   BUILD_DIR   build folder (default build-device)
#   BENCH_ARGS  extra arguments of bench_gpu_prefilter (default: --tune --eval)
#   GIT_SHA, MACHINE   recorded in the benchmark JSON
#   TEST_FILTER gtest filter of the device tests (default: all but FlexSanitizer.*)
# Exit status: non-zero when a step fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-${OUT:-$root/flex-checks}}
mkdir -p "$out"
deps="$root/.deps/usr"
export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
steps=${STEPS:-"build tests bench sanitize"}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
status=0
has() { [[ " $steps " == *" $1 "* ]]; }
step() { echo "== $1 ($(date +%T))"; }

bin=${BIN_DIR:+$root/$BIN_DIR}
if [[ -n $bin ]] && "$bin/test_gpu_flex" --gtest_list_tests > /dev/null 2>&1 && "$bin/bench_gpu_prefilter" --help > /dev/null 2>&1; then
  echo "== using the binaries in $bin"
elif has build; then
  step build
  build="$root/${BUILD_DIR:-build-device}"
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" \
    > "$out/build.log" 2>&1 &&
    cmake --build "$build" -j "$(nproc)" --target test_gpu_flex bench_gpu_prefilter >> "$out/build.log" 2>&1 ||
    { echo "build failed (see build.log)"; tail -40 "$out/build.log"; exit 1; }
  mkdir -p "$build/flex-bin"
  cp "$build/tests/test_gpu_flex" "$build/bin/bench_gpu_prefilter" "$build/flex-bin/"
  bin="$build/flex-bin"
else
  echo "no binaries: set BIN_DIR or include the build step"; exit 1
fi

{ nvidia-smi; nvidia-smi -q -d CLOCK; nvcc --version; "$sanitizer" --version; } > "$out/environment.txt" 2>&1 || true

if has tests; then
  step "device tests"
  timeout -k 5 "${TIMEOUT_TESTS:-240}" "$bin/test_gpu_flex" --gtest_filter="${TEST_FILTER:--FlexSanitizer.*}" \
    > "$out/test_gpu_flex.log" 2>&1
  rc=$?
  grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/test_gpu_flex.log"
  [[ $rc -eq 0 ]] || { echo "device tests failed (rc=$rc)"; grep -E "^\[  FAILED|Failure|Expected|Which is|actual" "$out/test_gpu_flex.log" | head -40; status=1; }
fi

if has bench; then
  step "bench_gpu_prefilter"
  # shellcheck disable=SC2086
  timeout -k 5 "${TIMEOUT_BENCH:-240}" "$bin/bench_gpu_prefilter" --out "$out/gpu_prefilter.json" \
    --git-sha "${GIT_SHA:-unknown}" --machine "${MACHINE:-unknown}" ${BENCH_ARGS:---tune --eval} \
    > "$out/bench.log" 2>&1 || { echo "benchmark failed"; status=1; }
  grep -vE "^case " "$out/bench.log" | tail -60
fi

if has sanitize; then
  for tool in racecheck synccheck memcheck; do
    step "compute-sanitizer $tool"
    timeout -k 5 "${TIMEOUT_SANITIZER:-240}" "$sanitizer" --tool "$tool" --error-exitcode 1 "$bin/test_gpu_flex" \
      --gtest_filter='FlexSanitizer.*' > "$out/$tool.log" 2>&1
    rc=$?
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) " "$out/$tool.log"
    [[ $rc -eq 0 ]] || { echo "$tool failed (rc=$rc)"; grep -m 20 -E "=========" "$out/$tool.log"; status=1; }
  done
fi

if has profile; then
  step "ncu"
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  timeout -k 5 "${TIMEOUT_PROFILE:-200}" "$ncu" --kernel-name regex:"flex_kernel|fixed_kernel" --launch-count 4 \
    --set full --import-source yes -f -o /tmp/flex_prof "$bin/bench_gpu_prefilter" --case "${PROFILE_CASE:-3d_256}" \
    --reps 3 --no-verify --out /tmp/prof.json > /tmp/ncu_run.log 2>&1 || { echo "ncu failed"; tail -5 /tmp/ncu_run.log; }
  "$ncu" -i /tmp/flex_prof.ncu-rep --page details > "$out/ncu_details.txt" 2>&1
  "$ncu" -i /tmp/flex_prof.ncu-rep --page source --csv --print-source cuda --kernel-name regex:flex_kernel \
    --launch-count 1 > "$out/ncu_source_flex.csv" 2>&1
  "$ncu" -i /tmp/flex_prof.ncu-rep --page source --csv --print-source cuda --kernel-name regex:fixed_kernel \
    --launch-skip 1 --launch-count 1 > "$out/ncu_source_fixed.csv" 2>&1
  grep -E "Duration|Achieved Occupancy|Registers Per|Compute \(SM\) Throughput|Memory Throughput|Executed Ipc A" "$out/ncu_details.txt" | head -40
fi

step "done (status $status)"
exit $status
