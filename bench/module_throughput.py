"""Throughput through the Python module against the harness's, on the device, in one run
with CuPy's: the 256^3 float32 prefilter and 2^24 lookups into 256^3 coefficients.

    python3 bench/module_throughput.py --bin build/bin/splinebench [--machine LABEL] [--out results]

Needs a CUDA device, CuPy and the module of the same build (`import splinebench`: the venv
after ./run_all.sh, or <build>/python on PYTHONPATH). Writes
results/<machine>/<stamp>-module-throughput/module_throughput.json (atomically), which the
machine's report shows beside the call overhead (reports/module_throughput.py).

The harness's numbers: `splinebench run` of the `gpu` suite's case
gpu_flex/D3/256x256x256/.../q16777216/uniform (its own repetitions and warm-ups, the
phases `prefilter` and `evaluate`: CUDA events around the implementation's launches),
run by this script into a temporary folder. The module's and CuPy's: CUDA events around
one call on the current stream, the same repetitions after the same warm-ups, CuPy arrays
in place (`splinebench.spline_filter(f, impl=...)`, `map_coordinates(c, x, prefilter=False,
impl=...)`; `cupyx.scipy.ndimage.spline_filter` and `map_coordinates` with order 3, mode
mirror, float32 output). The module and CuPy are timed in alternation, one call each per
round. Medians in milliseconds; `module_over_harness` is the module's median over the
harness's (the target: within 1.05)."""
from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from bench_json import write_result  # bench/, this script's folder

EDGE = 256
QUERIES = 1 << 24
IMPL = "gpu_flex"
CASE = rf"^{IMPL}/D3/{EDGE}x{EDGE}x{EDGE}/C1/F1/mirror/noise/q{QUERIES}/uniform/T1$"


class BenchError(RuntimeError):
    pass


