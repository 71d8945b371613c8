"""Error bars of the report's figures: each spans the middle half of the
repetitions (the interquartile range), mapped through the plotted quantity."""
from __future__ import annotations

import numpy as np
import pytest

from reports.loader import parse_results
from reports.plots.speedup import _ratio_errors
from reports.plots.throughput import _rate_errors
from reports.tests import synth


def _records():
    base = synth.record("cpu_scalar", "cpu", [64, 64], queries=1000,
                        phases={"evaluate": [1.0, 1.1, 1.2, 1.3, 1.4], "prefilter": [2.0] * 5})
    fast = synth.record("cpu_simd", "cpu", [64, 64], queries=1000,
                        phases={"evaluate": [0.1, 0.2, 0.25, 0.3, 0.5], "prefilter": [1.0] * 5})
    return parse_results(synth.results(synth.context("box", "quick"), [base, fast])).records


def test_rate_error_bars_are_rates_at_the_quartile_times():
    _, fast = _records()
    rate = 1000 / 0.25
    (low,), (high,) = _rate_errors([fast], [rate], "evaluate")
    q1, q3 = np.percentile([0.1, 0.2, 0.25, 0.3, 0.5], [25, 75])
    assert rate - low == pytest.approx(1000 / q3) and rate + high == pytest.approx(1000 / q1)


def test_speedup_error_bars_span_the_quartile_ratios():
    base, fast = _records()
    ratio = 1.2 / 0.25
    (low,), (high,) = _ratio_errors([base], [fast], [ratio])
    assert ratio - low == pytest.approx(1.1 / 0.3) and ratio + high == pytest.approx(1.3 / 0.2)
