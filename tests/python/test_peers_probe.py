"""Whether `scipy` and `cupy` can run is asked cheaply (adapters/python/adapter_probe.py:
packages looked up, none imported; one interpreter start per process and interpreter,
impls/external/peer_probe.hpp), and `splinebench list` still says truthfully why not:
no Python, the packages missing, no CUDA device. A probe that says "available" for a
library that then does not import must make its use an error, never a pass."""
from __future__ import annotations

import importlib.util
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROBE = REPO / "adapters" / "python" / "adapter_probe.py"
TINY_SUITE = REPO / "tests" / "peers" / "scipy_tiny.json"


def run_probe(python: str = sys.executable, env: dict | None = None) -> dict:
    out = subprocess.run([python, str(PROBE)], capture_output=True, text=True, check=True, env=env, timeout=60)
    return json.loads(out.stdout.splitlines()[-1])


def installed(package: str) -> bool:
    return importlib.util.find_spec(package) is not None


def test_probe_answers_for_every_library_as_importlib_finds_them():
    answer = run_probe()
    assert answer["protocol"] == 1 and answer["python"] == sys.version.split()[0]
    libraries = answer["libraries"]
    assert set(libraries) == {"scipy", "cupy"}
    for library, entry in libraries.items():
        expected = installed("numpy") and installed(library)
        assert entry["available"] is expected, entry
        if not expected:
            assert entry["reason"].endswith("not installed"), entry


