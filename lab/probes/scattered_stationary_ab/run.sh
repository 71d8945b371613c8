#!/usr/bin/env bash
# On the GPU machine: the shipped GPU stationary solvers (stationary.cu) against a variant
# of stationary.cu, on one image in one session, interleaved: new, old, new, old. Each run
# is the driver's seed-count run and its run to the tolerance (1000 iterations at most)
# for gpu_jacobi_damped, gpu_gs8x and gpu_sgs_mc. The variants live in git history, not
# here (lab/NOTES.md says what each answered): commit 47453b1, the parent of the commit that
# removed them from this folder, holds both. Write one out before copying the tree over:
#   git show 47453b1:lab/probes/scattered_stationary_ab/stationary_thread_per_row.cu > thread_per_row.cu
#     one thread per unknown over a slot-major ELL (the layout before the warp lanes)
#   git show 47453b1:lab/probes/scattered_stationary_ab/stationary_cooperative.cu > cooperative.cu
#     a Gauss-Seidel iteration as one cooperative launch with a grid-wide barrier per colour
# They were written against the scattered GPU headers of that commit; a later change to
# those headers can keep a variant from compiling in today's tree.
#
# Usage there:  lab/probes/scattered_stationary_ab/run.sh NEW_BUILD_DIR IMAGE.npy LAMBDA OUT_DIR VARIANT.cu
#   NEW_BUILD_DIR  a configured build with splinebench_scattered_cli built (the shipped code)
set -euo pipefail
new_build=${1:?usage: run.sh NEW_BUILD_DIR IMAGE.npy LAMBDA OUT_DIR}
image=${2:?}
lambda=${3:?}
out=${4:?}
here=$(cd "$(dirname "$0")" && pwd)
variant_file=${5:?usage: run.sh NEW_BUILD_DIR IMAGE.npy LAMBDA OUT_DIR VARIANT.cu}
root=$(cd "$here/../../.." && pwd)
mkdir -p "$out"
old_src=$(mktemp -d)
# The same tree with the old stationary.cu, built beside the new one.
tar -C "$root" --exclude='./build*' --exclude=./.git --exclude=./results.device -cf - . | tar -C "$old_src" -xf -
cp "$variant_file" "$old_src/systems/scattered/src/gpu/stationary.cu"
cmake -S "$old_src" -B "$old_src/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$root/.deps/usr" -DCMAKE_INCLUDE_PATH="$root/.deps/usr/include" \
  > "$out/old-build.log" 2>&1
cmake --build "$old_src/build" -j "$(nproc)" --target splinebench_scattered_cli >> "$out/old-build.log" 2>&1
for round in 1 2; do
  for variant in new old; do
    bin="$new_build/bin/splinebench_scattered"
    [[ $variant == old ]] && bin="$old_src/build/bin/splinebench_scattered"
    "$bin" --data "$image" --fraction 0.2 --fraction 0.3 --fraction 0.5 --lambda "$lambda" --seed-iterations 100 \
      --tolerance 1e-8 --max-iterations 5000 --stationary-max-iterations 1000 --threads "$(nproc)" \
      --solver gpu_jacobi_damped --solver gpu_gs8x --solver gpu_sgs_mc --machine h100 \
      --out "$out/$variant-$round.json" > "$out/$variant-$round.log" 2>&1
  done
done
python3 - "$out" <<'PY'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
print("variant round fraction solver: device ms of 100 iterations, of the run to the tolerance (iterations)")
for f in sorted(out.glob("*.json")):
    for r in json.load(open(f))["records"]:
        if r.get("impl") == "reference":
            continue
        p = r["phases"]
        print(f"{f.stem} {r['fraction']} {r['solver']}: {p['device_seed_iterations']['median'] * 1e3:.2f} ms, "
              f"{p['solve']['median'] * 1e3:.1f} ms ({r['iterations']})")
PY
