"""The gate and the baseline refuse what would write outside results/, judge one suite
against another's baseline, drop a baseline run silently or judge against a corrupt
baseline after an hour of rounds; the wrong-machine advice names a flag the gate takes;
an interrupted gate leaves nothing behind and exits 130 with one line."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reports import gate
from reports.baseline import PROVENANCE_FILE, baseline_dir, load_baseline, promote, validate_machine_label
from reports.compare import main as compare_main
from reports.errors import ReportError
from reports.tests import noise_model

REPO = Path(__file__).resolve().parents[2]


def fake_binary(tmp_path: Path, body: str = "") -> tuple[Path, Path]:
    """A stand-in `splinebench` that logs its arguments (to calls.log) and runs `body`."""
    calls = tmp_path / "calls.log"
    path = tmp_path / "fake-splinebench"
    path.write_text(f'#!/bin/sh\necho "$@" >>{calls}\n{body}\n')
    path.chmod(0o755)
    return path, calls


def baseline_runs(root: Path, count: int = 2, suite: str = "nightly", machine: str = "ci-box") -> list[Path]:
    runs = []
    for i in range(count):
        run = noise_model.write(root / machine / f"20261125-00000{i}-{suite}", seed=100 + i,
                                run_id=f"20261125-00000{i}-{suite}", machine=machine)
        doc = json.loads((run / "results.json").read_text())
        doc["context"]["suite"] = suite
        (run / "results.json").write_text(json.dumps(doc))
        runs.append(run)
    return runs


@pytest.fixture
def nightly_root(tmp_path):
    root = tmp_path / "results"
    assert compare_main(["--promote", *map(str, baseline_runs(root)), "--results-root", str(root)]) == 0
    return root


# --- machine labels ------------------------------------------------------------------------

@pytest.mark.parametrize("label", ["../../x", "..", ".", "", "a/b", "x\0y"])
def test_machine_labels_that_are_not_a_folder_name_are_refused_before_anything_is_made(tmp_path, label, capsys):
    root = tmp_path / "deep" / "results"
    binary, calls = fake_binary(tmp_path)
    assert gate.main(["--bin", str(binary), "--machine", label, "--results-root", str(root), "--no-report"]) == 2
    assert "cannot be a folder name" in capsys.readouterr().err
    assert not calls.exists() and not root.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake-splinebench"]
    with pytest.raises(ReportError, match="cannot be a folder name"):
        baseline_dir(root, label)


def test_a_plain_machine_label_is_accepted():
    for label in ("ci-box", "h100", "a.b", "..x"):
        validate_machine_label(label)


def test_a_run_whose_machine_label_escapes_results_is_not_promoted(tmp_path):
    run = baseline_runs(tmp_path / "results", count=1)[0]
    doc = json.loads((run / "results.json").read_text())
    doc["context"]["machine"] = "../../escaped"
    (run / "results.json").write_text(json.dumps(doc))
    with pytest.raises(ReportError, match="cannot be a folder name"):
        promote([run], tmp_path / "results")
    assert not (tmp_path / "escaped").exists()


# --- suites --------------------------------------------------------------------------------

def test_another_suite_is_refused_before_its_rounds(nightly_root, tmp_path, capsys):
    binary, calls = fake_binary(tmp_path)
    status = gate.main(["--bin", str(binary), "--suite", "quick", "--machine", "ci-box",
                        "--results-root", str(nightly_root), "--no-report"])
    err = capsys.readouterr().err
    assert status == 2 and not calls.exists(), err
    assert "suite 'quick'" in err and "suite 'nightly'" in err, err


def test_a_run_of_another_suite_is_not_judged_against_the_baseline(nightly_root, capsys):
    other = baseline_runs(nightly_root / "elsewhere", count=1, suite="quick")[0]
    moved = nightly_root / "ci-box" / other.name
    shutil.move(other, moved)
    status = gate.main(["--judge", str(moved), "--results-root", str(nightly_root), "--no-report"])
    err = capsys.readouterr().err
    assert status == 2 and "suite 'quick'" in err and "suite 'nightly'" in err, err
    assert not (moved / "report" / "verdict.json").exists()


def test_promote_refuses_mixing_suites(nightly_root, tmp_path):
    quick = baseline_runs(tmp_path / "other", count=1, suite="quick")[0]
    with pytest.raises(ReportError, match="several suites"):
        promote([quick], nightly_root, add=True)
    nightly = baseline_runs(tmp_path / "more", count=1)[0]
    with pytest.raises(ReportError, match="several suites"):
        promote([quick, nightly], tmp_path / "fresh")
    assert len(load_baseline(baseline_dir(nightly_root, "ci-box"))) == 2  # untouched


# --- a damaged baseline --------------------------------------------------------------------

def test_a_baseline_run_without_its_results_file_is_an_error_naming_it(nightly_root):
    base = baseline_dir(nightly_root, "ci-box")
    (base / "20261125-000001-nightly" / "results.json").unlink()
    with pytest.raises(ReportError, match="20261125-000001-nightly"):
        load_baseline(base)
    shutil.rmtree(base / "20261125-000001-nightly")
    with pytest.raises(ReportError, match=f"20261125-000001-nightly.*{PROVENANCE_FILE}"):
        load_baseline(base)


def test_a_corrupt_baseline_is_found_before_any_round(nightly_root, tmp_path, capsys):
    (baseline_dir(nightly_root, "ci-box") / "20261125-000000-nightly" / "results.json").write_text("{truncated")
    binary, calls = fake_binary(tmp_path)
    status = gate.main(["--bin", str(binary), "--machine", "ci-box", "--results-root", str(nightly_root),
                        "--no-report"])
    err = capsys.readouterr().err
    assert status == 2 and not calls.exists(), err
    assert "20261125-000000-nightly" in err and "baseline" in err, err
    assert not [p for p in (nightly_root / "ci-box").iterdir() if p.name.startswith(".gate-rounds")]


# --- another machine's baseline ------------------------------------------------------------

def test_the_wrong_machine_advice_names_a_flag_the_gate_takes(nightly_root, capsys):
    new = noise_model.write(nightly_root / "ci-box" / "20261125-020000-nightly", seed=501,
                            run_id="20261125-020000-nightly")
    doc = json.loads((new / "results.json").read_text())
    doc["context"]["cpu_model"] = "Another CPU"
    (new / "results.json").write_text(json.dumps(doc))
    assert gate.main(["--judge", str(new), "--results-root", str(nightly_root), "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "refusing to compare runs from different machines" in err and "--force" in err, err
    assert f"reports.gate --judge {new} --force" in err or "reports.gate --judge" in err, err
    # The flag the advice names is taken, and the verdict says it was forced.
    assert gate.main(["--judge", str(new), "--results-root", str(nightly_root), "--no-report", "--force"]) in (0, 1)
    assert "WARNING: --force" in capsys.readouterr().out


# --- interrupts ----------------------------------------------------------------------------

@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_gate_removes_its_rounds_and_says_so_in_one_line(tmp_path, sig, status):
    binary, calls = fake_binary(tmp_path, "exec sleep 30")
    root = tmp_path / "results"
    proc = subprocess.Popen([sys.executable, "-m", "reports.gate", "--bin", str(binary), "--machine", "ci-box",
                             "--results-root", str(root), "--no-report"], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    # The wait covers the gate's imports (a second or two, more on a loaded machine).
    deadline = time.monotonic() + 60
    while not calls.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert calls.exists(), "the gate did not start its first round"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == status, (proc.returncode, err)
    assert "Traceback" not in err, err
    lines = [l for l in err.splitlines() if not l.startswith("== ")]  # the round announcements
    assert len(lines) == 1 and "interrupted" in lines[0], err
    assert not [p for p in (root / "ci-box").iterdir()], list((root / "ci-box").iterdir())
