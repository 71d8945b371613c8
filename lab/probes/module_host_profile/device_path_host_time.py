"""Host time of the module's device-array path on a machine without a GPU.

    lab/probes/module_host_profile/run.sh BUILD/python [BUILD/python ...]

(run.sh builds the stand-in libcudart.so.13 from cudart_stub.c and runs this script once
per build folder with it on LD_LIBRARY_PATH.) With the stand-in every CUDA runtime call
returns at once and no kernel runs; stand_ins/ holds a CuPy look-alike whose arrays are host
memory that their DLPack capsules claim is on CUDA device 0, capsules and outputs made
before the timing. So what is timed is the module's own work per call (Python, nanobind,
the checks, the implementation's host code), not CuPy's, the driver's or a launch's.

Rows: `_core.prefilter` / `_core.evaluate` on ready capsules at 16 samples and 256^3, and
whole `spline_filter` / `map_coordinates` calls on 16 samples with and without `impl=`;
per row the median and the fastest of `loops` loops of 2000 calls, in microseconds, and the
stand-in runtime's calls per call (launches, memsets, attribute sets: each a driver call of
about a microsecond or more on a real device, free here)."""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
N = 2000


def main() -> int:
    module_dir = sys.argv[1]
    loops = int(sys.argv[2]) if len(sys.argv) > 2 else 11
    sys.path[:0] = [module_dir, str(HERE / "stand_ins")]
    import numpy as np

    import cupy  # the stand-in
    import splinebench
    from splinebench import _core

    import ctypes
    stub = ctypes.CDLL("libcudart.so.13")
    stub.stub_calls.restype = ctypes.c_long
    stub.stub_calls.argtypes = [ctypes.c_char_p]
    counted = ("cudaLaunchKernel", "__cudaLaunchKernel", "cudaMemsetAsync", "cudaFuncSetAttribute", "cudaSetDevice")

    def calls():
        return [stub.stub_calls(name.encode()) for name in counted]

    def report(name, times, before=None, count=0):
        line = f"{name:44} median {statistics.median(times):6.2f} us  fastest {min(times):6.2f} us"
        if before is not None:
            per = [(a - b) / count for a, b in zip(calls(), before)]
            line += "  per call: " + ", ".join(f"{n.lstrip('_')[4:]} {p:.2f}" for n, p in zip(counted, per) if p)
        print(line)

    # The native part alone, on capsules made beforehand (a capsule is used once).
    for shape in ((16,), (256, 256, 256)):
        f = cupy.asarray(np.zeros(shape, np.float32))
        out = cupy.asarray(np.zeros(shape, np.float32))
        x = cupy.asarray(np.full((len(shape), 1), 3.5, np.float32))
        y = cupy.asarray(np.zeros(1, np.float32))

        def caps(a):
            return [a.__dlpack__(stream=-1) for _ in range(N)]

        def prefilter():
            a, b = caps(f), caps(out)
            t = time.perf_counter()
            for i in range(N):
                _core.prefilter("gpu_flex", a[i], b[i], "mirror", 1, False, 0, 0)
            return (time.perf_counter() - t) / N * 1e6

        def evaluate():
            a, b, c = caps(f), caps(x), caps(y)
            t = time.perf_counter()
            for i in range(N):
                _core.evaluate("gpu_flex", a[i], b[i], c[i], "mirror", False, 1, False, 0, 0)
            return (time.perf_counter() - t) / N * 1e6

        for name, loop in (("_core.prefilter", prefilter), ("_core.evaluate", evaluate)):
            loop()
            before = calls()
            report(f"{name} {shape}", [loop() for _ in range(loops)], before, loops * N)

    # Whole calls on 16 samples: inputs with capsules made beforehand, outputs from a pool.
    f = cupy.asarray(np.zeros(16, np.float32), capsules=4 * N * (loops + 1))
    x = cupy.asarray(np.full((1, 1), 3.5, np.float32), capsules=2 * N * (loops + 1))

    def whole(call, out_shape):
        cupy.prepare_outputs(out_shape, np.float32, N)
        t = time.perf_counter()
        for _ in range(N):
            call()
        return (time.perf_counter() - t) / N * 1e6

    for name, call, shape in (
            ("spline_filter(impl='gpu_flex')", lambda: splinebench.spline_filter(f, impl="gpu_flex"), (16,)),
            ("map_coordinates(impl='gpu_flex')",
             lambda: splinebench.map_coordinates(f, x, impl="gpu_flex", prefilter=False), (1,)),
            ("spline_filter()", lambda: splinebench.spline_filter(f), (16,)),
            ("map_coordinates()", lambda: splinebench.map_coordinates(f, x, prefilter=False), (1,))):
        whole(call, shape)
        before = calls()
        report(name, [whole(call, shape) for _ in range(loops)], before, loops * N)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
