"""Shared look of every figure: panel grid, one legend per figure listing each
implementation, and a caption naming the machine and devices the numbers come
from. Figures are written as PNG (for the page) and SVG (for papers)."""
from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display
import matplotlib.colors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from .. import implementations  # noqa: E402
from ..loader import Run  # noqa: E402

PANEL_W, PANEL_H = 5.0, 3.8
PNG_DPI = 110

plt.rcParams.update({
    "font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "legend.fontsize": 9,
    "xtick.labelsize": 9, "ytick.labelsize": 9, "figure.titlesize": 13,
    "axes.grid": True, "grid.alpha": 0.3, "grid.linestyle": "-", "svg.fonttype": "none",
})


@dataclass
class Figure:
    """A written figure: where its files are and what it shows."""
    stem: str
    title: str
    caption: str
    png: Path
    svg: Path


@dataclass
class Skipped:
    """A figure that could not be drawn from these runs, and why."""
    stem: str
    title: str
    reason: str


def panels(count: int, max_cols: int = 3, sharey: bool = False):
    # 4 panels read better as 2×2 than as 3 + 1.
    cols = min(max_cols, max(count, 1), 2 if count == 4 else 3)
    rows = math.ceil(count / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(PANEL_W * cols + 2.2, PANEL_H * rows + 1.3),
                             squeeze=False, sharey=sharey)
    flat = list(axes.flat)
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


def device_caption(runs: Sequence[Run]) -> str:
    """Machine, devices, run and commit of every run shown."""
    parts = []
    for run in runs:
        c = run.context
        sha = str(c.get("git_sha", "?"))[:10] + (" (dirty)" if c.get("git_dirty") else "")
        parts.append(f"{run.label}: CPU {run.cpu_model or '?'}, GPU {run.gpu_name or 'none'}; "
                     f"run {run.run_id}, commit {sha}")
    return " | ".join(parts)


def run_marker(runs: Sequence[Run], run: Run) -> str:
    """Marker per run, so merged runs stay apart even with the same colours."""
    markers = ["o", "s", "^", "D", "v", "P"]
    return markers[list(runs).index(run) % len(markers)]


def line_label(runs: Sequence[Run], run: Run, name: str) -> str:
    return name if len(runs) == 1 else f"{name} @ {run.label}"


def panel_title(text: str, width: int = 46) -> str:
    """Wraps a long panel title so that neighbouring panels' titles never collide."""
    return "\n".join(textwrap.wrap(text, width))


def variant_name(impl: str, threads: int) -> str:
    return impl if threads == 1 else f"{impl} ({threads} thr)"


def variant_colour(runs: Sequence[Run], impl: str, threads: int) -> str:
    """The implementation's colour (by its position in the runs' registry); darker
    for multi-threaded variants so that both stay apart in one legend."""
    colour = implementations.for_runs(runs).colour(impl)
    if threads == 1:
        return colour
    r, g, b = matplotlib.colors.to_rgb(colour)
    return matplotlib.colors.to_hex((r * 0.55, g * 0.55, b * 0.55))


def variant_marker(runs: Sequence[Run], run: Run, threads: int) -> str:
    return "^" if threads > 1 and len(runs) == 1 else run_marker(runs, run)


def _log_tick_formatter(limits) -> FuncFormatter:
    """Plain numbers (0.2, 1, 50, 1e+06) on a log axis: every decade, plus the 2 and 5
    ticks between decades while the axis spans less than one and a half decades (with
    one decade tick or none a reader could not tell the scale); on wider axes minor
    labels would crowd it."""

    def label(value: float, _pos) -> str:
        if value <= 0:
            return ""
        lo, hi = sorted(limits())
        span = math.log10(hi / lo) if lo > 0 else float("inf")
        mantissa = value / 10 ** math.floor(math.log10(value) + 1e-9)
        if abs(mantissa - 1) < 1e-6 or (span < 1.5 and min(abs(mantissa - 2), abs(mantissa - 5)) < 1e-6):
            return f"{value:g}"
        return ""

    return FuncFormatter(label)


def log_axes(ax, x: bool = True, y: bool = True) -> None:
    """Log scales, labelled by _log_tick_formatter."""
    for enabled, axis, setter, limits in ((x, ax.xaxis, ax.set_xscale, ax.get_xlim),
                                          (y, ax.yaxis, ax.set_yscale, ax.get_ylim)):
        if enabled:
            setter("log")
            axis.set_major_formatter(_log_tick_formatter(limits))
            axis.set_minor_formatter(_log_tick_formatter(limits))


def finish(fig, axes, title: str, caption: str, runs: Sequence[Run], out_dir: Path, stem: str,
           extra_handles=()) -> Figure:
    """Adds the title, the figure legend and the device caption, then writes PNG and SVG."""
    handles, labels = [], []
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels and not label.startswith("_"):
                handles.append(handle)
                labels.append(label)
    for handle, label in extra_handles:
        handles.append(handle)
        labels.append(label)
    fig.suptitle(title, fontweight="bold")
    full_caption = f"{caption} Device — {device_caption(runs)}"
    width_chars = int(fig.get_figwidth() * 13)
    # Not at hyphens: a run id (20261126-061711-scattered-moon) stays whole, as a reader searches for it.
    wrapped = "\n".join(textwrap.wrap(full_caption, width_chars, break_on_hyphens=False))
    lines = wrapped.count("\n") + 1
    fig.text(0.01, 0.005, wrapped, ha="left", va="bottom", fontsize=8.5, color="#333")
    bottom_in = 0.18 * lines + 0.25
    # Room for the legend: about 0.075 in per character at 9 pt, plus the marker.
    legend_w_in = 0.075 * max(len(label) for label in labels) + 0.7 if handles else 0.1
    fig_w, fig_h = fig.get_figwidth(), fig.get_figheight()
    fig.set_figheight(fig_h + 0.18 * lines)
    fig_h = fig.get_figheight()
    if handles:
        fig.legend(handles, labels, loc="center right", frameon=False, title="implementation")
    # Fixed margins in inches rather than tight_layout: the panel grid is regular,
    # and measuring every tick label doubles the time to draw a report.
    rows = round((fig_h - 0.18 * lines - 1.3) / PANEL_H)
    fig.subplots_adjust(left=0.85 / fig_w, right=1 - (legend_w_in + 0.2) / fig_w,
                        bottom=(bottom_in + 0.65) / fig_h, top=1 - 0.95 / fig_h,
                        wspace=0.32, hspace=0.62 if rows > 1 else 0.2)
    out_dir.mkdir(parents=True, exist_ok=True)
    png, svg = out_dir / f"{stem}.png", out_dir / f"{stem}.svg"
    fig.savefig(png, dpi=PNG_DPI)
    fig.savefig(svg)
    plt.close(fig)
    return Figure(stem=stem, title=title, caption=full_caption, png=png, svg=svg)
