#!/usr/bin/env bash
# splinebench's two entry points on a fresh Debian 12 machine:
#   ./run_all.sh [SUITE]   install what is missing, build (Release; the Python module too:
#                          `import splinebench` in .venv/), run SUITE (default
#                          `quick`) on every backend available here, write
#                          results/<machine>/<run-id>/, then the machine's report,
#                          report/<machine>/index.html (from every run of results/<machine>/)
#   ./run_all.sh report [MACHINE]
#                          the Python and LaTeX set-up only, then one report per machine from
#                          the runs committed in results/MACHINE (default: this machine's label;
#                          `all`: every machine) into report/MACHINE/ (git-ignored): index.html,
#                          chapter.pdf and its LaTeX sources
#   ./run_all.sh test      same set-up, then every test (ctest, the CMake 4 check, pytest)
#   ./run_all.sh nightly [SUITE]
#                          same set-up, then the regression gate: SUITE (default `nightly`)
#                          in rounds, compared with results/<machine>/baseline/; verdict and
#                          trend in the run's report; exit 0 pass, 1 regression, 2 no baseline
# Environment: SPLINEBENCH_MACHINE (results label, default: short host name),
#              SPLINEBENCH_BUILD_DIR (default: build; `test` builds in <it>-test, with the
#              test-only implementations), SPLINEBENCH_JOBS (default: nproc),
#              SPLINEBENCH_NIGHTLY_ROUNDS (nightly: rounds of the suite, default 5),
#              SPLINEBENCH_RUN_DIR_FILE (nightly: write the run folder's path there).
set -euo pipefail
cd "$(dirname "$0")"
root=$PWD
build_dir=${SPLINEBENCH_BUILD_DIR:-build}
jobs=${SPLINEBENCH_JOBS:-$(nproc)}
machine=${SPLINEBENCH_MACHINE:-$(hostname -s)}
action=${1:-quick}

log() { printf '\n== %s\n' "$*" >&2; }

# --- 1. Debian packages -------------------------------------------------------------
packages=(build-essential cmake git python3 python3-venv libeigen3-dev libboost-dev
          libbenchmark-dev libgtest-dev libgmock-dev libhwy-dev libcli11-dev nlohmann-json3-dev
          python3-skimage python3-imageio python3-nibabel
          openmpi-bin libopenmpi-dev)  # `splinebench split --comm mpi` (harness/distributed)
# The report test renders index.html in headless Chromium and checks the screenshot.
[ "${1:-}" = test ] && packages+=(chromium)
# The Slurm test starts munged, slurmctld and slurmd on localhost (tests/python/test_slurm.py).
[ "${1:-}" = test ] && packages+=(slurm-wlm munge)
# Every machine report (after a suite run, `report`, and the tests) compiles chapter.pdf with
# pdflatex (booktabs, longtable, pdflscape, Latin Modern); its test reads it with poppler.
[ "${1:-}" = nightly ] || packages+=(texlive-latex-base texlive-latex-recommended lmodern poppler-utils)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || \
  log "nvcc not found: GPU implementations will be listed as 'not built'"
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="/usr/local/cuda/bin:$PATH"

# --- 2. Python venv for reports, Python tests and the Python module ----------------------
venv="$root/.venv"
stamp="$venv/.requirements.sha256"
want=$(cat reports/requirements.txt python/requirements.txt | sha256sum | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  log "creating Python venv from reports/requirements.txt and python/requirements.txt"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -r reports/requirements.txt -r python/requirements.txt
  echo "$want" >"$stamp"
fi
# CuPy (the `cupy` implementation, adapters/python/) only where a CUDA device shows: the
# wheel matching the driver's CUDA major version (cupy-cuda12x or cupy-cuda13x). Without
# a registry, install a carried wheel first: pip install --no-index path/to/cupy*.whl.
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && \
   ! "$venv/bin/python" -c "import cupy" 2>/dev/null; then
  cuda_major=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9]*\).*/\1/p' | head -n1)
  case "$cuda_major" in
    12|13) log "installing cupy-cuda${cuda_major}x (driver supports CUDA $cuda_major)"
           "$venv/bin/python" -m pip install -q "cupy-cuda${cuda_major}x" || \
             log "cupy: install failed; the cupy implementation will say why it cannot run" ;;
    *) log "cupy: driver CUDA version '${cuda_major}' has no cupy-cuda12x/13x wheel; skipped" ;;
  esac
fi

if [ "$action" = report ]; then
  # --- Reports from the committed runs (results/README.md, "Reports"); nothing to build --
  target=${2:-$machine}
  log "reports of results/$target into report/"
  exec "$venv/bin/python" -m reports.machine "$target" --results results --out-root report
fi

