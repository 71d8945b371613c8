"""Every figure the report draws, measured through matplotlib's renderer (not by reading
pixels): no legend lies over the data of any axes, every axis has a label with a unit,
all text fits in the canvas, and one registry entry has one colour in every figure.

The figures come from the fixture runs (what reports.build draws from the CPU and GPU
fixtures),
the seed systems' synthetic runs (test_scattered, test_iir2d) and the studies' sections
drawn from the fixture runs; style.keep_open() keeps each one open after it is written.

Unit rule: an axis label ends in its unit in parentheses or brackets, "(ms)", "(×)",
"[%]", "(queries/s)", "(dimensionless)"; counts name what they count, "(axes)",
"(queries)". An axis whose ticks are names (set as fixed labels) needs a label only;
an axis that shows no tick labels (shared with the panel below, an image) needs none.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from matplotlib.collections import Collection
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.ticker import FixedFormatter

from reports.loader import load_runs
from reports.plots.accuracy import plot_accuracy
from reports.plots.prefilter_axes import plot_prefilter_axes
from reports.plots.speedup import plot_speedup
from reports.plots.throughput import plot_prefilter_throughput, plot_reconstruction_throughput
from reports.plots import looks, style
from reports.plots import iir2d as iir2d_plots
from reports.plots import scattered as scattered_plots

from .conftest import CPU_RUN, GPU_RUN
from .test_iir2d import synthetic_run as iir2d_run
from .test_scattered import synthetic_runs as scattered_runs

UNIT = re.compile(r"(\([^()]+\)|\[[^\[\]]+\])\s*$")
# The figures issue 36 named as unreadable, each of which must be among those checked.
NAMED = ("accuracy_vs_dims", "speedup_vs_batch_over_cpu_simd", "texture_weights", "scattered_convergence_1",
         "speed_accuracy", "iir2d_fig3", "scattered_lambda")


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    out = tmp_path_factory.mktemp("readable")
    from studies import speed_accuracy, texture_weights
    with style.keep_open() as kept:
        # What reports.build draws, without its tables.
        runs = load_runs([CPU_RUN, GPU_RUN])
        for baseline in ("cpu_scalar", "cpu_simd"):
            plot_speedup(runs, out / "grid", baseline)
        plot_reconstruction_throughput(runs, out / "grid")
        plot_prefilter_throughput(runs, out / "grid")
        plot_prefilter_axes(runs, out / "grid")
        plot_accuracy(runs, out / "grid")
        scattered_plots.plot_convergence(scattered_runs(), out / "scattered")
        scattered_plots.plot_lambda(scattered_runs(), out / "scattered")
        scattered_plots.plot_mg_sweep(scattered_runs(), out / "scattered")
        iir2d_plots.plot_fig3(iir2d_run(), out / "iir2d")
        texture_weights.write_report(GPU_RUN, out / "texture_weights")
        scipy_points = [{"workload": key, "error": 1e-15, "rate": 3e6, "queries": 1000, "shape": [64, 64, 64]}
                        for key in speed_accuracy.TITLES]
        speed_accuracy.write_report(GPU_RUN, scipy_points, out / "speed_accuracy")
        for fig in kept.values():
            fig.canvas.draw()
        yield dict(kept)


def _axes(fig):
    return [ax for ax in fig.axes if ax.get_visible() and ax.axison]


def _data_points(ax) -> np.ndarray:
    """Display coordinates of every drawn data point of the axes: line vertices (not
    reference lines spanning the axes), scatter offsets, bar corners."""
    points = []
    for line in ax.lines:
        if not line.get_visible():
            continue
        xy = np.asarray(line.get_xydata(), dtype=float)
        if xy.size == 0:
            continue
        transform = line.get_transform()
        if transform.contains_branch_seperately(ax.transData) != (True, True):
            continue  # axhline/axvline: a reference level, not a datum
        points.append(transform.transform(xy))
    for collection in ax.collections:
        if isinstance(collection, Collection) and collection.get_visible():
            offsets = np.asarray(collection.get_offsets(), dtype=float)
            if offsets.size:
                points.append(collection.get_offset_transform().transform(offsets))
    for patch in ax.patches:
        if isinstance(patch, Rectangle) and patch.get_visible():
            points.append(patch.get_window_extent().get_points())
    if not points:
        return np.empty((0, 2))
    xy = np.concatenate(points)
    xy = xy[np.isfinite(xy).all(axis=1)]
    inside = ax.get_window_extent()
    keep = ((xy[:, 0] >= inside.x0) & (xy[:, 0] <= inside.x1) & (xy[:, 1] >= inside.y0) & (xy[:, 1] <= inside.y1))
    return xy[keep]


def _legends(fig):
    return [leg for leg in list(fig.legends) + [ax.get_legend() for ax in fig.axes] if leg is not None]


def test_the_named_figures_are_checked(figures):
    missing = [stem for stem in NAMED if stem not in figures]
    assert not missing, f"not drawn from the fixtures: {missing}"


def test_no_legend_over_data(figures):
    bad = []
    for stem, fig in figures.items():
        renderer = fig.canvas.get_renderer()
        for legend in _legends(fig):
            box = legend.get_window_extent(renderer)
            titles = [fig._suptitle] if fig._suptitle is not None else []
            titles += [ax.title for ax in _axes(fig)]
            for title in titles:
                if title.get_text().strip() and box.overlaps(title.get_window_extent(renderer)):
                    bad.append(f"{stem}: legend over the title {title.get_text()[:40]!r}")
            for ax in _axes(fig):
                xy = _data_points(ax)
                hit = ((xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1))
                if hit.any():
                    bad.append(f"{stem}: legend over {int(hit.sum())} data points of '{ax.get_title()}'")
    assert not bad, "\n".join(bad)


def _shows_ticks(axis) -> bool:
    return any(t.get_visible() and t.get_text() for t in axis.get_ticklabels())


def test_every_axis_has_a_label_with_a_unit(figures):
    bad = []
    for stem, fig in figures.items():
        for ax in _axes(fig):
            for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
                if not _shows_ticks(axis):
                    continue
                label = axis.get_label_text().strip()
                if not label:
                    bad.append(f"{stem} '{ax.get_title()}': {name} axis has no label")
                elif not isinstance(axis.get_major_formatter(), FixedFormatter) and not UNIT.search(label):
                    bad.append(f"{stem} '{ax.get_title()}': {name} label {label!r} has no unit")
    assert not bad, "\n".join(bad)


def test_all_text_inside_the_canvas(figures):
    """What is drawn (titles, labels, tick labels in view, legends, texts) lies in the
    canvas: matplotlib's tight bounding box of each part, within 1 px."""
    bad = []
    for stem, fig in figures.items():
        renderer = fig.canvas.get_renderer()
        canvas = fig.bbox
        parts = [(f"axes '{ax.get_title()}'", ax.get_tightbbox(renderer)) for ax in fig.axes if ax.get_visible()]
        parts += [("legend", leg.get_window_extent(renderer)) for leg in fig.legends]
        parts += [(repr(t.get_text()[:40]), t.get_window_extent(renderer)) for t in fig.texts
                  if t.get_visible() and t.get_text().strip()]
        if fig._suptitle is not None:
            parts.append(("title", fig._suptitle.get_window_extent(renderer)))
        for what, box in parts:
            if box is None:
                continue
            if box.x0 < canvas.x0 - 1 or box.y0 < canvas.y0 - 1 or box.x1 > canvas.x1 + 1 or box.y1 > canvas.y1 + 1:
                bad.append(f"{stem}: {what} leaves the canvas")
    assert not bad, "\n".join(bad)


