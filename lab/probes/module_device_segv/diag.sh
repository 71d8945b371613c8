#!/usr/bin/env bash
# Usage: diag.sh BUILD_DIR: which libstdc++ the Python process has and which C++ runtime
# symbols _core defines, then the gpu_flex step again with the import order and the
# preloaded runtime varied.
here=$(cd "$(dirname "$0")" && pwd) build=${1:?usage: diag.sh BUILD_DIR}
core=$(ls "$build"/python/splinebench/_core*.so | head -1)
g++ --version | head -1; python3 -c 'import sys, os; print(sys.version, sys.executable, os.path.realpath(sys.executable))'
maps='import sys; print(sorted({l.split()[-1] for l in open("/proc/self/maps") if "stdc++" in l or "gcc_s" in l}))'
echo "numpy+cupy:"; python3 -c "import numpy, cupy; $maps"
echo "+_core:"; PYTHONPATH="$build/python" python3 -c "import numpy, cupy, splinebench; $maps"
echo "_core alone:"; PYTHONPATH="$build/python" python3 -c "import splinebench; $maps"
ldd "$core"
echo "codecvt symbols defined: $(nm -D --defined-only "$core" | grep -c -i codecvt)"
nm -D --defined-only "$core" | c++filt | grep -E "_M_insert|locale|num_put|codecvt" | head -20
echo "std symbols defined: $(nm -D --defined-only "$core" | c++filt | grep -c ' std::')"
cc -shared -fPIC -O1 -o /tmp/segv_trace.so "$here/segv_trace.c" 2>/dev/null
sys=$(g++ -print-file-name=libstdc++.so.6); echo "system libstdc++: $(readlink -f "$sys")"
for variant in plain preload; do
  pre=/tmp/segv_trace.so; [[ $variant == preload ]] && pre="$(readlink -f "$sys"):/tmp/segv_trace.so"
  echo "=== gpu_flex, $variant"
  PYTHONPATH="$build/python" LD_PRELOAD="$pre" timeout 60 python3 "$here/repro.py" gpu_flex 2>&1 | tail -14 | cut -c1-200
done
