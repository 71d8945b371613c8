#!/usr/bin/env bash
# Interleaved A/B of the prefilter: kept barriers (the product's bench_gpu_prefilter) against
# barriers initialised per tile (build_fresh.sh's), ROUNDS rounds, each a run of both.
# Usage: ab.sh KEPT_BIN FRESH_BIN OUT_DIR [ROUNDS]
set -euo pipefail
kept=${1:?} fresh=${2:?} out=${3:?} rounds=${4:-3}
mkdir -p "$out"
cases=3d_512,3d_256,3d_128,4d_48,1d_16M,frames_160x120_rgba_x100
for round in $(seq 1 "$rounds"); do
  for variant in kept fresh; do
    bin=$kept; [[ $variant == fresh ]] && bin=$fresh
    "$bin" --case "$cases" --no-verify --machine ab --git-sha "$variant" \
      --out "$out/$variant-$round.json" > "$out/$variant-$round.log" 2>&1
  done
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def rows(variant, k):
    return {r["case"]: r for r in json.load(open(f"{out}/{variant}-{k}.json"))["benchmarks"]["prefilter"]["rows"]}
runs = {v: [rows(v, k) for k in range(1, rounds + 1)] for v in ("kept", "fresh")}
print(f"{'case':28} {'kept gpu_flex hot ms':>22} {'fresh':>8} {'kept/fresh':>10}   ratio to copy kept / fresh")
for case in runs["kept"][0]:
    ms = {v: statistics.median(r[case]["timings"]["gpu_flex"]["hot"]["median"] * 1e3 for r in runs[v]) for v in runs}
    ratio = {v: statistics.median(r[case]["ratio_to_copy"]["gpu_flex"]["hot"] for r in runs[v]) for v in runs}
    print(f"{case:28} {ms['kept']:22.4f} {ms['fresh']:8.4f} {ms['kept'] / ms['fresh']:10.3f}   "
          f"{ratio['kept']:.2f} / {ratio['fresh']:.2f}")
PY
