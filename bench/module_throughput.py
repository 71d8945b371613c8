"""Throughput through the Python module against the harness's, on the device, in one run
with CuPy's: the 256^3 float32 prefilter and 2^24 lookups into 256^3 coefficients.

    python3 bench/module_throughput.py --bin build/bin/splinebench [--machine LABEL] [--out results]

Needs a CUDA device, CuPy and the module of the same build (`import splinebench`: the venv
after ./run_all.sh, or <build>/python on PYTHONPATH). Writes
results/<machine>/<stamp>-module-throughput/module_throughput.json (atomically), which the
machine's report shows beside the call overhead (reports/module_throughput.py).

What is measured: the harness's numbers are its own record of the `gpu` suite's
case gpu_flex/D3/256x256x256/.../q16777216/uniform (`splinebench run`, the phases
`prefilter` and `evaluate`: CUDA events around the implementation's launches, enqueued
after its host preparation, its own warm-ups, by default the suite's repetitions and
warm-ups), run by this script into a temporary folder. The module's and CuPy's: CUDA
events around one call on the current stream, nothing else in between
(`splinebench.spline_filter(f, impl=...)`, `map_coordinates(c, x, prefilter=False,
impl=...)` on CuPy arrays in place; `cupyx.scipy.ndimage.spline_filter` and
`map_coordinates` with order 3, mode mirror, float32 output), the opening event behind a
hold (below) so that, as in the harness, the host's preparation before the first launch
is not idle device time inside the events; no graph that the harness does not have
either.

The method, against clock ramp-up and drift:
* Blocks, interleaved (`--blocks`, default 3): each block runs the harness once, then the
  library rounds; each row's samples are pooled over the blocks, so a slow drift of the
  machine falls on every row alike. Within a round the module's and CuPy's calls alternate
  (module prefilter, CuPy prefilter, module lookups, CuPy lookups), one call each.
* Warm-up before each block's timed rounds: at least `--warmup-rounds` rounds (default 50)
  and `--warmup-ms` of timed device work (default 200 ms), then further rounds until the
  medians of the last three windows of 10 rounds agree within `--stable` (default 3 %) for
  every row, at most `--warmup-max-rounds` (default 300); how many it took and whether it
  settled are in the file. The harness's runs keep the suite's own warm-ups: the comparison
  is with the harness as the suite measures it.
* Each row: median, quartiles, minimum and maximum of its samples, the median of each
  block, and `drift` (the median of the last third of its samples over that of the first
  third: near 1 when warmed up). `module_over_harness` is a row's median over the
  harness's for the phase (the target: within 1.05). Library rows also carry the host
  time of the call itself (`host_us_median`, perf_counter around the call, inside the
  events), which shows how much of an event window the host's enqueue filled.
* The hold (`--hold-us`, default 2000): before each library call's opening event, one
  device thread spins that long on the stream, so the device reaches the event only after
  the host has enqueued the call, and the events time the call's device work as the
  harness's events around its launches do (its own launches, allocations on the stream and
  gaps between them inside; the host's preparation before its first launch outside, where
  it is shorter than the hold: `host_within_hold` is the share of samples where it was).
  `--hold-us 0` opens the events on an idle device, the host's preparation inside.
"""
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
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from bench_json import write_result  # bench/, this script's folder

EDGE = 256
QUERIES = 1 << 24
IMPL = "gpu_flex"
CASE = rf"^{IMPL}/D3/{EDGE}x{EDGE}x{EDGE}/C1/F1/mirror/noise/q{QUERIES}/uniform/T1$"
PHASES = ("prefilter", "evaluate")
WINDOW = 10  # rounds per warm-up window


class BenchError(RuntimeError):
    pass


