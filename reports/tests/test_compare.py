"""The regression verdict on synthetic runs: exit codes for slower, faster,
noisy and unchanged inputs, accuracy and status regressions, the machine check,
and baseline promotion."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reports.compare import main as compare_main
from reports.compare_stats import compare_samples, smallest_p
from reports.tests import synth

REPS = 9


def times(median, spread=0.01, seed=0, reps=REPS):
    return synth.noisy(median, reps, spread, seed)


def run_doc(machine="box", evaluate=None, prefilter=None, verdict=None, interp_err=2e-7, status="ok",
            message="", gpu=None, cpu_model="Test CPU", extra=()):
    """Two cases of cpu_scalar: a timed one (phases given) and a steady one."""
    evaluate = evaluate or times(1e-3, seed=1)
    prefilter = prefilter or times(2e-3, seed=2)
    accuracy = {"prefilter": {"rel_l2": 4e-8, "max_abs": 1e-7},
                "interp": {"max_abs": 1e-7, "rms": 1e-8, "rel_l2": 1e-8, "max_rel_to_maxf": interp_err,
                           "checked_queries": 4096, "nan_ok": True}}
    tolerance = {"prefilter_rel_l2": 2e-7, "interp_max_rel_to_maxf": 1e-5, "basis": "stated bound"}
    if status == "ok":
        timed = synth.record("cpu_scalar", "cpu", [32, 32, 32], queries=4096,
                             phases={"prefilter": prefilter, "evaluate": evaluate},
                             accuracy=accuracy, tolerance=tolerance, verdict=verdict)
    else:
        timed = synth.record("cpu_scalar", "cpu", [32, 32, 32], queries=4096, status=status, message=message,
                             repetitions=0)
    steady = synth.record("cpu_scalar", "cpu", [64, 64], queries=4096,
                          phases={"prefilter": times(5e-4, seed=3), "evaluate": times(8e-4, seed=4)},
                          accuracy=accuracy, tolerance=tolerance)
    ctx = synth.context(machine, "quick", gpu=gpu, cpu_model=cpu_model)
    return synth.results(ctx, [timed, steady, *extra])


@pytest.fixture
def runs(tmp_path):
    def make(name, **kw):
        return str(synth.write_run(tmp_path / name, run_doc(**kw)))
    return make


def compare(*args):
    return compare_main([str(a) for a in args])


def test_unchanged_rerun_passes(runs, capsys):
    base = runs("base")
    new = runs("new", evaluate=times(1e-3, seed=11), prefilter=times(2e-3, seed=12))
    assert compare(base, new) == 0
    out = capsys.readouterr().out
    assert "RESULT: PASS" in out and "SLOWER" not in out.split("compared")[0]
    assert "geometric mean of new/base median ratios" in out


def test_slower_case_fails(runs, capsys):
    base = runs("base")
    new = runs("new", evaluate=times(1.2e-3, seed=11))
    assert compare(base, new) == 1
    out = capsys.readouterr().out
    line = next(l for l in out.splitlines() if l.startswith("SLOWER"))
    assert "evaluate" in line and "cpu_scalar/D3/32x32x32" in line
    ratio = float(line.split()[1])
    assert 1.15 < ratio < 1.25
    assert "RESULT: FAIL" in out


def test_faster_case_passes(runs, capsys):
    assert compare(runs("base"), runs("new", evaluate=times(0.7e-3, seed=11))) == 0
    assert any(l.startswith("FASTER") for l in capsys.readouterr().out.splitlines())


def test_noisy_case_does_not_fail(runs, capsys):
    """A large median shift buried in noise is NOISY, not SLOWER."""
    base = runs("base", evaluate=times(1e-3, spread=0.5, seed=21))
    new = runs("new", evaluate=times(1.15e-3, spread=0.5, seed=22))
    assert compare(base, new) == 0
    line = next(l for l in capsys.readouterr().out.splitlines() if "evaluate" in l and "D3" in l)
    assert line.startswith("NOISY")


def test_small_significant_slowdown_is_within_threshold(runs, capsys):
    base = runs("base", evaluate=times(1e-3, spread=0.001, seed=31))
    new = runs("new", evaluate=times(1.02e-3, spread=0.001, seed=32))
    assert compare(base, new) == 0                       # 2% < default 5%
    assert compare(base, new, "--threshold", "0.01") == 1  # but > 1%


def test_too_few_repetitions_cannot_fail(runs, capsys):
    base = runs("base", evaluate=times(1e-3, reps=3, seed=41), prefilter=times(2e-3, reps=3, seed=42))
    new = runs("new", evaluate=times(2e-3, reps=3, seed=43), prefilter=times(2e-3, reps=3, seed=44))
    assert compare(base, new) == 0
    out = capsys.readouterr().out
    assert "cannot reach p < 0.01" in out and any(l.startswith("NOISY") for l in out.splitlines())


def test_machine_mismatch_is_refused_unless_forced(runs, capsys):
    base, new = runs("base", machine="alpha"), runs("new", machine="beta")
    assert compare(base, new) == 2
    err = capsys.readouterr().err
    assert "refusing to compare runs from different machines" in err and "'alpha' vs 'beta'" in err
    assert compare(base, new, "--force") == 0
    assert "WARNING: --force" in capsys.readouterr().out


def test_same_label_different_gpu_is_refused(runs, capsys):
    base = runs("base", gpu=synth.GPU_H100)
    new = runs("new", gpu=dict(synth.GPU_H100, name="NVIDIA H200"))
    assert compare(base, new) == 2
    assert "GPU 'NVIDIA H100 80GB HBM3' vs 'NVIDIA H200'" in capsys.readouterr().err


def test_accuracy_verdict_pass_to_fail_fails(runs, capsys):
    assert compare(runs("base"), runs("new", verdict="fail")) == 1
    assert "verdict turned from pass to fail" in capsys.readouterr().out


def test_error_growth_beyond_two_fails(runs, capsys):
    assert compare(runs("base"), runs("new", interp_err=5e-7)) == 1
    assert "grew from 2e-07 to 5e-07" in capsys.readouterr().out
    assert compare(runs("base2"), runs("new2", interp_err=3.9e-7)) == 0  # < 2x: fine


def test_case_lost_to_error_fails(runs, capsys):
    assert compare(runs("base"), runs("new", status="error", message="kernel launch failed")) == 1
    assert "measured in BASE, error in NEW: kernel launch failed" in capsys.readouterr().out


def test_malformed_input_exits_2(runs, tmp_path, capsys):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "results.json").write_text('{"schema": "splinebench-results", "schema_version": 1, "cont')
    assert compare(runs("base"), bad) == 2
    assert "truncated" in capsys.readouterr().err


def test_json_output(runs, tmp_path):
    out = tmp_path / "verdict.json"
    assert compare(runs("base"), runs("new", evaluate=times(1.2e-3, seed=11)), "--json", out) == 1
    doc = json.loads(out.read_text())
    assert doc["failed"] is True
    slower = [r for r in doc["rows"] if r["verdict"] == "SLOWER"]
    assert len(slower) == 1 and slower[0]["phase"] == "evaluate" and slower[0]["p_value"] < 0.01


def test_promote_then_compare_against_baseline(runs, tmp_path, capsys):
    root = tmp_path / "results"
    base = runs("base")
    assert compare("--promote", base, "--results-root", root) == 0
    baseline = root / "box" / "baseline"
    assert (baseline / "results.json").read_bytes() == (tmp_path / "base" / "results.json").read_bytes()
    provenance = json.loads((baseline / "PROMOTED.json").read_text())
    assert provenance["source"].endswith("base")
    # One argument: compare with the machine's baseline.
    assert compare(runs("new", evaluate=times(1.2e-3, seed=11)), "--results-root", root) == 1
    assert compare(runs("same", evaluate=times(1e-3, seed=51)), "--results-root", root) == 0


def test_promote_refuses_unhealthy_run(runs, tmp_path, capsys):
    root = tmp_path / "results"
    bad = runs("bad", verdict="fail")
    assert compare("--promote", bad, "--results-root", root) == 2
    assert "refusing to promote" in capsys.readouterr().err
    assert not (root / "box" / "baseline").exists()
    assert compare("--promote", bad, "--results-root", root, "--force") == 0


def test_no_baseline_yet_is_explained(runs, tmp_path, capsys):
    assert compare(runs("new"), "--results-root", tmp_path / "nothing") == 2
    assert "--promote" in capsys.readouterr().err


def test_cli_entry_point_runs_as_module(runs):
    base = runs("base")
    proc = subprocess.run([sys.executable, "-m", "reports.compare", base, runs("new", evaluate=times(1.3e-3))],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "RESULT: FAIL" in proc.stdout


def test_statistics_directly():
    base = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99]
    slower = [v * 1.1 for v in base]
    c = compare_samples(base, slower, 0.05, 0.01)
    assert c.verdict == "SLOWER" and c.p_value < 0.01 and c.ratio == pytest.approx(1.1)
    assert compare_samples(base, base, 0.05, 0.01).verdict == "SAME"
    assert smallest_p(9, 9) == pytest.approx(2 / 48620)
    assert smallest_p(3, 3) == pytest.approx(0.1)
