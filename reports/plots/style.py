"""Shared look of every figure: panel grid, one legend per figure outside the panels,
one colour and marker per registry entry (looks.py), and the caption (machine, runs,
devices) kept beside the image rather than drawn into it. Figures are written as PNG
(for the page), PDF (vector, for the chapter) and SVG (its text stays text, so the
citation check reads what a figure draws)."""
from __future__ import annotations

import contextlib
import math
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; never needs a display
import matplotlib.colors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from ..loader import Run  # noqa: E402
from .looks import MARKERS, PALETTE, colour, marker  # noqa: E402,F401  (every plot takes its looks here)

PANEL_W, PANEL_H = 5.0, 3.8
LEGEND_ROOM = 2.2  # inches panels() adds beside the panels for the legend
PNG_DPI = 110

plt.rcParams.update({
    "font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10, "legend.fontsize": 9,
    "xtick.labelsize": 9, "ytick.labelsize": 9, "figure.titlesize": 13,
    "axes.grid": True, "grid.alpha": 0.3, "grid.linestyle": "-", "svg.fonttype": "none",
    # TrueType in the PDF: LaTeX embeds it as it is, and its text stays searchable.
    "pdf.fonttype": 42,
})

SHORT_CAPTION_MAX = 120  # a list of figures' line


@dataclass
class Figure:
    """A written figure: where its files are and what it shows. `caption` is the long
    form (what is drawn, how, from which runs on which machine); `short_caption` at most
    SHORT_CAPTION_MAX characters, for a list of figures. `pdf` is None only for a figure
    written without a vector form."""
    stem: str
    title: str
    caption: str
    png: Path
    svg: Path
    pdf: Path | None
    short_caption: str


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
    fig = new_figure(PANEL_W * cols + LEGEND_ROOM, PANEL_H * rows + 0.6)
    axes = fig.subplots(rows, cols, squeeze=False, sharey=sharey)
    flat = list(axes.flat)
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


def series_look(index: int) -> dict:
    """Colour and marker of the index-th series that is no registry entry (a data set, a
    workload), for plot(**series_look(i))."""
    return {"color": PALETTE[index % len(PALETTE)], "marker": MARKERS[index % len(MARKERS)]}


def device_caption(runs: Sequence[Run]) -> str:
    """Machine, devices, run and commit of every run shown."""
    parts = []
    for run in runs:
        # Fields a loaded Run has; a stand-in run (tests, system drivers) may carry fewer.
        c = getattr(run, "context", None) or {}
        sha = str(c.get("git_sha", "?"))[:10] + (" (dirty)" if c.get("git_dirty") else "")
        run_id = getattr(run, "run_id", None) or c.get("run_id", "?")
        parts.append(f"{getattr(run, 'label', run_id)}: CPU {getattr(run, 'cpu_model', None) or '?'}, "
                     f"GPU {getattr(run, 'gpu_name', None) or 'none'}; run {run_id}, commit {sha}")
    return " | ".join(parts)


def run_marker(runs: Sequence[Run], run: Run) -> str:
    """Marker per run, so merged runs stay apart even with the same colours."""
    markers = ["o", "s", "^", "D", "v", "P"]
    return markers[list(runs).index(run) % len(markers)]


def line_label(runs: Sequence[Run], run: Run, name: str) -> str:
    """The name, and with several runs the run's suite part of its id ("thesis" of
    20261126-035632-thesis) where that tells the runs apart, else its label; the
    caption names every run in full."""
    if len(runs) == 1 or "/" not in run.label:  # a label without "/" is the machine alone
        return name if len(runs) == 1 else f"{name} @ {run.label}"
    tails = [r.label.rsplit("/", 1)[-1].split("-", 2)[-1] for r in runs]
    tail = tails[list(runs).index(run)]
    return f"{name} @ {tail}" if tails.count(tail) == 1 else f"{name} @ {run.label}"


def panel_title(text: str, width: int = 46) -> str:
    """Wraps a long panel title so that neighbouring panels' titles never collide."""
    return "\n".join(textwrap.wrap(text, width))


def variant_name(impl: str, threads: int) -> str:
    return impl if threads == 1 else f"{impl} ({threads} thr)"


def variant_colour(runs: Sequence[Run], impl: str, threads: int) -> str:
    """The implementation's colour (looks.py); darker for multi-threaded variants so
    that both stay apart in one legend."""
    base = colour(impl)
    if threads == 1:
        return base
    r, g, b = matplotlib.colors.to_rgb(base)
    return matplotlib.colors.to_hex((r * 0.55, g * 0.55, b * 0.55))


def variant_marker(runs: Sequence[Run], run: Run, impl: str) -> str:
    """The implementation's marker; with several runs merged, the run's (colour still
    names the implementation)."""
    return marker(impl) if len(runs) == 1 else run_marker(runs, run)


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


