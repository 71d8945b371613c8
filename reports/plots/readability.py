"""What a reader sees of a drawn figure, measured through matplotlib's renderer (not by
reading pixels). Each check returns the problems it finds, one line each, naming the
figure by `stem`; an empty list is a readable figure.

- legends_over_data: no legend lies over a data point of any axes, or over a title;
- axes_without_units: every axis that shows tick labels has a label ending in its unit
  in parentheses or brackets, "(ms)", "(×)", "[%]", "(queries/s)", "(dimensionless)";
  counts name what they count, "(axes)". An axis whose ticks are names (fixed labels)
  needs a label only; an axis that shows no tick labels (shared, an image) needs none;
- text_outside_canvas: titles, labels, tick labels, legends and texts lie in the canvas;
- entry_colours: the colour each registry entry is drawn in (reports.plots.looks), for
  checking one entry has one colour in every figure.

The figure must have been drawn (fig.canvas.draw()) before it is measured.
"""
from __future__ import annotations

import re

import numpy as np
from matplotlib.collections import Collection
from matplotlib.colors import to_hex
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.ticker import FixedFormatter

from . import looks

UNIT = re.compile(r"(\([^()]+\)|\[[^\[\]]+\])\s*$")


def visible_axes(fig) -> list:
    return [ax for ax in fig.axes if ax.get_visible() and ax.axison]


def data_points(ax) -> np.ndarray:
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


def legends(fig) -> list:
    return [leg for leg in list(fig.legends) + [ax.get_legend() for ax in fig.axes] if leg is not None]


def legends_over_data(stem: str, fig) -> list[str]:
    bad = []
    renderer = fig.canvas.get_renderer()
    for legend in legends(fig):
        box = legend.get_window_extent(renderer)
        titles = [fig._suptitle] if fig._suptitle is not None else []
        titles += [ax.title for ax in visible_axes(fig)]
        for title in titles:
            if title.get_text().strip() and box.overlaps(title.get_window_extent(renderer)):
                bad.append(f"{stem}: legend over the title {title.get_text()[:40]!r}")
        for ax in visible_axes(fig):
            xy = data_points(ax)
            hit = ((xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1))
            if hit.any():
                bad.append(f"{stem}: legend over {int(hit.sum())} data points of '{ax.get_title()}'")
    return bad


def _shows_ticks(axis) -> bool:
    return any(t.get_visible() and t.get_text() for t in axis.get_ticklabels())


def axes_without_units(stem: str, fig) -> list[str]:
    bad = []
    for ax in visible_axes(fig):
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if not _shows_ticks(axis):
                continue
            label = axis.get_label_text().strip()
            if not label:
                bad.append(f"{stem} '{ax.get_title()}': {name} axis has no label")
            elif not isinstance(axis.get_major_formatter(), FixedFormatter) and not UNIT.search(label):
                bad.append(f"{stem} '{ax.get_title()}': {name} label {label!r} has no unit")
    return bad


def text_outside_canvas(stem: str, fig) -> list[str]:
    """matplotlib's tight bounding box of each part, within 1 px of the canvas."""
    bad = []
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
    return bad


def entry_colours(fig) -> dict[str, set[str]]:
    """Registry name -> colours of what the figure labels with that name (lines, markers)."""
    found: dict[str, set[str]] = {}
    for ax in fig.axes:
        for artist in list(ax.lines) + list(ax.collections):
            label = str(artist.get_label())
            if label not in looks._table():
                continue
            colour = to_hex(artist.get_color()) if isinstance(artist, Line2D) else to_hex(artist.get_facecolor()[0])
            found.setdefault(label, set()).add(colour)
    return found


def colour_mismatches(figures: dict) -> list[str]:
    """Entries drawn in another colour than their look, or in two colours across figures."""
    seen: dict[str, dict[str, str]] = {}
    for stem, fig in figures.items():
        for name, colours in entry_colours(fig).items():
            for colour in colours:
                seen.setdefault(name, {})[stem] = colour
    return [f"{name}: {by_stem}" for name, by_stem in seen.items()
            if len(set(by_stem.values())) > 1 or set(by_stem.values()) != {looks.colour(name)}]
