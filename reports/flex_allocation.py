"""Fixed vs flexible allocation in the suite's own application (seed 004's idea applied
to the B-spline prefilter): `gpu_flex` (the whole N-D prefilter in one launch, tiles
from a ticket counter) against `gpu_flex_fixed` (the same tile arithmetic, one launch
per axis), prefilter time over sizes and D, from harness runs.

Pairs come from one run only (the same code, machine and session); a case measured in
several runs shows the median over those runs of each time and of each run's ratio."""
from __future__ import annotations

import statistics
from collections import defaultdict

from .loader import Record, Run
from .table_model import Column, Row, Table, fmt_ms, fmt_ratio, shape_label

FLEX, FIXED = "gpu_flex", "gpu_flex_fixed"


def _prefilter_key(record: Record) -> tuple:
    """What fixes the prefilter's work: the queries and their pattern do not."""
    return (record.dims, record.shape, record.channels, record.fields, record.mode)


def pairs(runs: list[Run]) -> dict[tuple, list[tuple[float, float]]]:
    """(device name, D, shape, C, F, mode) -> [(t_fixed, t_flex) per run], seconds: in each
    run the median prefilter time of each implementation over its records of the case."""
    out: dict[tuple, list[tuple[float, float]]] = defaultdict(list)
    for run in runs:
        times: dict[tuple, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for r in run.records:
            t = r.phase_median("prefilter")
            if r.impl in (FLEX, FIXED) and r.ok and t is not None and t > 0:
                times[_prefilter_key(r)][r.impl].append(t)
        for key, by_impl in times.items():
            if by_impl.get(FLEX) and by_impl.get(FIXED):
                out[(run.device_name("gpu"), *key)].append(
                    (statistics.median(by_impl[FIXED]), statistics.median(by_impl[FLEX])))
    return dict(out)


def flex_vs_fixed_table(runs: list[Run]) -> Table:
    table = Table(
        key="flex_vs_fixed_prefilter",
        title="Fixed vs flexible allocation in the prefilter: gpu_flex_fixed vs gpu_flex",
        caption=("gpu_flex_fixed launches one kernel per axis (the host orders the axes); gpu_flex runs "
                 "the whole N-D prefilter in one launch whose blocks take tiles from a ticket counter "
                 "as they become ready. Median prefilter time (GPU, without transfers) of each; "
                 "fixed / flex > 1: the flexible allocation is faster. 'runs': how many runs measured "
                 "both (medians over them)."),
        columns=[Column("GPU"), Column("D", numeric=True), Column("shape"), Column("C", numeric=True),
                 Column("mode"), Column("gpu_flex_fixed", "ms", numeric=True), Column("gpu_flex", "ms", numeric=True),
                 Column("fixed / flex", "x", numeric=True), Column("runs", numeric=True)])
    found = pairs(runs)
    for key in sorted(found, key=lambda k: (k[0], k[1], _points(k[2]), k[2], k[3], k[4], k[5])):
        device, dims, shape, channels, fields, mode = key
        p = found[key]
        fixed = statistics.median(t for t, _ in p)
        flex = statistics.median(f for _, f in p)
        ratio = statistics.median(t / f for t, f in p)
        label = shape_label(shape) + (f" ×{fields} fields" if fields > 1 else "")
        table.add(Row([device, str(dims), label, str(channels), mode, fmt_ms(fixed * 1e3), fmt_ms(flex * 1e3),
                       fmt_ratio(ratio), str(len(p))]))
    if not found:
        table.add(Row(["—"], kind="missing", note="no run measured both gpu_flex and gpu_flex_fixed on one case"))
        return table
    pooled = sorted({(run.run_id, str(run.context.get("git_sha", "?"))[:10]) for run in runs
                     if any(r.impl in (FLEX, FIXED) for r in run.records)})
    table.notes.append("Runs pooled (run id @ revision): " + ", ".join(f"{i} @ {sha}" for i, sha in pooled) +
                       ". Runs at different revisions measure different code: compare a row's runs in the "
                       "runs' own reports where it matters.")
    return table


def _points(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n
