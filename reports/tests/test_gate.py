"""The nightly gate: rounds merged into one run that follows the schema, the
verdict and trend written into the run's report, the exit status, the advice on
promoting a baseline, and (with the real binary) the whole gate end to end."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from reports import gate, timing
from reports.compare import main as compare_main
from reports.compare_stats import run_time
from reports.errors import ReportError
from reports.gate_rounds import merge_documents, merge_round_dirs
from reports.loader import load_run
from reports.tests import noise_model, synth

REPO = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("SPLINEBENCH_BIN", REPO / "build" / "bin" / "splinebench"))


def round_doc(index: int, status: str = "ok", verdict: str | None = None) -> dict:
    """One round of a two-case run; round i's samples sit near (1 + i/10) ms."""
    level = 1e-3 * (1 + index / 10)
    accuracy = {"prefilter": {"rel_l2": 4e-8 * (1 + index), "max_abs": 1e-7},
                "interp": {"max_abs": 1e-7, "max_rel_to_maxf": 2e-7, "checked_queries": 64, "nan_ok": True}}
    timed = (synth.record("cpu_scalar", "cpu", [16, 16], queries=64, status=status, message="boom", repetitions=0)
             if status != "ok" else
             synth.record("cpu_scalar", "cpu", [16, 16], queries=64, accuracy=accuracy, verdict=verdict,
                          phases={"prefilter": synth.noisy(level, 9, 0.01, index),
                                  "evaluate": synth.noisy(2 * level, 9, 0.01, 10 + index)}))
    other = synth.record("cpu_sse", "cpu", [16, 16], queries=0, accuracy={"prefilter": accuracy["prefilter"]},
                         phases={"prefilter": synth.noisy(level / 4, 9, 0.01, 20 + index)})
    ctx = synth.context("box", "nightly", run_id=f"20261125-01000{index}-nightly",
                        date=f"2026-11-25T01:00:0{index}Z", cpu_model="Test CPU")
    return synth.results(ctx, [timed, other])


def test_merged_rounds_keep_every_sample_in_round_order(tmp_path):
    dirs = [synth.write_run(tmp_path / f"r{i}", round_doc(i)) for i in range(3)]
    (dirs[0] / "run.json").write_text(json.dumps({"schema": "splinebench-run", "schema_version": 1}))
    merged_dir = merge_round_dirs(dirs, tmp_path / "merged", loadavg=[[0.5, 0.4, 0.3]] * 3)
    run = load_run(merged_dir)
    rounds = [json.loads((d / "results.json").read_text())["records"][0] for d in dirs]
    record = run.records[0]
    assert record.repetitions == 27 and timing.rounds_of(run) == 3
    assert list(record.phases["prefilter"].samples) == [v for r in rounds for v in r["phases"]["prefilter"]["samples"]]
    assert record.phases["prefilter"].median == pytest.approx(statistics.median(record.phases["prefilter"].samples))
    # The run's time is the median of the three round medians: round 1's here.
    middle = statistics.median(rounds[1]["phases"]["prefilter"]["samples"])
    assert run_time(record.phases["prefilter"].samples, 3) == pytest.approx(middle)
    # Throughput follows the merged median; accuracy is the worst round's.
    assert record.throughput["queries_per_s"] == pytest.approx(64 / record.phases["evaluate"].median, rel=1e-9)
    assert record.accuracy_value("prefilter", "rel_l2") == pytest.approx(4e-8 * 3)
    info = run.context["rounds"]
    assert info["count"] == 3 and info["repetitions"] == 9
    assert [r["run_id"] for r in info["runs"]] == [f"20261125-01000{i}-nightly" for i in range(3)]
    assert info["runs"][0]["loadavg"] == [0.5, 0.4, 0.3]
    assert json.loads((merged_dir / "run.json").read_text())["rounds"]["count"] == 3


def test_a_case_failing_in_one_round_fails_the_run(tmp_path):
    errored = merge_documents([round_doc(0), round_doc(1, status="error"), round_doc(2)], [{}] * 3)
    assert errored["records"][0]["status"] == "error"
    assert errored["records"][0]["message"] == "error in round 2 of 3: boom"
    failed = merge_documents([round_doc(0), round_doc(1), round_doc(2, verdict="fail")], [{}] * 3)
    assert failed["records"][0]["verdict"] == "fail" and "round 3 of 3" in failed["records"][0]["message"]
    other = round_doc(1)
    other["records"] = other["records"][:1]
    with pytest.raises(ReportError, match="did not run the same cases"):
        merge_documents([round_doc(0), other], [{}] * 2)


def test_noisy_rounds_outvoted_unless_most_are():
    burst = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99]
    bimodal = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 3.0, 3.1, 2.9]
    assert timing.unreliable(bimodal).startswith("bimodal: 6 samples near")
    assert timing.unreliable(burst) is None
    assert timing.unreliable_in(burst + bimodal + burst, 3) is None
    assert timing.unreliable_in(bimodal + bimodal + burst, 3).startswith("2 of 3 rounds bimodal")
    # One straggler is not a second regime.
    assert timing.unreliable(burst[:-1] + [5.0]) is None
    assert timing.unreliable([1.0, 1.3, 1.6, 1.1, 1.5, 0.9, 1.4, 1.2, 1.0]).startswith("spread: IQR")


