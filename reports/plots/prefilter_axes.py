"""Prefilter time per axis (the per-axis phases prefilter_axis0..D-1), grouped
bars per implementation, one panel per grid. Axis labels also give Ruijters'
names: x is the contiguous axis, our LAST axis."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .. import implementations, timing
from ..loader import Record, Run
from ..seeds import seed
from . import style

MAX_PANELS = 6


def _ruijters_name(axis: int, dims: int) -> str:
    names = ["x", "y", "z"]
    from_last = dims - 1 - axis
    return names[from_last] if dims <= 3 else ""


def _panel_order(groups: dict[tuple, list[Record]]) -> list[tuple]:
    """The seed's sizes first (they are what the tables reproduce), then the largest grids."""
    seed_shapes = [tuple(r["shape"]) for key in ("ruijters_table1", "ruijters_table2")
                   for r in seed(key)["rows"]]

    def rank(key):
        shape = key[1]
        return (seed_shapes.index(shape) if shape in seed_shapes else len(seed_shapes), -np.prod(shape))
    return sorted(groups, key=rank)[:MAX_PANELS]


def plot_prefilter_axes(runs: Sequence[Run], out_dir: Path) -> style.Figure | style.Skipped:
    stem = "prefilter_time_per_axis"
    title = "Prefilter time per axis"
    records = [r for run in runs for r in run.records if r.ok and timing.has_axis_phases(r)]
    if not records:
        return style.Skipped(stem, title, "no record has per-axis prefilter phases (prefilter_axis0..5); "
                                          "the implementations in these runs time the prefilter as a whole")
    groups: dict[tuple, list[Record]] = {}
    for record in records:
        groups.setdefault((record.dims, record.shape, record.channels, record.fields), []).append(record)
    keys = _panel_order(groups)
    fig, axes = style.panels(len(keys))
    registry = implementations.for_runs(runs)  # row order only; looks come from style
    for ax, key in zip(axes, keys):
        dims, shape, channels, fields = key
        bars: dict[tuple, Record] = {}
        for record in sorted(groups[key], key=lambda r: (r.mode != "half", r.queries != 0)):
            bars.setdefault((registry.order_key(record.impl), record.run.label, record.threads), record)
        entries = sorted(bars.items())
        all_heights: list[float] = []
        width = 0.8 / max(len(entries), 1)
        axis_positions = np.arange(dims)
        for i, ((_, run_label, threads), record) in enumerate(entries):
            run = record.run
            values = [timing.axis_seconds(record, a) for a in range(dims)]
            heights = [v * 1e3 / fields if v is not None else np.nan for v in values]
            spreads = [timing.phase_spread(record, timing.PREFILTER_AXIS.format(a)) for a in range(dims)]
            errors = [[max(h - sp.q1 * 1e3 / fields, 0.0) if sp else 0.0 for h, sp in zip(heights, spreads)],
                      [max(sp.q3 * 1e3 / fields - h, 0.0) if sp else 0.0 for h, sp in zip(heights, spreads)]]
            ax.bar(axis_positions - 0.4 + width * (i + 0.5), heights, width, yerr=errors,
                   error_kw={"elinewidth": 0.9, "capsize": 2, "ecolor": "#333"},
                   color=style.variant_colour(runs, record.impl, threads), edgecolor="white", linewidth=0.5,
                   hatch=None if list(runs).index(run) == 0 else "//",
                   label=style.line_label(runs, run, style.variant_name(record.impl, threads)))
            all_heights += [h for h in heights if h == h]
        ax.set_xticks(axis_positions)
        ax.set_xticklabels([f"axis {a}" + (f"\n(R&T {_ruijters_name(a, dims)})" if dims <= 3 else "")
                            for a in range(dims)])
        # Linear while bars are comparable; log when CPU and GPU bars span decades.
        if all_heights and max(all_heights) / max(min(all_heights), 1e-300) > 30:
            style.log_axes(ax, x=False)
        ax.set_xlabel("grid axis (C order; last is contiguous)")
        per = " per field" if fields > 1 else ""
        ax.set_ylabel(f"median time{per} (ms)")
        ax.set_title(f"{dims}-D grid {'×'.join(map(str, shape))}, C={channels}, F={fields}")
    caption = ("Median per-axis prefilter time over the repetitions (divided by the number of fields F "
               "when a batch is prefiltered); error bars: first to third quartile. Axes are C-order: the last axis is contiguous, which "
               "Ruijters & Thévenaz call x.")
    return style.finish(fig, axes, title, caption, runs, out_dir, stem)
