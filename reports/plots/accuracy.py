"""Accuracy versus D per implementation, with each implementation's tolerance
drawn in its colour: interpolation error relative to max|f| (left) and the
prefilter's relative L2 error (right). The plotted error is the largest over all
records of that implementation and D; the tolerance the largest bound among them."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.lines import Line2D

from .. import implementations
from ..loader import Record, Run
from . import style

# Exact zeros (e.g. the oracle against itself) cannot sit on a log axis; they are
# drawn at this floor with hollow markers and named in the caption.
ZERO_FLOOR = 1e-18

METRICS = (
    ("interp", "max_rel_to_maxf", "interp_max_rel_to_maxf",
     "interpolation: max |s − s_ref| / max |f|"),
    ("prefilter", "rel_l2", "prefilter_rel_l2", "prefilter: ‖c − c_ref‖₂ / ‖c_ref‖₂"),
)


def _tolerance(record: Record, key: str) -> float | None:
    value = record.tolerance.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def plot_accuracy(runs: Sequence[Run], out_dir: Path) -> style.Figure | style.Skipped:
    stem = "accuracy_vs_dims"
    title = "Accuracy versus the double-precision oracle, by dimension"
    records = [r for run in runs for r in run.records if r.ok]
    metrics = [m for m in METRICS if any(r.accuracy_value(m[0], m[1]) is not None for r in records)]
    if not metrics:
        return style.Skipped(stem, title, "no record carries accuracy numbers")
    fig, axes = style.panels(len(metrics), max_cols=2)
    zero_seen = False
    registry = implementations.for_runs(runs)
    for ax, (part, key, tol_key, label) in zip(axes, metrics):
        for run in runs:
            impls = registry.ordered(r.impl for r in records if r.run is run)
            for impl in impls:
                own = [r for r in records if r.run is run and r.impl == impl
                       and r.accuracy_value(part, key) is not None]
                if not own:
                    continue
                dims = sorted({r.dims for r in own})
                errors = [max(r.accuracy_value(part, key) for r in own if r.dims == d) for d in dims]
                colour = registry.colour(impl)
                marker = style.run_marker(runs, run)
                name = style.line_label(runs, run, impl)
                shown = [max(e, ZERO_FLOOR) for e in errors]
                ax.plot(dims, shown, color=colour, marker=marker, linewidth=1.6, markersize=5, label=name)
                zeros = [(d, ZERO_FLOOR) for d, e in zip(dims, errors) if e == 0]
                if zeros:
                    zero_seen = True
                    ax.plot(*zip(*zeros), linestyle="none", marker=marker, markersize=8,
                            markerfacecolor="white", color=colour, label="_zero")
                tolerances = [(d, max((t for t in (_tolerance(r, tol_key) for r in own if r.dims == d)
                                       if t is not None), default=None)) for d in dims]
                tolerances = [(d, t) for d, t in tolerances if t is not None]
                if tolerances:
                    ax.plot(*zip(*tolerances), color=colour, linestyle="--", linewidth=1.2,
                            marker="_", markersize=14, label="_tol")
        style.log_axes(ax, x=False)
        ax.set_xlabel("dimensions D")
        ax.set_ylabel("relative error (dimensionless)")
        ax.set_title(label)
        ax.xaxis.get_major_locator().set_params(integer=True)
    extra = [(Line2D([], [], color="#555", linestyle="--", marker="_", markersize=12),
              "tolerance (same colour)")]
    caption = ("Solid: the largest error of each implementation at each D over every record of the run; "
               "dashed: its stated tolerance (the largest bound among those records). A point above its "
               "dashed line is a failing record.")
    if zero_seen:
        caption += f" Hollow markers at {ZERO_FLOOR:g}: error exactly 0."
    return style.finish(fig, axes, title, caption, runs, out_dir, stem, extra)
