"""Builds result documents that follow results/README.md exactly, from a simple
timing model, for the fixtures and the compare tests. Deterministic: the same
arguments give the same bytes."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

GPU_H100 = {"name": "NVIDIA H100 80GB HBM3", "sm_count": 132, "l2_bytes": 52428800,
            "sm_clock_mhz": 1980, "mem_clock_mhz": 2619, "mem_bus_bits": 5120}


def context(machine: str, suite: str, gpu: dict | None = None, run_id: str | None = None,
            cpu_model: str = "Intel(R) Xeon(R) Platinum 8480+", cpu_threads: int = 2,
            implementations: dict | None = None, git_sha: str = "0123456789abcdef0123456789abcdef01234567",
            date: str = "2026-11-22T10:00:00Z", registry: list[dict] | None = None) -> dict:
    ctx = {
        "machine": machine, "run_id": run_id or f"20261122-100000-{suite}", "suite": suite,
        "date": date, "git_sha": git_sha, "git_dirty": False, "compiler": "GNU 12.2.0",
        "cuda_runtime": "13.0" if gpu else None, "cuda_driver": "13.0" if gpu else None,
        "gpu": gpu, "cpu_model": cpu_model, "cpu_threads": cpu_threads, "hostname": f"{machine}-host",
        "implementations": implementations or {},
    }
    if registry is not None:  # runs written before the context recorded the registry have none
        ctx["registry"] = registry
    return ctx


def phase(samples: list[float]) -> dict:
    values = np.asarray(samples, dtype=float)
    q1, median, q3 = (float(v) for v in np.percentile(values, [25, 50, 75]))
    return {"samples": [float(v) for v in values], "median": median, "min": float(values.min()),
            "max": float(values.max()), "q1": q1, "q3": q3, "iqr": q3 - q1}


def noisy(median: float, repetitions: int, spread: float, seed: int) -> list[float]:
    """`repetitions` times around `median` with relative spread `spread`."""
    rng = np.random.default_rng(seed)
    values = median * (1.0 + spread * rng.standard_normal(repetitions))
    return [float(round(max(v, median * 0.05), 12)) for v in values]


def case_id(impl: str, shape, channels: int, fields: int, mode: str, data: str, queries: int,
            pattern: str) -> str:
    return (f"{impl}/D{len(shape)}/{'x'.join(map(str, shape))}/C{channels}/F{fields}/{mode}/{data}"
            f"/q{queries}/{pattern}")


def record(impl: str, device: str, shape, *, channels: int = 1, fields: int = 1, mode: str = "mirror",
           data: str = "noise", queries: int = 0, pattern: str = "uniform", threads: int = 1,
           phases: dict[str, list[float]] | None = None, accuracy: dict | None = None,
           tolerance: dict | None = None, verdict: str | None = None, status: str = "ok",
           message: str = "", repetitions: int | None = None, warmups: int = 2) -> dict:
    shape = list(shape)
    phases = phases or {}
    reps = repetitions if repetitions is not None else (len(next(iter(phases.values()))) if phases else 0)
    phase_docs = {name: phase(samples) for name, samples in phases.items()}
    points = math.prod(shape)
    values = points * channels * fields
    throughput = {}
    if "prefilter" in phase_docs:
        t = phase_docs["prefilter"]["median"]
        throughput["prefilter_samples_per_s"] = fields * points / t
        throughput["prefilter_GBps"] = 2 * 4 * values / t / 1e9
    if "evaluate" in phase_docs and queries:
        t = phase_docs["evaluate"]["median"]
        throughput["queries_per_s"] = queries * fields / t
        throughput["evaluate_GBps"] = (4 * len(shape) * queries + 4 * queries * channels * fields) / t / 1e9
    if verdict is None:
        verdict = "pass" if status == "ok" and accuracy else "n/a"
    return {
        "case_id": case_id(impl, shape, channels, fields, mode, data, queries, pattern),
        "impl": impl, "device": device, "dims": len(shape), "shape": shape, "channels": channels,
        "fields": fields, "mode": mode, "data": data, "queries": queries, "pattern": pattern,
        "threads": threads, "status": status, "message": message, "repetitions": reps, "warmups": warmups,
        "phases": phase_docs, "throughput": throughput, "accuracy": accuracy or {},
        "tolerance": tolerance or {}, "verdict": verdict,
    }


def results(ctx: dict, records: list[dict]) -> dict:
    return {"schema": "splinebench-results", "schema_version": 1, "context": ctx, "records": records}


def write_run(directory: Path, doc: dict) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "results.json"
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return directory


# --- a plausible timing and accuracy model, for fixtures that look like real runs ------------

SPEED = {  # (seconds per tap for evaluate, seconds per sample·axis for prefilter)
    "reference": (1.6e-9, 6e-9), "cpu_scalar": (1.1e-9, 4e-9), "cpu_sse": (3.5e-10, 1.6e-9),
    "cpu_simd": (1.6e-10, 8e-10), "gpu_naive": (1.2e-12, 2.5e-11), "gpu_texture": (3e-13, 2.5e-11),
    "gpu_flex": (2.5e-13, 9e-12), "gpu_flex_fixed": (2.8e-13, 1.2e-11),
}
ERROR = {  # (interp max_rel_to_maxf per D, prefilter rel_l2 per D, interp tol, prefilter tol)
    "reference": (2e-16, 3e-17, 1e-13, 1e-14), "cpu_scalar": (2.1e-7, 4e-8, 1e-5, 5e-7),
    "cpu_sse": (2.3e-7, 4e-8, 1e-5, 5e-7), "cpu_simd": (2.4e-7, 4.2e-8, 1e-5, 5e-7),
    "gpu_naive": (2.2e-7, 4.1e-8, 1e-5, 5e-7), "gpu_texture": (1.1e-3, 4.1e-8, 8e-3, 5e-7),
    "gpu_flex": (2.0e-7, 4.0e-8, 1e-5, 5e-7), "gpu_flex_fixed": (2.5e-7, 4.3e-8, 1e-5, 5e-7),
}


def modelled(impl: str, shape, *, queries: int = 0, channels: int = 1, fields: int = 1,
             mode: str = "mirror", threads: int = 1, repetitions: int = 9, seed: int = 0,
             axis_phases: bool = False, spread: float = 0.02, slowdown: float = 1.0) -> dict:
    device = "gpu" if impl.startswith("gpu") else "cpu"
    dims = len(shape)
    points = math.prod(shape)
    tap, line = SPEED[impl]
    speed = 1.0 / min(threads, 8) if impl == "cpu_simd" else 1.0
    rng_seed = seed + sum(map(ord, impl)) * 7919 + points % 100003 + queries % 7103 + dims
    phases: dict[str, list[float]] = {}

    def put(name: str, seconds: float, extra_seed: int) -> None:
        phases[name] = noisy(seconds, repetitions, spread, rng_seed + extra_seed)

    bytes_ = 4 * points * channels * fields
    put("upload", bytes_ / (20e9 if device == "gpu" else 8e9) + 4e-6, 1)
    per_axis = [line * points * channels * fields * speed * (1.0 + (0.6 if a == dims - 1 and device == "gpu" else 0.0))
                for a in range(dims)]
    overhead = 2e-5 if device == "gpu" else 0.0
    put("prefilter", sum(per_axis) + overhead, 2)
    if axis_phases:
        for a, seconds in enumerate(per_axis):
            put(f"prefilter_axis{a}", seconds + overhead / dims, 10 + a)
    if impl == "gpu_texture":
        put("bind", bytes_ / 400e9 + 1e-5, 3)
    if queries:
        put("evaluate", (tap * queries * 4 ** dims * channels * fields * speed + (6e-6 if device == "gpu" else 0))
            * slowdown, 4)
        if device == "gpu":
            put("query_upload", 4 * dims * queries / 20e9 + 5e-6, 5)
            put("download", 4 * queries * channels * fields / 20e9 + 5e-6, 6)
    interp, pre, interp_tol, pre_tol = ERROR[impl]
    accuracy = {"prefilter": {"rel_l2": pre * dims, "max_abs": pre * dims * 4}}
    if queries:
        accuracy["interp"] = {"max_abs": interp * dims * 0.9, "rms": interp * dims * 0.2,
                              "rel_l2": interp * dims * 0.25, "max_rel_to_maxf": interp * dims,
                              "checked_queries": min(queries, 65536), "nan_ok": True}
    tolerance = {"prefilter_rel_l2": pre_tol, "interp_max_rel_to_maxf": interp_tol,
                 "basis": "per-pass rounding ~1 ulp per axis; nested tap sums"}
    return record(impl, device, shape, channels=channels, fields=fields, mode=mode, queries=queries,
                  threads=threads, phases=phases, accuracy=accuracy, tolerance=tolerance)


def skipped(impl: str, shape, message: str, **kw) -> dict:
    device = "gpu" if impl.startswith("gpu") else "cpu"
    return record(impl, device, shape, status="skipped", message=message, repetitions=0, **kw)