@pytest.fixture
def machine_root(tmp_path):
    """results/ci-box with five baseline runs promoted, as the gate's users make it."""
    root = tmp_path / "results"
    runs = [noise_model.write(root / "ci-box" / f"20261125-00000{i}-nightly", seed=100 + i,
                              run_id=f"20261125-00000{i}-nightly") for i in range(5)]
    assert compare_main(["--promote", *map(str, runs), "--results-root", str(root)]) == 0
    return root


def test_judge_writes_verdict_and_trend_into_the_report(machine_root, capsys):
    new = noise_model.write(machine_root / "ci-box" / "20261125-020000-nightly", seed=901,
                            run_id="20261125-020000-nightly", slowdown={"cpu_sse": 1.3})
    assert gate.judge(new, machine_root) == 1
    out = capsys.readouterr().out
    assert "RESULT: FAIL" in out and "report/verdict.md" in out
    report = new / "report"
    verdict = json.loads((report / "verdict.json").read_text())
    assert verdict["exit_status"] == 1 and verdict["baseline_runs"] == [f"20261125-00000{i}-nightly" for i in range(5)]
    assert {r["case_id"].split("/")[0] for r in verdict["rows"] if r["verdict"] == "SLOWER"} == {"cpu_sse"}
    assert "**RESULT: FAIL" in (report / "verdict.md").read_text()
    assert (report / "plots" / "trend.png").stat().st_size > 10_000
    index = (report / "index.html").read_text()
    assert "Regression gate" in index and "SLOWER" in index and "plots/trend.png" in index
    assert index.index("Regression gate") < index.index("Reproduction status")
    assert (report / "tables" / "regression_verdict.md").exists()


def test_judge_passes_an_unchanged_rerun_and_says_how_to_promote(machine_root, capsys):
    new = noise_model.write(machine_root / "ci-box" / "20261125-020000-nightly", seed=501,
                            run_id="20261125-020000-nightly")
    assert gate.judge(new, machine_root, build=False) == 0
    out = capsys.readouterr().out
    assert "RESULT: PASS" in out
    # Five runs of this commit exist (the baseline's and this one): the exact command.
    assert "--promote " in out and "20261125-020000-nightly" in out and "--add" in out


def test_judge_without_baseline_exits_2(tmp_path, capsys):
    new = noise_model.write(tmp_path / "results" / "ci-box" / "20261125-020000-nightly", seed=1)
    assert gate.judge(new, tmp_path / "results", build=False) == 2
    out = capsys.readouterr().out
    assert "NO BASELINE" in out and "4 more time(s)" in out
    assert json.loads((new / "report" / "verdict.json").read_text())["exit_status"] == 2


SUITE = {
    "name": "gate-e2e", "repetitions": 9, "warmups": 1,
    "sweeps": [{"name": "tiny", "impls": ["cpu_scalar"], "dims": [2], "sizes": [32], "queries": [4096]}],
}


@pytest.mark.skipif(not BIN.exists(), reason=f"splinebench binary not found at {BIN} (build it, or set "
                                              "SPLINEBENCH_BIN)")
def test_gate_end_to_end(tmp_path):
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(SUITE))
    root = tmp_path / "results"

    def gate_run(*extra):
        return subprocess.run([sys.executable, "-m", "reports.gate", "--bin", str(BIN), "--suite-file", str(suite),
                               "--rounds", "2", "--machine", "e2e", "--results-root", str(root), *extra],
                              capture_output=True, text=True, cwd=REPO, timeout=600)

    first = gate_run("--no-report")
    assert first.returncode == 2, first.stdout + first.stderr
    assert "NO BASELINE" in first.stdout and "--promote" in first.stdout
    run_dir, = [p for p in (root / "e2e").iterdir() if not p.name.startswith(".")]
    run = load_run(run_dir)
    assert timing.rounds_of(run) == 2 and run.records[0].repetitions == 18
    assert not [p for p in (root / "e2e").iterdir() if p.name.startswith(".")]  # rounds cleaned up
    assert compare_main(["--promote", str(run_dir), "--results-root", str(root)]) == 0
    second = gate_run()
    assert second.returncode in (0, 1), second.stdout + second.stderr
    assert "units: rounds" in second.stdout
    newest = max((p for p in (root / "e2e").iterdir() if p.name[0].isdigit()), key=lambda p: p.name)
    assert (newest / "report" / "index.html").exists() and (newest / "report" / "verdict.json").exists()


def test_acceptance_suite_adds_the_test_only_implementation_to_cpu_sweeps(tmp_path):
    """Selectors skip test-only implementations; the acceptance names test_slowed beside
    the CPU implementations of every CPU sweep and keeps the suite's name."""
    from reports.gate_acceptance import suite_with_test_impl
    # nightly is a suite of suites: the grid part gets test_slowed, written inline.
    original = json.loads((REPO / "harness" / "suites" / "nightly-grid.json").read_text())
    doc = json.loads(suite_with_test_impl("nightly", "test_slowed", tmp_path / "s.json").read_text())
    assert doc["name"] == "nightly"
    grid = next(part for part in doc["suites"] if part["name"] == "nightly-grid")
    for before, after in zip(original["sweeps"], grid["sweeps"]):
        if "cpu" in before["impls"]:
            assert after["impls"] == before["impls"] + ["test_slowed"]
        else:
            assert after["impls"] == before["impls"]
