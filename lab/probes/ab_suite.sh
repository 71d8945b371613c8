#!/usr/bin/env bash
# On the GPU machine: an A/B of one suite's rows between this tree's build (build-device,
# made by `STEPS=build tools/device/checks.sh`) and an older commit unpacked under
# build-ab/old-src (`git archive OLD -- . ':!results' ':!lab' | tar -C build-ab/old-src -xf -`,
# carried along), old and new alternating ROUNDS times in one session, so both codes
# share the host's state (the lent host's CPU timings differ by tens of percent between
# sessions).
#
# Usage there:  lab/probes/ab_suite.sh OUT_DIR SUITE [splinebench run arguments...]
# Environment:  ROUNDS (default 2), OLD_SHA (the old commit's label, default "old")
# Writes OUT_DIR/{old,new}-ROUND/h200/<run>/ (compact runs) and ab.log.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: ab_suite.sh OUT_DIR SUITE [run args]} suite=${2:?suite}
shift 2
mkdir -p "$out" && out=$(cd "$out" && pwd)
deps="$root/.deps/usr"
export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
old_src="$root/build-ab/old-src" old_build="$root/build-ab/old"
new_bin="$root/build-device/bin/splinebench" old_bin="$old_build/bin/splinebench"
if [[ ! -x $old_bin ]]; then
  echo "== build old ($(date +%T))" | tee -a "$out/ab.log"
  { cmake -S "$old_src" -B "$old_build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" &&
    cmake --build "$old_build" -j "$(nproc)" --target splinebench; } > "$out/build-old.log" 2>&1 ||
    { tail -30 "$out/build-old.log"; exit 1; }
fi
[[ ${ROUNDS:-2} == 0 || -x $new_bin ]] || { echo "no $new_bin: build this tree first (checks.sh build)"; exit 1; }
for round in $(seq "${ROUNDS:-2}"); do
  for side in old new; do
    bin=$new_bin sha=${SPLINEBENCH_GIT_SHA:-new}
    [[ $side == old ]] && bin=$old_bin sha=${OLD_SHA:-old}
    echo "== $side round $round ($(date +%T))" | tee -a "$out/ab.log"
    SPLINEBENCH_GIT_SHA=$sha "$bin" run --suite "$suite" --results-dir "$out/$side-$round" --machine h200 "$@" \
      >> "$out/ab.log" 2>&1
    tail -2 "$out/ab.log"
  done
done
for run in "$out"/*-*/h200/*/; do
  python3 -m reports.compact "$run" > /dev/null 2>&1 || true
  rm -rf "$run/cases" "$run/results.csv" "$run/.partial"
done