def _entry_colours(fig) -> dict[str, str]:
    """Registry name -> colour of what the figure labels with that name (lines, markers, legend)."""
    from matplotlib.colors import to_hex
    found: dict[str, set[str]] = {}
    for ax in fig.axes:
        for artist in list(ax.lines) + list(ax.collections):
            label = str(artist.get_label())
            if label not in looks._table():
                continue
            if isinstance(artist, Line2D):
                colour = to_hex(artist.get_color())
            else:
                colour = to_hex(artist.get_facecolor()[0])
            found.setdefault(label, set()).add(colour)
    return found


def test_one_colour_per_entry_across_figures(figures):
    seen: dict[str, dict[str, str]] = {}
    for stem, fig in figures.items():
        for name, colours in _entry_colours(fig).items():
            for colour in colours:
                seen.setdefault(name, {})[stem] = colour
    assert seen, "no figure labels a registry entry"
    bad = [f"{name}: {by_stem}" for name, by_stem in seen.items() if len(set(by_stem.values())) > 1
           or set(by_stem.values()) != {looks.colour(name)}]
    assert not bad, "\n".join(bad)
    # The peers and the oracle stand apart from every other entry.
    others = {looks.colour(n) for n in looks._table() if n not in looks.ANCHORS}
    assert not others & {looks.colour(n) for n in looks.ANCHORS}


def test_registry_looks_are_distinct_and_stable():
    for _, relative in looks.REGISTRY_FILES:
        names = [n for n in looks.registry_names(relative) if n not in looks.ANCHORS]
        assert names, relative
        pairs = [looks.look(n) for n in names]
        assert len(set(pairs)) == len(pairs), f"{relative}: two entries share a colour and marker"
    assert looks.look("no_such_entry") == looks.look("no_such_entry")


def test_short_caption_is_bounded(tmp_path):
    import matplotlib.pyplot as plt
    fig = plt.figure()
    with pytest.raises(ValueError, match="short caption"):
        style.save(fig, tmp_path, "long", "t", "caption", "x" * (style.SHORT_CAPTION_MAX + 1))
    plt.close(fig)
