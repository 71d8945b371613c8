"""The thesis table folds GPU rows that run one evaluation (same arithmetic in the run's
registry, lookup medians within each other's interquartile range) and keeps apart those
that differ; LaTeX tables print long row labels as a short one with a footnote."""
from __future__ import annotations

import re

from reports.loader import load_runs
from reports.render_latex import render_latex
from reports.reproduced_tables import fold_same_evaluation, thesis_table1

from . import synth

GRID = [32, 32, 32, 32]
Q = 32 ** 4


def _lookup(impl: str, median: float, seed: int) -> dict:
    return synth.record(impl, "gpu", GRID, queries=Q, mode="half", phases={
        "upload": synth.noisy(2e-3, 9, 0.01, seed), "prefilter": synth.noisy(1e-3, 9, 0.01, seed + 1),
        "query_upload": synth.noisy(1e-4, 9, 0.01, seed + 2), "evaluate": synth.noisy(median, 9, 0.02, seed + 3),
        "download": synth.noisy(1e-4, 9, 0.01, seed + 4)},
        accuracy={"interp": {"max_rel_to_maxf": 2e-7}, "prefilter": {"rel_l2": 4e-8}})


def _run(tmp_path, registry):
    ctx = synth.context("h100", "thesis", gpu={"name": "NVIDIA H100 80GB HBM3"})
    ctx["registry"] = registry
    cpu = synth.record("cpu_sse", "cpu", GRID, queries=Q, mode="half",
                       phases={"prefilter": synth.noisy(0.2, 9, 0.01, 1), "evaluate": synth.noisy(0.5, 9, 0.01, 2)},
                       accuracy={"interp": {"max_rel_to_maxf": 2e-7}})
    records = [cpu, _lookup("gpu_naive", 4e-3, 10), _lookup("gpu_flex", 4e-3, 20), _lookup("gpu_texture", 4e-3, 30),
               _lookup("gpu_flex_fixed", 6e-3, 40)]
    path = synth.write_run(tmp_path / "run", synth.results(ctx, records))
    return load_runs([str(path)])[0]


REGISTRY = [{"name": n, "device": d, "available": True, "reason": "", "evaluation": e, "f64": False} for n, d, e in (
    ("cpu_sse", "cpu", "f32 taps"), ("gpu_naive", "gpu", "f32 taps, global loads"),
    ("gpu_texture", "gpu", "hardware linear filter (8-bit weights)"), ("gpu_flex", "gpu", "f32 taps, global loads"),
    ("gpu_flex_fixed", "gpu", "f32 taps, global loads"))]


def test_same_evaluation_and_time_fold_others_stay(tmp_path):
    run = _run(tmp_path, REGISTRY)
    gpu = [r for r in run.records if r.device == "gpu"]
    groups = [[r.impl for r in g] for g in fold_same_evaluation(run, gpu)]
    # gpu_texture: another evaluation at the same time; gpu_flex_fixed: same evaluation, 1.5x slower.
    assert groups == [["gpu_naive", "gpu_flex"], ["gpu_texture"], ["gpu_flex_fixed"]]
    table = thesis_table1([run])
    gpu_cells = [r.cells[6] for r in table.rows if r.kind == "ours"]
    assert "gpu_naive = gpu_flex" in gpu_cells and "gpu_texture" in gpu_cells and "gpu_flex_fixed" in gpu_cells
    assert any("gpu_naive = gpu_flex" in n and "one evaluation" in n for n in table.notes)


def test_runs_without_evaluation_never_fold(tmp_path):
    run = _run(tmp_path, [{k: v for k, v in e.items() if k != "evaluation"} for e in REGISTRY])
    gpu = [r for r in run.records if r.device == "gpu"]
    assert all(len(g) == 1 for g in fold_same_evaluation(run, gpu))


def test_latex_rows_get_short_labels_and_a_hardware_footnote(tmp_path):
    run = _run(tmp_path, REGISTRY)
    tex = render_latex(thesis_table1([run]))
    marks = dict(re.findall(r"\((\w)\) (ours|published)", tex))  # footnotes: mark -> label head
    assert set(marks.values()) == {"ours", "published"}
    for mark, head in marks.items():
        assert f"{head} ({mark})" in tex  # the short label in the rows
    # The footnotes spell the labels out, hardware included; the rows do not.
    assert "H100" in tex and not any("H100" in line for line in tex.splitlines() if line.startswith("ours"))


def test_with_setup_is_the_whole_cycle_host_staging_included(tmp_path):
    # A GPU record's copies between the caller's pageable arrays and its pinned buffers
    # (host_staging) belong to what a caller who looks up a new table once pays; the
    # lookup column is the batch alone (query upload + evaluate + download).
    from reports import timing
    staged = synth.record("gpu_flex", "gpu", GRID, queries=Q, mode="half", phases={
        "host_staging": [0.010] * 9, "upload": [0.002] * 9, "prefilter": [0.001] * 9,
        "query_upload": [0.0001] * 9, "evaluate": [0.004] * 9, "download": [0.0001] * 9})
    ctx = synth.context("h100", "thesis", gpu={"name": "NVIDIA H100 80GB HBM3"})
    path = synth.write_run(tmp_path / "staged", synth.results(ctx, [staged]))
    rec = load_runs([str(path)])[0].records[0]
    assert abs(timing.lookup_seconds(rec) - 0.0042) < 1e-12
    assert abs(timing.with_setup_seconds(rec) - 0.0172) < 1e-12
