"""Every figure the report draws is readable (reports/plots/readability.py: no legend
over data, a unit on every axis, all text in the canvas, one colour per registry entry).

The figures come from the fixture runs (what reports.build draws from the CPU and GPU
fixtures) and the seed systems' synthetic runs (test_scattered, test_iir2d);
style.keep_open() keeps each one open after it is written. The studies' figures are
checked the same way from their own side (tests/python/test_study_plots_readable.py).
"""
from __future__ import annotations

import pytest

from reports.loader import load_runs
from reports.plots.accuracy import plot_accuracy
from reports.plots.prefilter_axes import plot_prefilter_axes
from reports.plots.speedup import plot_speedup
from reports.plots.throughput import plot_prefilter_throughput, plot_reconstruction_throughput
from reports.plots import looks, readability, style
from reports.plots import iir2d as iir2d_plots
from reports.plots import scattered as scattered_plots

from .conftest import CPU_RUN, GPU_RUN
from .test_iir2d import synthetic_run as iir2d_run
from .test_scattered import synthetic_runs as scattered_runs

# The figures issue 36 named as unreadable that the report draws (the studies' two,
# texture_weights and speed_accuracy, are checked with the studies).
NAMED = ("accuracy_vs_dims", "speedup_vs_batch_over_cpu_simd", "scattered_convergence_1", "iir2d_fig3",
         "scattered_lambda")


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    out = tmp_path_factory.mktemp("readable")
    with style.keep_open(write=False) as kept:  # measured with the renderer, no file needed
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
        for fig in kept.values():
            fig.canvas.draw()
        yield dict(kept)


def test_the_named_figures_are_checked(figures):
    missing = [stem for stem in NAMED if stem not in figures]
    assert not missing, f"not drawn from the fixtures: {missing}"


def test_no_legend_over_data(figures):
    bad = [line for stem, fig in figures.items() for line in readability.legends_over_data(stem, fig)]
    assert not bad, "\n".join(bad)


def test_every_axis_has_a_label_with_a_unit(figures):
    bad = [line for stem, fig in figures.items() for line in readability.axes_without_units(stem, fig)]
    assert not bad, "\n".join(bad)


def test_all_text_inside_the_canvas(figures):
    bad = [line for stem, fig in figures.items() for line in readability.text_outside_canvas(stem, fig)]
    assert not bad, "\n".join(bad)


def test_one_colour_per_entry_across_figures(figures):
    assert any(readability.entry_colours(fig) for fig in figures.values()), "no figure labels a registry entry"
    bad = readability.colour_mismatches(figures)
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
