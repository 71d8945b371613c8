#!/usr/bin/env bash
# Usage: run.sh BUILD_DIR: each step of repro.py in its own process under segv_trace.so,
# then addr2line of the frames in _core.
here=$(cd "$(dirname "$0")" && pwd) build=${1:?usage: run.sh BUILD_DIR}
cc -shared -fPIC -O1 -o /tmp/segv_trace.so "$here/segv_trace.c"
core=$(ls "$build"/python/splinebench/_core*.so | head -1)
for step in refused array gpu_naive gpu_flex gpu_f64; do
  echo "=== $step"
  PYTHONPATH="$build/python" LD_PRELOAD=/tmp/segv_trace.so timeout 60 python3 "$here/repro.py" "$step" 2>&1 | tee /tmp/repro-$step.log | tail -40
  echo "rc ${PIPESTATUS[0]}"
  grep -o "_core[^(]*(+0x[0-9a-f]*)" /tmp/repro-$step.log | grep -o "0x[0-9a-f]*" | xargs -r addr2line -f -C -i -e "$core" | head -60
done
