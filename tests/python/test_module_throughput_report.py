"""The module-throughput table from bench/module_throughput.py's files: every row shown with
its ratio to the harness (none on the harness's own row), the measurement's time written so
that it names no run (the citation check), a foreign or unreadable file refused by its path,
and a machine's report carrying the table when such a file is in its folder."""
from __future__ import annotations

import json
import shutil

import pytest

from reports import machine as machine_mod
from reports.citations import cited_run_ids
from reports.errors import ReportError
from reports.module_throughput import load_throughput_docs, module_throughput_table
from reports.tests.conftest import CPU_RUN

STAMP = "20261129-111433"
CASE = "gpu_flex/D3/256x256x256/C1/F1/mirror/noise/q16777216/uniform/T1"
WORK = {"prefilter": "float32 256^3, mode mirror",
        "evaluate": "16777216 uniform lookups into float32 256^3 coefficients"}


def rows(harness_ms: dict, module_ms: dict, cupy_ms: dict) -> list[dict]:
    """The bench's rows: per phase the harness's, then the module's and CuPy's with their ratio."""
    out = []
    for phase in ("prefilter", "evaluate"):
        base = harness_ms[phase]
        out.append({"library": "splinebench harness (gpu_flex)", "phase": phase, "work": WORK[phase],
                    "ms_median": base, "samples_ms": [base] * 3})
        for library, ms in (("splinebench module (gpu_flex)", module_ms[phase]), ("cupy 14.2.0", cupy_ms[phase])):
            out.append({"library": library, "phase": phase, "work": WORK[phase], "ms_median": ms,
                        "samples_ms": [ms] * 3, "over_harness": ms / base})
    return out


def write(folder, stamp=STAMP, **overrides):
    path = folder / f"{stamp}-module-throughput" / "module_throughput.json"
    path.parent.mkdir(parents=True)
    doc = {"benchmark": "module_throughput", "schema": 1, "date": stamp, "machine": "m", "case_id": CASE,
           "harness_command": "splinebench run --suite gpu", "repetitions": 9, "warmups": 2,
           "context": {"git_commit": "0123456789abcdef", "python": "3.11.2", "numpy": "2.4.6",
                       "module": "/x/python/splinebench", "host": "m-host", "cupy": "14.2.0",
                       "cuda_runtime": 13000, "device": "NVIDIA H200"},
           "rows": rows({"prefilter": 0.1630, "evaluate": 1.2000}, {"prefilter": 0.1700, "evaluate": 1.2240},
                        {"prefilter": 0.6520, "evaluate": 2.4000})}
    doc.update(overrides)
    path.write_text(json.dumps(doc))
    return path


def test_rows_and_ratios(tmp_path):
    write(tmp_path)
    docs = load_throughput_docs(tmp_path)
    assert len(docs) == 1
    table = module_throughput_table(docs)
    assert table.key == "module_throughput"
    ours = table.data_rows("ours")
    assert [(r.cells[1], r.cells[2]) for r in ours] == [
        ("splinebench harness (gpu_flex)", "prefilter"), ("splinebench module (gpu_flex)", "prefilter"),
        ("cupy 14.2.0", "prefilter"), ("splinebench harness (gpu_flex)", "evaluate"),
        ("splinebench module (gpu_flex)", "evaluate"), ("cupy 14.2.0", "evaluate")]
    assert ours[0].cells[0] == "2026-11-29 11:14 UTC, NVIDIA H200"
    # 0.1700 ms over the harness's 0.1630 ms; the harness's own row has no ratio.
    assert ours[0].cells[4:] == ["0.1630", "", "0.1630-0.1630"]
    assert ours[1].cells[4:] == ["0.1700", "1.043", "0.1700-0.1700"]
    assert ours[2].cells[4:] == ["0.6520", "4.000", "0.6520-0.6520"]
    assert ours[4].cells[4:] == ["1.2240", "1.020", "1.2240-1.2240"]
    note = table.notes[0]
    for fragment in ("commit 0123456789,", "Python 3.11.2", "NumPy 2.4.6", "CuPy 14.2.0", CASE,
                     "9 repetitions after 2 warm-ups"):
        assert fragment in note
    texts = [table.title, table.caption, *table.notes, *(" ".join(r.cells) + r.note for r in table.rows)]
    assert not any(cited_run_ids(t) for t in texts)


