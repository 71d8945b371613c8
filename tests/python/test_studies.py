"""The studies end to end on small inputs with the CPU implementations (studies/README.md):
records written atomically in their schema, a report section with its figure, and the
numbers they rest on checked against what they must be."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from studies import convergence, rotation
from studies.common import Splinebench, StudyError, load_study

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("SPLINEBENCH_BIN", ROOT / "build" / "bin" / "splinebench"))
pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"no splinebench executable at {BIN}")


def test_fit_order_recovers_order_four_and_stops_at_the_floor():
    h = [1 / (n - 1) for n in (8, 16, 32, 64, 128, 256, 512, 1024)]
    err = [max(0.5 * x ** 4, 1e-11) for x in h]  # h^4 until a round-off floor
    fit = convergence.fit_order(h, err)
    assert fit["order"] == pytest.approx(4.0, abs=0.01)
    assert fit["h_floor"] is not None and fit["h_floor"] < 1 / 20
    clean = convergence.fit_order(h, [0.5 * x ** 4 for x in h])
    assert clean["order"] == pytest.approx(4.0, abs=1e-9) and clean["h_floor"] is None


def test_convergence_study_gives_order_four_on_the_cpu(tmp_path, monkeypatch):
    monkeypatch.setattr(convergence, "SIZES", {1: [8, 16, 23, 32, 45, 64, 91, 128, 256],
                                               2: [8, 16, 23, 32, 45, 64, 91]})
    run = convergence.run_study(Splinebench(BIN), "ci", [1, 2], ["reference", "cpu_scalar"], tmp_path)
    body = load_study(run.folder)
    assert body["schema"] == "splinebench-study" and body["context"]["study"] == "convergence"
    assert body["context"]["via"] in ("module", "cli")  # which path the points took (studies/README.md)
    assert all(r["status"] == "ok" for r in body["records"])
    fits = {(f["impl"], f["precision"], f["dims"]): f for f in body["context"]["fits"]}
    # reference runs in both precisions (it has an f64 path); cpu_scalar in f32 only.
    assert ("reference", "f64", 1) in fits and ("cpu_scalar", "f64", 1) not in fits
    for key, fit in fits.items():
        assert fit["order"] is not None and 3.8 <= fit["order"] <= 4.2, (key, fit)
    # f64 keeps converging where f32 has reached its round-off floor.
    assert fits[("reference", "f64", 1)]["floor"] < fits[("cpu_scalar", "f32", 1)]["floor"] / 10
    assert fits[("cpu_scalar", "f32", 1)]["h_floor"] is not None
    assert (run.folder / "report" / "plots" / "convergence.png").stat().st_size > 10_000
    assert "fitted order" in (run.folder / "report" / "section.md").read_text()


def test_rotation_study_ranks_the_methods_and_matches_a_full_turn(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    yy, xx = np.mgrid[0:64, 0:64]
    image = (np.sin(xx / 5.0) * np.cos(yy / 7.0) + 0.05 * rng.standard_normal((64, 64))).astype(np.float32)
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    np.save(data_dir / "camera.npy", image)
    monkeypatch.setenv("SPLINEBENCH_DATASETS_DIR", str(data_dir))
    run = rotation.run_study(Splinebench(BIN), "ci", ["camera"], ["reference", "cpu_simd"], tmp_path / "results")
    records = load_study(run.folder)["records"]
    snr = {(r["method"], r["impl"]): r["snr_db"] for r in records if r["status"] == "ok"}
    # Ruijters & Thevenaz's ranking: prefiltered cubic > linear > nearest, and the
    # unprefiltered cubic blurs below linear on this texture.
    assert snr[("cubic-prefiltered", "reference")] > snr[("linear", "scipy")] > snr[("nearest", "scipy")]
    assert snr[("cubic-no-prefilter", "reference")] < snr[("cubic-prefiltered", "reference")]
    # The f64 reference through the CLI and SciPy's order-3 agree (float32 between steps).
    assert snr[("cubic-prefiltered", "reference")] == pytest.approx(snr[("cubic-prefiltered", "scipy")], abs=0.05)
    assert snr[("cubic-prefiltered", "cpu_simd")] == pytest.approx(snr[("cubic-prefiltered", "reference")], abs=0.05)
    assert (run.folder / "report" / "plots" / "rotation-camera.png").exists()
    assert (run.folder / "report" / "plots" / "zoom.png").exists()
    assert not list(run.folder.rglob("*.npy"))  # arrays stay in the scratch folder


def test_rotate_command_full_turn_is_the_identity(tmp_path):
    image = np.random.default_rng(1).random((20, 30)).astype(np.float32)
    np.save(tmp_path / "in.npy", image)
    Splinebench(BIN)("rotate", "--impl", "reference", "--mode", "mirror", "--prefilter", "--steps", "1",
                     "--angle", "360", tmp_path / "in.npy", tmp_path / "out.npy")
    assert np.array_equal(np.load(tmp_path / "out.npy"), image)


def test_rotate_command_refuses_bad_input(tmp_path):
    np.save(tmp_path / "cube.npy", np.zeros((4, 4, 4, 4), np.float32))
    with pytest.raises(StudyError, match="shape \\(H, W\\)"):
        Splinebench(BIN)("rotate", "--impl", "reference", "--mode", "mirror", tmp_path / "cube.npy",
                         tmp_path / "o.npy")
    np.save(tmp_path / "img.npy", np.ones((4, 4), np.float32))
    with pytest.raises(StudyError, match="--steps"):
        Splinebench(BIN)("rotate", "--impl", "reference", "--mode", "mirror", "--steps", "0",
                         tmp_path / "img.npy", tmp_path / "o.npy")
    assert not (tmp_path / "o.npy").exists()


def test_analytic_command_matches_its_samples(tmp_path):
    tool = Splinebench(BIN)
    tool("analytic", "cos_product", "--shape", "9x5", "--mode", "half", tmp_path / "f.npy")
    f = np.load(tmp_path / "f.npy")
    k = np.stack(np.meshgrid(np.arange(9.0), np.arange(5.0), indexing="ij")).reshape(2, -1)
    np.save(tmp_path / "k.npy", k)
    tool("analytic", "cos_product", "--shape", "9x5", "--mode", "half", "--at", tmp_path / "k.npy", tmp_path / "v.npy")
    assert f.shape == (9, 5) and f.dtype == np.float64
    assert np.array_equal(np.load(tmp_path / "v.npy"), f.reshape(-1))
    # half mode: sample k sits at (k + 1/2) / N; cos_product is cos(2 pi x) cos(4 pi y).
    x = (np.arange(9) + 0.5) / 9
    y = (np.arange(5) + 0.5) / 5
    assert np.allclose(f, np.cos(2 * np.pi * x)[:, None] * np.cos(4 * np.pi * y)[None, :], rtol=0, atol=1e-15)
    with pytest.raises(StudyError, match="unknown|not"):
        tool("analytic", "no_such_function", "--shape", "4", "--mode", "half", tmp_path / "g.npy")


def test_study_results_refuse_a_harness_file(tmp_path):
    (tmp_path / "results.json").write_text(json.dumps({"schema": "splinebench-results"}))
    with pytest.raises(StudyError, match="not a study"):
        load_study(tmp_path)


H100 = ROOT / "results" / "h100"


def _copy_run(name: str, tmp_path: Path) -> Path:
    import shutil
    source = H100 / name
    if not source.is_dir():
        pytest.skip(f"committed run {source} not present")
    target = tmp_path / name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("report"))
    return target


def test_suite_study_sections_from_committed_h100_runs(tmp_path):
    """The report writers of the suite-based studies, on the committed H100 runs: every
    section is written, and the numbers it states are the records' numbers."""
    from reports.loader import load_runs
    from studies import roundoff, speed_accuracy, texture_weights

    run = _copy_run("20261125-231023-roundoff", tmp_path)
    text = roundoff.write_report(run).read_text()
    records = [r for r in load_runs([str(run)])[0].records if r.ok]
    worst = max(r.accuracy_value("prefilter", "rel_l2") for r in records
                if r.impl == "gpu_naive" and r.data == "noise" and r.dims == 1)
    assert f"{worst:.2e} (" in text or f"{worst:.1e}" in text
    assert (run / "report" / "plots" / "roundoff-prefilter.png").exists()

    run = _copy_run("20261125-231050-texture_weights", tmp_path)
    text = texture_weights.write_report(run).read_text()
    texture = [r for r in load_runs([str(run)])[0].records if r.ok and r.impl == "gpu_texture"]
    # Every texture record is within its own bound, and the section says how close it came.
    ratios = [r.accuracy_value("interp", "max_rel_to_maxf") / r.tolerance["interp_max_rel_to_maxf"] for r in texture]
    assert texture and max(ratios) <= 1
    assert f"{max(ratios):.2f} of the derived bound" in text

    run = _copy_run("20261125-231052-speed_accuracy", tmp_path)
    scipy = json.loads((run / speed_accuracy.SCIPY_FILE).read_text())
    text = speed_accuracy.write_report(run, scipy).read_text()
    assert "SciPy float64" in text and "gpu_half_f16" in text and "gpu_texture" in text
    assert all(p["error"] < 1e-13 for p in scipy)