def harness_phases(binary: Path, repetitions: int, warmups: int) -> dict:
    """The harness's record of the case: its phase medians (ms) and samples."""
    with tempfile.TemporaryDirectory(prefix="module-throughput-") as tmp:
        run_dir_file = Path(tmp) / "run_dir"
        command = [str(binary), "run", "--suite", "gpu", "--filter", CASE, "--repetitions", str(repetitions),
                   "--warmups", str(warmups), "--results-dir", tmp, "--machine", "bench",
                   "--run-dir-file", str(run_dir_file)]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise BenchError(f"the harness run failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
        run_dir = Path(run_dir_file.read_text().strip())
        doc = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    records = [r for r in doc["records"] if r.get("impl") == IMPL]
    if len(records) != 1 or records[0].get("status") != "ok" or records[0].get("verdict") != "pass":
        raise BenchError(f"the harness run has no passing {IMPL} record for {CASE}: "
                         + "; ".join(f"{r.get('case_id')}: {r.get('status')}/{r.get('verdict')} {r.get('message', '')}" for r in records))
    record = records[0]
    phases = {}
    for phase in ("prefilter", "evaluate"):
        samples = [s * 1e3 for s in record["phases"][phase]["samples"]]
        phases[phase] = {"ms_median": statistics.median(samples), "samples_ms": samples}
    return {"case_id": record["case_id"], "command": " ".join(command[:1] + ["run"] + command[2:10]),
            "phases": phases}


def event_timer(cupy):
    stream = cupy.cuda.get_current_stream()

    def timed(call) -> float:
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record(stream)
        call()
        stop.record(stream)
        stop.synchronize()
        return cupy.cuda.get_elapsed_time(start, stop)
    return timed


def library_rows(repetitions: int, warmups: int) -> tuple[dict, dict]:
    """Per-call device times (ms) of the module and of CuPy, alternating."""
    import cupy
    import cupyx.scipy.ndimage as cndi

    import splinebench

    rng = np.random.default_rng(2026)
    f = cupy.asarray(rng.uniform(-1, 1, (EDGE,) * 3).astype(np.float32))
    x = cupy.asarray(rng.uniform(0, EDGE - 1, (3, QUERIES)).astype(np.float32))
    c = splinebench.spline_filter(f, impl=IMPL, mode="mirror")
    timed = event_timer(cupy)
    calls = {
        ("splinebench", "prefilter"): lambda: splinebench.spline_filter(f, impl=IMPL, mode="mirror"),
        ("cupy", "prefilter"): lambda: cndi.spline_filter(f, order=3, mode="mirror", output=np.float32),
        ("splinebench", "evaluate"): lambda: splinebench.map_coordinates(c, x, impl=IMPL, mode="mirror",
                                                                         prefilter=False),
        ("cupy", "evaluate"): lambda: cndi.map_coordinates(c, x, order=3, mode="mirror", prefilter=False,
                                                           output=np.float32),
    }
    samples: dict = {key: [] for key in calls}
    for round_ in range(warmups + repetitions):
        for key, call in calls.items():
            ms = timed(call)
            if round_ >= warmups:
                samples[key].append(ms)
    # The module's results are the implementation's: the same check as the harness's
    # against CuPy's f32 result would only restate the tolerance tests; shapes and
    # finiteness catch a call that did nothing.
    y = splinebench.map_coordinates(c, cupy.ascontiguousarray(x[:, :4096]), impl=IMPL, mode="mirror", prefilter=False)
    if y.shape != (4096,) or not bool(cupy.isfinite(y).all()):
        raise BenchError("the module's lookups came back malformed")
    versions = {"cupy": cupy.__version__, "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
                "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()}
    return samples, versions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", type=Path, default=Path("build/bin/splinebench"), help="the harness executable")
    parser.add_argument("--machine", default=socket.gethostname().split(".")[0], help="results label")
    parser.add_argument("--out", type=Path, default=Path("results"), help="results root (default: results)")
    parser.add_argument("--repetitions", type=int, default=9)
    parser.add_argument("--warmups", type=int, default=2)
    parser.add_argument("--git-sha", default=os.environ.get("SPLINEBENCH_GIT_SHA", ""),
                        help="the commit measured (default: $SPLINEBENCH_GIT_SHA)")
    args = parser.parse_args(argv)
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
    except Exception as exc:  # no CuPy, no driver, no device
        print(f"module_throughput: needs a CUDA device and CuPy: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    if not args.bin.is_file():
        print(f"module_throughput: no harness executable at {args.bin}", file=sys.stderr)
        return 2
    try:
        harness = harness_phases(args.bin, args.repetitions, args.warmups)
        samples, versions = library_rows(args.repetitions, args.warmups)
    except BenchError as exc:
        print(f"module_throughput: {exc}", file=sys.stderr)
        return 1
    rows = []
    for phase, work in (("prefilter", f"float32 {EDGE}^3, mode mirror"),
                        ("evaluate", f"{QUERIES} uniform lookups into float32 {EDGE}^3 coefficients")):
        harness_ms = harness["phases"][phase]["ms_median"]
        rows.append({"library": f"splinebench harness ({IMPL})", "phase": phase, "work": work,
                     "ms_median": harness_ms, "samples_ms": harness["phases"][phase]["samples_ms"]})
        for library in ("splinebench", "cupy"):
            ms = statistics.median(samples[(library, phase)])
            label = f"splinebench module ({IMPL})" if library == "splinebench" else f"cupy {versions['cupy']}"
            rows.append({"library": label, "phase": phase, "work": work, "ms_median": ms,
                         "samples_ms": samples[(library, phase)],
                         "over_harness": ms / harness_ms})
    import splinebench
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    doc = {"benchmark": "module_throughput", "schema": 1, "date": stamp, "machine": args.machine,
           "case_id": harness["case_id"], "harness_command": harness["command"],
           "repetitions": args.repetitions, "warmups": args.warmups,
           "context": {"git_commit": args.git_sha, "python": platform.python_version(), "numpy": np.__version__,
                       "module": str(Path(splinebench.__file__).parent), "host": socket.gethostname(), **versions},
           "rows": rows}
    path = write_result(args.out, args.machine, stamp, "module-throughput", doc)
    for row in rows:
        ratio = f"  {row['over_harness']:.3f}x the harness" if "over_harness" in row else ""
        print(f"{row['library']:34} {row['phase']:9} {row['ms_median']:9.4f} ms{ratio}")
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
