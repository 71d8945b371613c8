#!/usr/bin/env bash
# On a GPU machine without a package registry: build against the unpacked Debian
# packages in .deps/ (made by tools/device/make_deps.sh and carried along), then any of
#   tests     every test (ctest): the GPU tests run here instead of skipping
#   sanitize  compute-sanitizer memcheck, racecheck and synccheck over the GPU tests
#             (the gpu_flex tiles in adversarial order, and a subset of test_gpu that
#             reaches every other kernel)
#   bench     the two GPU benchmarks (bench/gpu_prefilter, bench/gpu_eval), JSON
#   suites    harness runs of $SUITES (results/<machine>/<run>/, compact form)
#   scattered the scattered reconstruction's GPU tests, memcheck, timings and a driver run
#             (SCATTERED_TESTS: the test binaries; SCATTERED_SANITIZE=0: no memcheck;
#             SCATTERED_DRIVER=0: no driver run)
#   studies   the accuracy studies (studies/README.md) over the GPU implementations:
#             the suites roundoff, texture_weights, speed_accuracy, and, where python3
#             has numpy and scipy, convergence and rotation (their report sections are
#             written here when matplotlib is present, else later with --report-only)
#   scattered-tables  the seed's Table 2 on the stand-in images and the 256^3 volume
#             (SCATTERED_IMAGES "name:lambda ...", SCATTERED_GPU_SOLVERS, SCATTERED_CPU_SOLVERS,
#             SCATTERED_VOLUME=0 to leave the volume out, SCATTERED_VOLUME_SOLVERS)
#   iir2d     the 2-D IIR system (systems/iir2d/README.md): its targets, its tests (the
#             deadlock demonstration included), the three sanitizers over Iir2dSanitizer.*,
#             and the experiment's sweeps (fig3 first), each run a folder of three files
# The output folder gets at most a handful of files, as a lent machine returns few:
#   summary.txt      each step's verdict lines
#   logs.tar.gz      every log
#   results.tar.gz   benchmark JSON and compact runs, laid out as under results/
#
# Usage there:  tools/device/checks.sh OUT_DIR
# Environment:
#   STEPS        default "build tests sanitize bench"; add "suites" for harness runs
#   MACHINE      results label (default h100)
#   SUITES       default "gpu thesis ruijters"
#   IMPLS        implementations of the non-gpu suites (default: all but reference and
#                cpu_scalar, which take minutes on the thesis' 64^4 rows)
#   GPU_SUITE_IMPLS  implementations of the gpu suite, comma-separated names or selectors
#                (default: the suite's own, the "gpu" group). --impl can only narrow a suite's
#                selection, so when set the suite runs from a copy of harness/suites/gpu.json
#                whose defaults.impls is this list (kept in the logs as suite-gpu.json; the
#                run records it as suite_origin), e.g. to add cpu_simd and scipy
#   SUITE_FILTER --filter of every suite's run (a case_id regular expression, recorded in
#                run.json's options), e.g. '^(?!scipy/D4/64x64x64x64/C1/F1/[a-z]+/noise/q16777216/)'
#                leaves out SciPy's 64^4 x 64^4-query rows (minutes per call, one thread)
#   RUNS_DIR     where the suites step writes its runs (default results.device, emptied first)
#   RESUME_SUITES=1  keep RUNS_DIR and finish a suite's unfinished run there (--resume) instead
#                of starting one, and leave a suite with a finished run there alone: with RUNS_DIR
#                under the build folder, which a warm lent machine keeps between commands, the
#                same command repeated finishes suites longer than one command
#   SUITES_DEADLINE  seconds after this script's start by which the suites step stops: each
#                suite's limit is the lesser of TIMEOUT_SUITE and what is left (its run is then
#                unfinished, for RESUME_SUITES=1 in the next command)
#   BUILD_TARGETS  targets to build (default: all)
#   TEST_BINARIES  test binaries under build/tests to run instead of the whole ctest
#                (e.g. "test_gpu test_gpu_flex test_conformance"), each in full
#   BENCH_ARGS   extra arguments of bench_gpu_prefilter
#   SANITIZE_MORE  more "binary=gtest_filter" pairs for the sanitizers (binaries under build/tests)
#   STUDY_IMPLS  implementations of the study suites (default: the GPU ones and cpu_simd)
#   STUDY_PY_IMPLS  implementations of convergence and rotation, which start one process per
#                point (default: STUDY_IMPLS)
#   IIR2D_CHECKS  1 (default): the iir2d step runs its tests and sanitizers; 0: sweeps only
#   IIR2D_SWEEPS  the iir2d step's runs, one per word (default "fig3 sizes,shapes,shapes-small,accuracy")
#   SPLINEBENCH_GIT_SHA, SPLINEBENCH_GIT_DIRTY   the revision sent (the copy may lack .git)
#   TIMEOUT_TESTS, TIMEOUT_SANITIZER, TIMEOUT_BENCH, TIMEOUT_SUITE   seconds per step
# Exit status: non-zero when any step fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: tools/device/checks.sh OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
logs="$out/.logs"
stage="$out/.results"
mkdir -p "$logs" "$stage"
build="$root/${BUILD_DIR:-build-device}"
deps="$root/.deps/usr"
export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
steps=${STEPS:-"build tests sanitize bench"}
machine=${MACHINE:-h100}
jobs=$(nproc)
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
summary="$out/summary.txt"
: > "$summary"
status=0
has() { [[ " $steps " == *" $1 "* ]]; }
say() { echo "$*" | tee -a "$summary"; }
step() { say "== $1 ($(date +%T))"; }
fail() { say "FAILED: $*"; status=1; }

