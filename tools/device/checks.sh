#!/usr/bin/env bash
# On a GPU machine without a package registry: build against the unpacked Debian
# packages in .deps/ (tools/device/make_deps.sh, carried along), then the steps of $STEPS:
#   build     configure and build (Release, sm_90)
#   tests     ctest (the GPU tests run here instead of skipping), -R $TEST_FILTER if set
#   sanitize  compute-sanitizer memcheck, racecheck and synccheck over the GPU tests'
#             sanitizer sets (gpu_flex tiles in adversarial order, a test_gpu subset that
#             reaches every kernel, the 2-D IIR schemes) and memcheck over the scattered
#             GPU tests; $SANITIZE_MORE adds "binary=gtest_filter" pairs
#   bench     bench_gpu_prefilter and gpu_eval_bench (JSON)
#   module    the Python module for the machine's python3 (nanobind's CMake files carried
#             from this side's venv: NANOBIND_DIR, default .venv/lib/python3*/site-packages/
#             nanobind/cmake) and pytest of tests/python/test_module_*.py on it, CuPy and
#             PyTorch inputs where the machine has them; then bench/module_overhead.py and
#             bench/module_throughput.py into the results; built apart (build-device-module) by
#             the PATH's g++ or $MODULE_CXX, a compiler with a shared libstdc++
#   mg        scattered_gpu_multigrid_timing --image-only (MG-PCG's whole run at 512^2 by
#             coarsest size, V-cycle by launches and from its graph, the setup by part)
#   suites    `splinebench run` of each suite in $SUITES (any system: grid, scattered,
#             iir2d); a suite with an unfinished run in the runs folder is resumed, one
#             with a finished run is left alone, so the same command repeated finishes
#             suites longer than one command; $RUN_ARGS goes to every new run
# Every experiment is a suite (harness/suites/); this script only builds, tests, runs
# the named suites, sanitizes and packs. The output folder gets a handful of files:
#   summary.txt  each step's verdict lines;  logs.tar.gz  every log;
#   results.tar.gz  benchmark JSON and compact runs, laid out as under results/
# Usage: tools/device/checks.sh OUT_DIR
# Environment: STEPS (default "build tests sanitize bench"), MACHINE (default h200),
#   SUITES (default "gpu thesis ruijters scattered iir2d"), RUN_ARGS, TEST_FILTER,
#   SANITIZE_MORE, TIMEOUT (seconds per step or suite, default 540), RUNS_DIR (default
#   build-device/runs: a warm lent machine keeps it between commands).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: tools/device/checks.sh OUT_DIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
logs="$out/.logs" stage="$out/.results"
mkdir -p "$logs" "$stage"
build="$root/build-device" deps="$root/.deps/usr"
export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
steps=${STEPS:-"build tests sanitize bench"} machine=${MACHINE:-h200} limit=${TIMEOUT:-540}
runs=${RUNS_DIR:-$build/runs}
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
bin="$build/bin/splinebench" summary="$out/summary.txt" status=0
: > "$summary"
has() { [[ " $steps " == *" $1 "* ]]; }
say() { echo "$*" | tee -a "$summary"; }
fail() { say "FAILED: $*"; status=1; }
pack() {
  tar -C "$logs" -czf "$out/logs.tar.gz" . 2>/dev/null
  tar -C "$stage" -czf "$out/results.tar.gz" . 2>/dev/null
  rm -rf "$logs" "$stage"
}
trap pack EXIT
{ nvidia-smi; nvidia-smi -q -d CLOCK,PERFORMANCE; nvcc --version; "$sanitizer" --version; } > "$logs/environment.txt" 2>&1
say "device: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>&1 | head -1)"
if has build; then
  say "== build ($(date +%T))"
  { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DSPLINEBENCH_TEST_IMPLS=ON \
      -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" &&
    cmake --build "$build" -j "$(nproc)"; } > "$logs/build.log" 2>&1 || { fail build; tail -40 "$logs/build.log"; exit 1; }
