"""datasets/real/export_real.py writes what its manifests say.

The exporter runs under the system Python (/usr/bin/python3), where the Debian packages
that ship the data install; these tests run it into a temporary folder and check every
array against its manifest (shape, dtype, value range, sha256) and, where the venv can
read the source, against the source itself. A dataset whose package is missing is
skipped with the exporter's own one line.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
EXPORTER = REPO / "datasets" / "real" / "export_real.py"
SYSTEM_PYTHON = Path("/usr/bin/python3")


def load_exporter():
    spec = importlib.util.spec_from_file_location("export_real", EXPORTER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Runs the exporter once into a fresh folder: (folder, {name: skip line})."""
    if not SYSTEM_PYTHON.is_file():
        pytest.skip(f"{SYSTEM_PYTHON} not found: the exporter runs under the system Python")
    out = tmp_path_factory.mktemp("datasets")
    run = subprocess.run([str(SYSTEM_PYTHON), str(EXPORTER), "--out", str(out), "--quiet"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    skipped = {}
    for line in run.stdout.splitlines():
        m = re.match(r"splinebench datasets: (\w+) skipped: (.*)", line)
        assert m, f"unexpected output line in --quiet mode: {line!r}"
        skipped[m.group(1)] = line
    return out, skipped


NAMES = list(load_exporter().DATASETS)


@pytest.mark.parametrize("name", NAMES)
def test_array_is_what_the_manifest_says(exported, name):
    out, skipped = exported
    if name in skipped:
        pytest.skip(skipped[name])
    manifest = json.loads((out / f"{name}.json").read_text())
    npy = out / manifest["file"]
    data = np.load(npy)
    assert manifest["name"] == name
    assert data.dtype == np.float32 and manifest["dtype"] == "float32"
    assert data.flags.c_contiguous
    assert list(data.shape) == manifest["shape"]
    assert len(manifest["axes"]) == data.ndim
    channels = manifest["channels"]
    assert manifest["grid"] == (manifest["shape"][:-1] if channels > 1 else manifest["shape"])
    assert [float(data.min()), float(data.max())] == manifest["value_range"]
    assert data.min() < data.max(), "a constant dataset tests nothing"
    assert hashlib.sha256(npy.read_bytes()).hexdigest() == manifest["sha256"]
    assert Path(manifest["source"]).is_file()
    assert manifest["licence"] and manifest["package"].startswith("python3-")
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", manifest["package"]],
                             capture_output=True, text=True)
    if version.returncode == 0:
        assert manifest["package_version"] == version.stdout.strip()


def test_values_are_the_sources_own(exported):
    """The venv reads .npz and PNG itself: the exported values equal the source's."""
    out, skipped = exported
    if "stent" not in skipped:
        src = json.loads((out / "stent.json").read_text())["source"]
        with np.load(src) as z:
            raw = z[z.files[0]]
        np.testing.assert_array_equal(np.load(out / "stent.npy"), raw.astype(np.float32))
    try:
        from PIL import Image
    except ImportError:
        pytest.skip("PIL is not in this Python: PNG sources not compared")
    for name in ("camera", "astronaut"):
        if name in skipped:
            continue
        src = json.loads((out / f"{name}.json").read_text())["source"]
        with Image.open(src) as im:
            raw = np.asarray(im)
        if raw.ndim == 3:
            raw = raw[..., :3]
        np.testing.assert_array_equal(np.load(out / f"{name}.npy"), raw.astype(np.float32))


def test_rerun_keeps_an_up_to_date_export(exported):
    out, skipped = exported
    present = [n for n in NAMES if n not in skipped]
    if not present:
        pytest.skip("; ".join(skipped.values()))
    name = present[0]
    before = (out / f"{name}.npy").stat().st_mtime_ns
    run = subprocess.run([str(SYSTEM_PYTHON), str(EXPORTER), "--out", str(out), name],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "up to date" in run.stdout, run.stdout + run.stderr
    assert (out / f"{name}.npy").stat().st_mtime_ns == before


def test_a_missing_package_is_one_line_and_not_a_failure(tmp_path, capsys, monkeypatch):
    exporter = load_exporter()
    entry = list(exporter.DATASETS["camera"])
    entry[0], entry[1] = "python3-nothing", "splinebench_no_such_module"
    monkeypatch.setattr(exporter, "DATASETS", {"camera": tuple(entry)})
    assert exporter.main(["--out", str(tmp_path), "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["splinebench datasets: camera skipped: install python3-nothing "
                     "(apt-get install python3-nothing)"]
    assert not list(tmp_path.iterdir())


def test_the_cpp_loader_knows_the_same_datasets():
    """datasets/src/real.cpp lists each dataset with its package; so does the exporter."""
    source = (REPO / "datasets" / "src" / "real.cpp").read_text()
    table = source[source.index("kRealDatasets"):source.index("};", source.index("kRealDatasets"))]
    cpp = dict(re.findall(r'\{"(\w+)", "([\w-]+)"\}', table))
    py = {name: entry[0] for name, entry in load_exporter().DATASETS.items()}
    assert cpp == py
