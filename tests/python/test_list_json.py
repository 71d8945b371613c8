"""`splinebench list --json`: the registry as data, the one list of implementation
names that reports and scripts take (never a list of their own), and the same list
a run records in its context as "registry"; and `--resume` refuses a run stored
compactly (results.json.gz), which is as finished as one with results.json."""
from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

from conftest import REPO

ENTRY_KEYS = {"name", "device", "available", "reason", "evaluation", "f64"}


def registry_def_names() -> list[tuple[str, str]]:
    """(name, device) of every SPLINEBENCH_*_IMPL line of impls/registry.def, in order."""
    (registry_def,) = REPO.glob("impls/**/registry.def")
    text = registry_def.read_text()
    return [(name, kind.lower()) for kind, name in
            re.findall(r"^\s*SPLINEBENCH_(CPU|GPU)_IMPL\((\w+)\)", text, flags=re.MULTILINE)]


def list_json(cli_ok) -> list[dict]:
    return json.loads(cli_ok("list", "--json").stdout)


def test_list_json_is_the_registry_in_order(cli_ok):
    entries = list_json(cli_ok)
    assert isinstance(entries, list)
    for entry in entries:
        assert set(entry) == ENTRY_KEYS, entry
        assert entry["device"] in ("cpu", "gpu")
        assert isinstance(entry["available"], bool)
        assert isinstance(entry["reason"], str)
        assert isinstance(entry["evaluation"], str)
        assert isinstance(entry["f64"], bool)
        # A reason exactly when the implementation cannot run here.
        assert (entry["reason"] == "") == entry["available"], entry
    listed = [(e["name"], e["device"]) for e in entries]
    # Test builds may register test-only implementations after the product's.
    assert listed[:len(registry_def_names())] == registry_def_names()
    assert len({e["name"] for e in entries}) == len(entries), "a name is listed twice"


def test_list_json_agrees_with_the_table(cli_ok):
    entries = list_json(cli_ok)
    rows = cli_ok("list").stdout.splitlines()[1:]
    table = {row.split()[0]: row.split()[3] for row in rows if row.strip()}
    assert table == {e["name"]: "ok" if e["available"] else "no" for e in entries}


def test_cpu_implementations_are_available(cli_ok):
    # CPU implementations have no precondition a build machine could lack.
    for entry in list_json(cli_ok):
        if entry["device"] == "cpu":
            assert entry["available"], entry


TINY_SUITE = {"name": "tiny", "sweeps": [{"name": "s", "impls": ["cpu_scalar"], "shapes": [[8]], "queries": [4]}]}


def tiny_run(cli_ok, tmp_path) -> Path:
    suite_file = tmp_path / "tiny.json"
    suite_file.write_text(json.dumps(TINY_SUITE))
    cli_ok("run", "--suite-file", suite_file, "--results-dir", tmp_path / "results", "--machine", "t",
           "--repetitions", "1", "--warmups", "0")
    (run_dir,) = (tmp_path / "results" / "t").iterdir()
    return run_dir


def test_every_run_records_the_registry(cli_ok, tmp_path):
    context = json.loads((tiny_run(cli_ok, tmp_path) / "results.json").read_text())["context"]
    assert context["registry"] == list_json(cli_ok)
    # Only cpu_scalar ran, yet every registered name is there with its device.
    assert {(e["name"], e["device"]) for e in context["registry"]} >= set(registry_def_names())


def test_resume_refuses_a_compact_run(cli_ok, cli, tmp_path):
    run_dir = tiny_run(cli_ok, tmp_path)
    compact = subprocess.run([sys.executable, "-m", "reports.compact", str(run_dir)],
                             cwd=REPO, capture_output=True, text=True, timeout=120)
    assert compact.returncode == 0, compact.stderr
    assert not (run_dir / "results.json").exists()
    assert json.loads(gzip.decompress((run_dir / "results.json.gz").read_bytes()))["records"]
    resumed = cli("run", "--resume", run_dir)
    assert resumed.returncode != 0
    assert "is complete (results.json.gz exists)" in resumed.stderr


def test_evaluation_method_is_named(cli_ok):
    # The hardware linear-filter evaluation is an explicit, named choice: only the
    # texture implementations use it; every other one names its arithmetic.
    for entry in list_json(cli_ok):
        assert entry["evaluation"], entry
        texture = entry["name"].startswith("gpu_texture")
        assert ("hardware linear filter" in entry["evaluation"]) == texture, entry
