"""Throughput versus grid size, one panel per D: reconstruction (lookups/s from
the evaluate phase) and prefilter (samples/s). The published 256^3 lookup rate
of Ruijters & Thévenaz is marked on the 3-D reconstruction panel."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from matplotlib.lines import Line2D

from .. import implementations, timing
from ..loader import Record, Run
from ..seeds import seed
from . import style
from .few_sizes import MIN_SIZES, few_sizes_table
from .sweeps import choose_slice, describe


def _draw(runs: Sequence[Run], out_dir: Path, stem: str, title: str, ylabel: str, caption: str,
          records: list[Record], fixed: tuple[str, ...], rate: Callable[[Record], float | None],
          phase: str, seed_marker: bool) -> list:
    """[the figure (or why not)] plus a table of the panels with fewer than MIN_SIZES
    grid sizes."""
    slices = {}
    table_rows = []
    for dims in sorted({r.dims for r in records}):
        chosen, members = choose_slice([r for r in records if r.dims == dims], lambda r: r.shape, fixed,
                                       tiebreak=lambda r: -r.queries)
        if len({r.shape for r in members}) >= MIN_SIZES:
            slices[dims] = (chosen, members)
            continue
        for r in sorted(members, key=lambda r: (implementations.for_runs(runs).order_key(r.impl), r.points)):
            value = rate(r)
            table_rows.append([str(dims), describe(chosen), r.run.label if r.run else "", style.variant_name(r.impl, r.threads),
                               "x".join(map(str, r.shape)), f"{value:.3g}" if value else "—"])
    items: list = []
    if table_rows:
        items.append(few_sizes_table(f"{stem}_few_sizes", f"{title}: cases with fewer than {MIN_SIZES} grid sizes",
                                     "grid", ylabel, table_rows))
    if not slices:
        return [style.Skipped(stem, title, "no usable records in these runs" if not table_rows else
                              f"no case has {MIN_SIZES} or more grid sizes (see the table)"), *items]
    dims_list = sorted(slices)
    fig, axes = style.panels(len(dims_list))
    extra = []
    for ax, dims in zip(axes, dims_list):
        chosen, members = slices[dims]
        for run in runs:
            lines: dict[tuple[str, int], dict[tuple, Record]] = {}
            for record in members:
                if record.run is run:
                    # One point per grid: the first record of that grid in the run.
                    lines.setdefault((record.impl, record.threads), {}).setdefault(record.shape, record)
            for (impl, threads), by_shape in sorted(lines.items(),
                                                    key=lambda kv: implementations.for_runs(runs).order_key(kv[0][0])):
                points = sorted(by_shape.values(), key=lambda r: r.points)
                ys = [rate(r) for r in points]
                ax.errorbar([r.points for r in points], ys, yerr=_rate_errors(points, ys, phase),
                            marker=style.variant_marker(runs, run, impl),
                            color=style.variant_colour(runs, impl, threads),
                            label=style.line_label(runs, run, style.variant_name(impl, threads)),
                            linewidth=1.6, markersize=4.5, elinewidth=1, capsize=2)
        s = seed("ruijters_reconstruction")
        row = s["rows"][0]
        points = 1
        for extent in row["shape"]:
            points *= extent
        shown = [r.points for r in members]
        # The published point only where our grids come near it: drawn far to the
        # right of the data it would squeeze every measured line into a corner.
        if seed_marker and dims == 3 and shown and min(shown) / 3 <= points <= max(shown) * 3:
            ax.plot([points], [row["lookups_per_s"]], marker="*", markersize=13, color="black",
                    linestyle="none", label="_seed")
            ax.annotate(f"{s['short']}, {s['hardware_by_device']['gpu']}", (points, row["lookups_per_s"]),
                        textcoords="offset points", xytext=(-10, -4), ha="right", va="top", fontsize=8)
            extra = [(Line2D([], [], marker="*", color="black", linestyle="none", markersize=11),
                      f"published: {s['short']} {row['size_label']}")]
        style.log_axes(ax)
        ax.set_title(style.panel_title(f"D = {dims}: {describe(chosen)}"))
        ax.set_xlabel("grid size (samples per field)")
        ax.set_ylabel(ylabel)
    return [style.finish(fig, axes, title, caption, runs, out_dir, stem, extra), *items]


def _rate_errors(records: list[Record], rates: list[float], phase: str) -> list[list[float]]:
    """Error bars of a rate (work / median time): the rates at the phase's quartile
    times, so each bar spans the middle half of the repetitions."""
    low, high = [], []
    for record, rate in zip(records, rates):
        spread = timing.phase_spread(record, phase)
        if spread is None or spread.q1 <= 0:
            low.append(0.0)
            high.append(0.0)
            continue
        low.append(max(rate - rate * spread.median / spread.q3, 0.0))
        high.append(max(rate * spread.median / spread.q1 - rate, 0.0))
    return [low, high]


# Grids smaller than this test boundary handling (lines of 1..4 samples); their
# times measure call overhead, not throughput, so the throughput plots leave them out.
MIN_POINTS = 256


def plot_reconstruction_throughput(runs: Sequence[Run], out_dir: Path) -> list:
    records = [r for run in runs for r in run.records
               if r.ok and r.queries > 0 and r.points >= MIN_POINTS and timing.queries_per_second(r)]
    return _draw(runs, out_dir, "throughput_reconstruction_vs_grid",
                 "Reconstruction throughput vs grid size", "lookups per second (queries·fields / s)",
                 "Lookups/s = queries × fields / median evaluate time (kernel only, transfers excluded). "
                 "Error bars: the rates at the quartiles of the evaluate times (the middle half of the "
                 "repetitions). Each panel fixes the batch size and case named in its title; grids under "
                 f"{MIN_POINTS} samples (boundary tests) are left out.",
                 records, ("dims", "channels", "fields", "mode", "data", "pattern", "queries"),
                 timing.queries_per_second, "evaluate", seed_marker=True)


def plot_prefilter_throughput(runs: Sequence[Run], out_dir: Path) -> list:
    records = [r for run in runs for r in run.records
               if r.ok and r.points >= MIN_POINTS and timing.prefilter_samples_per_second(r)]
    # The prefilter does not depend on the queries: prefer prefilter-only records.
    records.sort(key=lambda r: r.queries != 0)
    return _draw(runs, out_dir, "throughput_prefilter_vs_grid",
                 "Prefilter throughput vs grid size", "samples per second (points·fields / s)",
                 "Samples/s = grid points × fields / median prefilter time (all axes, transfers excluded). "
                 "Error bars: the rates at the quartiles of the prefilter times. Each panel fixes the case "
                 f"named in its title; grids under {MIN_POINTS} samples (boundary tests) are left out.",
                 records, ("dims", "channels", "fields", "mode", "data"),
                 timing.prefilter_samples_per_second, "prefilter", seed_marker=False)