pack() {
  tar -C "$logs" -czf "$out/logs.tar.gz" . 2>/dev/null
  tar -C "$stage" -czf "$out/results.tar.gz" . 2>/dev/null
  rm -rf "$logs" "$stage"
}
trap pack EXIT

{ nvidia-smi; nvidia-smi -q -d CLOCK,PERFORMANCE; nvcc --version; "$sanitizer" --version; } > "$logs/environment.txt" 2>&1
python_has() { python3 -c "import $1" >/dev/null 2>&1; }
say "python3: $(python3 --version 2>&1); numpy $(python_has numpy && echo yes || echo no), scipy $(python_has scipy && echo yes || echo no), matplotlib $(python_has matplotlib && echo yes || echo no)"
say "device: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,persistence_mode --format=csv,noheader 2>&1 | head -1)"

if has build; then
  step build
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" \
    > "$logs/build.log" 2>&1 && cmake --build "$build" -j "$jobs" ${BUILD_TARGETS:+--target $BUILD_TARGETS} >> "$logs/build.log" 2>&1 ||
    { fail build; tail -40 "$logs/build.log"; exit 1; }
fi

if has tests && [[ -n ${TEST_BINARIES:-} ]]; then
  step "tests: $TEST_BINARIES"
  for t in $TEST_BINARIES; do
    timeout -k 5 "${TIMEOUT_TESTS:-420}" "$build/tests/$t" > "$logs/$t.log" 2>&1 || fail "$t (see $t.log)"
    say "$t: $(grep -E '^\[  (PASSED|FAILED) ' "$logs/$t.log" | tr '\n' ' ') skipped: $(grep -c '^\[  SKIPPED \]' "$logs/$t.log")"
    grep -E '^\[  FAILED  \]' "$logs/$t.log" | head -20 | tee -a "$summary"
  done
elif has tests; then
  step "tests (ctest)"
  timeout -k 5 "${TIMEOUT_TESTS:-420}" ctest --test-dir "$build" -j "$jobs" --output-on-failure \
    > "$logs/ctest.log" 2>&1 || fail "ctest (see ctest.log)"
  grep -E "tests passed|tests failed|Total Test time|\(Failed\)|\(SEGFAULT\)|\(Timeout\)" "$logs/ctest.log" | tee -a "$summary"
  # A GPU test that skipped here means it never ran: name them.
  skipped=$(grep -c "Skipped" "$logs/ctest.log" || true)
  say "skipped: $skipped"
  grep -E "no CUDA device" "$logs/ctest.log" | head -5 | tee -a "$summary"
fi

