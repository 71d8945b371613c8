"""Speed-up of every implementation over a CPU baseline versus batch size, one
panel per D. Speed-ups pair records of the same run (same machine) that did the
same work; solid lines time the evaluate phase alone, dashed lines the batch as
the caller sees it (query upload + evaluate + download) for implementations
that have transfers."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from matplotlib.lines import Line2D

from .. import implementations, timing
from ..loader import Record, Run
from . import style
from .few_sizes import MIN_SIZES, few_sizes_table
from .sweeps import choose_slice, describe

FIXED = ("dims", "shape", "channels", "fields", "mode", "data", "pattern")


def _baseline_by_queries(records: list[Record], baseline: str) -> dict[int, Record]:
    """The baseline's record per batch size; with several thread counts the most
    threads (the strongest baseline)."""
    chosen: dict[int, Record] = {}
    for record in records:
        if record.impl == baseline:
            current = chosen.get(record.queries)
            if current is None or record.threads > current.threads:
                chosen[record.queries] = record
    return chosen


def _ratio_errors(bases: list[Record], records: list[Record], ratios: list[float]) -> list[list[float]]:
    """Error bars of base / record evaluate times: from the ratio of the baseline's
    first quartile to the record's third to that of its third to the record's first."""
    low, high = [], []
    for base, record, ratio in zip(bases, records, ratios):
        b, r = timing.phase_spread(base, "evaluate"), timing.phase_spread(record, "evaluate")
        if b is None or r is None or r.q1 <= 0 or r.q3 <= 0:
            low.append(0.0)
            high.append(0.0)
            continue
        low.append(max(ratio - b.q1 / r.q3, 0.0))
        high.append(max(b.q3 / r.q1 - ratio, 0.0))
    return [low, high]


def plot_speedup(runs: Sequence[Run], out_dir: Path, baseline: str) -> list:
    """[the figure (or why not)] plus a table of the panels with fewer than MIN_SIZES
    batch sizes."""
    stem = f"speedup_vs_batch_over_{baseline}"
    title = f"Reconstruction speed-up over {baseline} vs batch size"
    usable = [r for run in runs for r in run.records
              if r.ok and r.queries > 0 and timing.evaluate_seconds(r)]
    if not any(r.impl == baseline for r in usable):
        return [style.Skipped(stem, title, f"no {baseline} reconstruction records in these runs "
                                           f"(speed-ups are only taken within one run)")]
    # Only records with a partner: the baseline on the same workload in the same run.
    with_baseline = {(id(r.run), r.case_key_without_impl()) for r in usable if r.impl == baseline}
    usable = [r for r in usable if (id(r.run), r.case_key_without_impl()) in with_baseline]
    if not any(r.impl != baseline for r in usable):
        return [style.Skipped(stem, title, f"no implementation shares a workload with {baseline} in the same run")]
    slices = {}
    table_rows = []
    for dims in sorted({r.dims for r in usable}):
        fixed, members = choose_slice([r for r in usable if r.dims == dims], lambda r: r.queries, FIXED)
        if len({r.queries for r in members}) >= MIN_SIZES:
            slices[dims] = (fixed, members)
            continue
        for run in runs:
            own = [r for r in members if r.run is run]
            base = _baseline_by_queries(own, baseline)
            for r in sorted(own, key=lambda r: (implementations.for_runs(runs).order_key(r.impl), r.queries)):
                if r.queries in base and base[r.queries] is not r:
                    ratio = timing.evaluate_seconds(base[r.queries]) / timing.evaluate_seconds(r)
                    table_rows.append([str(dims), describe(fixed), run.label, style.variant_name(r.impl, r.threads),
                                       str(r.queries), f"{ratio:.3g}"])
    items: list = []
    if table_rows:
        items.append(few_sizes_table(f"{stem}_few_sizes", f"{title}: cases with fewer than {MIN_SIZES} batch sizes",
                                     "queries", f"speed-up over {baseline} (×)", table_rows))
    if not slices:
        return [style.Skipped(stem, title, f"no case has {MIN_SIZES} or more batch sizes"
                              + (" (see the table)" if table_rows else "")), *items]
    dims_list = sorted(slices)
    fig, axes = style.panels(len(dims_list))
    drew_dashed = False
    for ax, dims in zip(axes, dims_list):
        fixed, members = slices[dims]
        for run in runs:
            own = [r for r in members if r.run is run]
            base = _baseline_by_queries(own, baseline)
            if not base:
                continue
            lines: dict[tuple[str, int], list[Record]] = {}
            for record in own:
                if base.get(record.queries) is not record:  # the baseline is the y = 1 line
                    lines.setdefault((record.impl, record.threads), []).append(record)
            for (impl, threads), recs in sorted(lines.items(), key=lambda kv: implementations.for_runs(runs).order_key(kv[0][0])):
                recs = sorted((r for r in recs if r.queries in base), key=lambda r: r.queries)
                if not recs:
                    continue
                label = style.line_label(runs, run, style.variant_name(impl, threads))
                colour = style.variant_colour(runs, impl, threads)
                marker = style.variant_marker(runs, run, impl)
                xs = [r.queries for r in recs]
                ys = [timing.evaluate_seconds(base[r.queries]) / timing.evaluate_seconds(r) for r in recs]
                ax.errorbar(xs, ys, yerr=_ratio_errors([base[r.queries] for r in recs], recs, ys), marker=marker,
                            color=colour, label=label, linewidth=1.6, markersize=4.5, elinewidth=1, capsize=2)
                with_transfers = [r for r in recs if "query_upload" in r.phases or "download" in r.phases]
                if with_transfers:
                    xs = [r.queries for r in with_transfers]
                    ys = [timing.lookup_seconds(base[r.queries]) / timing.lookup_seconds(r)
                          for r in with_transfers]
                    ax.plot(xs, ys, marker=marker, color=colour, linestyle="--", linewidth=1.2,
                            markersize=3.5, markerfacecolor="none", label="_" + label)
                    drew_dashed = True
        ax.axhline(1.0, color="#444", linestyle=":", linewidth=1)
        style.log_axes(ax)
        ax.set_title(style.panel_title(f"D = {dims}: {describe(fixed)}"))
        ax.set_xlabel("batch size (queries)")
        ax.set_ylabel(f"speed-up over {baseline} (×)")
    extra = []
    if drew_dashed:
        extra.append((Line2D([], [], color="#555", linestyle="--"), "incl. query/value transfers"))
    extra.append((Line2D([], [], color="#444", linestyle=":"), f"= {baseline}"))
    caption = (f"Speed-up = median evaluate time of {baseline} / median evaluate time of the "
               "implementation, on the same machine and workload (solid); error bars from "
               f"{baseline}'s first quartile over the implementation's third to its third over the first. Dashed: the same with the "
               "per-repetition sum of query upload + evaluate + download. Each panel fixes the grid and "
               "case named in its title.")
    # The caption names the runs whose records are drawn, not every run of the machine.
    drawn = [run for run in runs if any(r.run is run for dims in dims_list for r in slices[dims][1])]
    return [style.finish(fig, axes, title, caption, drawn or runs, out_dir, stem, extra), *items]
