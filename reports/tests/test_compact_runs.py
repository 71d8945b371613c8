"""Runs stored compactly (results.json.gz, reports/compact.py) read exactly like
plain ones in the loader, the report and the compare; `reports.compact` turns a
finished run into that form and refuses anything else, touching nothing."""
from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from reports import compact as compact_mod
from reports.build import build_report
from reports.compare import main as compare_main
from reports.errors import ReportError, ResultsFormatError
from reports.loader import load_run, load_runs
from reports.tests.conftest import CPU_RUN, GPU_RUN, MALFORMED

RUN_MANIFEST = {"schema": "splinebench-run", "schema_version": 1, "suite": {"name": "quick"}}


def run_dir_from(fixture: Path, into: Path, *, cases: bool = True) -> Path:
    """A finished run directory as `splinebench run` leaves it, built from a fixture run."""
    into.mkdir(parents=True)
    shutil.copy(fixture / "results.json", into / "results.json")
    (into / "run.json").write_text(json.dumps(RUN_MANIFEST), encoding="utf-8")
    (into / "results.csv").write_text("case_id\nx\n", encoding="utf-8")
    if cases:
        (into / "cases").mkdir()
        (into / "cases" / "0123456789abcdef.json").write_text("{}\n", encoding="utf-8")
    return into


def tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.fixture
def compact_gpu_run(tmp_path) -> Path:
    run_dir = run_dir_from(GPU_RUN, tmp_path / "gpu")
    compact_mod.compact(run_dir)
    return run_dir


def test_compact_replaces_results_json_by_the_same_bytes_gzipped(tmp_path):
    run_dir = run_dir_from(CPU_RUN, tmp_path / "run")
    before = tree(run_dir)
    message = compact_mod.compact(run_dir)
    after = tree(run_dir)
    assert "results.json.gz" in message
    assert set(after) == set(before) - {"results.json"} | {"results.json.gz"}
    assert gzip.decompress(after["results.json.gz"]) == before["results.json"]
    # run.json, results.csv and the per-case files are left as they were.
    for name in ("run.json", "results.csv", "cases/0123456789abcdef.json"):
        assert after[name] == before[name]
    assert not (run_dir / ".partial").exists()


def test_compact_output_is_reproducible(tmp_path):
    first = run_dir_from(CPU_RUN, tmp_path / "a")
    second = run_dir_from(CPU_RUN, tmp_path / "b")
    compact_mod.compact(first)
    compact_mod.compact(second)
    assert (first / "results.json.gz").read_bytes() == (second / "results.json.gz").read_bytes()


def test_compact_twice_changes_nothing(compact_gpu_run):
    before = tree(compact_gpu_run)
    assert "already compact" in compact_mod.compact(compact_gpu_run)
    assert tree(compact_gpu_run) == before


def test_compact_finishes_an_interrupted_compact(tmp_path):
    # Killed after the gzip file was renamed into place, before results.json went.
    run_dir = run_dir_from(CPU_RUN, tmp_path / "run")
    data = (run_dir / "results.json").read_bytes()
    (run_dir / "results.json.gz").write_bytes(gzip.compress(data))
    compact_mod.compact(run_dir)
    assert not (run_dir / "results.json").exists()
    assert gzip.decompress((run_dir / "results.json.gz").read_bytes()) == data


