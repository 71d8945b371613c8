"""reports.iir2d on a synthetic run (no GPU): crossover and ratio arithmetic, the
tables with the seed's row beside ours, the figure files, and reading a run folder."""
from __future__ import annotations

import gzip
import json

import pytest

from reports import iir2d
from reports.plots import iir2d as iir2d_plots
from reports.plots.style import Skipped
from reports.render_markdown import render_markdown


def _record(scheme: str, M: int, ms: float, shape=(2048, 2048), family="gauss", **extra) -> dict:
    r = {"operation": "iir2d", "case_id": f"iir2d/{scheme}/{shape[0]}x{shape[1]}/M{M}/{family}/++",
         "scheme": scheme, "impl": scheme, "shape": list(shape), "M": M, "family": family, "status": "ok",
         "phases": {"filter": {"samples": [ms * 1e-3] * 3, "median": ms * 1e-3}}}
    r.update(extra)
    return r


def synthetic_run() -> dict:
    recs = []
    for M in range(1, 32):
        recs.append(_record("fixed", M, 10.0 + 0.5 * M))           # 25.5 ms at 31
        recs.append(_record("fixed_graph", M, 4.0 + 0.5 * M))
        recs.append(_record("flex_locks", M, 12.0 + 0.1 * M))      # slower up to M = 5
        recs.append(_record("flex_tiles", M, 1.0 + 0.01 * M))
    recs.append(_record("empty_chain", 0, 9.0, family="none", launches=4095))
    recs.append(_record("empty_chain_graph", 0, 3.0, family="none", launches=4095))
    recs.append({"operation": "iir2d", "scheme": "flex_tiles", "status": "skipped", "shape": [2048, 2048], "M": 3})
    recs.append({"operation": "scattered", "status": "ok", "phases": {"filter": {"median": 1.0}}})
    return {"schema": "splinebench-results", "context": {"run_id": "r1", "gpu": {"name": "NVIDIA H100"}},
            "records": recs}


def test_crossover_and_ratio():
    fixed = {1: 1.0, 3: 2.0, 5: 3.0, 7: 4.0}
    assert iir2d.crossover(fixed, {1: 2.0, 3: 2.5, 5: 3.0, 7: 3.5}) == 5   # equal counts as not slower
    assert iir2d.crossover(fixed, {1: 0.5, 3: 0.5, 5: 0.5, 7: 0.5}) == 0
    assert iir2d.crossover(fixed, {1: 0.5, 3: 2.5, 5: 0.5, 7: 0.5}) == 3   # the last M where fixed wins
    assert iir2d.crossover(fixed, {}) is None
    assert iir2d.ratio({31: 6.0}, {31: 2.0}) == pytest.approx(3.0)
    assert iir2d.ratio({3: 6.0}, {31: 2.0}) is None


def test_records_keep_finished_iir2d_only():
    run = synthetic_run()
    recs = iir2d.records(run)
    assert all(r["operation"] == "iir2d" and r["status"] == "ok" for r in recs)
    assert len(recs) == 31 * 4 + 2


def test_fig3_table_has_the_seed_beside_ours():
    t = iir2d.fig3_table(synthetic_run())
    seed = t.data_rows("seed")
    assert len(seed) == 1 and seed[0].cells[2] == "5" and seed[0].cells[3] == "2.4"
    ours = {r.cells[0]: r.cells for r in t.data_rows("ours")}
    assert set(ours) == {"fixed", "fixed_graph", "flex_locks", "flex_tiles"}
    assert ours["fixed"][3] == "1.00"  # the reference row every ratio is taken against
    # flex_locks (10 + 0.5 M) is slower than fixed (12 + 0.1 M) above M = 5: said in words.
    assert any("lock scheme (flex_locks) is slower than the fixed scheme at M =" in n for n in t.notes)
    # flex_locks: 10 + 0.5 M <= 12 + 0.1 M up to M = 5, so M* = 5; 25.5 / 15.1 at 31.
    assert ours["flex_locks"][2] == "5"
    assert ours["flex_locks"][3] == f"{25.5 / 15.1:.2f}"
    assert ours["flex_tiles"][2] == "0"
    assert ours["flex_tiles"][4] == f"{1.31 / 1.03:.2f}"
    assert ours["flex_tiles"][1] == "NVIDIA H100"
    assert "Crossover" in render_markdown(t)


def test_fig3_table_without_fixed_records_says_why():
    run = synthetic_run()
    run["records"] = [r for r in run["records"] if r.get("scheme") != "fixed"]
    t = iir2d.fig3_table(run)
    assert t.data_rows("missing") and "fixed" in t.data_rows("missing")[0].note


def test_launch_chain_table():
    t = iir2d.launch_chain_table(synthetic_run())
    (row,) = t.data_rows("ours")
    assert row.cells[:4] == ["2048x2048", "4095", "9.00", "3.00"]
    assert row.cells[4] == "11.5" and row.cells[7] == "19.5"


