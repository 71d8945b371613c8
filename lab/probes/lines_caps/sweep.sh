#!/usr/bin/env bash
# From the repository root on the GPU machine. Question: with gpu_lines' smaller kernels,
# is the cap rule's choice (README.md, "Plan choice") still the fastest? The smoke probe
# built with env_cap.patch (LINES_CAP overrides the rule's cap), timed at caps 16, 32 and
# 64 and the rule's, on 128^3, 48^4, the frames and 256^3, ROUNDS rounds interleaved.
# Usage: lab/probes/lines_caps/sweep.sh OUT
set -euo pipefail
out=${1:?usage: sweep.sh OUT}
mkdir -p "$out"
BIN=/tmp/sm_cap PATCH=lab/probes/lines_caps/env_cap.patch NORUN=1 lab/probes/gpu_lines_smoke/run.sh "$out/build"
for round in $(seq "${ROUNDS:-2}"); do
  for cap in rule 16 32 64; do
    if [[ $cap == rule ]]; then unset LINES_CAP; else export LINES_CAP=$cap; fi
    SMOKE_TIMED_ONLY=1 SMOKE_WITH_256=1 /tmp/sm_cap | awk -v t="cap $cap r$round" -F'|' '/^\| [0-9a-z_]+ \| mirror/ {print t, $2, $5, $9}'
  done
done | tee "$out/sweep.log"