# Each sanitizer over a binary and a filter: the flex tiles in adversarial order, and
# test_gpu's cases that reach every kernel of gpu_common and gpu_texture.
sanitize() {
  local tool=$1 binary=$2 filter=$3 name
  name="$tool-$(basename "$binary")"
  timeout -k 5 "${TIMEOUT_SANITIZER:-300}" "$sanitizer" --tool "$tool" --error-exitcode 1 "$binary" \
    --gtest_filter="$filter" > "$logs/$name.log" 2>&1
  local rc=$?
  say "$name: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$logs/$name.log" | tail -1)" \
      "$(grep -cE "^\[       OK \]" "$logs/$name.log") tests ok"
  [[ $rc -eq 0 ]] || { fail "$name (rc=$rc)"; grep -m 20 "=========" "$logs/$name.log" | tee -a "$summary"; }
}
if has sanitize; then
  step "compute-sanitizer"
  # One shape per D with every implementation, mode and channel count, and the API
  # tests (not the one that makes cudaMalloc fail on purpose: the sanitizer reports it).
  gpu_filter=${SANITIZE_GPU_FILTER:-"*_D1_1000_*:*_D2_17x5_*:*_D3_17x17x17_*:*_D4_5x3x17x2_*:*_D5_3x5x2x4x3_*:*_D6_3x2x5x3x2x4_*:GpuApi.*:GpuLimits.*:GpuTextureFold.*:GpuPhases.*"}
  for tool in memcheck racecheck synccheck; do
    sanitize "$tool" "$build/tests/test_gpu_flex" "FlexSanitizer.*"
    sanitize "$tool" "$build/tests/test_gpu" "$gpu_filter"
    for pair in ${SANITIZE_MORE:-}; do
      sanitize "$tool" "$build/tests/${pair%%=*}" "${pair#*=}"
    done
  done
fi

if has bench; then
  step "benchmarks"
  mkdir -p "$stage/$machine"
  sha=${SPLINEBENCH_GIT_SHA:-unknown}
  # shellcheck disable=SC2086
  timeout -k 5 "${TIMEOUT_BENCH:-300}" "$build/bin/bench_gpu_prefilter" --out "$stage/$machine/gpu_prefilter.json" \
    --git-sha "$sha" --machine "$machine" ${BENCH_ARGS:-} > "$logs/bench_gpu_prefilter.log" 2>&1 ||
    fail bench_gpu_prefilter
  grep -vE "^case " "$logs/bench_gpu_prefilter.log" | tail -30 | tee -a "$summary"
  timeout -k 5 "${TIMEOUT_BENCH:-300}" "$build/bin/gpu_eval_bench" --out "$stage/$machine/gpu_eval.json" \
    --git-sha "$sha" > "$logs/gpu_eval_bench.log" 2>&1 || fail gpu_eval_bench
  tail -20 "$logs/gpu_eval_bench.log" >> "$summary"
fi

