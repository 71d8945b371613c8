#!/usr/bin/env bash
# On the GPU machine: the scattered operator's F^T y by warp scatter (this tree with
# gather_to_scatter.patch applied, reverted on exit) against the committed gather over rows
# of cells (a copy of the tree as committed), in one session: the new tree's operator, multigrid, blocks and stencil tests,
# compute-sanitizer on the operator's small tests, then the 256^3 CG iteration test of
# both builds alternated, ROUNDS times (default 3).
# Usage: lab/probes/scatter_ab/ab.sh OUT
set -uo pipefail
out=${1:?usage: ab.sh OUT}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/../../.." && pwd)
deps=$root/.deps/usr
export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
old=/tmp/scatter-ab-old
rm -rf "$old" && mkdir -p "$old"
tar -C "$root" --exclude='./build*' --exclude='./.deps' -cf - . | tar -C "$old" -xf -
ln -s "$root/.deps" "$old/.deps"
(cd "$root" && git apply "$root/lab/probes/scatter_ab/gather_to_scatter.patch") || { echo "patch failed"; exit 1; }
trap '(cd "$root" && git apply -R "$root/lab/probes/scatter_ab/gather_to_scatter.patch")' EXIT
configure() {  # source-dir build-dir
  [ -f "$2/CMakeCache.txt" ] || cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DSPLINEBENCH_TEST_IMPLS=ON -DSPLINEBENCH_REQUIRE_ALL_DEPS=OFF -DCMAKE_PREFIX_PATH="$deps" \
    -DCMAKE_INCLUDE_PATH="$deps/include"
}
half=$(( $(nproc) / 2 ))
echo "== build ($(date +%T))"
{ configure "$root" "$root/build-device" && cmake --build "$root/build-device" -j "$half" --target test_scattered_gpu_operator \
    test_scattered_gpu_multigrid test_scattered_gpu_blocks test_scattered_gpu_stencil; } > "$out/build-new.log" 2>&1 & p1=$!
{ configure "$old" /tmp/scatter-ab-old-build && cmake --build /tmp/scatter-ab-old-build -j "$half" \
    --target test_scattered_gpu_operator; } > "$out/build-old.log" 2>&1 & p2=$!
wait $p1 || { echo "new build failed"; tail -30 "$out/build-new.log"; exit 1; }
wait $p2 || { echo "old build failed"; tail -30 "$out/build-old.log"; exit 1; }
new_t=$root/build-device/tests old_t=/tmp/scatter-ab-old-build/tests
echo "== tests ($(date +%T))"
for t in test_scattered_gpu_operator test_scattered_gpu_stencil test_scattered_gpu_blocks test_scattered_gpu_multigrid; do
  ( time timeout 240 "$new_t/$t" ) > "$out/$t.txt" 2>&1
  echo "$t rc $? $(grep -E '^\[  (PASSED|FAILED) ' "$out/$t.txt" | tr '\n' ' ') $(grep -E '^real' "$out/$t.txt")"
done
echo "== sanitizers ($(date +%T))"
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool --error-exitcode 1 "$new_t/test_scattered_gpu_operator" \
    --gtest_filter='-GpuOperatorLarge.*:*Cg*' > "$out/cs_$tool.txt" 2>&1
  echo "$tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED) ' "$out/cs_$tool.txt" | tr '\n' ' ')"
done
echo "== A/B ($(date +%T))"
for round in $(seq "${ROUNDS:-3}"); do
  for side in old new; do
    b=$old_t; [ $side = new ] && b=$new_t
    "$b/test_scattered_gpu_operator" --gtest_filter='GpuOperatorLarge.*' > "$out/large-$side-$round.txt" 2>&1
    echo "$side r$round: $(grep -E 'ms per iteration' "$out/large-$side-$round.txt" | cut -c1-60) | $(grep -E '^  apply_rows:' "$out/large-$side-$round.txt")"
    grep -E '^  (256|128|64)\^3' "$out/large-$side-$round.txt" | sed "s/^/$side r$round /"
  done
done
echo "== done ($(date +%T))"
