"""Scattered reconstruction through the one CLI (`splinebench run` with a suite whose
system is "scattered"): the standard run folder, the common record envelope with a
verdict against the oracle, resume, arrays, and refusals before anything is written."""
import json
import os
import signal
import subprocess
import time

import numpy as np
import pytest

from conftest import REPO


def suite(sweeps, name="t", **top):
    return {"name": name, "system": "scattered", "repetitions": 1, "warmups": 0, "sweeps": sweeps, **top}


def run(bin_path, tmp_path, doc, *extra, timeout=300):
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(doc))
    dir_file = tmp_path / "dir.txt"
    proc = subprocess.run([str(bin_path), "run", "--suite-file", str(path), "--results-dir", str(tmp_path / "results"),
                           "--machine", "m", "--run-dir-file", str(dir_file), *extra],
                          capture_output=True, text=True, timeout=timeout)
    run_dir = dir_file.read_text().strip() if dir_file.exists() else None
    return proc, run_dir


SMALL = {"name": "s", "data": "smooth", "shapes": [[17, 15]], "fractions": 0.3, "lambdas": 2.1,
         "solvers": ["cg", "mg_pcg"], "seed_iterations": 20}


def test_run_folder_and_envelope(splinebench_bin, tmp_path):
    proc, run_dir = run(splinebench_bin, tmp_path, suite([SMALL]))
    assert proc.returncode == 0, proc.stderr
    folder = tmp_path / run_dir if not os.path.isabs(run_dir) else __import__("pathlib").Path(run_dir)
    manifest = json.loads((folder / "run.json").read_text())
    assert manifest["system"] == "scattered"
    assert manifest["suite"]["system"] == "scattered"
    assert manifest["options"]["impl"] == [] and manifest["options"]["repetitions"] == 1
    assert len(list((folder / "cases").glob("*.json"))) == 3
    assert not (folder / ".lock").exists()
    doc = json.loads((folder / "results.json").read_text())
    assert doc["schema"] == "splinebench-results"
    ids = [r["case_id"] for r in doc["records"]]
    assert ids == ["scattered/smooth/17x15/mirror/laplace0.3/lambda2.1/" + s for s in ("reference", "cg", "mg_pcg")]
    for r in doc["records"]:
        for key in ("case_id", "impl", "device", "sweep", "status", "message", "repetitions", "warmups", "phases",
                    "tolerance", "verdict"):
            assert key in r, key
        assert r["verdict"] == "pass", r["message"]
        for phase in r["phases"].values():
            assert set(phase) >= {"samples", "median", "q1", "q3", "iqr", "min", "max"}
    assert "|dRMS_g|/RMS_g*" in proc.stdout


def test_resume_finishes_an_interrupted_run(splinebench_bin, tmp_path):
    many = dict(SMALL, shapes=[[17, 15], [33, 31], [65, 63]], solvers=["cg", "gs_lex", "mg_pcg"])
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite([many])))
    results = tmp_path / "results"
    proc = subprocess.Popen([str(splinebench_bin), "run", "--suite-file", str(path), "--results-dir", str(results),
                             "--machine", "m"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    folder = None
    deadline = time.time() + 120
    while time.time() < deadline:
        runs = list((results / "m").glob("*-t"))
        if runs and len(list((runs[0] / "cases").glob("*.json"))) >= 2:
            folder = runs[0]
            break
        time.sleep(0.05)
    assert folder is not None, "no case finished"
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    done = len(list((folder / "cases").glob("*.json")))
    if (folder / "results.json").exists():
        pytest.skip("the run finished before the interrupt")
    resumed = subprocess.run([str(splinebench_bin), "run", "--resume", str(folder)], capture_output=True, text=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    doc = json.loads((folder / "results.json").read_text())
    assert len(doc["records"]) == 12
    assert f"({done} from before the resume)" in resumed.stdout


def test_save_coefficients_writes_arrays_in_the_run_folder(splinebench_bin, tmp_path):
    proc, run_dir = run(splinebench_bin, tmp_path, suite([dict(SMALL, solvers=["cg"], save_coefficients=True)]))
    assert proc.returncode == 0, proc.stderr
    arrays = __import__("pathlib").Path(run_dir) / "arrays" / "smooth-17x15"
    names = sorted(p.name for p in arrays.glob("*.npy"))
    assert names == sorted(["original.npy", "mask_f0.3_lambda2.1.npy", "coeffs_f0.3_lambda2.1_reference.npy",
                            "values_f0.3_lambda2.1_reference.npy", "coeffs_f0.3_lambda2.1_cg.npy",
                            "values_f0.3_lambda2.1_cg.npy"])
    mask = np.load(arrays / "mask_f0.3_lambda2.1.npy")
    assert mask.shape == (17, 15) and 0.25 < mask.mean() < 0.35


def test_nan_in_the_data_is_an_error_record_not_nan_results(splinebench_bin, tmp_path):
    data = REPO / "tests" / "scattered" / "data" / "field_nan.npy"
    sweep = {k: v for k, v in dict(SMALL, data=f"file:{data}").items() if k != "shapes"}
    proc, _ = run(splinebench_bin, tmp_path, suite([sweep]))
    assert proc.returncode == 1
    (folder,) = (tmp_path / "results" / "m").glob("*-t")  # a failed run names no --run-dir-file
    doc = json.loads((folder / "results.json").read_text())
    assert all(r["status"] == "error" for r in doc["records"])
    assert "value nan at flat index 41 is not finite" in doc["records"][0]["message"]


@pytest.mark.parametrize("change, words", [
    ({"solvers": ["sor"]}, "unknown solver or selector 'sor'"),
    ({"lambdas": -1}, "lambdas"),
    ({"lambdas": 1e308}, "lambdas"),
    ({"fractions": 0}, "fractions"),
    ({"tolerance": -1}, "tolerance"),
    ({"max_iterations": 0}, "max_iterations"),
    ({"modes": "periodic", "blocks": ["2"]}, "periodic axis cannot be cut"),
    ({"shapes": [[100000, 100000, 100000]]}, "GiB of host memory"),
])
def test_bad_requests_are_refused_before_any_folder(splinebench_bin, tmp_path, change, words):
    sweep = {k: v for k, v in dict(SMALL, **change).items() if v is not None}
    proc, _ = run(splinebench_bin, tmp_path, suite([sweep]))
    assert proc.returncode == 1, proc.stdout
    assert words in proc.stderr
    assert not (tmp_path / "results").exists()


def test_threads_are_bounded(splinebench_bin, tmp_path):
    proc, _ = run(splinebench_bin, tmp_path, suite([SMALL]), "--threads", "3000")
    assert proc.returncode != 0
    assert "--threads" in proc.stderr
    assert not (tmp_path / "results").exists()


def test_impl_names_a_solver(splinebench_bin, tmp_path):
    proc, _ = run(splinebench_bin, tmp_path, suite([SMALL]), "--impl", "sor", "--dry-run")
    assert proc.returncode == 1
    assert "unknown solver 'sor'" in proc.stderr
    proc, _ = run(splinebench_bin, tmp_path, suite([SMALL]), "--impl", "mg_pcg", "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].endswith("/mg_pcg")
