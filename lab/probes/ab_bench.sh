#!/usr/bin/env bash
# On the GPU machine: an A/B of bench_gpu_prefilter between this working tree ("new")
# and the same tree with some files replaced ("old"), in one session, so that the two
# codes share the GPU's state (run-to-run differences between GPU sessions exceed the
# effects measured here). The two benchmarks alternate case by case, ROUNDS times.
#
# Usage there:  lab/probes/ab_bench.sh OLD_FILES_DIR [out-dir]
#   OLD_FILES_DIR  a folder laid out like the repository holding the old versions of
#                  the files that differ (e.g. made with `git show OLD:path > DIR/path`)
# Environment:
#   CASES       benchmark cases (default: 3d_512 3d_256 4d_48 2d_4096 3d_128)
#   ROUNDS      alternations (default 2)
#   BENCH_ARGS  extra arguments of both benchmarks (default: --reps 15 --no-verify)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
old_files=$(cd "$1" && pwd)
out=${2:-${OUT:-$root/ab-bench}}
mkdir -p "$out"
deps="$root/.deps/usr"
export LD_LIBRARY_PATH="$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
old_tree=/tmp/ab-old-tree
rm -rf "$old_tree" && mkdir -p "$old_tree"
tar -C "$root" --exclude='./build*' --exclude='./.deps' -cf - . | tar -C "$old_tree" -xf -
cp -r "$old_files"/. "$old_tree"/
ln -s "$root/.deps" "$old_tree/.deps"
build() {  # source-dir build-dir
  cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" -DCMAKE_INCLUDE_PATH="$deps/include" > "$2.log" 2>&1 &&
    cmake --build "$2" -j "$(( $(nproc) / 2 ))" --target bench_gpu_prefilter >> "$2.log" 2>&1
}
echo "== build both ($(date +%T))"
build "$root" /tmp/ab-new & new_pid=$!
build "$old_tree" /tmp/ab-old & old_pid=$!
wait $new_pid || { tail -30 /tmp/ab-new.log; exit 1; }
wait $old_pid || { tail -30 /tmp/ab-old.log; exit 1; }
echo "== bench ($(date +%T))"
# shellcheck disable=SC2086
for round in $(seq "${ROUNDS:-2}"); do
  for c in ${CASES:-3d_512 3d_256 4d_48 2d_4096 3d_128}; do
    for side in new old; do
      /tmp/ab-$side/bin/bench_gpu_prefilter --case "$c" ${BENCH_ARGS:---reps 15 --no-verify} \
        --out "$out/$side-$c-$round.json" --machine "${MACHINE:-unknown}" --git-sha "$side" 2>&1 |
        { grep -E "^\\| $c \\|" || true; } | sed "s/^/$side r$round /"
    done
  done
done | tee "$out/ab.log"
# One JSON per (side, case, round) would exceed what comes back: keep the log and a tarball.
tar -C "$out" -czf "$out/ab_json.tgz" $(cd "$out" && ls ./*.json) && rm -f "$out"/*.json
echo "== done ($(date +%T))"
