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


def _lines(runs: Sequence[Run], records: list[Record]) -> dict[tuple[str, str], list[Record]]:
    """Records per (implementation, its evaluation arithmetic as its run registered it):
    one line per implementation over all runs, split only where runs registered it
    with different arithmetic (the same name meaning two computations)."""
    lines: dict[tuple[str, str], list[Record]] = {}
    for r in records:
        lines.setdefault((r.impl, implementations.evaluation_of(r.run, r.impl)), []).append(r)
    return lines


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
    lines = _lines(runs, records)
    split = {impl for impl, _ in lines if sum(1 for i, _ in lines if i == impl) > 1}
    for ax, (part, key, tol_key, label) in zip(axes, metrics):
        for (impl, evaluation), own_all in sorted(lines.items(), key=lambda kv: (registry.order_key(kv[0][0]), kv[0][1])):
            own = [r for r in own_all if r.accuracy_value(part, key) is not None]
            if not own:
                continue
            dims = sorted({r.dims for r in own})
            errors = [max(r.accuracy_value(part, key) for r in own if r.dims == d) for d in dims]
            colour, marker = style.colour(impl), style.marker(impl)
            name = f"{impl} [{evaluation or 'unnamed arithmetic'}]" if impl in split else impl
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
                ax.plot(*zip(*tolerances), color=colour, linestyle="--", linewidth=1.0, alpha=0.8,
                        label="_tol")
        style.log_axes(ax, x=False)
        ax.set_xlabel("dimensions D (axes)")
        ax.set_ylabel("relative error (dimensionless)")
        ax.set_title(label)
        ax.xaxis.get_major_locator().set_params(integer=True)
    extra = [(Line2D([], [], color="#555", linestyle="--"), "tolerance (same colour)")]
    caption = ("Solid: the largest error of each implementation at each D over every record of the runs shown "
               "(one line per implementation; split by evaluation arithmetic where runs registered it "
               "differently); dashed: its stated tolerance (the largest bound among those records). A point "
               "above its dashed line is a failing record.")
    if zero_seen:
        caption += f" Hollow markers at {ZERO_FLOOR:g}: error exactly 0."
    return style.finish(fig, axes, title, caption, runs, out_dir, stem, extra,
                        short_caption="Worst interpolation and prefilter error per implementation against D, "
                                      "with each tolerance")
