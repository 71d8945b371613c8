"""results/ holds runs, not renderings (results/README.md), and what the repository
cites exists.

- The tracked files under results/ stay under 10 MiB, no report/ folder is committed
  there, and every harness run is in compact form.
- Every run folder a README, note or JSON file cites (`results/<machine>/<run-id>`,
  `lab/evidence/<machine>/<id>`, a bare run id in Markdown prose) exists in the tree.
- The report builder refuses a table or figure citing a run it was not given, and
  cites a run by the folder it is found in."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reports import machine as machine_mod
from reports.build import build_report
from reports.citations import check_report_items, cited_run_ids
from reports.errors import ReportError
from reports.loader import RUN_ID, load_runs
from reports.table_model import Column, Row, Table
from reports.tests.conftest import CPU_RUN, GPU_RUN

ROOT = Path(__file__).resolve().parents[2]
MAX_RESULTS_BYTES = 10 * 2**20
# A cited folder: results/<machine>/<run-id> or lab/evidence/<machine>/<id>, where an
# evidence folder's id may carry minutes only (20261125-2300-device-checks).
CITED_FOLDER = re.compile(r"(?<![\w/.-])((?:results|lab/evidence)/[A-Za-z0-9_-]+/(?:baseline/)?)"
                          r"(\d{8}-\d{4}(?:\d\d)?(?:-[A-Za-z0-9_.+-]*[A-Za-z0-9_+])?)")
# Between evidence folders: ../<id>/
RELATIVE_FOLDER = re.compile(r"\.\./(\d{8}-\d{4}(?:\d\d)?(?:-[A-Za-z0-9_.+-]*[A-Za-z0-9_+])?)/")
JSON_BLOCK = re.compile(r"^```jsonc?\n.*?^```", re.S | re.M)


def tracked(*patterns: str) -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    out = subprocess.run(["git", "ls-files", "-z", "--", *patterns], cwd=ROOT, capture_output=True, check=True)
    # Files deleted in the working tree but not yet committed are gone for a reader.
    return [name for name in out.stdout.decode().split("\0") if name and (ROOT / name).exists()]


def test_results_are_under_ten_mib():
    files = tracked("results")
    size = sum((ROOT / name).stat().st_size for name in files)
    largest = sorted(files, key=lambda name: (ROOT / name).stat().st_size)[-5:]
    assert size < MAX_RESULTS_BYTES, (f"tracked files under results/ hold {size / 2**20:.1f} MiB (limit 10); "
                                      f"largest: {largest}")


def test_no_report_folder_is_committed_under_results():
    reports = sorted({name.split("/report/")[0] + "/report/" for name in tracked("results")
                      if "/report/" in name})
    assert not reports, f"rendered reports committed under results/ (build them with ./run_all.sh report): {reports}"


def test_every_committed_harness_run_is_compact():
    loose = []
    for name in tracked("results"):
        path = ROOT / name
        if path.name != "run.json":
            continue
        if json.loads(path.read_text(encoding="utf-8")).get("schema") != "splinebench-run":
            continue
        if (path.parent / "results.json").exists() or not (path.parent / "results.json.gz").exists():
            loose.append(str(path.parent.relative_to(ROOT)))
    assert not loose, f"not in compact form (python -m reports.compact RUN_DIR): {loose}"


def _folder_exists(prefix: str, run_id: str) -> bool:
    folder = ROOT / prefix / run_id
    # A citation may name a file in the folder by the run id (`<id>.results.json.gz`).
    return folder.is_dir() or folder.is_file() or any(
        (ROOT / prefix / (run_id[:cut])).exists() for cut in range(len(run_id), 0, -1) if run_id[cut:cut + 1] == ".")


def dangling_citations() -> list[str]:
    found = []
    folders = {Path(name).parent for name in tracked("results", "lab/evidence")}
    names = {p.name for folder in folders for p in (folder, *folder.parents)}
    names |= {Path(name).name for name in tracked("results", "lab/evidence")}
    for name in tracked("*.md", "*.json", "*.txt", "*.tex", "*.html"):
        path = ROOT / name
        if "/fixtures/" in name:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.name == "PROMOTED.json":
            # The baseline's record: each run it lists lives in baseline/<run_id>; "source"
            # is where it was promoted from, kept as history.
            for run in json.loads(text).get("runs", []):
                if not (path.parent / run["run_id"]).is_dir():
                    found.append(f"{name}: baseline run {run['run_id']} missing")
            continue
        for m in CITED_FOLDER.finditer(text):
            if text[m.end():m.end() + 1] == "*":   # a glob: some folder starts so
                if not any(p.name.startswith(m.group(2)) for p in (ROOT / m.group(1)).glob(m.group(2) + "*")):
                    found.append(f"{name}: {m.group(0)}*")
                continue
            if not _folder_exists(m.group(1), m.group(2)):
                found.append(f"{name}: {m.group(0)}")
        if "lab/evidence/" in name:
            for m in RELATIVE_FOLDER.finditer(text):
                if m.group(1) not in names:
                    found.append(f"{name}: ../{m.group(1)}/")
        if path.suffix == ".md":
            # Bare run ids in prose and commands; a JSON block is a format example.
            for token in cited_run_ids(JSON_BLOCK.sub("", text)):
                if len(token) <= len("YYYYMMDD-HHMMSS-"):   # a time stamp without a suite names no run
                    continue
                if token not in names and not any(token.startswith(n + ".") for n in names):
                    found.append(f"{name}: {token}")
    return found


def test_every_cited_run_folder_exists():
    dangling = dangling_citations()
    assert not dangling, ("cited runs that are not in the tree (point the text at the run that exists, or drop "
                          "the claim):\n  " + "\n  ".join(dangling))


def _run_folder(fixture: Path, into: Path) -> Path:
    into.mkdir(parents=True)
    shutil.copy(fixture / "results.json", into / "results.json")
    return into


def test_the_report_cites_a_run_by_its_folder(tmp_path):
    # A system driver saves its run under the folder named at --out, while its context
    # records the id of its own clock: a reader finds only the folder.
    # Two runs of one machine: rows are labelled with the run id.
    first = _run_folder(CPU_RUN, tmp_path / "m" / "20261122-100001-quick-a")
    second = _run_folder(CPU_RUN, tmp_path / "m" / "20261122-100002-quick-b")
    runs = load_runs([first, second])
    assert [run.run_id for run in runs] == ["20261122-100001-quick-a", "20261122-100002-quick-b"]
    assert runs[0].context["run_id"] == "20261122-100000-quick"
    index = build_report(runs, tmp_path / "report", figures=False)
    text = index.read_text(encoding="utf-8") + "".join(
        p.read_text(encoding="utf-8") for p in (tmp_path / "report" / "tables").glob("*.md"))
    assert "20261122-100001-quick-a" in text and "20261122-100002-quick-b" in text
    assert "20261122-100000-quick" not in cited_run_ids(text)


def test_the_builder_refuses_a_table_citing_a_run_it_was_not_given(tmp_path):
    runs = load_runs([CPU_RUN])
    runs[0].label = "dev/20261126-061712-scattered"   # a label naming a run that is not given
    out = tmp_path / "report"
    with pytest.raises(ReportError, match=r"cites 20261126-061712-scattered.*Runs given: 20261122-100000-quick"):
        build_report(runs, out)
    assert not (out / "index.html").exists() and not (out / "tables").exists()
    assert not list(out.rglob("*.png")), "a refused report leaves no figure behind"


def test_the_citation_check_reads_cells_notes_and_figure_text(tmp_path):
    table = Table("t", "title", "caption", [Column("a")])
    table.add(Row(["x"], note="see 20261126-054437-scattered"))
    runs = load_runs([CPU_RUN])
    with pytest.raises(ReportError, match="table t cites 20261126-054437-scattered"):
        check_report_items([table], runs)
    ok = Table("t", "title", "from 20261122-100000-quick, file 20261122-100000-quick.results.json.gz",
               [Column("a")])
    check_report_items([ok], runs)


def _machine_tree(tmp_path: Path) -> Path:
    results = tmp_path / "results"
    _run_folder(CPU_RUN, results / "m" / "20261122-100000-quick")
    nightly = _run_folder(GPU_RUN, results / "m" / "20261122-120000-nightly")
    doc = json.loads((nightly / "results.json").read_text())
    doc["context"]["suite"] = "nightly"
    (nightly / "results.json").write_text(json.dumps(doc))
    bench = results / "m" / "20261122-130000-gpu_prefilter"
    bench.mkdir()
    (bench / "gpu_prefilter.json").write_text("{}")
    _run_folder(GPU_RUN, results / "m" / "baseline" / "20261122-110000-nightly")
    return results


def test_machine_report_selects_the_runs_and_leaves_the_gate_runs_out(tmp_path):
    results = _machine_tree(tmp_path)
    selected = machine_mod.select_runs(results, "m")
    assert [p.name for p in selected.runs] == ["20261122-100000-quick"]
    assert [p.name for p in selected.gate_runs] == ["20261122-120000-nightly"]
    assert machine_mod.main(["m", "--results", str(results), "--out-root", str(tmp_path / "report"),
                             "--no-figures", "--no-chapter"]) == 0
    page = (tmp_path / "report" / "m" / "index.html").read_text(encoding="utf-8")
    assert "20261122-100000-quick" in page and "20261122-120000-nightly" not in page
    assert not (results / "m" / "20261122-100000-quick" / "report").exists()


@pytest.mark.parametrize("machine, fragment", [("nope", "no such machine folder"),
                                               ("empty", "no harness, system or study run")])
def test_machine_report_refuses_with_a_clear_error(tmp_path, capsys, machine, fragment):
    results = _machine_tree(tmp_path)
    (results / "empty").mkdir()
    assert machine_mod.main([machine, "--results", str(results), "--out-root", str(tmp_path / "report")]) == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "report" / machine).exists()