def test_blocks_and_warm_up_of_a_schema_2_file(tmp_path):
    """A file of the blocked method: the quartiles it states, and its method in the note."""
    method = {"blocks": 3, "rounds_per_block": 15, "harness_repetitions": 9, "harness_warmups": 2,
              "warmup_rule": {"least_rounds": 50, "least_work_ms": 200.0, "window_rounds": 10, "stable_within": 0.03,
                              "most_rounds": 300},
              "warmups": [{"rounds": 60, "settled": True}, {"rounds": 50, "settled": True},
                          {"rounds": 300, "settled": False}]}
    doc_rows = rows({"prefilter": 0.1630, "evaluate": 1.2000}, {"prefilter": 0.1700, "evaluate": 1.2240},
                    {"prefilter": 0.6520, "evaluate": 2.4000})
    for row in doc_rows:
        row.update(ms_q1=row["ms_median"] - 0.001, ms_q3=row["ms_median"] + 0.002)
    write(tmp_path, schema=2, method=method, rows=doc_rows)
    table = module_throughput_table(load_throughput_docs(tmp_path))
    assert table.data_rows("ours")[1].cells[4:] == ["0.1700", "1.043", "0.1690-0.1720"]
    note = table.notes[0]
    for fragment in ("3 blocks of one harness run (9 repetitions after 2 warm-ups)", "15 library rounds",
                     "at least 50 rounds and 200 ms until settled within 3 %", "took 60, 50, 300 rounds",
                     "1 did not settle"):
        assert fragment in note


def test_files_oldest_first(tmp_path):
    write(tmp_path, "20261130-010203")
    write(tmp_path, STAMP)
    assert [d["date"] for d in load_throughput_docs(tmp_path)] == [STAMP, "20261130-010203"]
    assert load_throughput_docs(tmp_path / "none") == []


def test_a_foreign_file_is_refused(tmp_path):
    path = write(tmp_path, benchmark="module_overhead")
    with pytest.raises(ReportError, match="not a bench/module_throughput.py file") as refused:
        load_throughput_docs(tmp_path)
    assert str(path) in str(refused.value)


def test_an_unreadable_file_is_refused(tmp_path):
    path = write(tmp_path)
    path.write_text("{ not json")
    with pytest.raises(ReportError, match="unreadable module-throughput file") as refused:
        load_throughput_docs(tmp_path)
    assert str(path) in str(refused.value)


def test_the_machine_report_shows_the_table(tmp_path):
    # A machine folder as reports/tests/test_results_tree.py builds one: a committed run, and
    # beside it the two benches' folders, which are not runs and are not read as runs.
    results = tmp_path / "results"
    run = results / "m" / "20261122-100000-quick"
    run.mkdir(parents=True)
    shutil.copy(CPU_RUN / "results.json", run / "results.json")
    write(results / "m")
    overhead = results / "m" / f"{STAMP}-module-overhead" / "module_overhead.json"
    overhead.parent.mkdir()
    overhead.write_text(json.dumps({"benchmark": "module_overhead", "schema": 1, "date": STAMP, "machine": "m",
                                    "context": {"python": "3.11.2", "numpy": "2.4.6", "git_commit": "abc"},
                                    "rows": [{"library": "cupy 14.2.0", "device": "gpu", "call": "spline_filter",
                                              "array": "float32 (16,), 1 query", "us_median": 30.0,
                                              "us_q1": 29.5, "us_q3": 30.5}]}))
    assert [p.name for p in machine_mod.select_runs(results, "m").runs] == ["20261122-100000-quick"]
    assert machine_mod.main(["m", "--results", str(results), "--out-root", str(tmp_path / "report"),
                             "--no-figures", "--no-chapter"]) == 0
    report = tmp_path / "report" / "m"
    table = (report / "tables" / "module_throughput.md").read_text(encoding="utf-8")
    assert "splinebench module (gpu_flex)" in table and "1.043" in table
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "Throughput through the module against the harness" in page
    # In the peer comparison's section, after the call-overhead table.
    tables = (report / "tables" / "all_tables.md").read_text(encoding="utf-8")
    assert tables.index("Call overhead: one call") < tables.index("Throughput through the module")