def title_and_legend(fig, axes, title: str, extra_handles=(), legend_title: str = "implementation") -> None:
    """The figure's title and one legend for all panels (each label once), outside them
    on the right, where no data can be under it."""
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
    if handles:
        # Beside the panels, centred, below the title's line; two columns once one would
        # reach the title.
        rows_fit = max(6, int((fig.get_figheight() - 0.9) / 0.22))
        ncols = 1 if len(labels) <= rows_fit else 2
        # Widen the figure by what the legend needs beyond the room panels() leaves
        # (about 0.075 in per character at 9 pt, plus the marker), so the panels keep their width.
        need = ncols * (0.075 * max(len(label) for label in labels) + 0.7)
        if need > LEGEND_ROOM:
            fig.set_figwidth(fig.get_figwidth() + need - LEGEND_ROOM)
        fig.legend(handles, labels, loc="outside right center", frameon=False, title=legend_title, ncols=ncols)


def finish(fig, axes, title: str, caption: str, runs: Sequence[Run], out_dir: Path, stem: str,
           extra_handles=(), legend_title: str = "implementation", short_caption: str | None = None) -> Figure | Skipped:
    """Title and legend (title_and_legend), then writes the figure (save). The caption,
    with the machine, runs and devices, goes beside the image (Figure.caption), not into it."""
    title_and_legend(fig, axes, title, extra_handles, legend_title)
    full_caption = f"{caption} Machine and runs — {device_caption(runs)}."
    return save(fig, out_dir, stem, title, full_caption, short_caption or title)


# Figures kept open for inspection (keep_open); None: close each figure once written.
_kept: dict[str, object] | None = None
_kept_write = True
# Inside tables_only(): why no figure is written (each comes back Skipped with it).
_not_drawn: str | None = None

TABLES_ONLY = "not drawn: a tables-only report (--no-figures)"


@contextlib.contextmanager
def tables_only(reason: str = TABLES_ONLY) -> Iterator[None]:
    """Inside the block no figure is written: save() closes it and returns Skipped with
    `reason`, so a report of tables alone (a quick look, or a test of the tables) takes
    none of the drawing time, which is most of a report's."""
    global _not_drawn
    outer, _not_drawn = _not_drawn, reason
    try:
        yield
    finally:
        _not_drawn = outer


@contextlib.contextmanager
def keep_open(write: bool = True) -> Iterator[dict[str, object]]:
    """Inside the block every figure written stays open, collected by stem (the last one
    written under a stem), so a test can measure it with matplotlib's renderer instead
    of reading pixels; all are closed when the block ends. `write` False: the figures
    are kept but no file is written (their Figure names files that do not exist)."""
    global _kept, _kept_write
    outer, _kept = _kept, {}
    outer_write, _kept_write = _kept_write, write
    kept = _kept
    try:
        yield kept
    finally:
        _kept, _kept_write = outer, outer_write
        for fig in kept.values():
            plt.close(fig)


def release(fig, stem: str) -> None:
    """Done writing `fig`: closed, or kept under `stem` inside keep_open()."""
    if _kept is None:
        plt.close(fig)
        return
    previous = _kept.pop(stem, None)
    if previous is not None and previous is not fig:
        plt.close(previous)
    _kept[stem] = fig


def new_figure(width: float, height: float, **kwargs):
    """A figure whose layout engine keeps titles, labels and an outside legend inside the canvas."""
    return plt.figure(figsize=(width, height), layout="constrained", **kwargs)


def save(fig, out_dir: str | Path, stem: str, title: str, caption: str, short_caption: str) -> Figure | Skipped:
    """Writes <stem>.png, .pdf and .svg into out_dir and closes the figure (see keep_open);
    inside tables_only(), writes nothing and returns Skipped."""
    if not short_caption or len(short_caption) > SHORT_CAPTION_MAX:
        raise ValueError(f"figure {stem}: short caption must be 1 to {SHORT_CAPTION_MAX} characters, "
                         f"got {len(short_caption)}: {short_caption!r}")
    if _not_drawn is not None:
        plt.close(fig)
        return Skipped(stem, title, _not_drawn)
    out_dir = Path(out_dir)
    png, pdf, svg = (out_dir / f"{stem}.{ext}" for ext in ("png", "pdf", "svg"))
    if _kept is not None and not _kept_write:
        release(fig, stem)
        return Figure(stem=stem, title=title, caption=caption, png=png, svg=svg, pdf=pdf,
                      short_caption=short_caption)
    out_dir.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=PNG_DPI)
    # The layout engine placed everything for the PNG, in figure fractions and points,
    # which do not depend on the format: freezing it spares the PDF and SVG the same
    # constrained-layout pass (a third of the drawing time).
    fig.set_layout_engine("none")
    fig.savefig(pdf)
    fig.savefig(svg)
    release(fig, stem)
    return Figure(stem=stem, title=title, caption=caption, png=png, svg=svg, pdf=pdf,
                  short_caption=short_caption)
