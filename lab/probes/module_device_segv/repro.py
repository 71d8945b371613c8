"""One device-array call per process (argv[1] names it), printing each step, so that the
call that dies of SIGSEGV is known; run under segv_trace.so for its native stack."""
import sys

import cupy
import numpy as np

import splinebench
from splinebench import _arrays, _core

step = sys.argv[1]
print("step", step, flush=True)
f = cupy.asarray(np.random.default_rng(0).standard_normal(37).astype(np.float32))
out = cupy.empty_like(f)
s = _arrays.current_stream(f)
print("stream", s, flush=True)
cap_in, cap_out = _arrays.dlpack(f, s), _arrays.dlpack(out, s)
print("capsules", cap_in, cap_out, flush=True)
if step == "refused":  # a host-only implementation: the views are made, no kernel runs
    try:
        _core.prefilter("cpu_simd", cap_in, cap_out, "mirror", 1, False, 0, s)
    except Exception as exc:
        print("raised", type(exc).__name__, exc, flush=True)
elif step == "array":  # the CuPy arrays themselves (nanobind calls __dlpack__)
    _core.prefilter("gpu_naive", f, out, "mirror", 1, False, 0, s)
else:
    _core.prefilter(step, cap_in, cap_out, "mirror", 1, False, 0, s)
cupy.cuda.runtime.deviceSynchronize()
ref = splinebench.spline_filter(cupy.asnumpy(f), impl="reference")
print("max diff", float(np.abs(cupy.asnumpy(out) - ref).max()), flush=True)
