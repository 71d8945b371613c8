"""`splinebench run` end to end: impossible sweeps write nothing, a tiny suite gives
schema-valid results that pass, and a killed run leaves only whole files and
resumes to completion. The binary comes from $SPLINEBENCH_BIN (default:
build/bin/splinebench under the repository root)."""
from __future__ import annotations

import csv
import json
import math
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(splinebench_bin: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([str(splinebench_bin), "run", *args], capture_output=True, text=True, timeout=timeout)


def write_suite(path: Path, suite: dict) -> Path:
    path.write_text(json.dumps(suite))
    return path


def only_run_dir(results: Path) -> Path:
    runs = [p for p in results.glob("*/*") if p.is_dir()]
    assert len(runs) == 1, f"expected one run folder under {results}, found {runs}"
    return runs[0]


def sweep(**axes) -> dict:
    base = {"name": "s", "impls": ["cpu_scalar"], "shapes": [[4]], "queries": [3]}
    base.update(axes)
    return {"name": "bad", "sweeps": [base]}


# --- impossible sweeps -------------------------------------------------------------

IMPOSSIBLE = {
    "unknown impl": (sweep(impls=["cpu_nonexistent"]), "unknown implementation 'cpu_nonexistent'"),
    "unknown mode": (sweep(modes=["clamp"]), "unknown mode 'clamp'"),
    "unknown pattern": (sweep(patterns=["diagonal"]), "unknown query pattern 'diagonal'"),
    "D out of range": ({"name": "bad", "sweeps": [{"name": "s", "impls": ["cpu_scalar"], "dims": [7],
                                                    "sizes": [4], "queries": [3]}]}, "D must be in [1, 6], got 7"),
    "shape length differs from D": (sweep(dims=[3], shapes=[[4, 4]]), "has 2 axes, which differs from every D"),
    "extent < 1": (sweep(shapes=[[4, 0, 4]]), "must be >= 1, got 0"),
    "negative queries": (sweep(queries=[-5]), "queries per call must be >= 0, got -5"),
    "empty axis": (sweep(modes=[]), "modes: empty axis list"),
    "unknown key": (sweep(shape=[[4]]), "'shape': unknown key"),
}


@pytest.mark.parametrize("case", sorted(IMPOSSIBLE))
def test_impossible_sweep_fails_before_writing_anything(splinebench_bin, tmp_path, case):
    suite, expected = IMPOSSIBLE[case]
    suite_file = write_suite(tmp_path / "bad.json", suite)
    results = tmp_path / "results"
    proc = run(splinebench_bin, "--suite-file", str(suite_file), "--results-dir", str(results), "--machine", "t")
    assert proc.returncode != 0, proc.stdout
    assert expected in proc.stderr, proc.stderr
    assert "bad.json" in proc.stderr, "the message should name the suite file: " + proc.stderr
    assert not results.exists(), f"{case}: wrote {list(results.rglob('*'))}"


def test_unknown_impl_on_command_line_and_bad_filter(splinebench_bin, tmp_path):
    suite_file = write_suite(tmp_path / "ok.json", sweep())
    results = tmp_path / "results"
    proc = run(splinebench_bin, "--suite-file", str(suite_file), "--impl", "cpu_scalar,nope", "--results-dir", str(results))
    assert proc.returncode != 0 and "--impl: unknown implementation 'nope'" in proc.stderr, proc.stderr
    proc = run(splinebench_bin, "--suite-file", str(suite_file), "--filter", "([", "--results-dir", str(results))
    assert proc.returncode != 0 and "invalid regular expression" in proc.stderr, proc.stderr
    assert not results.exists()


def test_unknown_suite_lists_the_available_ones(splinebench_bin, tmp_path):
    proc = run(splinebench_bin, "--suite", "no-such-suite", "--results-dir", str(tmp_path / "r"))
    assert proc.returncode != 0
    assert "unknown suite 'no-such-suite'" in proc.stderr and "quick" in proc.stderr, proc.stderr
    assert not (tmp_path / "r").exists()


def test_dry_run_lists_cases_and_writes_nothing(splinebench_bin, tmp_path):
    proc = run(splinebench_bin, "--suite", "quick", "--dry-run", "--results-dir", str(tmp_path / "r"))
    assert proc.returncode == 0, proc.stderr
    ids = [l for l in proc.stdout.splitlines() if l and not l.startswith("#")]
    assert len(ids) > 100 and len(set(ids)) == len(ids)
    assert any("/D6/" in i for i in ids) and any("/outside/" in i for i in ids)
    assert not (tmp_path / "r").exists()


# --- a tiny suite, end to end ----------------------------------------------------------

TINY = {
    "name": "tiny",
    "sweeps": [
        {"name": "interp", "impls": ["cpu_scalar", "reference"], "dims": [1, 3], "sizes": [1, 5],
         "channels": [1, 4], "modes": "all", "queries": [50], "patterns": ["sorted", "outside"]},
        {"name": "prefilter", "impls": ["cpu_scalar", "reference"], "shapes": [[40, 30]], "queries": [0]},
    ],
}


def check_record(r: dict) -> None:
    """The record schema of results/README.md."""
    where = r.get("case_id", "?")
    for key, kind in [("case_id", str), ("impl", str), ("device", str), ("sweep", str), ("dims", int),
                      ("shape", list), ("channels", int), ("fields", int), ("mode", str), ("data", str),
                      ("queries", int), ("pattern", str), ("threads", int), ("status", str), ("message", str),
                      ("repetitions", int), ("warmups", int), ("phases", dict), ("throughput", dict),
                      ("accuracy", dict), ("tolerance", dict), ("verdict", str)]:
        assert isinstance(r.get(key), kind), f"{where}: {key} = {r.get(key)!r}"
    assert r["device"] in ("cpu", "gpu") and r["status"] in ("ok", "skipped", "error")
    assert r["verdict"] in ("pass", "fail", "n/a")
    assert len(r["shape"]) == r["dims"] and all(isinstance(e, int) and e >= 1 for e in r["shape"])
    assert r["mode"] in ("mirror", "half", "periodic")
    assert r["case_id"].startswith(f"{r['impl']}/D{r['dims']}/{'x'.join(map(str, r['shape']))}/C{r['channels']}/")
    if r["status"] != "ok":
        assert r["verdict"] == "n/a" and r["message"]
        return
    assert r["phases"], where
    for name, p in r["phases"].items():
        s = p["samples"]
        assert len(s) == r["repetitions"] and all(math.isfinite(v) and v >= 0 for v in s), (where, name)
        ordered = sorted(s)
        assert p["min"] == ordered[0] and p["max"] == ordered[-1]
        assert p["min"] <= p["q1"] <= p["median"] <= p["q3"] <= p["max"]
        assert math.isclose(p["iqr"], p["q3"] - p["q1"], rel_tol=1e-12, abs_tol=1e-15)
    for key in ("prefilter_samples_per_s", "prefilter_GBps", "queries_per_s", "evaluate_GBps"):
        assert key in r["throughput"]
    pre = r["accuracy"]["prefilter"]
    assert pre["rel_l2"] is not None and pre["unwritten"] == 0
    assert set(r["tolerance"]) >= {"prefilter_rel_l2", "interp_max_rel_to_maxf", "basis"}
    if r["queries"] > 0:
        interp = r["accuracy"]["interp"]
        assert "evaluate" in r["phases"]
        assert interp["checked_queries"] == min(r["queries"], max(1, 2**18 // r["fields"]))
        assert interp["nan_ok"] is True and interp["unwritten"] == 0
        assert interp["max_rel_to_maxf"] <= r["tolerance"]["interp_max_rel_to_maxf"]
        assert r["throughput"]["queries_per_s"] > 0
    else:
        assert r["pattern"] == "none" and "interp" not in r["accuracy"] and "evaluate" not in r["phases"]
    assert pre["rel_l2"] <= r["tolerance"]["prefilter_rel_l2"]


def test_tiny_suite_gives_valid_passing_results(splinebench_bin, tmp_path):
    suite_file = write_suite(tmp_path / "tiny.json", TINY)
    results = tmp_path / "results"
    dir_file = tmp_path / "run_dir.txt"
    proc = run(splinebench_bin, "--suite-file", str(suite_file), "--results-dir", str(results), "--machine", "testbox",
               "--repetitions", "2", "--warmups", "1", "--run-dir-file", str(dir_file))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run_dir = only_run_dir(results)
    assert run_dir.parent.name == "testbox" and run_dir.name.endswith("-tiny")
    assert Path(dir_file.read_text().strip()) == run_dir
    assert f"run directory: {run_dir}" in proc.stdout
    # The accuracy table: one row per implementation and D.
    assert "interp/max|f|" in proc.stdout and "FAIL" not in proc.stdout

    doc = json.loads((run_dir / "results.json").read_text())
    assert doc["schema"] == "splinebench-results" and doc["schema_version"] == 1
    ctx = doc["context"]
    for key in ("machine", "run_id", "suite", "date", "git_sha", "compiler", "cpu_model", "hostname"):
        assert isinstance(ctx[key], str) and ctx[key], key
    assert ctx["machine"] == "testbox" and ctx["run_id"] == run_dir.name and ctx["suite"] == "tiny"
    assert ctx["date"].endswith("Z") and isinstance(ctx["cpu_threads"], int)
    assert set(ctx["implementations"]) == {"cpu_scalar", "reference"}
    assert "gpu" in ctx and "cuda_runtime" in ctx and "cuda_driver" in ctx

    records = doc["records"]
    expected_cases = 2 * (2 * 2 * 2 * 3 * 2) + 2
    assert len(records) == expected_cases
    assert len({r["case_id"] for r in records}) == expected_cases
    for r in records:
        check_record(r)
        assert r["status"] == "ok" and r["verdict"] == "pass", r
    assert len(list((run_dir / "cases").glob("*.json"))) == expected_cases
    assert not list(run_dir.rglob("*.tmp")) and not any((run_dir / ".partial").iterdir())
    with open(run_dir / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == expected_cases and rows[0]["case_id"] == records[0]["case_id"]
    assert rows[0]["verdict"] == "pass" and float(rows[0]["prefilter_median"]) >= 0

    # The report side reads the same files (skipped when that package is absent).
    try:
        import sys
        sys.path.insert(0, str(ROOT))
        from reports.loader import load_run  # type: ignore
    except ImportError:
        return
    loaded = load_run(run_dir)
    assert len(loaded.records) == expected_cases


# --- killed runs and resume ---------------------------------------------------------------

SLOW = {
    "name": "slow",
    "sweeps": [{"name": "many", "impls": ["cpu_scalar", "reference"], "dims": [2, 3], "sizes": [5, 7, 9],
                "modes": "all", "queries": [3000], "patterns": ["uniform", "outside"]}],
}
SLOW_CASES = 2 * 2 * 3 * 3 * 2


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killed_run_leaves_whole_files_and_resumes(splinebench_bin, tmp_path, sig):
    suite_file = write_suite(tmp_path / "slow.json", SLOW)
    results = tmp_path / "results"
    proc = subprocess.Popen([str(splinebench_bin), "run", "--suite-file", str(suite_file), "--results-dir", str(results),
                             "--machine", "t", "--repetitions", "2", "--warmups", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    cases = []
    while time.monotonic() < deadline and proc.poll() is None:
        cases = list(results.glob("t/*/cases/*.json"))
        if len(cases) >= 5:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be interrupted; make SLOW bigger"
    proc.send_signal(sig)
    proc.communicate(timeout=60)
    assert proc.returncode == -sig, proc.returncode

    run_dir = only_run_dir(results)
    assert not (run_dir / "results.json").exists() and not (run_dir / "results.csv").exists()
    before = {}
    for f in (run_dir / "cases").iterdir():
        assert f.suffix == ".json", f"stray file {f}"
        record = json.loads(f.read_text())  # every file is whole
        assert record["case_id"] and record["verdict"] == "pass"
        before[f.name] = f.stat().st_mtime_ns
    assert len(before) >= 5
    outside_partial = [p for p in run_dir.rglob("*.tmp") if p.parent.name != ".partial"]
    assert not outside_partial, outside_partial
    if sig == signal.SIGTERM:
        # SIGTERM waits for a write in progress, so not even a temporary is left.
        assert not any((run_dir / ".partial").iterdir())
    json.loads((run_dir / "run.json").read_text())

    resumed = subprocess.run([str(splinebench_bin), "run", "--resume", str(run_dir)], capture_output=True, text=True,
                             timeout=600)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"({len(before)} from before the resume)" in resumed.stdout, resumed.stdout
    doc = json.loads((run_dir / "results.json").read_text())
    assert len(doc["records"]) == SLOW_CASES
    assert all(r["verdict"] == "pass" for r in doc["records"])
    assert len(doc["context"]["resumed"]) == 1
    for name, mtime in before.items():
        assert (run_dir / "cases" / name).stat().st_mtime_ns == mtime, f"{name} was rewritten"
    assert not list(run_dir.rglob("*.tmp"))

    again = subprocess.run([str(splinebench_bin), "run", "--resume", str(run_dir)], capture_output=True, text=True)
    assert again.returncode != 0 and "is complete" in again.stderr


def test_resume_does_not_take_selection_options(splinebench_bin, tmp_path):
    proc = run(splinebench_bin, "--resume", str(tmp_path), "--suite", "quick")
    assert proc.returncode != 0 and "do not combine it with" in proc.stderr, proc.stderr
    proc = run(splinebench_bin, "--resume", str(tmp_path / "missing"))
    assert proc.returncode != 0 and "is not a folder" in proc.stderr, proc.stderr
