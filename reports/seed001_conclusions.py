"""Seed 001 (the thesis' Table 1) in words: which of its published conclusions hold on
the machine of the runs and which do not, each with the numbers, computed from the same
records thesis_table1 prints (its CPU column's choice, the fastest GPU implementation
of the run, one run at a time)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from . import implementations, timing
from .loader import Record, Run
from .reproduced_tables import THESIS_CPU_ORDER
from .seeds import seed
from .selection import best, matching, pref

PREFERENCE = pref(("mode", "mirror"), ("pattern", "uniform"), ("data", "noise"), ("threads", 1))


@dataclass
class Point:
    label: str                 # "64^4 grid, 64^2 queries"
    queries: int
    published: float           # published CPU / GPU
    ours: float                # our CPU lookup / fastest GPU lookup
    ours_setup: float | None   # the same with setup (prepare + evaluate), CPU / GPU
    cpu: str
    gpu: str
    run: str


def _fastest(run: Run, names: Sequence[str], case) -> Record | None:
    found = [r for name in names for r in best([x for x in matching(run, name, case)
                                                 if x.ok and timing.lookup_seconds(x) is not None], PREFERENCE)]
    return min(found, key=timing.lookup_seconds) if found else None


def points(runs: Sequence[Run]) -> list[Point]:
    s = seed("thesis_table1")
    registry = implementations.for_runs(runs)
    gpus = [n for n in registry.names if registry.device(n) == "gpu"]
    cpu_order = list(THESIS_CPU_ORDER) + [n for n in registry.names
                                          if n not in THESIS_CPU_ORDER and n not in gpus and n != "reference"]
    found = []
    for row in s["rows"]:
        grid, queries = tuple(row["grid"]), int(row["queries"])

        def case(rec: Record, grid=grid, queries=queries) -> bool:
            return (rec.dims == 4 and rec.shape == grid and rec.queries == queries and rec.channels == 1
                    and rec.fields == 1)

        for run in runs:
            cpu = next((c for name in cpu_order if (c := _fastest(run, [name], case)) is not None), None)
            gpu = _fastest(run, gpus, case)
            if cpu is None or gpu is None:
                continue
            cpu_setup, gpu_setup = timing.with_setup_seconds(cpu), timing.with_setup_seconds(gpu)
            found.append(Point(f"{row['grid_label']} grid, {row['queries_label']} queries", queries,
                               float(row["speedup"]), timing.lookup_seconds(cpu) / timing.lookup_seconds(gpu),
                               cpu_setup / gpu_setup if cpu_setup and gpu_setup else None,
                               cpu.impl, gpu.impl, run.run_id))
    return found


def _x(value: float) -> str:
    return f"{value:.2f}×" if value < 10 else f"{value:.1f}×"


def conclusions(runs: Sequence[Run]) -> list[str]:
    """One paragraph per published conclusion: what the thesis found, what the runs give."""
    pts = points(runs)
    if not pts:
        return ["Seed 001's conclusions are not tested here: no run holds the thesis' 4-D cases with both a CPU "
                "and a GPU implementation (suite `thesis` on a machine with a GPU)."]
    out = []
    smallest = min(p.queries for p in pts)
    for p in (p for p in pts if p.queries == smallest):
        setup = (f"; with setup (upload, prefilter and bind included) {_x(p.ours_setup)}"
                 if p.ours_setup is not None else "")
        verdict = f"{'holds' if p.ours < 1 else 'does not hold'} for the lookup alone"
        if p.ours_setup is not None:
            verdict += f" and {'holds' if p.ours_setup < 1 else 'does not hold'} with setup"
        out.append(f"Crossover at the smallest batch ({p.label}): the thesis' GPU ran at {_x(p.published)} the speed "
                   f"of its SSE CPU. Here ({p.run}) {p.gpu} runs the lookups at {_x(p.ours)} the speed of "
                   f"{p.cpu}{setup}. The conclusion that a small batch is faster on the CPU {verdict}.")
    large = [p for p in pts if p.queries > smallest]
    if large:
        lo, hi = min(p.ours for p in large), max(p.ours for p in large)
        pub_lo, pub_hi = min(p.published for p in large), max(p.published for p in large)
        factor = "more" if lo > pub_hi else "less" if hi < pub_lo else "a comparable factor"
        out.append(f"Large batches: the thesis' GPU was {_x(pub_lo)} to {_x(pub_hi)} as fast as its CPU; here the "
                   f"fastest GPU implementation is {_x(lo)} to {_x(hi)} as fast as the CPU column "
                   f"({', '.join(sorted({p.cpu for p in large}))}) over the same cases. The conclusion that the GPU "
                   f"wins on large batches {'holds' if lo > 1 else 'does not hold at every case'}, by {factor} "
                   "than published.")
    grow = {p.queries: p for p in pts if p.label.startswith(("16^4", "32^4"))}
    if len(grow) == 2:
        a, b = grow[min(grow)], grow[max(grow)]
        out.append(f"Growth with the batch: the thesis' speed-up grew from {_x(a.published)} ({a.label}) to "
                   f"{_x(b.published)} ({b.label}); here from {_x(a.ours)} to {_x(b.ours)}, so the speed-up "
                   f"{'grows with the batch here too' if b.ours > a.ours else 'does not grow with the batch here'}.")
    return out
