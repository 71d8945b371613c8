#!/usr/bin/env bash
# On the GPU machine, after a build in build-device: MG-PCG's 512² solve with the committed
# stencil kernels against each variant patch (git diff format, applied to the tree for its
# build, then reverted), the timing tool of each built once and run interleaved ROUNDS times.
# Usage: lab/probes/stencil_rows_ab/ab.sh OUT PATCH... [ROUNDS=2]
# Each run prints the tool's "again" and "whole run median" lines; the files keep the rest.
set -uo pipefail
out=${1:?usage: ab.sh OUT PATCH...}; shift
mkdir -p "$out"
tool=scattered_gpu_multigrid_timing
cp "build-device/bin/$tool" "$out/tool-base"
names=(base)
for p in "$@"; do
  name=$(basename "$p" .patch)
  if git apply "$p"; then
    cmake --build build-device --target "$tool" -j "$(nproc)" > "$out/build-$name.log" 2>&1 && cp "build-device/bin/$tool" "$out/tool-$name" &&
      names+=("$name") || echo "$name: build failed (build-$name.log)"
    git apply -R "$p"
  else
    echo "$name: does not apply"
  fi
done
cmake --build build-device --target "$tool" -j "$(nproc)" > "$out/build-restore.log" 2>&1
for round in $(seq "${ROUNDS:-2}"); do
  for name in "${names[@]}"; do
    log="$out/mg-$name-$round.txt"
    timeout 60 "$out/tool-$name" --image-only --repeat 5 > "$log" 2>&1
    echo "== $name ($round)"; grep -E 'again|whole run median' "$log" | head -2
  done
done
rm -f "$out"/tool-*
