"""Issue 24's two experiments on synthetic runs with a shared machine's noise
(noise_model: tight bursts, rounds and runs a few percent apart, occasional load
spikes): unchanged reruns must pass, and a 1.3x slowdown of one implementation
must be caught every time, in that implementation only."""
from __future__ import annotations

import json

import numpy as np

import pytest

from reports import compare_stats
from reports.compare import main as compare_main
from reports.tests import noise_model

BASELINE_RUNS = 5
TRIALS = 10


def compare(*args):
    return compare_main([str(a) for a in args])


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """A baseline of five A/A runs, promoted the way the gate's users do."""
    root = tmp_path_factory.mktemp("results")
    runs = [noise_model.write(root / "runs" / f"base{i}", seed=100 + i, run_id=f"20261125-00000{i}-nightly")
            for i in range(BASELINE_RUNS)]
    assert compare("--promote", *runs, "--results-root", root) == 0
    return root


def test_unchanged_reruns_pass_against_the_baseline(baseline, tmp_path, capsys):
    """Issue 24: five unchanged reruns gave 6 SLOWER exits out of 7 comparisons."""
    for trial in range(TRIALS):
        new = noise_model.write(tmp_path / f"aa{trial}", seed=500 + trial)
        verdict = tmp_path / f"aa{trial}.json"
        assert compare(new, "--results-root", baseline, "--json", verdict) == 0, capsys.readouterr().out
        doc = json.loads(verdict.read_text())
        assert doc["counts"]["SLOWER"] == 0 and {r["unit"] for r in doc["rows"]} == {"runs"}
        assert len(doc["rows"]) == len(noise_model.IMPLS) * len(noise_model.WORKLOADS) * 2


def test_slowdown_of_one_implementation_is_caught(baseline, tmp_path, capsys):
    for trial in range(TRIALS):
        new = noise_model.write(tmp_path / f"slow{trial}", seed=900 + trial, slowdown={"cpu_sse": 1.3})
        verdict = tmp_path / f"slow{trial}.json"
        assert compare(new, "--results-root", baseline, "--json", verdict) == 1, capsys.readouterr().out
        slower = [r for r in json.loads(verdict.read_text())["rows"] if r["verdict"] == "SLOWER"]
        assert slower and {r["case_id"].split("/")[0] for r in slower} == {"cpu_sse"}
        assert all(r["ratio"] > 1.15 for r in slower)


def test_a_busier_machine_is_the_whole_run_not_every_case(baseline, tmp_path, capsys):
    """Every case 1.5x slower (another job on the machine, or a change that slows
    everything): the machine factor takes it out of the case verdicts, and the whole
    run is judged on its own against the baseline runs' factors."""
    doc = noise_model.run_doc(seed=950)
    for record in doc["records"]:
        for phase in record["phases"].values():
            phase["samples"] = [v * 1.5 for v in phase["samples"]]
            for key in ("median", "min", "max", "q1", "q3", "iqr"):
                phase[key] *= 1.5
    new = noise_model.synth.write_run(tmp_path / "busy", doc)
    verdict = tmp_path / "busy.json"
    assert compare(new, "--results-root", baseline, "--json", verdict) == 1
    doc = json.loads(verdict.read_text())
    assert doc["aggregates"]["whole run"]["verdict"] == "SLOWER"
    assert doc["aggregates"]["whole run"]["relative"] == pytest.approx(1.5, rel=0.05)
    assert doc["counts"]["SLOWER"] == 0
    assert "the whole run SLOWER" in capsys.readouterr().out


def test_a_slowdown_spread_over_an_implementation_is_caught_as_one(baseline, tmp_path, capsys):
    """1.15x on every case of one implementation: within a case's noise, clear in
    the mean over its eight case-phases."""
    new = noise_model.write(tmp_path / "mild", seed=960, slowdown={"cpu_simd": 1.15})
    verdict = tmp_path / "mild.json"
    assert compare(new, "--results-root", baseline, "--json", verdict) == 1
    aggregates = json.loads(verdict.read_text())["aggregates"]
    assert [n for n, a in aggregates.items() if a["verdict"] == "SLOWER"] == ["cpu_simd"]
    assert aggregates["cpu_simd"]["relative"] == pytest.approx(1.15, abs=0.04)
    assert "implementation(s) SLOWER across their cases: cpu_simd" in capsys.readouterr().out


def test_cases_that_feel_load_less_are_not_called_slower(tmp_path, capsys, monkeypatch):
    """A baseline made while other jobs loaded the machine, a NEW run on a quiet one:
    compute-bound cases gain less than the median case. Measured per case from the
    baseline's rounds (compare_stats.load_sensitivity), this is not a slowdown."""
    root = tmp_path / "results"
    rng = np.random.default_rng(7)
    runs = [noise_model.write(root / "runs" / f"busy{i}", seed=300 + i, run_id=f"20261125-00100{i}-nightly",
                              load=rng.uniform(1.2, 2.2, 3)) for i in range(BASELINE_RUNS)]
    assert compare("--promote", *runs, "--results-root", root) == 0
    quiet = noise_model.write(tmp_path / "quiet", seed=400)

    def scalar_relatives(name):
        verdict = tmp_path / f"{name}.json"
        status = compare(quiet, "--results-root", root, "--json", verdict)
        rows = json.loads(verdict.read_text())["rows"]
        return status, [r["relative"] for r in rows if r["case_id"].startswith("cpu_scalar")]

    status, relatives = scalar_relatives("quiet")
    assert status == 0 and all(0.85 < v < 1.15 for v in relatives), relatives
    # With one factor for every case (no sensitivity), cpu_scalar gains less than the
    # median case and looks slower.
    monkeypatch.setattr(compare_stats, "SENSITIVITY_PRIOR", 1e9)
    _, plain = scalar_relatives("plain")
    assert sorted(plain)[len(plain) // 2] > 1.15, plain
