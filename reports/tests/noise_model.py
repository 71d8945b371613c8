"""Synthetic runs with the noise structure of a shared CI machine, for the compare
tests: samples of one back-to-back burst agree closely, while bursts (rounds) and
whole runs differ by a few percent, and now and then a round is disturbed by a
load spike. A test over raw samples mistakes that structure for real changes;
the compare must not.

Deterministic: the same seed gives the same runs."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from reports.tests import synth

IMPLS = ("cpu_scalar", "cpu_sse", "cpu_simd", "reference")
# (shape, queries, prefilter seconds, evaluate seconds) for cpu_scalar; others scale.
WORKLOADS = (([128, 128, 128], 2 ** 17, 0.165, 0.034), ([1024, 1024], 2 ** 18, 0.060, 0.011),
             ([2 ** 20], 2 ** 20, 0.021, 0.040), ([24, 24, 24, 24], 2 ** 13, 0.095, 0.007))
SCALE = {"cpu_scalar": 1.0, "cpu_sse": 0.06, "cpu_simd": 0.03, "reference": 1.6}
ACCURACY = {"prefilter": {"rel_l2": 4e-8, "max_abs": 1e-7},
            "interp": {"max_abs": 1e-7, "rms": 1e-8, "rel_l2": 1e-8, "max_rel_to_maxf": 2e-7,
                       "checked_queries": 4096, "nan_ok": True}}
TOLERANCE = {"prefilter_rel_l2": 2e-7, "interp_max_rel_to_maxf": 1e-5, "basis": "stated bound"}

# Relative standard deviations (of log time).
MACHINE = 0.02      # the whole run (every case) a bit slower or faster
PER_RUN = 0.02      # one case in one run (where its memory landed, ...)
PER_ROUND = 0.02    # one burst
PER_SAMPLE = 0.004  # within a burst: the samples hang together
SPIKE_CHANCE = 0.08  # a round disturbed by load on the other core ...
SPIKE = (1.3, 1.8)   # ... by this factor
# How much each implementation slows down when the machine is busy (run_doc's `load`):
# time x load ** sensitivity; compute-bound code suffers less than memory-bound code.
SENSITIVITY = {"cpu_scalar": 0.3, "reference": 0.6, "cpu_sse": 1.2, "cpu_simd": 1.5}


def run_doc(seed: int, rounds: int = 3, repetitions: int = 9, slowdown: dict[str, float] | None = None,
            impls=IMPLS, machine: str = "ci-box", run_id: str | None = None, load=None) -> dict:
    """`load`: per round, how busy the machine was (1: as usual), felt by each
    implementation to its SENSITIVITY."""
    rng = np.random.default_rng(seed)
    load = list(load) if load is not None else [1.0] * rounds
    machine_factor = np.exp(rng.normal(0, MACHINE))
    records = []
    for impl in impls:
        for shape, queries, prefilter, evaluate in WORKLOADS:
            phases = {}
            for name, base in (("prefilter", prefilter), ("evaluate", evaluate)):
                level = base * SCALE[impl] * machine_factor * np.exp(rng.normal(0, PER_RUN))
                level *= (slowdown or {}).get(impl, 1.0)
                samples = []
                for r in range(rounds):
                    burst = level * np.exp(rng.normal(0, PER_ROUND)) * load[r] ** SENSITIVITY[impl]
                    if rng.random() < SPIKE_CHANCE:
                        burst *= rng.uniform(*SPIKE)
                    samples += list(burst * np.exp(rng.normal(0, PER_SAMPLE, repetitions)))
                phases[name] = [float(v) for v in samples]
            records.append(synth.record(impl, "cpu", shape, queries=queries, phases=phases,
                                        accuracy=ACCURACY, tolerance=TOLERANCE))
    ctx = synth.context(machine, "nightly", run_id=run_id or f"20261125-{seed % 240000:06d}-nightly",
                        cpu_model="Test CPU")
    if rounds > 1:
        ctx["rounds"] = {"count": rounds, "repetitions": repetitions}
    return synth.results(ctx, records)


def write(directory: Path, seed: int, **kw) -> Path:
    return synth.write_run(Path(directory), run_doc(seed, **kw))