def harness_phases(binary: Path, repetitions: int | None, warmups: int | None) -> dict:
    """One harness run of the case: its phase samples (ms), its case id and command. None
    for repetitions or warm-ups: the suite's own."""
    with tempfile.TemporaryDirectory(prefix="module-throughput-") as tmp:
        run_dir_file = Path(tmp) / "run_dir"
        command = [str(binary), "run", "--suite", "gpu", "--filter", CASE]
        if repetitions is not None:
            command += ["--repetitions", str(repetitions)]
        if warmups is not None:
            command += ["--warmups", str(warmups)]
        shown = " ".join(command)
        command += ["--results-dir", tmp, "--machine", "bench", "--run-dir-file", str(run_dir_file)]
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
    return {"case_id": record["case_id"], "command": shown, "repetitions": record.get("repetitions"),
            "warmups": record.get("warmups"),
            "samples_ms": {phase: [s * 1e3 for s in record["phases"][phase]["samples"]] for phase in PHASES}}


SPIN_SOURCE = r"""
extern "C" __global__ void spin(long long cycles) {
  const long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}
"""


def event_timer(cupy, hold_us: float = 0.0):
    """timed(call) -> (device ms between events around the call, host us inside the call).

    With hold_us > 0 one thread spins for that long on the stream before the opening event,
    so the device reaches the event after the host has enqueued the call (where the call's
    host time is shorter than the hold): the events then time the call's device work, as
    the harness's events around its launches do. Without it, host time before the call's
    first launch is idle device time inside the events."""
    stream = cupy.cuda.get_current_stream()
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    spin = cupy.RawKernel(SPIN_SOURCE, "spin") if hold_us > 0 else None
    clock_khz = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["clockRate"] if spin else 0
    cycles = cupy.int64(int(hold_us * clock_khz / 1000))

    def timed(call) -> tuple[float, float]:
        if spin is not None:
            spin((1,), (1,), (cycles,), stream=stream)
        start.record(stream)
        t0 = time.perf_counter()
        call()
        host_us = (time.perf_counter() - t0) * 1e6
        stop.record(stream)
        stop.synchronize()
        return cupy.cuda.get_elapsed_time(start, stop), host_us
    return timed


def settled(windows: list[float], tolerance: float) -> bool:
    """Whether the last three window medians agree within `tolerance` (relative)."""
    if len(windows) < 3:
        return False
    last = windows[-3:]
    return (max(last) - min(last)) <= tolerance * min(last)


def warm_up(calls: dict, timed, min_rounds: int, min_ms: float, tolerance: float, max_rounds: int) -> dict:
    """Rounds of every call until at least `min_rounds` rounds and `min_ms` of timed work,
    and every call's last three window medians (WINDOW rounds each) agree within
    `tolerance`; at most `max_rounds`. What it took."""
    work_ms, rounds = 0.0, 0
    current: dict = {key: [] for key in calls}
    windows: dict = {key: [] for key in calls}
    while rounds < max_rounds:
        for key, call in calls.items():
            ms, _ = timed(call)
            work_ms += ms
            current[key].append(ms)
        rounds += 1
        if rounds % WINDOW == 0:
            for key in calls:
                windows[key].append(statistics.median(current[key]))
                current[key] = []
            if rounds >= min_rounds and work_ms >= min_ms and all(settled(w, tolerance) for w in windows.values()):
                return {"rounds": rounds, "work_ms": round(work_ms, 3), "settled": True}
    return {"rounds": rounds, "work_ms": round(work_ms, 3), "settled": False}


def timed_rounds(calls: dict, timed, rounds: int) -> tuple[dict, dict]:
    """`rounds` rounds, one call of each per round in order: device ms and host us per call."""
    device: dict = {key: [] for key in calls}
    host: dict = {key: [] for key in calls}
    for _ in range(rounds):
        for key, call in calls.items():
            ms, us = timed(call)
            device[key].append(ms)
            host[key].append(us)
    return device, host


