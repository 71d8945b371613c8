"""The studies' figures (studies/texture_weights.py, studies/speed_accuracy.py: two of the
figures issue 36 named as unreadable) pass the report's readability checks
(reports/plots/readability.py) and draw every registry entry in its one colour. Drawn
from the GPU fixture run of reports/tests, as the report's own figures are."""
from __future__ import annotations

from pathlib import Path

import pytest

from reports.plots import readability, style
from studies import speed_accuracy, texture_weights

GPU_RUN = Path(__file__).resolve().parents[2] / "reports" / "tests" / "fixtures" / "gpu_run"

NAMED = ("texture_weights", "speed_accuracy")


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    out = tmp_path_factory.mktemp("study-figures")
    with style.keep_open(write=False) as kept:  # measured with the renderer, no file needed
        texture_weights.write_report(GPU_RUN, out / "texture_weights")
        scipy_points = [{"workload": key, "error": 1e-15, "rate": 3e6, "queries": 1000, "shape": [64, 64, 64]}
                        for key in speed_accuracy.TITLES]
        speed_accuracy.write_report(GPU_RUN, scipy_points, out / "speed_accuracy")
        for fig in kept.values():
            fig.canvas.draw()
        yield dict(kept)


def test_the_named_figures_are_drawn(figures):
    missing = [stem for stem in NAMED if stem not in figures]
    assert not missing, f"not drawn from the fixture: {missing}"


@pytest.mark.parametrize("check", [readability.legends_over_data, readability.axes_without_units,
                                   readability.text_outside_canvas], ids=lambda c: c.__name__)
def test_study_figures_are_readable(figures, check):
    bad = [line for stem, fig in figures.items() for line in check(stem, fig)]
    assert not bad, "\n".join(bad)


def test_study_figures_use_the_registry_colours(figures):
    bad = readability.colour_mismatches(figures)
    assert not bad, "\n".join(bad)
