"""The scattered driver's coefficient error bound: every converged solver's measured
||c - c*|| / ||c*|| against the oracle lies within kappa * relres, kappa from the oracle
record's condition estimate (systems/scattered/README.md, Driver)."""
import json
import subprocess

import pytest


@pytest.fixture(scope="module")
def scattered_bin(splinebench_bin):
    path = splinebench_bin.parent / "splinebench_scattered"
    if not path.is_file():
        pytest.skip(f"splinebench_scattered not found beside {splinebench_bin}")
    return path


@pytest.mark.parametrize("shape, lam", [("24x20", 2.1), ("9x8x7", 0.002)])
def test_measured_coefficient_error_within_the_bound(scattered_bin, tmp_path, shape, lam):
    out = tmp_path / "results.json"
    run = subprocess.run([str(scattered_bin), "--synthetic", f"smooth:{shape}", "--fraction", "0.2", "--lambda", str(lam),
                          "--solver", "cg", "--solver", "mg_pcg", "--solver", "gs_lex", "--tolerance", "1e-6",
                          "--max-iterations", "20000", "--repetitions", "1", "--warmups", "0", "--out", str(out)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    doc = json.loads(out.read_text())
    assert doc["finished"] is True
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
