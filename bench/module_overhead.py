"""Call overhead of the Python module beside SciPy's and CuPy's: the time of one call on a
tiny array, where the work is nothing and the call is everything.

    .venv/bin/python bench/module_overhead.py [--machine LABEL] [--out results]

(`import splinebench` works in the venv after ./run_all.sh; elsewhere put <build>/python on
PYTHONPATH.) Writes results/<machine>/<stamp>-module-overhead/module_overhead.json, which
the machine's report shows as its call-overhead table (reports/call_overhead.py).

Each row: one call repeated `calls` times in a loop, the loop timed with
time.perf_counter, `repeats` loops; the median, first and third quartiles of the per-call
time over the loops, in microseconds. GPU rows (a CUDA device and CuPy present) enqueue
the calls on the current stream and synchronise once per loop, so a call's time includes
its launches, not the kernels' completion one by one; the same for splinebench on CuPy
arrays and for cupyx.scipy.ndimage."""
from __future__ import annotations

import argparse
import os
import platform
import socket
import statistics
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from bench_json import write_result  # bench/, this script's folder

TINY = 16          # samples of the 1-D array
CALLS = 2000       # calls per timed loop
REPEATS = 15       # timed loops


def per_call_us(call, sync=None, calls=CALLS, repeats=REPEATS) -> dict:
    for _ in range(calls // 10):
        call()
    if sync:
        sync()
    loops = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            call()
        if sync:
            sync()
        loops.append((time.perf_counter() - t0) / calls * 1e6)
    q1, median, q3 = statistics.quantiles(loops, n=4)
    return {"us_median": round(statistics.median(loops), 3), "us_q1": round(q1, 3), "us_q3": round(q3, 3),
            "calls": calls, "repeats": repeats}


def cpu_rows() -> list[dict]:
    import scipy
    import scipy.ndimage as ndi

    import splinebench

    rng = np.random.default_rng(0)
    rows = []
    for dtype in (np.float32, np.float64):
        f = rng.standard_normal(TINY).astype(dtype)
        x = rng.uniform(0, TINY - 1, (1, 1)).astype(dtype)
        array = f"{np.dtype(dtype).name} ({TINY},), 1 query"
        impls = ["cpu_scalar", "cpu_simd"] if dtype == np.float32 else ["reference"]
        for impl in impls:
            rows.append({"library": f"splinebench {impl}", "device": "cpu", "call": "spline_filter", "array": array,
                         **per_call_us(lambda: splinebench.spline_filter(f, impl=impl))})
            rows.append({"library": f"splinebench {impl}", "device": "cpu", "call": "map_coordinates",
                         "array": array,
                         **per_call_us(lambda: splinebench.map_coordinates(f, x, impl=impl, prefilter=False))})
        rows.append({"library": f"scipy {scipy.__version__}", "device": "cpu", "call": "spline_filter", "array": array,
                     **per_call_us(lambda: ndi.spline_filter(f, order=3, mode="mirror", output=dtype))})
        rows.append({"library": f"scipy {scipy.__version__}", "device": "cpu", "call": "map_coordinates",
                     "array": array,
                     **per_call_us(lambda: ndi.map_coordinates(f, x, order=3, mode="mirror", prefilter=False))})
    return rows


def gpu_rows() -> tuple[list[dict], str]:
    """Rows on the device, or none and why not."""
    try:
        import cupy
        import cupyx.scipy.ndimage as cndi
        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # no CuPy, no driver, no device
        return [], f"no GPU rows: {type(exc).__name__}: {exc}"
    import splinebench
    rows = []
    sync = cupy.cuda.get_current_stream().synchronize
    rng = np.random.default_rng(1)
    f = cupy.asarray(rng.standard_normal(TINY).astype(np.float32))
    x = cupy.asarray(rng.uniform(0, TINY - 1, (1, 1)).astype(np.float32))
    array = f"float32 ({TINY},), 1 query, CuPy arrays"
    for impl in [r["name"] for r in splinebench.implementations() if r["device_arrays"] and r["available"]
                 and not r["device_arrays_f64"]]:
        rows.append({"library": f"splinebench {impl}", "device": "gpu", "call": "spline_filter", "array": array,
                     **per_call_us(lambda: splinebench.spline_filter(f, impl=impl), sync)})
        rows.append({"library": f"splinebench {impl}", "device": "gpu", "call": "map_coordinates", "array": array,
                     **per_call_us(lambda: splinebench.map_coordinates(f, x, impl=impl, prefilter=False), sync)})
    rows.append({"library": f"cupy {cupy.__version__}", "device": "gpu", "call": "spline_filter", "array": array,
                 **per_call_us(lambda: cndi.spline_filter(f, order=3, mode="mirror", output=np.float32), sync)})
    rows.append({"library": f"cupy {cupy.__version__}", "device": "gpu", "call": "map_coordinates", "array": array,
                 **per_call_us(lambda: cndi.map_coordinates(f, x, order=3, mode="mirror", prefilter=False), sync)})
    return rows, ""


def context(git_sha: str) -> dict:
    def git(*args):
        try:
            return subprocess.run(["git", *args], capture_output=True, text=True, check=True,
                                  cwd=Path(__file__).parent).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""
    cpu = ""
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    # A copy without .git (the lent GPU machine's) names its commit through --git-sha.
    return {"git_commit": git_sha or git("rev-parse", "HEAD"),
            "git_dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
            "python": platform.python_version(), "numpy": np.__version__, "cpu": cpu, "host": socket.gethostname()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--machine", default=socket.gethostname().split(".")[0], help="results label")
    parser.add_argument("--out", type=Path, default=Path("results"), help="results root (default: results)")
    parser.add_argument("--git-sha", default=os.environ.get("SPLINEBENCH_GIT_SHA", ""),
                        help="the commit measured (default: $SPLINEBENCH_GIT_SHA, else git's HEAD)")
    args = parser.parse_args(argv)
    rows = cpu_rows()
    more, why_not = gpu_rows()
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    doc = {"benchmark": "module_overhead", "schema": 1, "date": stamp, "machine": args.machine,
           "context": context(args.git_sha), "rows": rows + more, "notes": [why_not] if why_not else []}
    path = write_result(args.out, args.machine, stamp, "module-overhead", doc)
    for row in doc["rows"]:
        print(f"{row['library']:28} {row['device']:4} {row['call']:16} {row['us_median']:9.2f} us  ({row['array']})")
    for note in doc["notes"]:
        print(note)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
