"""The regression verdict on synthetic runs: exit codes for slower, faster, noisy
and unchanged inputs, coverage (nothing compared, a missing implementation, case,
phase), accuracy and status regressions, the machine check, the NOISY flag, and
baseline promotion. test_compare_noise.py holds the A/A and slowdown experiments."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reports.compare import main as compare_main
from reports.tests import synth

REPS = 9


def times(median, spread=0.01, seed=0, reps=REPS):
    return synth.noisy(median, reps, spread, seed)


def run_doc(machine="box", evaluate=None, prefilter=None, verdict=None, interp_err=2e-7, status="ok",
            message="", gpu=None, cpu_model="Test CPU", extra=(), impls=("cpu_scalar",), run_id=None,
            steady_seed=3):
    """Per implementation two cases: a timed one (phases given) and a steady one."""
    evaluate = evaluate or times(1e-3, seed=1)
    prefilter = prefilter or times(2e-3, seed=2)
    accuracy = {"prefilter": {"rel_l2": 4e-8, "max_abs": 1e-7},
                "interp": {"max_abs": 1e-7, "rms": 1e-8, "rel_l2": 1e-8, "max_rel_to_maxf": interp_err,
                           "checked_queries": 4096, "nan_ok": True}}
    tolerance = {"prefilter_rel_l2": 2e-7, "interp_max_rel_to_maxf": 1e-5, "basis": "stated bound"}
    records = []
    for impl in impls:
        if status == "ok":
            phases = {"prefilter": prefilter, "evaluate": evaluate} if evaluate != [] else {"prefilter": prefilter}
            timed = synth.record(impl, "cpu", [32, 32, 32], queries=4096, phases=phases,
                                 accuracy=accuracy, tolerance=tolerance, verdict=verdict)
        else:
            timed = synth.record(impl, "cpu", [32, 32, 32], queries=4096, status=status, message=message,
                                 repetitions=0)
        steady = synth.record(impl, "cpu", [64, 64], queries=4096,
                              phases={"prefilter": times(5e-4, seed=steady_seed),
                                      "evaluate": times(8e-4, seed=steady_seed + 1)},
                              accuracy=accuracy, tolerance=tolerance)
        records += [timed, steady]
    ctx = synth.context(machine, "quick", gpu=gpu, cpu_model=cpu_model, run_id=run_id)
    return synth.results(ctx, [*records, *extra])


@pytest.fixture
def runs(tmp_path):
    def make(name, **kw):
        return str(synth.write_run(tmp_path / name, run_doc(**kw)))
    return make


def compare(*args):
    return compare_main([str(a) for a in args])


def out_lines(capsys):
    return capsys.readouterr().out.splitlines()


def verdict_of(lines, phase, case_part):
    return next(l for l in lines if phase in l and case_part in l and l.split()[0] in
                ("SLOWER", "FASTER", "NOISY", "SAME"))


def test_unchanged_rerun_passes(runs, capsys):
    base = runs("base")
    new = runs("new", evaluate=times(1e-3, seed=11), prefilter=times(2e-3, seed=12), steady_seed=13)
    assert compare(base, new) == 0
    out = capsys.readouterr().out
    assert "RESULT: PASS" in out and "SLOWER" not in out.split("compared")[0]
    assert "geometric mean of new/base median ratios" in out


def test_slower_case_fails(runs, capsys):
    base = runs("base")
    new = runs("new", evaluate=times(1.3e-3, seed=11))
    assert compare(base, new) == 1
    line = next(l for l in out_lines(capsys) if l.startswith("SLOWER"))
    assert "evaluate" in line and "cpu_scalar/D3/32x32x32" in line
    assert 1.25 < float(line.split()[1]) < 1.35


def test_faster_case_passes(runs, capsys):
    assert compare(runs("base"), runs("new", evaluate=times(0.7e-3, seed=11))) == 0
    assert any(l.startswith("FASTER") for l in out_lines(capsys))


def test_noisy_case_does_not_fail(runs, capsys):
    """A large median shift buried in noise is NOISY, not SLOWER."""
    base = runs("base", evaluate=times(1e-3, spread=0.5, seed=21))
    new = runs("new", evaluate=times(1.15e-3, spread=0.5, seed=22))
    assert compare(base, new) == 0
    assert verdict_of(out_lines(capsys), "evaluate", "D3").startswith("NOISY")


def test_change_below_the_thresholds_passes(runs, capsys):
    base = runs("base", evaluate=times(1e-3, spread=0.001, seed=31))
    new = runs("new", evaluate=times(1.05e-3, spread=0.001, seed=32))
    assert compare(base, new) == 0                        # 5% < default 10%
    assert compare(base, new, "--threshold", "0.02") == 1  # but > 2%
    # An absolute floor: 0.05 ms more is below 0.1 ms.
    assert compare(base, new, "--threshold", "0.02", "--min-abs-ms", "0.1") == 0


def test_nothing_compared_fails(runs, tmp_path, capsys):
    """Issue 24: two runs sharing no case used to print `compared 0 ... PASS`."""
    base = runs("base")
    other = synth.record("cpu_scalar", "cpu", [8, 8], queries=0, phases={"prefilter": times(1e-4, seed=5)},
                         accuracy={"prefilter": {"rel_l2": 1e-8, "max_abs": 1e-8}},
                         tolerance={"prefilter_rel_l2": 2e-7})
    new = synth.write_run(tmp_path / "disjoint", synth.results(synth.context("box", "quick", cpu_model="Test CPU"),
                                                               [other]))
    assert compare(base, new) == 1
    out = capsys.readouterr().out
    assert "nothing was compared" in out and "RESULT: FAIL" in out and "compared 0 case-phases" in out


def test_missing_implementation_fails(runs, capsys):
    """Issue 24: a NEW run without a whole implementation used to pass with a note."""
    base = runs("base", impls=("cpu_scalar", "cpu_sse"))
    new = runs("new", impls=("cpu_scalar",), evaluate=times(1e-3, seed=11))
    assert compare(base, new) == 1
    out = capsys.readouterr().out
    assert "REGRESSION [coverage] cpu_sse: implementation measured in BASE (2 case(s)) has no record in NEW" in out
    assert "RESULT: FAIL" in out
    # Relaxed on request: a warning, and the shared cases still compared.
    assert compare(base, new, "--allow-missing") == 0
    out = capsys.readouterr().out
    assert "warning [coverage] cpu_sse" in out and "RESULT: PASS" in out


def test_missing_test_only_implementation_is_a_warning(runs, capsys):
    """A baseline made in a test build holds test-only implementations (test_*), which
    product builds do not register: their absence loses no coverage."""
    base = runs("base", impls=("cpu_scalar", "test_slowed"))
    assert compare(base, runs("new", impls=("cpu_scalar",), evaluate=times(1e-3, seed=11))) == 0
    assert "warning [coverage] test_slowed: implementation measured in BASE (2 case(s)) has no record in NEW " \
           "(test-only" in capsys.readouterr().out


def test_missing_case_and_phase_fail(runs, tmp_path, capsys):
    base = runs("base")
    doc = run_doc(evaluate=times(1e-3, seed=11))
    doc["records"] = [r for r in doc["records"] if r["shape"] != [64, 64]]   # a case gone
    del doc["records"][0]["phases"]["evaluate"]                               # and a phase gone
    new = synth.write_run(tmp_path / "partial", doc)
    assert compare(base, new) == 1
    out = capsys.readouterr().out
    assert "cpu_scalar/D2/64x64/C1/F1/mirror/noise/q4096/uniform: measured in BASE, not run in NEW" in out
    assert "phase evaluate measured in BASE, absent in NEW" in out
    assert compare(base, new, "--allow-missing") == 0


def test_case_skipped_in_new_fails_and_error_always_fails(runs, capsys):
    base = runs("base")
    skipped = runs("skipped", status="skipped", message="no device")
    assert compare(base, skipped) == 1
    assert "measured in BASE, skipped in NEW: no device" in capsys.readouterr().out
    assert compare(base, skipped, "--allow-missing") == 0
    errored = runs("errored", status="error", message="kernel launch failed")
    assert compare(base, errored, "--allow-missing") == 1
    assert "measured in BASE, error in NEW: kernel launch failed" in capsys.readouterr().out


def test_bimodal_record_is_flagged_noisy(runs, capsys):
    """Issue 24: six samples near 9 ms and three near 0.05 ms were published as 8.94 ms."""
    bimodal = [9.0e-3, 8.9e-3, 9.1e-3, 0.05e-3, 8.95e-3, 0.051e-3, 9.05e-3, 0.049e-3, 8.94e-3]
    base = runs("base", prefilter=times(9e-3, seed=41))
    new = runs("new", prefilter=bimodal)
    assert compare(base, new) == 0
    line = verdict_of(out_lines(capsys), "prefilter", "D3")
    assert line.startswith("NOISY")
    assert "NEW bimodal: 3 samples near 0.05 ms, 6 near 8.97 ms" in line


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


def test_malformed_input_exits_2(runs, tmp_path, capsys):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "results.json").write_text('{"schema": "splinebench-results", "schema_version": 1, "cont')
    assert compare(runs("base"), bad) == 2
    assert "truncated" in capsys.readouterr().err


def test_json_and_markdown_output(runs, tmp_path):
    out, md = tmp_path / "verdict.json", tmp_path / "verdict.md"
    assert compare(runs("base"), runs("new", evaluate=times(1.3e-3, seed=11)), "--json", out, "--markdown", md) == 1
    doc = json.loads(out.read_text())
    assert doc["failed"] is True and doc["counts"]["SLOWER"] == 1
    slower = [r for r in doc["rows"] if r["verdict"] == "SLOWER"]
    assert len(slower) == 1 and slower[0]["phase"] == "evaluate" and slower[0]["p_adjusted"] < 0.01
    assert slower[0]["unit"] == "samples" and slower[0]["new_q1"] <= slower[0]["new_median"] <= slower[0]["new_q3"]
    assert doc["method"]["adjustment"].startswith("Benjamini-Hochberg")
    text = md.read_text()
    assert "**RESULT: FAIL" in text and "| SLOWER |" in text


def test_promote_several_runs_then_compare_against_baseline(runs, tmp_path, capsys):
    root = tmp_path / "results"
    bases = [runs(f"base{i}", run_id=f"20261122-10000{i}-quick", evaluate=times(1e-3, seed=60 + i),
                  prefilter=times(2e-3, seed=70 + i), steady_seed=80 + 2 * i) for i in range(3)]
    assert compare("--promote", *bases[:2], "--results-root", root) == 0
    assert "fewer than 5" in capsys.readouterr().out
    assert compare("--promote", bases[2], "--add", "--results-root", root) == 0
    baseline = root / "box" / "baseline"
    provenance = json.loads((baseline / "PROMOTED.json").read_text())
    assert [r["run_id"] for r in provenance["runs"]] == [f"20261122-10000{i}-quick" for i in range(3)]
    assert provenance["runs"][0]["source"].endswith("base0")
    assert (baseline / "20261122-100001-quick" / "results.json").read_bytes() == \
        (tmp_path / "base1" / "results.json").read_bytes()
    # One argument: compare with the machine's baseline (three runs: run-to-run units).
    assert compare(runs("slow", evaluate=times(1.3e-3, seed=11)), "--results-root", root) == 1
    assert "units: runs" in capsys.readouterr().out
    assert compare(runs("same", evaluate=times(1e-3, seed=51)), "--results-root", root) == 0
    # The baseline folder also works as an explicit BASE.
    assert compare(baseline, runs("same2", evaluate=times(1e-3, seed=52))) == 0


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
    import numpy as np
    from reports.compare_stats import compare_case, decide, machine_factors
    base = np.log([1.0, 1.02, 0.98, 1.01, 0.99])
    slower = compare_case(base, np.log([1.3]), "runs", 1.0, 1.3)
    same = compare_case(base, np.log([1.01]), "runs", 1.0, 1.01)
    assert slower.p_slower < 0.001 and slower.relative == pytest.approx(1.3) and same.p_slower > 0.1
    assert slower.noise == pytest.approx(0.0158, abs=1e-3)
    # Adjusted over many case-phases: one small p among many large ones loses significance.
    borderline = compare_case(base, np.log([1.12]), "runs", 1.0, 1.12)
    assert borderline.p_slower < 0.01
    alone = decide([borderline], 0.01, 0.1, 0.0)[0]
    crowd = decide([borderline] + [same] * 40, 0.01, 0.1, 0.0)[0]
    assert alone.verdict == "SLOWER" and crowd.verdict == "NOISY" and crowd.p_adjusted > alone.p_adjusted
    # One unit per side cannot measure noise.
    assert compare_case([0.0], [0.7], "runs", 1.0, 2.0).note.startswith("1 and 1 runs cannot measure")
    # The machine factor of a round is the median over case-phases: a minority that
    # changed does not move it.
    logs = [{"r": np.log([2.0, 1.0]) + c} for c in range(10)]
    logs[0]["r"] = logs[0]["r"] + np.log(1.3)
    assert np.exp(machine_factors(logs, list(range(10)))["r"]) == pytest.approx([2.0, 1.0])
    assert not machine_factors(logs[:5], list(range(5)))["r"].any()  # too few case-phases: none


def _scattered_item(solver: str, status: str, solve_wall=None) -> dict:
    """A scattered system record as the harness writes it: a skipped one keeps the suite's
    relres stop criterion (a number) under 'tolerance'; a judged one has the verdict's object."""
    item = {"operation": "scattered_reconstruction", "case_id": f"scattered/smooth/129x129/{solver}",
            "impl": solver, "solver": solver, "device": "gpu" if solver.startswith("gpu") else "cpu",
            "shape": [129, 129], "mode": "mirror", "data": "smooth", "threads": 1, "repetitions": REPS,
            "status": status, "message": "", "tolerance": 1e-8, "verdict": "n/a", "phases": {}}
    if solve_wall is not None:
        item["phases"] = {"solve_wall": synth.phase(times(solve_wall))}
        item["tolerance"] = {"rms_g_rel_diff": 1e-6, "basis": "f64 iteration"}
        item["verdict"] = "pass"
    return item


def test_skipped_system_records_compare_cleanly(tmp_path):
    """A CPU-only machine's scattered records of GPU solvers are skipped and carry the
    suite's numeric relres criterion as 'tolerance': the gate compares the run, judging
    the solved record's solve_wall, instead of refusing the run."""
    from reports.compare import compare_runs
    from reports.loader import load_run
    docs = []
    for name, factor in (("base", 1.0), ("new", 1.0)):
        doc = run_doc()
        doc["records"] += [_scattered_item("cg", "ok", 0.2 * factor), _scattered_item("gpu_cg", "skipped"),
                           _scattered_item("reference", "skipped")]
        docs.append(load_run(synth.write_run(tmp_path / name, doc)))
    result = compare_runs(docs[0], docs[1])
    assert not [p for p in result.problems if p.fatal], result.problems
    judged = [(row.case_id, row.phase) for row in result.rows]
    assert ("scattered/smooth/129x129/cg", "solve_wall") in judged, judged