fi
if has tests; then
  say "== tests ($(date +%T))"
  timeout -k 5 "$limit" ctest --test-dir "$build" -j "$(nproc)" --output-on-failure ${TEST_FILTER:+-R "$TEST_FILTER"} \
    > "$logs/ctest.log" 2>&1 || fail "ctest (see ctest.log)"
  grep -E "tests passed|tests failed|Total Test time|\((Failed|SEGFAULT|Timeout)\)" "$logs/ctest.log" | tee -a "$summary"
  say "skipped: $(grep -c 'Skipped' "$logs/ctest.log")"
fi
sanitize() {  # tool binary filter
  local name="$1-$(basename "$2")-${#3}"
  timeout -k 5 "$limit" "$sanitizer" --tool "$1" --error-exitcode 1 "$build/tests/$2" --gtest_filter="$3" \
    > "$logs/$name.log" 2>&1 || fail "$name (see its log)"
  say "$name: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$logs/$name.log" | tail -1)," \
      "$(grep -cE '^\[       OK \]' "$logs/$name.log") ok, $(grep -cE '^\[  SKIPPED \]' "$logs/$name.log") skipped"
}
if has sanitize; then
  say "== compute-sanitizer ($(date +%T))"
  gpu_set="*_D1_1000_*:*_D2_17x5_*:*_D3_17x17x17_*:*_D4_5x3x17x2_*:*_D5_3x5x2x4x3_*:*_D6_3x2x5x3x2x4_*:GpuApi.*:GpuLimits.*:GpuTextureFold.*:GpuPhases.*"
  for tool in memcheck racecheck synccheck; do
    sanitize "$tool" test_gpu_flex "FlexSanitizer.*"
    sanitize "$tool" test_gpu "$gpu_set"
    sanitize "$tool" test_iir2d_gpu "Iir2dSanitizer.*"
  done
  for t in "$build"/tests/test_scattered_*gpu*; do sanitize memcheck "$(basename "$t")" "-*Large*"; done
  for pair in ${SANITIZE_MORE:-}; do sanitize memcheck "${pair%%=*}" "${pair#*=}"; done
fi
if has bench; then
  say "== benchmarks ($(date +%T))"
  mkdir -p "$stage/$machine"
  timeout -k 5 "$limit" "$build/bin/bench_gpu_prefilter" --out "$stage/$machine/gpu_prefilter.json" \
    --git-sha "${SPLINEBENCH_GIT_SHA:-unknown}" --machine "$machine" > "$logs/bench_gpu_prefilter.log" 2>&1 ||
    fail bench_gpu_prefilter
  timeout -k 5 "$limit" "$build/bin/gpu_eval_bench" --out "$stage/$machine/gpu_eval.json" \
    --git-sha "${SPLINEBENCH_GIT_SHA:-unknown}" > "$logs/gpu_eval_bench.log" 2>&1 || fail gpu_eval_bench
  tail -20 "$logs/bench_gpu_prefilter.log" >> "$summary"
