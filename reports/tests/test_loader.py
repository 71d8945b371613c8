"""The loader accepts files that follow results/README.md and refuses the rest
with a message that names the file, the record and the field."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reports.errors import ResultsFormatError
from reports.loader import load_run, parse_results
from reports.tests import synth
from reports.tests.conftest import CPU_RUN, GPU_RUN, MALFORMED


def test_fixture_runs_load_with_every_record(cpu_run, gpu_run):
    raw = json.loads((CPU_RUN / "results.json").read_text())
    assert len(cpu_run.records) == len(raw["records"]) > 50
    assert cpu_run.machine == "ci-cpu" and cpu_run.gpu_name is None
    assert gpu_run.gpu_name == "NVIDIA H100 80GB HBM3"
    first = raw["records"][0]
    record = cpu_run.records[0]
    assert record.case_id == first["case_id"]
    assert record.shape == tuple(first["shape"])
    assert record.phases["evaluate"].samples == tuple(first["phases"]["evaluate"]["samples"])
    assert record.phases["evaluate"].median == first["phases"]["evaluate"]["median"]


def test_results_json_path_is_accepted_as_well_as_directory():
    assert len(load_run(GPU_RUN / "results.json").records) == len(load_run(GPU_RUN).records)


@pytest.mark.parametrize("name, fragment", [
    ("truncated", "truncated at line"),
    ("bad_samples", "phases.evaluate: 'samples' must hold finite, non-negative numbers"),
    ("wrong_schema", "'schema' must be 'splinebench-results'"),
    ("missing_shape", "'shape' must be a list of positive integers"),
    ("interrupted", "the run did not finish"),
])
def test_malformed_inputs_give_clear_errors(name, fragment):
    with pytest.raises(ResultsFormatError) as info:
        load_run(MALFORMED / name)
    message = str(info.value)
    assert fragment in message
    assert str(MALFORMED / name) in message  # names the file


def _small():
    return synth.results(synth.context("m", "quick"), [synth.modelled("cpu_scalar", [8, 8], queries=64)])


@pytest.mark.parametrize("mutate, fragment", [
    (lambda d: d.update(schema_version=2), "schema_version 2 is not supported"),
    (lambda d: d["context"].pop("machine"), "'machine' must be a non-empty string"),
    (lambda d: d["records"][0].update(dims=3), "'shape' has 2 extents but dims is 3"),
    (lambda d: d["records"][0].update(status="done"), "'status' must be one of"),
    (lambda d: d["records"][0].update(repetitions=5), "has 9 samples but the record says repetitions = 5"),
    (lambda d: d["records"][0]["phases"]["evaluate"].update(median=1e9), "disagrees with its samples"),
    (lambda d: d["records"][0].update(phases={}), "status is 'ok' but no phase was recorded"),
    (lambda d: d.update(records={}), "'records' must be a list"),
])
def test_schema_violations_name_the_field(mutate, fragment):
    doc = _small()
    mutate(doc)
    with pytest.raises(ResultsFormatError) as info:
        parse_results(doc, where="x.json")
    assert fragment in str(info.value)
    assert str(info.value).startswith("x.json")


def test_empty_file_is_reported(tmp_path):
    (tmp_path / "results.json").write_text("")
    with pytest.raises(ResultsFormatError, match="empty"):
        load_run(tmp_path)


def test_build_cli_exits_nonzero_with_message_on_truncated_file(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "reports.build", str(MALFORMED / "truncated"),
                           "--out", str(tmp_path)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "reports.build: error:" in proc.stderr and "truncated" in proc.stderr
    assert not (tmp_path / "index.html").exists()


def test_fixtures_are_current():
    """The committed fixture files are exactly what make_fixtures writes."""
    from reports.tests.fixtures import make_fixtures
    for rel, text in make_fixtures.expected_files().items():
        assert (make_fixtures.HERE / rel).read_text() == text, f"{rel} is stale: rerun make_fixtures"
