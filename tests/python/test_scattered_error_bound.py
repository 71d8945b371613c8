"""Scattered reconstruction's coefficient error bound, through `splinebench run`: every
converged solver's measured ||c - c*|| / ||c*|| against the oracle lies within kappa *
relres, kappa from the oracle record's condition estimate (systems/scattered/README.md)."""
import gzip
import json
import subprocess

import pytest


def run_suite(bin_path, tmp_path, sweep, extra=()):
    suite = {"name": "t", "system": "scattered", "repetitions": 1, "warmups": 0, "sweeps": [sweep]}
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite))
    out = tmp_path / "dir.txt"
    run = subprocess.run([str(bin_path), "run", "--suite-file", str(path), "--results-dir", str(tmp_path / "results"),
                          "--machine", "m", "--run-dir-file", str(out), *extra],
                         capture_output=True, text=True, timeout=300)
    return run, out


@pytest.mark.parametrize("shape, lam", [([24, 20], 2.1), ([9, 8, 7], 0.002)])
def test_measured_coefficient_error_within_the_bound(splinebench_bin, tmp_path, shape, lam):
    sweep = {"name": "s", "data": "smooth", "shapes": [shape], "fractions": 0.2, "lambdas": lam,
             "solvers": ["cg", "mg_pcg", "gs_lex"], "tolerance": 1e-6, "max_iterations": 20000}
    run, out = run_suite(splinebench_bin, tmp_path, sweep)
    assert run.returncode == 0, run.stderr + run.stdout
    doc = json.loads((tmp_path / out.read_text().strip() / "results.json").read_text())
    oracle = next(r for r in doc["records"] if r["impl"] == "reference")
    kappa = oracle["condition_estimate"]["kappa"]
    assert kappa > 1
    checked = 0
    for r in doc["records"]:
        if r["impl"] == "reference" or r.get("solve_status") != "converged":
            continue
        assert r["coeff_err_bound"] == pytest.approx(kappa * r["relres"], rel=1e-12)
        assert 0 <= r["coeff_rel_err"] <= r["coeff_err_bound"], r["solver"]
        checked += 1
    assert checked == 3