fi
if has module; then
  say "== module ($(date +%T))"
  nb=${NANOBIND_DIR:-$(ls -d "$root"/.venv/lib/python3*/site-packages/nanobind/cmake 2>/dev/null | head -1)}
  if [[ -z $nb ]]; then
    fail "module: no nanobind CMake files (carry .venv/lib/python3.*/site-packages/nanobind or set NANOBIND_DIR)"
  else
    # A build of its own, by the PATH's g++: the lent machine's default C++ compiler ($CXX,
    # /opt/gcc) links libstdc++ statically, and a module carrying its own libstdc++ beside
    # the interpreter's shared one dies on its first formatted number (two std::locale
    # registries). The harness binary of that build is what module_throughput compares with.
    mbuild="$root/build-device-module" mcxx=${MODULE_CXX:-$(command -v g++)}
    { cmake -S "$root" -B "$mbuild" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCMAKE_CXX_COMPILER="$mcxx" -DCMAKE_CUDA_HOST_COMPILER="$mcxx" -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF \
        -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" -DSPLINEBENCH_PYTHON_MODULE=ON \
        -DPython_EXECUTABLE="$(command -v python3)" -Dnanobind_DIR="$nb" &&
      cmake --build "$mbuild" -j "$(nproc)" --target _core splinebench; } > "$logs/module-build.log" 2>&1 ||
      fail "module build (see module-build.log)"
    # The tests import the module of SPLINEBENCH_BIN's build (tests/python/conftest.py).
    SPLINEBENCH_BIN="$mbuild/bin/splinebench" timeout -k 5 "$limit" python3 -m pytest -q -p no:cacheprovider \
      "$root"/tests/python/test_module_*.py > "$logs/module-pytest.log" 2>&1 || fail "module pytest (see module-pytest.log)"
    tail -3 "$logs/module-pytest.log" | tee -a "$summary"
    # The call overhead and the throughput against the harness's, beside CuPy's.
    mkdir -p "$stage"
    PYTHONPATH="$mbuild/python" timeout -k 5 "$limit" python3 "$root/bench/module_overhead.py" --machine "$machine" \
      --out "$stage" > "$logs/module_overhead.log" 2>&1 || fail "module_overhead (see module_overhead.log)"
    PYTHONPATH="$mbuild/python" timeout -k 5 "$limit" python3 "$root/bench/module_throughput.py" --machine "$machine" \
      --out "$stage" --bin "$mbuild/bin/splinebench" > "$logs/module_throughput.log" 2>&1 || fail "module_throughput (see its log)"
    tail -q -n 8 "$logs/module_overhead.log" "$logs/module_throughput.log" | tee -a "$summary"
  fi
fi
if has mg; then
  say "== MG-PCG timing ($(date +%T))"
  SPLINEBENCH_DATASETS_DIR=${SPLINEBENCH_DATASETS_DIR:-$root/.cache/datasets} timeout -k 5 "$limit" \
    "$build/bin/scattered_gpu_multigrid_timing" --image-only --repeat 3 > "$logs/mg_timing.log" 2>&1 ||
    fail "scattered_gpu_multigrid_timing (see mg_timing.log)"
  grep -E "coarsest|whole run|V-cycles|preparation" "$logs/mg_timing.log" | cut -c1-400 >> "$summary"
fi
# A run folder with its context but no results yet: cut off, to be resumed.
unfinished_run() { [[ -f $1/run.json && ! -f $1/results.json && ! -f $1/results.json.gz ]]; }
if has suites; then
  say "== suites: ${SUITES:-gpu thesis ruijters scattered iir2d} ($(date +%T))"
  for suite in ${SUITES:-gpu thesis ruijters scattered iir2d}; do
    log="$logs/run-$suite.log" finished="" unfinished=""
    for dir in "$runs/$machine"/*-"$suite"; do
      [[ -f $dir/results.json || -f $dir/results.json.gz ]] && finished=$dir
      unfinished_run "$dir" && unfinished=$dir
    done
    if [[ -n $unfinished ]]; then
      say "suite $suite: resuming $(basename "$unfinished")"
      timeout -k 5 "$limit" "$bin" run --resume "$unfinished" >> "$log" 2>&1 || fail "suite $suite"
    elif [[ -n $finished ]]; then
      say "suite $suite: finished earlier ($(basename "$finished"))"
    else
      # shellcheck disable=SC2086
      timeout -k 5 "$limit" "$bin" run --suite "$suite" --results-dir "$runs" --machine "$machine" ${RUN_ARGS:-} \
        > "$log" 2>&1 || fail "suite $suite"
    fi
    tail -3 "$log" | tee -a "$summary"
  done
  for run in "$runs/$machine"/*/; do
    [[ -f $run/results.json ]] && python3 -m reports.compact "$run" >> "$logs/compact.log" 2>&1
  done
  mkdir -p "$stage/$machine"
  tar -C "$runs/$machine" --exclude=cases --exclude=.partial --exclude=results.csv --exclude=results.json \
    --exclude=arrays -cf - . | tar -C "$stage/$machine" -xf -
  # An unfinished run keeps its finished cases: what a cut-off command measured comes back.
  for dir in "$runs/$machine"/*/; do
    unfinished_run "$dir" && [[ -d $dir/cases ]] && cp -r "$dir/cases" "$stage/$machine/$(basename "$dir")/"
  done
fi
say "== done (status $status)"
exit $status