if has suites; then
  step "suites: ${SUITES:-gpu thesis ruijters}"
  bin="$build/bin/splinebench"
  "$bin" list > "$logs/list.txt" 2>&1
  runs="$root/${RUNS_DIR:-results.device}"
  [[ ${RESUME_SUITES:-0} == 1 ]] || rm -rf "$runs"
  impls=${IMPLS:-cpu_sse,cpu_simd,gpu_naive,gpu_texture,gpu_texture_binned,gpu_flex,gpu_flex_fixed}
  for suite in ${SUITES:-gpu thesis ruijters}; do
    limit=${TIMEOUT_SUITE:-600}
    if [[ -n ${SUITES_DEADLINE:-} ]] && (( SUITES_DEADLINE - SECONDS < limit )); then
      limit=$(( SUITES_DEADLINE - SECONDS ))
      (( limit >= 10 )) || { fail "suite $suite: not started (SUITES_DEADLINE)"; continue; }
    fi
    unfinished="" finished=""
    if [[ ${RESUME_SUITES:-0} == 1 ]]; then
      for dir in "$runs/$machine"/*-"$suite"; do
        [[ -f $dir/results.json || -f $dir/results.json.gz ]] && finished=$dir
        [[ -f $dir/run.json && ! -f $dir/results.json && ! -f $dir/results.json.gz ]] && unfinished=$dir
      done
    fi
    if [[ -n $finished && -z $unfinished ]]; then
      say "suite $suite: finished earlier ($(basename "$finished")), not run again"
      continue
    fi
    if [[ -n $unfinished ]]; then
      say "suite $suite: resuming $(basename "$unfinished") ($(ls "$unfinished/cases" 2>/dev/null | wc -l) cases done)"
      timeout -k 5 "$limit" "$bin" run --resume "$unfinished" >> "$logs/run-$suite.log" 2>&1 || fail "suite $suite"
      tail -3 "$logs/run-$suite.log" | tee -a "$summary"
      continue
    fi
    suite_args=(--suite "$suite")
    impl_args=()
    [[ $suite != gpu ]] && impl_args=(--impl "$impls")
    if [[ $suite == gpu && -n ${GPU_SUITE_IMPLS:-} ]]; then
      python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
s["defaults"]["impls"] = sys.argv[2].split(",")
json.dump(s, open(sys.argv[3], "w"), indent=2)' "$root/harness/suites/gpu.json" "$GPU_SUITE_IMPLS" \
        "$logs/suite-gpu.json" || { fail "suite gpu: GPU_SUITE_IMPLS"; continue; }
      suite_args=(--suite-file "$logs/suite-gpu.json")
    fi
    [[ -n ${SUITE_FILTER:-} ]] && impl_args+=(--filter "$SUITE_FILTER")
    timeout -k 5 "$limit" "$bin" run "${suite_args[@]}" --results-dir "$runs" --machine "$machine" \
      "${impl_args[@]}" > "$logs/run-$suite.log" 2>&1 || fail "suite $suite"
    tail -3 "$logs/run-$suite.log" | tee -a "$summary"
  done
  # Compact form, as committed: run.json + results.json.gz, no per-case files.
  for run in "$runs/$machine"/*/; do
    [[ -f $run/results.json ]] && python3 -m reports.compact "$run" >> "$logs/compact.log" 2>&1
  done
  mkdir -p "$stage/$machine"
  tar -C "$runs/$machine" --exclude=cases --exclude=.partial --exclude=results.csv --exclude=results.json \
    -cf - . | tar -C "$stage/$machine" -xf -
fi