def test_every_committed_study_run_has_a_section(tmp_path):
    """reports.machine rebuilds every committed study run's section from its records; a
    study it has no writer for breaks the whole machine's report (the f64_path run did)."""
    from reports.machine import STUDY_SCHEMA, study_section_writers, write_study_section

    runs = {}
    for p in sorted((ROOT / "results").glob("*/*/results.json")):
        doc = json.loads(p.read_text())
        if doc.get("schema") == STUDY_SCHEMA:
            runs.setdefault(doc["context"]["study"], p.parent)
    assert runs, "no committed study run"
    missing = sorted(set(runs) - set(study_section_writers()))
    assert not missing, f"committed study runs without a section writer: {missing}"
    # The f64_path section is built here (the drawn studies' sections are other tests' subject).
    run = runs["f64_path"]
    assert write_study_section(run, tmp_path / run.name).read_text().startswith("## The f64 paths")


def test_f64_path_section_states_each_path_and_its_failures(tmp_path):
    from studies import f64_path

    context = {"study": "f64_path", "run_id": "x", "arguments": {"bound": 1e-12}}
    base = {"status": "ok", "shape": [4, 3], "dims": 2}
    records = [{**base, "impl": "a", "mode": "half", "prefilter_rel_l2": 3e-15, "interp_max_rel_to_maxf": 4e-15,
                "verdict": "pass"},
               {**base, "impl": "b", "mode": "half", "prefilter_rel_l2": 2e-6, "interp_max_rel_to_maxf": 5e-5,
                "verdict": "fail"},
               {**base, "impl": "b", "mode": "mirror", "prefilter_rel_l2": 1e-16, "interp_max_rel_to_maxf": 1e-16,
                "verdict": "pass"}]
    text = f64_path.write_report(context, records, tmp_path).read_text()
    assert "a: 1 of 1 within 1e-12, at most 3.0e-15 (prefilter) and 4.0e-15 (interpolation)" in text
    assert "b: 1 of 2 within 1e-12, at most 2.0e-06 (prefilter) and 5.0e-05 (interpolation) (exceeded: D = 2 half)" in text