@pytest.mark.parametrize("case, fragment", [
    ("no run.json", "not a splinebench run directory"),
    ("other schema", "is not 'splinebench-run'"),
    ("unfinished", "the run has not finished"),
    ("malformed results", "'samples' must hold finite, non-negative numbers"),
    ("truncated results", "not valid JSON"),
    ("gz differs", "both results.json and results.json.gz exist and differ"),
    ("not a directory", "not a directory"),
])
def test_compact_refuses_and_touches_nothing(tmp_path, case, fragment):
    run_dir = run_dir_from(CPU_RUN, tmp_path / "run")
    if case == "no run.json":
        (run_dir / "run.json").unlink()
    elif case == "other schema":
        (run_dir / "run.json").write_text(json.dumps({"schema": "splinebench-results"}), encoding="utf-8")
    elif case == "unfinished":
        (run_dir / "results.json").unlink()
    elif case == "malformed results":
        shutil.copy(MALFORMED / "bad_samples" / "results.json", run_dir / "results.json")
    elif case == "truncated results":
        shutil.copy(MALFORMED / "truncated" / "results.json", run_dir / "results.json")
    elif case == "gz differs":
        (run_dir / "results.json.gz").write_bytes(gzip.compress(b'{"schema": "other"}'))
    elif case == "not a directory":
        run_dir = run_dir / "results.json"
    before = tree(tmp_path)
    with pytest.raises(ReportError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        compact_mod.compact(run_dir)
    assert tree(tmp_path) == before


def test_compact_command_line_exit_status(tmp_path, capsys):
    good = run_dir_from(CPU_RUN, tmp_path / "good")
    bad = tmp_path / "bad"
    bad.mkdir()
    assert compact_mod.main([str(good), str(bad)]) == 2
    captured = capsys.readouterr()
    assert "results.json.gz" in captured.out
    assert "reports.compact: error:" in captured.err and "bad" in captured.err
    assert compact_mod.main([str(good)]) == 0


def test_loader_reads_a_compact_run_like_a_plain_one(compact_gpu_run):
    plain, packed = load_run(GPU_RUN), load_run(compact_gpu_run)
    assert packed.file == compact_gpu_run / "results.json.gz"
    assert packed.path == compact_gpu_run
    assert packed.context == plain.context
    assert [(r.case_id, r.phases, r.accuracy, r.verdict) for r in packed.records] == \
        [(r.case_id, r.phases, r.accuracy, r.verdict) for r in plain.records]
    # The .gz file can be named directly as well.
    assert len(load_run(compact_gpu_run / "results.json.gz").records) == len(plain.records)


def test_loader_prefers_the_plain_file_when_both_exist(tmp_path):
    run_dir = run_dir_from(CPU_RUN, tmp_path / "run")
    (run_dir / "results.json.gz").write_bytes(gzip.compress(b"not json"))
    assert load_run(run_dir).file == run_dir / "results.json"


@pytest.mark.parametrize("content, fragment", [
    (lambda data: gzip.compress(data)[: len(gzip.compress(data)) // 2], "truncated gzip stream"),
    (lambda data: data, "not a valid gzip file"),
    (lambda data: gzip.compress(b""), "file is empty"),
    (lambda data: gzip.compress(data[: len(data) // 3]), "truncated at line"),
])
def test_loader_names_what_is_wrong_with_a_compact_file(tmp_path, content, fragment):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    data = (CPU_RUN / "results.json").read_bytes()
    (run_dir / "results.json.gz").write_bytes(content(data))
    with pytest.raises(ResultsFormatError, match=fragment) as info:
        load_run(run_dir)
    assert "results.json.gz" in str(info.value)


def test_loader_names_both_files_when_a_directory_has_neither(tmp_path):
    with pytest.raises(ResultsFormatError, match=r"no such results file \(nor results.json.gz\)"):
        load_run(tmp_path)


def test_report_from_compact_runs_links_the_gz_file(tmp_path):
    cpu = run_dir_from(CPU_RUN, tmp_path / "cpu")
    compact_mod.compact(cpu)
    index = build_report(load_runs([cpu]), tmp_path / "report", figures=False)
    page = index.read_text(encoding="utf-8")
    assert 'href="../cpu/results.json.gz"' in page
    assert (tmp_path / "report" / "tables" / "accuracy.md").is_file()


def test_compare_reads_compact_runs(tmp_path, capsys):
    base = run_dir_from(GPU_RUN, tmp_path / "base")
    new = run_dir_from(GPU_RUN, tmp_path / "new")
    compact_mod.compact(base)
    compact_mod.compact(new)
    out = tmp_path / "compare.json"
    assert compare_main([str(base), str(new), "--json", str(out)]) == 0
    verdict = json.loads(out.read_text())
    ok_cases = {r.case_id for r in load_run(GPU_RUN).records if r.ok}
    assert not verdict["failed"] and not verdict["only_in_base"] and not verdict["only_in_new"]
    assert {row["case_id"] for row in verdict["rows"]} == ok_cases
    assert verdict["geomean_ratio"] == pytest.approx(1.0)
    capsys.readouterr()
