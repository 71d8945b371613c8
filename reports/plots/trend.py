"""The nightly gate's trend: each case's time over the machine's earlier runs of
the suite, one panel per workload, one line per implementation and phase, as a
ratio to the baseline (so that a regression reads as a line leaving 1), with each
run's interquartile range as error bars, the baseline's runs shaded and the
relative threshold as a band."""
from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path

from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .. import timing
from ..compare_stats import run_time
from ..loader import Record, Run
from ..table_model import shape_label
from . import style

PHASE_STYLES = {"prefilter": "-", "evaluate": "--"}
MAX_RUNS = 40  # the most recent runs drawn; older ones crowd the axis


def _workload(record: Record) -> tuple:
    return record.case_key_without_impl()


def _workload_title(record: Record) -> str:
    text = f"D{record.dims} {shape_label(record.shape)}"
    if record.channels > 1:
        text += f" C{record.channels}"
    if record.fields > 1:
        text += f" F{record.fields}"
    text += f", {record.mode}"
    text += f", {record.queries} {record.pattern} queries" if record.queries else ", prefilter only"
    return text


def _run_label(run: Run) -> str:
    date = str(run.context.get("date", "?"))
    return date[5:19].replace("T", " ") if len(date) >= 19 else date


def plot_trend(history: Sequence[Run], current: Run, baseline: Sequence[Run], out_dir: Path,
               threshold: float, slower: set[tuple] = frozenset(),
               phases: tuple[str, ...] = ("prefilter", "evaluate")) -> style.Figure | style.Skipped:
    """`history`: the machine's runs of the suite, oldest first (the current run and
    the baseline's runs are added if missing); `slower`: (case_id, threads, phase)
    of the current run's SLOWER verdicts, ringed in red."""
    stem, title = "trend", "Trend of each case against the baseline"
    runs = {str(r.context.get("run_id")): r for r in (*history, *baseline, current)}
    ordered = sorted(runs.values(), key=lambda r: (str(r.context.get("date")), str(r.context.get("run_id"))))
    ordered = ordered[-MAX_RUNS:]
    if not any(r is current for r in ordered):
        ordered[-1:] = [current]
    baseline_ids = {str(r.context.get("run_id")) for r in baseline}
    wanted = [r for r in current.records if r.ok and any(p in r.phases for p in phases)]
    if not wanted:
        return style.Skipped(stem, title, "the current run has no measured case")

    def center(key: tuple, phase: str) -> float | None:
        """The baseline's median time for the case-phase (the current run's without one)."""
        source = list(baseline) or [current]
        times = [run_time(r.phases[phase].samples, timing.rounds_of(run))
                 for run in source for r in run.records if r.match_key == key and r.ok and phase in r.phases]
        return statistics.median(times) if times else None

    by_run = [{r.match_key: r for r in run.records if r.ok} for run in ordered]
    workloads: dict[tuple, list[Record]] = {}
    for record in wanted:
        workloads.setdefault(_workload(record), []).append(record)
    fig, axes = style.panels(len(workloads))
    xs = list(range(len(ordered)))
    for ax, (_, records) in zip(axes, workloads.items()):
        for x, run in zip(xs, ordered):
            if str(run.context.get("run_id")) in baseline_ids:
                ax.axvspan(x - 0.4, x + 0.4, color="#e8e8e8", zorder=0, linewidth=0)
        ax.axhspan(1 / (1 + threshold), 1 + threshold, color="#dff0df", zorder=0, linewidth=0)
        ax.axhline(1.0, color="#444", linestyle=":", linewidth=1)
        ax.axvline(xs[-1], color="#888", linestyle=":", linewidth=1)
        for record in sorted(records, key=lambda r: style.variant_name(r.impl, r.threads)):
            colour = style.variant_colour([current], record.impl, record.threads)
            name = style.variant_name(record.impl, record.threads)
            for phase in phases:
                if phase not in record.phases:
                    continue
                middle = center(record.match_key, phase)
                if not middle:
                    continue
                px, py, low, high = [], [], [], []
                for x, run, index in zip(xs, ordered, by_run):
                    other = index.get(record.match_key)
                    if other is None or phase not in other.phases:
                        continue
                    value = run_time(other.phases[phase].samples, timing.rounds_of(run)) / middle
                    spread = timing.phase_spread(other, phase)
                    px.append(x)
                    py.append(value)
                    low.append(max(value - spread.q1 / middle, 0.0))
                    high.append(max(spread.q3 / middle - value, 0.0))
                label = name if phase == phases[0] or phases[0] not in record.phases else "_" + name
                ax.errorbar(px, py, yerr=[low, high], color=colour, linestyle=PHASE_STYLES.get(phase, "-."),
                            marker="o", markersize=3.5, linewidth=1.3, elinewidth=0.9, capsize=2, label=label)
                if (record.case_id, record.threads, phase) in slower:
                    ax.plot([xs[-1]], [py[-1]], marker="o", markersize=11, markerfacecolor="none",
                            markeredgecolor="#d62728", markeredgewidth=2, linestyle="none", label="_slower")
        ax.set_title(style.panel_title(_workload_title(records[0])))
        ax.set_xticks(xs)
        ax.set_xticklabels([_run_label(r) for r in ordered], rotation=60, ha="right", fontsize=7)
        ax.set_xlim(-0.6, xs[-1] + 0.6)
        ax.set_xlabel("run (oldest to newest)")
        ax.set_ylabel("time / baseline median (×)")
    extra = [(Line2D([], [], color="#555", linestyle=PHASE_STYLES[p]), p) for p in phases if p in PHASE_STYLES]
    extra += [(Patch(color="#e8e8e8"), "baseline run"),
              (Patch(color="#dff0df"), f"within ±{threshold:.0%}"),
              (Line2D([], [], marker="o", markersize=9, markerfacecolor="none", markeredgecolor="#d62728",
                      linestyle="none"), "SLOWER in this run")]
    caption = (f"Each point: one run's time for the case (the median of its per-round medians) divided by the "
               f"baseline's median over its {len(baseline)} run(s)" if baseline else
               "Each point: one run's time for the case divided by this run's (no baseline yet)")
    caption += (f"; error bars: that run's interquartile range; the last run (dotted line) is "
                f"{current.run_id}; the {len(ordered)} most recent runs of suite "
                f"`{current.context.get('suite')}` on this machine.")
    return style.finish(fig, axes, title, caption, [current], out_dir, stem, extra)
