"""reports.flex_allocation on synthetic harness runs: pairs only within one run, medians
over runs, the ratio's direction, and the row that says why a table is empty."""
from __future__ import annotations

import pytest

from reports.flex_allocation import flex_vs_fixed_table, pairs
from reports.loader import parse_results
from reports.tests import synth


def _run(run_id: str, flex_slowdown: float, *, gpu=synth.GPU_H100, impls=("gpu_flex", "gpu_flex_fixed"),
         queries=(0, 1000)):
    """gpu_flex's prefilter samples are gpu_flex_fixed's times flex_slowdown."""
    recs = []
    for shape in ((256, 256, 256), (64, 64, 64, 64)):
        for q in queries:  # several records of one prefilter case (the queries do not change it)
            fixed = synth.modelled("gpu_flex_fixed", shape, queries=q, mode="half", seed=1)
            flex = synth.modelled("gpu_flex", shape, queries=q, mode="half", seed=1)
            flex["phases"]["prefilter"] = synth.phase([v * flex_slowdown for v in fixed["phases"]["prefilter"]["samples"]])
            recs += [r for r in (fixed, flex) if r["impl"] in impls]
    ctx = synth.context("h100", "gpu", gpu=gpu, run_id=run_id)
    return parse_results(synth.results(ctx, recs), where=run_id)


def test_pairs_within_a_run_and_medians_over_runs():
    runs = [_run("a", 0.5), _run("b", 0.25), _run("c", 1.0, impls=("gpu_flex",))]  # c has no fixed records
    found = pairs(runs)
    assert len(found) == 2
    for key, p in found.items():
        assert key[0] == synth.GPU_H100["name"] and key[-1] == "half"
        assert len(p) == 2  # runs a and b
        assert [t / f for t, f in p] == pytest.approx([2.0, 4.0], rel=1e-9)
    table = flex_vs_fixed_table(runs)
    rows = table.data_rows("ours")
    assert [r.cells[1] for r in rows] == ["3", "4"]  # by D
    assert all(r.cells[7] == "3.00" and r.cells[8] == "2" for r in rows)  # median of 2 and 4
    assert "a @ " in table.notes[0] and "b @ " in table.notes[0]


def test_each_device_apart_and_a_missing_row_without_pairs():
    h200 = dict(synth.GPU_H100, name="NVIDIA H200")
    rows = flex_vs_fixed_table([_run("a", 0.5), _run("b", 0.5, gpu=h200)]).data_rows("ours")
    assert {r.cells[0] for r in rows} == {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}
    empty = flex_vs_fixed_table([_run("c", 1.0, impls=("gpu_flex",))])
    assert not empty.data_rows("ours") and "both" in empty.data_rows("missing")[0].note