def test_plot_writes_files_and_skips_without_data(tmp_path):
    fig = iir2d_plots.plot_fig3(synthetic_run(), tmp_path)
    assert fig.png.is_file() and fig.svg.is_file()
    svg = fig.svg.read_text()
    assert "M &gt; 5" in svg or "M > 5" in svg
    empty = iir2d_plots.plot_fig3({"records": []}, tmp_path)
    assert isinstance(empty, Skipped)


def test_load_run_reads_plain_and_compact(tmp_path):
    run = synthetic_run()
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "results.json").write_text(json.dumps(run))
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "results.json.gz").write_bytes(gzip.compress(json.dumps(run).encode()))
    assert iir2d.load_run(tmp_path / "a") == iir2d.load_run(tmp_path / "b") == run
    with pytest.raises(FileNotFoundError):
        iir2d.load_run(tmp_path / "c")
    items = iir2d.section(tmp_path / "a", tmp_path / "plots")
    assert [type(i).__name__ for i in items] == ["Figure", "Table", "Table"]


def _results_doc(records: list[dict], run_id: str) -> dict:
    from reports.tests import synth
    return synth.results(synth.context("h100", "iir2d", gpu=synth.GPU_H100, run_id=run_id), records)


def test_loader_keeps_iir2d_records_apart(tmp_path):
    from reports.loader import load_run
    from reports.tests import synth
    harness = synth.modelled("gpu_flex", (64, 64), seed=1)
    run_dir = synth.write_run(tmp_path / "mixed", _results_doc(synthetic_run()["records"] + [harness], "mixed"))
    run = load_run(run_dir)
    assert [r.impl for r in run.records] == ["gpu_flex"]
    assert len(run.system_records["iir2d"]) == 31 * 4 + 3
    assert set(run.system_records) == {"iir2d", "scattered"}
    assert iir2d.fig3_table(iir2d.run_doc(run)).data_rows("ours")


def test_report_of_an_iir2d_run_alone_and_merged_with_a_harness_run(tmp_path):
    from reports.build import main as build_main
    from reports.tests import synth
    iir_dir = synth.write_run(tmp_path / "iir", _results_doc(synthetic_run()["records"], "20261126-000000-iir2d"))
    assert build_main([str(iir_dir), "--out", str(tmp_path / "alone")]) == 0
    tables = tmp_path / "alone" / "tables"
    assert (tables / "iir2d_fig3.md").is_file() and (tables / "iir2d_launch_chain.md").is_file()
    assert (tmp_path / "alone" / "plots" / "iir2d_fig3.png").is_file()
    assert "Seed 004" in (tmp_path / "alone" / "index.html").read_text(encoding="utf-8")

    recs = [synth.modelled(impl, (128, 128, 128), seed=2) for impl in ("gpu_flex", "gpu_flex_fixed", "cpu_simd")]
    harness_dir = synth.write_run(tmp_path / "gpu", synth.results(synth.context("h100", "gpu", gpu=synth.GPU_H100), recs))
    assert build_main([str(harness_dir), str(iir_dir), "--out", str(tmp_path / "merged")]) == 0
    merged = tmp_path / "merged" / "tables"
    assert (merged / "iir2d_fig3.md").is_file() and (merged / "flex_vs_fixed_prefilter.md").is_file()
    # Two iir2d runs: numbered files, neither overwriting the other.
    iir_b = synth.write_run(tmp_path / "iir_b", _results_doc(synthetic_run()["records"], "20261126-010000-iir2d"))
    assert build_main([str(iir_dir), str(iir_b), "--out", str(tmp_path / "two")]) == 0
    assert (tmp_path / "two" / "tables" / "iir2d_fig3_1.md").is_file()
    assert (tmp_path / "two" / "tables" / "iir2d_fig3_2.md").is_file()


def test_shapes_table_has_every_case_outside_fig3(tmp_path):
    run = synthetic_run()
    assert iir2d.shapes_table(run) is None  # Fig. 3 and the launch chain only
    acc = {"iir2d": {"max_rel": 2.0e-7}}
    for scheme, ms in (("fixed", 40.0), ("flex_tiles16", 5.0), ("flex_locks", 80.0)):
        run["records"].append(_record(scheme, 31, ms, shape=(8192, 8192), accuracy=acc, verdict="pass"))
    run["records"].append(_record("fixed", 3, 2.0, shape=(1, 2048), accuracy={"iir2d": {"max_rel": 3.0e-6}},
                                  verdict="pass"))
    run["records"].append(_record("flex_tiles16", 31, 6.0, family="random", accuracy=acc, verdict="fail"))
    table = iir2d.shapes_table(run)
    rows = [row.cells for row in table.rows]
    assert [r[:3] for r in rows] == [["1x2048", "3", "gauss"], ["2048x2048", "31", "random"],
                                     ["8192x8192", "31", "gauss"]]
    big = rows[2]
    assert big[-3:] == ["8.00", "2.0e-07", "pass"]       # fixed / flex_tiles16 = 40 / 5
    assert rows[0][-2:] == ["3.0e-06", "pass"] and rows[0][-3] == "—"
    assert rows[1][-1] == "fail"
    names = [type(i).__name__ for i in iir2d.run_items(run, tmp_path / "plots")[2:]]
    assert names == ["Table", "Table"]  # launch chain, shapes (the figure comes first)
