"""Where a device call's host time goes ON THE DEVICE HOST (real CuPy, real driver): the
pieces of one `spline_filter` / `map_coordinates` call timed apart, with perf_counter,
the device idle before each call (synchronised), as bench/module_throughput.py's host
column times a whole call.

    python lab/probes/module_host_profile/device_split.py [EDGE ...]   (default 16 and 256 per side, 3-D; 16 is 1-D)

Rows (medians of `REPS` calls, microseconds of host time):
  whole spline_filter / map_coordinates     what module_throughput's host_us times
  cupy.empty + free                         the output's allocation through CuPy's pool
  get_current_stream                        the stream look-up
  __dlpack__(stream=-1)                     one capsule (the call makes one for prefilter, two for evaluate)
  _core.prefilter_at / evaluate_at          the native part: checks, plan look-up, the driver calls, the launch
  memsetAsync 16 B / empty kernel launch    the driver's own cost of one memset / one launch, for scale
A whole call minus the sum of its pieces is Python glue. Not part of the package."""
from __future__ import annotations

import statistics
import sys
import time

import numpy as np

REPS = 300


def main() -> int:
    import cupy

    import splinebench
    from splinebench import _core

    edges = [int(e) for e in sys.argv[1:]] or [16, 256]
    stream = cupy.cuda.get_current_stream()
    empty_kernel = cupy.RawKernel(r'extern "C" __global__ void nothing() {}', "nothing")
    scratch = cupy.empty(4, np.float32)

    def timed(call, reps=REPS):
        samples = []
        for _ in range(reps):
            stream.synchronize()
            t0 = time.perf_counter()
            call()
            samples.append((time.perf_counter() - t0) * 1e6)
        stream.synchronize()
        return statistics.median(samples), min(samples)

    def report(name, result):
        print(f"  {name:38} median {result[0]:8.2f} us  fastest {result[1]:8.2f} us", flush=True)

    for edge in edges:
        shape = (edge,) if edge <= 16 else (edge,) * 3
        f = cupy.asarray(np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32))
        x = cupy.asarray(np.random.default_rng(1).uniform(0, edge - 1, (len(shape), 1 << (0 if edge <= 16 else 24)))
                         .astype(np.float32))
        c = splinebench.spline_filter(f, impl="gpu_flex")
        out = cupy.empty(shape, np.float32)
        vals = cupy.empty(x.shape[1:], np.float32)
        size = int(np.prod(shape))
        print(f"{shape}, {x.shape[1]} queries", flush=True)
        for _ in range(20):  # warm: plans, pools, lazy loading
            splinebench.spline_filter(f, impl="gpu_flex")
            splinebench.map_coordinates(c, x, impl="gpu_flex", prefilter=False)
        report("whole spline_filter", timed(lambda: splinebench.spline_filter(f, impl="gpu_flex")))
        report("whole map_coordinates",
               timed(lambda: splinebench.map_coordinates(c, x, impl="gpu_flex", prefilter=False)))
        report("cupy.empty + free (field)", timed(lambda: cupy.empty(shape, np.float32)))
        report("cupy.empty + free (values)", timed(lambda: cupy.empty(x.shape[1:], np.float32)))
        report("get_current_stream", timed(lambda: cupy.cuda.get_current_stream(0).ptr))
        report("__dlpack__(stream=-1)", timed(lambda: f.__dlpack__(stream=-1)))
        s = stream.ptr
        report("_core.prefilter_at (capsule inside)",
               timed(lambda: _core.prefilter_at("gpu_flex", f.__dlpack__(stream=-1), out.data.ptr, size, "mirror", 1,
                                                False, 0, s)))
        report("_core.evaluate_at (capsules inside)",
               timed(lambda: _core.evaluate_at("gpu_flex", c.__dlpack__(stream=-1), x.__dlpack__(stream=-1),
                                               vals.data.ptr, vals.size, "mirror", 1, False, 0, s)))
    report("memsetAsync 16 B", timed(lambda: cupy.cuda.runtime.memsetAsync(scratch.data.ptr, 0, 16, stream.ptr)))
    report("empty kernel launch", timed(lambda: empty_kernel((1,), (32,), ())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
