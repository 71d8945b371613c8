"""Issue 24's two experiments on synthetic runs with a shared machine's noise
(noise_model: tight bursts, rounds and runs a few percent apart, occasional load
spikes): unchanged reruns must pass, and a 1.3x slowdown of one implementation
must be caught every time, in that implementation only."""
from __future__ import annotations

import json

import pytest

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
