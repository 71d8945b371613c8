"""The call-overhead table from bench/module_overhead.py's files: every row shown, a file
without GPU rows says the GPU was not measured and why, the measurement's time is written
so that it names no run (the citation check), and a file of another benchmark is refused."""
import json

import pytest

from reports.call_overhead import call_overhead_table, load_overhead_docs
from reports.citations import cited_run_ids
from reports.errors import ReportError


def write(folder, stamp, rows, notes=()):
    path = folder / f"{stamp}-module-overhead" / "module_overhead.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"benchmark": "module_overhead", "schema": 1, "date": stamp, "machine": "m",
                                "context": {"python": "3.11.2", "numpy": "2.4", "git_commit": "abc", "cpu": "X"},
                                "rows": rows, "notes": list(notes)}))


def row(library, device, call, median):
    return {"library": library, "device": device, "call": call, "array": "float32 (16,), 1 query",
            "us_median": median, "us_q1": median - 0.5, "us_q3": median + 0.5, "calls": 10, "repeats": 3}


def test_rows_and_the_missing_gpu(tmp_path):
    write(tmp_path, "20261129-111433", [row("splinebench cpu_scalar", "cpu", "spline_filter", 8.8),
                                        row("scipy 1.17.1", "cpu", "spline_filter", 9.8)],
          notes=["no GPU rows: ModuleNotFoundError: No module named 'cupy'"])
    write(tmp_path, "20261130-010203", [row("splinebench gpu_flex", "gpu", "spline_filter", 12.0),
                                        row("cupy 13.6", "gpu", "spline_filter", 30.0)])
    table = call_overhead_table(load_overhead_docs(tmp_path))
    ours = table.data_rows("ours")
    assert [r.cells[1] for r in ours] == ["splinebench cpu_scalar", "scipy 1.17.1", "splinebench gpu_flex", "cupy 13.6"]
    assert ours[0].cells[0].startswith("2026-11-29 11:14 UTC") and ours[0].cells[5] == "8.8"
    missing = [r for r in table.rows if r.kind == "missing"]
    assert len(missing) == 1 and "not measured: no GPU rows" in missing[0].note
    texts = [table.title, table.caption, *table.notes, *(" ".join(r.cells) + r.note for r in table.rows)]
    assert not any(cited_run_ids(t) for t in texts)


def test_a_foreign_file_is_refused(tmp_path):
    path = tmp_path / "20261129-111433-module-overhead" / "module_overhead.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"benchmark": "other", "rows": []}))
    with pytest.raises(ReportError, match="not a bench/module_overhead.py file"):
        load_overhead_docs(tmp_path)
    assert load_overhead_docs(tmp_path / "none") == []