if has studies; then
  step "studies"
  bin="$build/bin/splinebench"
  runs="$root/results.device"
  rm -rf "$runs"
  study_impls=${STUDY_IMPLS:-gpu_naive,gpu_texture,gpu_texture_binned,gpu_flex,gpu_flex_fixed,gpu_f64,gpu_half_f16,gpu_half_bf16,cpu_simd}
  for suite in roundoff texture_weights speed_accuracy; do
    impl_args=()
    [[ $suite != texture_weights ]] && impl_args=(--impl "$study_impls")
    timeout -k 5 "${TIMEOUT_SUITE:-600}" "$bin" run --suite "$suite" --results-dir "$runs" --machine "$machine" \
      "${impl_args[@]}" > "$logs/study-$suite.log" 2>&1 || fail "study suite $suite"
    tail -2 "$logs/study-$suite.log" | tee -a "$summary"
  done
  if python_has numpy && python_has scipy; then
    sa_run=$(ls -d "$runs/$machine"/*-speed_accuracy 2>/dev/null | tail -1)
    [[ -n $sa_run ]] && (cd "$root" && python3 -m studies.speed_accuracy --bin "$bin" --scipy-into "$sa_run") \
      > "$logs/study-scipy-points.log" 2>&1 || fail "SciPy points"
    for study in convergence rotation; do
      (cd "$root" && timeout -k 5 "${TIMEOUT_SUITE:-600}" python3 -m "studies.$study" --bin "$bin" --machine "$machine" \
        --results "$runs" --impls ${STUDY_PY_IMPLS:-${study_impls//,/ }}) > "$logs/study-$study.log" 2>&1 ||
        fail "study $study"
      tail -2 "$logs/study-$study.log" | tee -a "$summary"
    done
  else
    say "studies convergence, rotation: skipped (python3 lacks numpy or scipy)"
  fi
  for run in "$runs/$machine"/*/; do
    [[ -f $run/results.json && -f $run/run.json ]] && python3 -m reports.compact "$run" >> "$logs/compact.log" 2>&1
  done
  mkdir -p "$stage/$machine"
  tar -C "$runs/$machine" --exclude=cases --exclude=.partial --exclude=results.csv --exclude=results.json \
    -cf - . | tar -C "$stage/$machine" -xf -
  # Study runs (schema splinebench-study) keep their results.json (no compact form),
  # and a suite study its SciPy points.
  for run in "$runs/$machine"/*/; do
    [[ -f $run/results.json && ! -f $run/run.json ]] && cp "$run/results.json" "$stage/$machine/$(basename "$run")/"
  done
fi

# The 2-D IIR system. Expected times on an H100 (limits about 3x these):
#   build of the iir2d targets   ~1 min from scratch, seconds after the build step
#   test_iir2d_reference         ~5 s (f64 oracle on the host)
#   test_iir2d_gpu               ~1 min: most of it MoreThanTwoToThe31Pixels (17 GB, 2^31 px
#                                filled, filtered by three schemes and read back); the defect
#                                test ~1 s (12 s worst case), the deadlock demonstration ~0.6 s
#   sanitizers                   memcheck, racecheck, synccheck over Iir2dSanitizer.*, < 1 min each
#   sweep fig3                   ~2 min (2048^2, M = 1..31, 5 schemes x 11 runs, the f64 oracle)
#   sweeps sizes, shapes, shapes-small, accuracy   ~4 min (8192^2 at M = 31: a minute of oracle)
# Each sweep prints one line per record (scheme, shape, M, median ms): the 2048^2 lines at
# M = 3 and 31 and the launch chains go to summary.txt too, so the numbers come back even
# without the results. All of it is ~10 min: split it over two commands where one is
# limited to 10 min (IIR2D_SWEEPS=fig3, then IIR2D_CHECKS=0 IIR2D_SWEEPS=sizes,...).
if has iir2d; then
  step "iir2d"
  if [[ ! -f $build/CMakeCache.txt ]]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" \
      > "$logs/iir2d-build.log" 2>&1 || fail "iir2d configure"
  fi
  if cmake --build "$build" -j "$jobs" --target splinebench-iir2d test_iir2d_reference test_iir2d_gpu \
      test_iir2d_driver >> "$logs/iir2d-build.log" 2>&1; then
    checks=()
    [[ ${IIR2D_CHECKS:-1} == 1 ]] && checks=(test_iir2d_reference test_iir2d_driver test_iir2d_gpu)
    for t in "${checks[@]}"; do
      SPLINEBENCH_IIR2D_DEADLOCK_DEMO=1 timeout -k 5 "${TIMEOUT_TESTS:-420}" "$build/tests/$t" > "$logs/$t.log" 2>&1 ||
        fail "$t (see $t.log)"
      say "$t: $(grep -E '^\[  (PASSED|FAILED) ' "$logs/$t.log" | tr '\n' ' ') skipped: $(grep -c '^\[  SKIPPED \]' "$logs/$t.log")"
      { grep -E '^\[  FAILED  \] [A-Z]' "$logs/$t.log"; grep -A1 ': Skipped$' "$logs/$t.log" | grep -vE ': Skipped$|^--$'; } | sort -u |
        head -20 | tee -a "$summary"
    done
    for tool in $([[ ${IIR2D_CHECKS:-1} == 1 ]] && echo memcheck racecheck synccheck); do
      TIMEOUT_SANITIZER=${TIMEOUT_SANITIZER:-180} sanitize "$tool" "$build/tests/test_iir2d_gpu" "Iir2dSanitizer.*"
    done
    if [[ ${IIR2D_CHECKS:-1} == 1 ]]; then
      timeout -k 5 30 "$build/bin/splinebench-iir2d" deadlock-demo --timeout 0.5 2>&1 | tee -a "$summary" ||
        fail "iir2d deadlock-demo"
    fi
    runs="$root/results.device"
    rm -rf "$runs"
    for sweeps in ${IIR2D_SWEEPS:-fig3 sizes,shapes,shapes-small,accuracy}; do
      log="$logs/iir2d-${sweeps//,/-}.log"
      timeout -k 5 "${TIMEOUT_SUITE:-600}" "$build/bin/splinebench-iir2d" run --suite-file "$root/harness/suites/iir2d.json" \
        --sweeps "$sweeps" --results "$runs" --machine "$machine" > "$log" 2>&1 || fail "iir2d sweeps $sweeps"
      grep -E "^case [a-z_0-9]+ 2048x2048 (M=(3|31) |launches)|failed their verdict" "$log" | tee -a "$summary"
      say "iir2d $sweeps: $(grep -c '^case ' "$log") records, $(grep -c ': median .*, fail' "$log") failed"
    done
    mkdir -p "$stage/$machine"
    tar -C "$runs/$machine" --exclude=cases --exclude=.partial -cf - . | tar -C "$stage/$machine" -xf -
  else
    fail "iir2d build (see iir2d-build.log)"
    tail -20 "$logs/iir2d-build.log" | tee -a "$summary"
  fi
fi

if has scattered; then
  # The scattered reconstruction (systems/scattered): the GPU tests (assembly both ways,
  # matrix-free operator and CG, stationary solvers, CSR CG; ~1-2 min), memcheck on them
  # without the large cases (~2 min), the 256^3 operator timing and 512^2 assembly timing
  # (~30 s), and the driver on a 257^2 image with every GPU and CPU solver (~1 min).
  step "scattered"
  if [[ ! -f $build/CMakeCache.txt ]]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" \
      > "$logs/scattered-build.log" 2>&1 || fail "scattered configure"
  fi
  scattered_tests=${SCATTERED_TESTS:-"test_scattered_named_gpu test_scattered_gpu test_scattered_gpu_assembly test_scattered_gpu_operator test_scattered_gpu_stationary test_scattered_gpu_multigrid test_scattered_gpu_blocks"}
  # shellcheck disable=SC2086
  if cmake --build "$build" -j "$jobs" --target $scattered_tests splinebench_scattered_cli \
      >> "$logs/scattered-build.log" 2>&1; then
    for t in $scattered_tests; do
      # Line-buffered: a test cut by its time limit still leaves what it printed.
      timeout -k 5 "${TIMEOUT_TESTS:-420}" stdbuf -oL "$build/tests/$t" --gtest_filter='-*Large*' > "$logs/$t.log" 2>&1 ||
        fail "$t (see $t.log)"
      say "$t: $(grep -E '^\[  (PASSED|FAILED) ' "$logs/$t.log" | tr '\n' ' ') skipped: $(grep -c '^\[  SKIPPED \]' "$logs/$t.log")"
      grep -E '^\[  FAILED  \] [A-Z]' "$logs/$t.log" | head -10 | tee -a "$summary"
      [[ ${SCATTERED_SANITIZE:-1} == 1 ]] && TIMEOUT_SANITIZER=${TIMEOUT_SANITIZER:-180} sanitize memcheck "$build/tests/$t" "-*Large*"
    done
    for t in test_scattered_gpu_operator test_scattered_gpu_assembly; do
      [[ " $scattered_tests " == *" $t "* ]] || continue
      timeout -k 5 120 stdbuf -oL "$build/tests/$t" --gtest_filter='*Large*' > "$logs/$t-large.log" 2>&1 || fail "$t large"
      grep -iE "ms|bound|%" "$logs/$t-large.log" | head -30 | tee -a "$summary"
    done
    if [[ ${SCATTERED_DRIVER:-1} == 1 ]]; then
      runs="$root/results.device"
      mkdir -p "$runs/$machine"
      timeout -k 5 "${TIMEOUT_SUITE:-600}" "$build/bin/splinebench_scattered" --synthetic smooth:257x257 --fraction 0.2 \
        --lambda 2.1 --tolerance 1e-8 --max-iterations 20000 --threads "$jobs" ${SCATTERED_SOLVERS:---solver cg \
        --solver gpu_cg --solver eigen_cg --solver mg_pcg --solver gpu_jacobi_damped --solver gpu_sgs_mc} \
        --out "$runs/$machine/scattered-257.json" > "$logs/scattered-driver.log" 2>&1 || fail "scattered driver"
      tail -12 "$logs/scattered-driver.log" | tee -a "$summary"
      mkdir -p "$stage/$machine"
      cp "$runs/$machine"/scattered-*.json "$stage/$machine/" 2>/dev/null
    fi
  else
    fail "scattered build (see scattered-build.log)"
    tail -20 "$logs/scattered-build.log" | tee -a "$summary"
  fi
fi

if has scattered-tables; then
  # The seed's Table 2 on the stand-in images (512^2, 20/30/50 % top |Laplacian|, its 100
  # iterations and convergence, every GPU solver beside the CPU's MG-PCG and Eigen CG), and
  # the 256^3 volume of Tables 4-5 without a CPU system. Images from $SPLINEBENCH_DATASETS_DIR
  # (default .cache/datasets); one run folder each under results/<machine>/.
  step "scattered tables"
  bin="$build/bin/splinebench_scattered"
  data_dir=${SPLINEBENCH_DATASETS_DIR:-$root/.cache/datasets}
  runs="$root/results.device/$machine"
  mkdir -p "$runs"
  gpu_solvers=${SCATTERED_GPU_SOLVERS:-"gpu_cg gpu_cg_atomic gpu_cg_gather gpu_cg_matrix_free gpu_jacobi_damped gpu_gs8x gpu_sgs_mc gpu_mg_seed gpu_mg_pcg"}
  for pair in ${SCATTERED_IMAGES:-gravel:1.8 moon:2.3 brick:1.9}; do
    name=${pair%%:*} lambda=${pair##*:}
    [[ -f $data_dir/$name.npy ]] || { say "scattered $name: no $data_dir/$name.npy, skipped"; continue; }
    run="$runs/$(date -u +%Y%m%d-%H%M%S)-scattered-$name"
    mkdir -p "$run"
    solver_args=()
    for s in ${SCATTERED_CPU_SOLVERS-mg_pcg eigen_cg} $gpu_solvers; do solver_args+=(--solver "$s"); done
    timeout -k 5 "${TIMEOUT_SCATTERED_IMAGE:-150}" "$bin" --data "$data_dir/$name.npy" --fraction 0.2 --fraction 0.3 \
      --fraction 0.5 --lambda "$lambda" --seed-iterations 100 --tolerance 1e-8 --max-iterations 5000 \
      --stationary-max-iterations 1000 --threads "$jobs" "${solver_args[@]}" --machine "$machine" \
      --out "$run/results.json" > "$logs/scattered-$name.log" 2>&1 || fail "scattered $name"
    grep -E "^  [a-z_0-9]+: " "$logs/scattered-$name.log" | head -40 >> "$summary"
  done
  if [[ ${SCATTERED_VOLUME:-1} == 1 ]]; then
    run="$runs/$(date -u +%Y%m%d-%H%M%S)-scattered-smooth256"
    mkdir -p "$run"
    # Table 5's parameters: N = 3, every other one 2, P = 2.
    timeout -k 5 "${TIMEOUT_SCATTERED_VOLUME:-600}" "$bin" --synthetic smooth:256x256x256 --fraction 0.2 \
      --lambda 0.002 --no-cpu-system --blocks 2x2x2 $(for s in ${SCATTERED_VOLUME_SOLVERS:-gpu_mg_seed gpu_mg_pcg gpu_cg_matrix_free}; do echo --solver $s; done) \
      --mg 3 2 2 2 2 2 2 2 2 --seed-iterations 100 --tolerance 1e-8 --max-iterations 3000 --machine "$machine" \
      --out "$run/results.json" > "$logs/scattered-smooth256.log" 2>&1 || fail "scattered 256^3"
    tail -5 "$logs/scattered-smooth256.log" | tee -a "$summary"
  fi
  mkdir -p "$stage/$machine"
  tar -C "$runs" --exclude=arrays -cf - . | tar -C "$stage/$machine" -xf -
fi

step "done (status $status)"
exit $status
