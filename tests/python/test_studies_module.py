"""The studies' per-point work through the Python module gives the executable's numbers
(studies/common.py): one small point of each kind the studies run, through the module and
through the executable's commands on the same inputs, compared bit for bit, for every
implementation available here."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from studies import convergence
from studies.common import Splinebench, StudyError, StudyRun

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("SPLINEBENCH_BIN", ROOT / "build" / "bin" / "splinebench"))
pytestmark = pytest.mark.skipif(not BIN.exists(), reason=f"no splinebench executable at {BIN}")

MODES = ("mirror", "half", "periodic")


@pytest.fixture(scope="module")
def tools() -> tuple[Splinebench, Splinebench]:
    module = Splinebench(BIN)
    if module.via != "module":
        pytest.skip(f"nothing to compare the executable with: {module.via_reason}")
    return module, Splinebench(BIN, prefer="cli")


@pytest.fixture(scope="module")
def available(tools) -> list[dict]:
    return tools[1].available()


def same(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit, dtype and shape included (NaN where the other has NaN)."""
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def test_convergence_point_is_the_same_through_the_module(tools, available):
    """studies.convergence: the analytic samples in both precisions, prefiltered and
    interpolated by every implementation (f64 paths in both precisions)."""
    module, cli = tools
    n = 23
    coords = {"f64": convergence.unit_queries(2)[:, :500] * (n - 1)}
    coords["f32"] = coords["f64"].astype(np.float32)
    samples, _ = convergence.analytic_point(cli, 2, n, coords)
    for entry in available:
        for precision in ["f32"] + (["f64"] if entry.get("f64") else []):
            args = (samples[precision], coords[precision], entry["name"], convergence.MODE)
            assert same(module.interpolate(*args, prefilter=True), cli.interpolate(*args, prefilter=True)), (
                entry["name"], precision)


def test_convergence_analytic_point_is_what_four_analytic_calls_give(tools, tmp_path):
    """Two `analytic` calls per grid instead of four: the float32 samples are the float64
    ones rounded, and the values at float32 coordinates are those of one joint --at call."""
    cli = tools[1]
    n = 11
    coords = {"f64": convergence.unit_queries(3)[:, :300] * (n - 1)}
    coords["f32"] = coords["f64"].astype(np.float32)
    samples, exact = convergence.analytic_point(cli, 3, n, coords)
    common = [convergence.FUNCTION, "--shape", f"{n}x{n}x{n}", "--mode", convergence.MODE]
    cli("analytic", *common, "--float32", tmp_path / "f32.npy")
    np.save(tmp_path / "c32.npy", coords["f32"])
    cli("analytic", *common, "--at", tmp_path / "c32.npy", tmp_path / "v32.npy")
    assert same(samples["f32"], np.load(tmp_path / "f32.npy"))
    assert same(exact["f32"], np.load(tmp_path / "v32.npy"))


def test_rotation_is_the_same_through_the_module(tools, available):
    """studies.rotation: repeated rotation with and without the prefilter of a
    three-channel image (rotated channel by channel, like a grey one), and the
    reference's zoom interpolation."""
    module, cli = tools
    rng = np.random.default_rng(5)
    image = rng.random((21, 26, 3)).astype(np.float32)
    for entry in available:
        for prefilter in (False, True):
            args = (image, entry["name"], "mirror", 3, 10.0, prefilter)
            assert same(module.rotate(*args), cli.rotate(*args)), (entry["name"], prefilter)
    plane = image[..., 0]
    zoom = rng.uniform(2, 18, (2, 16, 16)).astype(np.float32)
    for prefilter in (False, True):
        args = (plane, zoom, "reference", "mirror", prefilter)
        assert same(module.interpolate(*args), cli.interpolate(*args))


def test_f64_paths_are_the_same_through_the_module(tools, available):
    """studies.f64_path and speed_accuracy's SciPy points: float64 prefilter and
    interpolation from samples, queries inside and outside the grid; every mode through
    the oracle, one through the other f64 paths (the scipy peer starts a Python process
    per command, and the mode is only passed on)."""
    module, cli = tools
    rng = np.random.default_rng(64)
    f = rng.uniform(-1, 1, (13, 9))
    x = np.stack([rng.uniform(-(n - 1) / 2 - 2, 3 * (n - 1) / 2 + 2, 400) for n in f.shape])
    for entry in (e for e in available if e.get("f64")):
        for mode in MODES if entry["name"] == "reference" else MODES[1:2]:
            c = module.prefilter(f, entry["name"], mode)
            assert c.dtype == np.float64 and same(c, cli.prefilter(f, entry["name"], mode)), (entry["name"], mode)
            v = module.interpolate(f, x, entry["name"], mode, prefilter=True)
            assert same(v, cli.interpolate(f, x, entry["name"], mode, prefilter=True)), (entry["name"], mode)


def test_a_failure_is_the_points_error_both_ways(tools):
    for tool in tools:
        with pytest.raises(StudyError, match="no_such_impl"):
            tool.interpolate(np.zeros((4, 4)), np.zeros((2, 3)), "no_such_impl", "mirror", prefilter=True)
        with pytest.raises(StudyError, match="no_such_impl"):
            tool.rotate(np.zeros((4, 4), np.float32), "no_such_impl", "mirror", 1, 10.0, True)


def test_a_build_without_the_module_runs_the_executable_and_says_so(tmp_path, capsys):
    """An executable with no <build>/python beside it (here a wrapper in a folder of its
    own): the points go through the executable, and the study's context says so."""
    wrapper = tmp_path / "bin" / "splinebench"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec "{BIN.resolve()}" "$@"\n')
    wrapper.chmod(0o755)
    tool = Splinebench(wrapper)
    assert tool.via == "cli" and "no splinebench Python module" in tool.via_reason
    assert "through" in capsys.readouterr().err
    assert np.array_equal(tool.prefilter(np.arange(5.0), "reference", "half"),
                          Splinebench(BIN, prefer="cli").prefilter(np.arange(5.0), "reference", "half"))
    run = StudyRun.create("convergence", "ci", tool, {}, tmp_path / "results")
    assert run.context["via"] == "cli" and "no splinebench Python module" in run.context["via_reason"]
    with pytest.raises(StudyError, match="no splinebench Python module"):
        _ = Splinebench(wrapper, prefer="module").via