# --- 3. Configure and build (Release) -----------------------------------------------
# Test-only implementations (impls/registry.def) only in the build the tests use, which
# has its own folder: flipping the option in one build folder would rebuild everything
# at each change of action, and the gate must never see a test-only implementation.
test_impls=OFF build_opts=()
if [ "$action" = test ]; then
  test_impls=ON; build_dir="$build_dir-test"
  # The test build is made to compile fast on 2 cores; the product build (the other
  # actions) is untouched. C++ at -O1 (NDEBUG as in Release): -O3 spends two to three
  # times as long in the optimiser, for run time the tests do not need. Files in unity
  # batches (cmake/unity_build.cmake): the headers most files share (GoogleTest, Eigen,
  # nlohmann-json, CLI11) are parsed once per batch. Without a CUDA device the GPU tests
  # skip, so the device code is compiled to PTX (every C++ and CUDA error shows there)
  # without NVVM's optimiser (-G) and not assembled to SASS, which nothing here would
  # run: a quarter of the time. With a device it is built for the GPU as usual.
  build_opts+=(-DSPLINEBENCH_UNITY_BUILD=ON "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG")
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    build_opts+=("-DCMAKE_CUDA_ARCHITECTURES=${SPLINEBENCH_CUDA_ARCHITECTURES:-90}"
                 "-DCMAKE_CUDA_FLAGS_RELEASE=-O3 -DNDEBUG")
  else
    build_opts+=("-DCMAKE_CUDA_ARCHITECTURES=${SPLINEBENCH_CUDA_ARCHITECTURES:-90-virtual}"
                 "-DCMAKE_CUDA_FLAGS_RELEASE=-O3 -DNDEBUG -G")
  fi
fi
log "building in $build_dir ($jobs jobs)"
# The venv's Python: the build makes the Python module for it (python/README.md).
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DSPLINEBENCH_TEST_IMPLS=$test_impls \
  -DPython_EXECUTABLE="$venv/bin/python" -DSPLINEBENCH_PYTHON_MODULE=ON "${build_opts[@]}" >/dev/null
cmake --build "$build_dir" -j "$jobs"
bin="$root/$build_dir/bin/splinebench"
if [ "$action" != test ]; then
  # `import splinebench` in the venv: the module this build made (<build>/python), by a
  # .pth file rather than a second build by pip. The tests import the test build's own.
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$root/$build_dir/python" >"$site/splinebench-build.pth"
fi
# Real datasets from the Debian packages into .cache/datasets (datasets/README.md); one line per missing one.
/usr/bin/python3 datasets/real/export_real.py --quiet || log "real datasets: export failed (suites skip them)"

if [ "$action" = test ]; then
  # --- 4a. Tests ----------------------------------------------------------------------
  log "C++ tests (ctest)"
  ctest --test-dir "$build_dir" --output-on-failure -j "$jobs"
  # CMake 4 (PyPI's, in the venv): hosts with it must configure the project and parse
  # the test files gtest_discover_tests generates. Those files are written by the CMake
  # that configured the build, so CMake 4's ctest on the build above would read 3.x's
  # files and prove nothing; rebuilding the tests with CMake 4 would cost a second full
  # build. So: configure the project with CMake 4 (no build), and build and run
  # tests/cmake/ctest_compat, one small GoogleTest binary registered by the same
  # splinebench_discover_gtests, listed by CMake 4's ctest and checked to pass, skip and
  # fail as GoogleTest ran it.
  log "CMake 4: configure, and ctest on discovered GoogleTest tests"
  "$venv/bin/cmake" --version 2>/dev/null | awk 'NR==1 { split($3, v, "."); ok = v[1] >= 4 } END { exit !ok }' ||
    "$venv/bin/python" -m pip install -q 'cmake>=4' || { echo "could not install cmake>=4 into $venv" >&2; exit 1; }
  mkdir -p "$build_dir-cmake4"
  "$venv/bin/cmake" -S . -B "$build_dir-cmake4/project" -DCMAKE_BUILD_TYPE=Release \
    -DSPLINEBENCH_ENABLE_CUDA=OFF -DSPLINEBENCH_TEST_IMPLS=ON >"$build_dir-cmake4/configure.log" 2>&1 ||
    { cat "$build_dir-cmake4/configure.log" >&2; echo "CMake 4 could not configure the project" >&2; exit 1; }
  tests/cmake/ctest_compat/check.sh "$venv/bin" "$build_dir-cmake4/ctest_compat"
  log "Python tests (pytest)"
  # One worker per core, each test file on one worker (its module fixtures run once).
  # The Python module's tests (tests/python/test_module_*.py) import the test build's module
  # (<build>/python, found from SPLINEBENCH_BIN).
  SPLINEBENCH_BIN="$bin" "$venv/bin/python" -m pytest -q -n "$jobs" --dist loadfile tests/python reports/tests
  log "all tests passed"
  exit 0
fi

if [ "$action" = nightly ]; then
  # --- 4b. The nightly regression gate (reports/README.md, "Nightly gate") -------------
  suite=${2:-nightly}
  log "nightly gate: suite '$suite' in ${SPLINEBENCH_NIGHTLY_ROUNDS:-5} rounds, against results/$machine/baseline"
  exec "$venv/bin/python" -m reports.gate --bin "$bin" --suite "$suite" --machine "$machine" \
       --rounds "${SPLINEBENCH_NIGHTLY_ROUNDS:-5}" \
       ${SPLINEBENCH_RUN_DIR_FILE:+--run-dir-file "$SPLINEBENCH_RUN_DIR_FILE"}
fi

# --- 4c. The suite, then the report ---------------------------------------------------
log "implementations"
"$bin" list
log "running suite '$action' (results under results/$machine/)"
run_dir_file=$(mktemp)
trap 'rm -f "$run_dir_file"' EXIT
"$bin" run --suite "$action" --results-dir results --machine "$machine" --run-dir-file "$run_dir_file"
run_dir=$(cat "$run_dir_file")
log "building the report of results/$machine (every run there, this one included)"
"$venv/bin/python" -m reports.machine "$machine" --results results --out-root report >/dev/null
echo
echo "results: $run_dir/results.json"
echo "report:  $root/report/$machine/index.html"