def test_probe_imports_none_of_the_libraries():
    # The probe's cost is an interpreter start: numpy, scipy and cupy stay unimported.
    code = (f"import sys; sys.path.insert(0, {str(PROBE.parent)!r}); import adapter_probe; "
            "[adapter_probe.probe(l) for l in adapter_probe.REQUIRES]; "
            "print(sorted(m for m in ('numpy', 'scipy', 'cupy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def make_interpreter(tmp_path: Path, name: str, body: str) -> Path:
    """A stand-in interpreter: a shell script that ends by running this Python."""
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def listed(binary: Path, env: dict) -> dict:
    """`splinebench list --json` under os.environ updated by `env`, by name."""
    out = subprocess.run([str(binary), "list", "--json"], capture_output=True, text=True, check=True,
                         env={**os.environ, **env}, timeout=120)
    return {e["name"]: e for e in json.loads(out.stdout)}


def test_list_starts_python_once_and_no_adapter(splinebench_bin, tmp_path):
    log = tmp_path / "starts.log"
    python = make_interpreter(tmp_path, "python", f'echo "$*" >>{log}\nexec {sys.executable} "$@"')
    entries = listed(splinebench_bin, {"SPLINEBENCH_PYTHON": str(python)})
    starts = log.read_text().splitlines()
    assert starts == [str(PROBE)], starts  # one probe for both libraries, no adapter, no import
    assert entries["scipy"]["available"] is (installed("numpy") and installed("scipy")), entries["scipy"]


def test_list_says_when_there_is_no_python(splinebench_bin, tmp_path):
    missing = tmp_path / "no-such-python"
    entries = listed(splinebench_bin, {"SPLINEBENCH_PYTHON": str(missing)})
    for library in ("scipy", "cupy"):
        if entries[library]["reason"].startswith("not built"):
            continue
        reason = entries[library]["reason"]
        assert not entries[library]["available"]
        assert f"cannot start {missing} (SPLINEBENCH_PYTHON)" in reason and "No such file" in reason, reason


def test_list_says_when_the_interpreter_fails_or_the_probe_is_missing(splinebench_bin, tmp_path):
    python = make_interpreter(tmp_path, "python", 'echo "this is not Python" >&2; exit 3')
    reason = listed(splinebench_bin, {"SPLINEBENCH_PYTHON": str(python)})["scipy"]["reason"]
    assert f"{python} (SPLINEBENCH_PYTHON) could not run {PROBE} (exit status 3): this is not Python" in reason, reason
    adapter = tmp_path / "elsewhere" / "splinebench_adapter.py"
    reason = listed(splinebench_bin, {"SPLINEBENCH_ADAPTER": str(adapter)})["scipy"]["reason"]
    assert f"the adapter's probe script is missing: {adapter.parent / 'adapter_probe.py'}" in reason, reason


def test_list_says_when_the_packages_are_missing(splinebench_bin, tmp_path):
    # -S: no site-packages, so neither numpy nor scipy is found by this interpreter.
    python = make_interpreter(tmp_path, "python", f'exec {sys.executable} -S "$@"')
    reason = listed(splinebench_bin, {"SPLINEBENCH_PYTHON": str(python)})["scipy"]["reason"]
    assert f"numpy and scipy are not installed (Python: {python}, SPLINEBENCH_PYTHON)" in reason, reason


def test_cupy_names_each_thing_it_lacks(splinebench_bin):
    entries = listed(splinebench_bin, {})
    cupy = entries["cupy"]
    if cupy["reason"].startswith("not built"):
        pytest.skip("cupy is not built here (no CUDA compiler): " + cupy["reason"])
    if not installed("cupy"):
        assert not cupy["available"] and "cupy is not installed (Python: " in cupy["reason"], cupy
    # The harness's CUDA runtime and cupy see the same driver: no device for one is none for the other.
    gpu = entries["gpu_naive"]
    if not gpu["available"] and "no CUDA device" in gpu["reason"]:
        assert not cupy["available"] and "no CUDA device" in cupy["reason"], cupy
    if installed("cupy") and gpu["available"]:
        assert cupy["available"], cupy


@pytest.fixture
def broken_scipy(tmp_path):
    """An environment whose Python finds a `scipy` that fails on import: the probe
    cannot tell, the adapter's import does."""
    if not (installed("numpy") and installed("scipy")):
        pytest.skip("needs numpy and scipy installed in this Python")
    shadow = tmp_path / "shadow"
    (shadow / "scipy").mkdir(parents=True)
    (shadow / "scipy" / "__init__.py").write_text('raise ImportError("this scipy is deliberately broken")\n')
    return {"SPLINEBENCH_PYTHON": sys.executable, "PYTHONPATH": str(shadow)}


def test_a_library_that_does_not_import_is_an_error_not_a_pass(splinebench_bin, broken_scipy, tmp_path):
    env = {**os.environ, **broken_scipy}
    assert listed(splinebench_bin, broken_scipy)["scipy"]["available"], "the probe looks packages up and cannot see a broken import"

    import numpy as np
    np.save(tmp_path / "f.npy", np.random.default_rng(3).uniform(-1, 1, 40).astype(np.float32))
    np.save(tmp_path / "x.npy", np.random.default_rng(4).uniform(0, 39, (1, 50)).astype(np.float32))
    out = subprocess.run([str(splinebench_bin), "interpolate", "--impl", "scipy", "--mode", "mirror", "--prefilter",
                          tmp_path / "f.npy", tmp_path / "x.npy", tmp_path / "y.npy"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode != 0 and not (tmp_path / "y.npy").exists()
    assert "the probe found its packages, but the adapter cannot run it" in out.stderr, out.stderr
    assert "deliberately broken" in out.stderr, out.stderr

    # In a run, no record passes: the adapter's reason replaces the probe's verdict.
    run = subprocess.run([str(splinebench_bin), "run", "--suite-file", TINY_SUITE, "--results-dir", tmp_path / "r",
                          "--machine", "probe-test", "--run-dir-file", tmp_path / "dir"],
                         capture_output=True, text=True, env=env, timeout=300)
    doc = json.loads((Path((tmp_path / "dir").read_text().strip()) / "results.json").read_text())
    assert doc["records"] and all(r["status"] != "ok" for r in doc["records"]), run.stdout[-2000:]
    assert all("deliberately broken" in r["message"] for r in doc["records"]), doc["records"][0]
    facts = doc["context"]["implementations"]["scipy"]
    assert "available=no" in facts and any("deliberately broken" in f for f in facts), facts