def spread(samples: list[float]) -> dict:
    """Median, quartiles, extremes and drift (last third's median over the first third's)."""
    q1, median, q3 = statistics.quantiles(samples, n=4) if len(samples) > 1 else (samples[0],) * 3
    third = max(1, len(samples) // 3)
    return {"ms_median": statistics.median(samples), "ms_q1": q1, "ms_q3": q3, "ms_min": min(samples),
            "ms_max": max(samples), "drift": statistics.median(samples[-third:]) / statistics.median(samples[:third]),
            "n": len(samples)}


def library_calls():
    """The module's and CuPy's calls on the same CuPy arrays, in round order."""
    import cupy
    import cupyx.scipy.ndimage as cndi

    import splinebench

    rng = np.random.default_rng(2026)
    f = cupy.asarray(rng.uniform(-1, 1, (EDGE,) * 3).astype(np.float32))
    x = cupy.asarray(rng.uniform(0, EDGE - 1, (3, QUERIES)).astype(np.float32))
    c = splinebench.spline_filter(f, impl=IMPL, mode="mirror")
    calls = {
        ("splinebench", "prefilter"): lambda: splinebench.spline_filter(f, impl=IMPL, mode="mirror"),
        ("cupy", "prefilter"): lambda: cndi.spline_filter(f, order=3, mode="mirror", output=np.float32),
        ("splinebench", "evaluate"): lambda: splinebench.map_coordinates(c, x, impl=IMPL, mode="mirror",
                                                                         prefilter=False),
        ("cupy", "evaluate"): lambda: cndi.map_coordinates(c, x, order=3, mode="mirror", prefilter=False,
                                                           output=np.float32),
    }

    def check() -> None:
        # The module's results are the implementation's: the same check as the harness's
        # against CuPy's f32 result would only restate the tolerance tests; shapes and
        # finiteness catch a call that did nothing.
        y = splinebench.map_coordinates(c, cupy.ascontiguousarray(x[:, :4096]), impl=IMPL, mode="mirror",
                                        prefilter=False)
        if y.shape != (4096,) or not bool(cupy.isfinite(y).all()):
            raise BenchError("the module's lookups came back malformed")
    return calls, check


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", type=Path, default=Path("build/bin/splinebench"), help="the harness executable")
    parser.add_argument("--machine", default=socket.gethostname().split(".")[0], help="results label")
    parser.add_argument("--out", type=Path, default=Path("results"), help="results root (default: results)")
    parser.add_argument("--blocks", type=int, default=3, help="harness runs, each followed by library rounds")
    parser.add_argument("--repetitions", type=int, default=15, help="timed library rounds per block")
    parser.add_argument("--harness-repetitions", type=int, default=None,
                        help="repetitions of each harness run (default: the gpu suite's)")
    parser.add_argument("--harness-warmups", type=int, default=None,
                        help="warm-ups of each harness run (default: the gpu suite's)")
    parser.add_argument("--warmup-rounds", type=int, default=50, help="least library warm-up rounds per block")
    parser.add_argument("--warmup-ms", type=float, default=200.0, help="least timed device work of a warm-up (ms)")
    parser.add_argument("--warmup-max-rounds", type=int, default=300, help="most library warm-up rounds per block")
    parser.add_argument("--hold-us", type=float, default=2000.0,
                        help="device spin before each call's opening event (us; 0: none, the events open on an "
                             "idle device and include the call's host time before its first launch)")
    parser.add_argument("--stable", type=float, default=0.03,
                        help="warm-up ends when each call's last three window medians agree within this fraction")
    parser.add_argument("--git-sha", default=os.environ.get("SPLINEBENCH_GIT_SHA", ""),
                        help="the commit measured (default: $SPLINEBENCH_GIT_SHA)")
    args = parser.parse_args(argv)
    if args.blocks < 1 or args.repetitions < 1:
        parser.error("--blocks and --repetitions must be at least 1")
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

    harness_samples: dict = {phase: [] for phase in PHASES}
    harness_blocks: dict = {phase: [] for phase in PHASES}
    device: dict = {}
    host: dict = {}
    library_blocks: dict = {}
    warmups = []
    try:
        calls, check = library_calls()
        timed = event_timer(cupy, args.hold_us)
        for block in range(args.blocks):
            harness = harness_phases(args.bin, args.harness_repetitions, args.harness_warmups)
            for phase in PHASES:
                harness_samples[phase] += harness["samples_ms"][phase]
                harness_blocks[phase].append(statistics.median(harness["samples_ms"][phase]))
            warmups.append(warm_up(calls, timed, args.warmup_rounds, args.warmup_ms, args.stable,
                                   args.warmup_max_rounds))
            got, took = timed_rounds(calls, timed, args.repetitions)
            for key in calls:
                device.setdefault(key, []).extend(got[key])
                host.setdefault(key, []).extend(took[key])
                library_blocks.setdefault(key, []).append(statistics.median(got[key]))
            print(f"block {block + 1}/{args.blocks}: warm-up {warmups[-1]['rounds']} rounds "
                  f"({'settled' if warmups[-1]['settled'] else 'not settled'}), module prefilter "
                  f"{library_blocks[('splinebench', 'prefilter')][-1]:.4f} ms, harness "
                  f"{harness_blocks['prefilter'][-1]:.4f} ms", file=sys.stderr)
        check()
    except BenchError as exc:
        print(f"module_throughput: {exc}", file=sys.stderr)
        return 1
    versions = {"cupy": cupy.__version__, "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
                "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()}

    rows = []
    for phase, work in (("prefilter", f"float32 {EDGE}^3, mode mirror"),
                        ("evaluate", f"{QUERIES} uniform lookups into float32 {EDGE}^3 coefficients")):
        base = spread(harness_samples[phase])
        rows.append({"library": f"splinebench harness ({IMPL})", "phase": phase, "work": work, **base,
                     "block_medians_ms": harness_blocks[phase], "samples_ms": harness_samples[phase]})
        for library in ("splinebench", "cupy"):
            key = (library, phase)
            label = f"splinebench module ({IMPL})" if library == "splinebench" else f"cupy {versions['cupy']}"
            stats = spread(device[key])
            rows.append({"library": label, "phase": phase, "work": work, **stats,
                         "block_medians_ms": library_blocks[key], "samples_ms": device[key],
                         "host_us_median": statistics.median(host[key]),
                         "host_within_hold": (sum(h < args.hold_us for h in host[key]) / len(host[key])
                                              if args.hold_us > 0 else None),
                         "over_harness": stats["ms_median"] / base["ms_median"]})
    import splinebench
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    method = {"blocks": args.blocks, "rounds_per_block": args.repetitions, "hold_us": args.hold_us,
              "harness_repetitions": harness["repetitions"], "harness_warmups": harness["warmups"],
              "warmup_rule": {"least_rounds": args.warmup_rounds, "least_work_ms": args.warmup_ms,
                              "window_rounds": WINDOW, "stable_within": args.stable,
                              "most_rounds": args.warmup_max_rounds},
              "warmups": warmups}
    doc = {"benchmark": "module_throughput", "schema": 2, "date": stamp, "machine": args.machine,
           "case_id": harness["case_id"], "harness_command": harness["command"],
           "repetitions": args.blocks * args.repetitions, "warmups": min(w["rounds"] for w in warmups),
           "method": method,
           "context": {"git_commit": args.git_sha, "python": platform.python_version(), "numpy": np.__version__,
                       "module": str(Path(splinebench.__file__).parent), "host": socket.gethostname(), **versions},
           "rows": rows}
    path = write_result(args.out, args.machine, stamp, "module-throughput", doc)
    for row in rows:
        ratio = f"  {row['over_harness']:.3f}x the harness" if "over_harness" in row else ""
        print(f"{row['library']:34} {row['phase']:9} {row['ms_median']:9.4f} ms "
              f"[{row['ms_q1']:.4f}, {row['ms_q3']:.4f}] drift {row['drift']:.3f}{ratio}")
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
