"""Implementation names, devices, order and colours come from the runs: the
registry each run records in its context (`splinebench list --json`), or for
runs written before that, the records' own `impl` and `device`. A newly
registered implementation shows up in the tables with no edit to the reports."""
from __future__ import annotations

import copy
import json

import pytest

from reports import implementations
from reports.accuracy_table import accuracy_table
from reports.errors import ResultsFormatError
from reports.implementations import PALETTE, Registry
from reports.loader import parse_results
from reports.reproduced_tables import ruijters_table1
from reports.status_table import status_table
from reports.tests import synth
from reports.tests.conftest import CPU_RUN, GPU_RUN
from reports.tests.fixtures.make_fixtures import REGISTRY


def entry(name: str, device: str, available: bool = True, reason: str = "") -> dict:
    return {"name": name, "device": device, "available": available, "reason": reason}


def run_with(records: list[dict], registry: list[dict] | None, machine: str = "m"):
    return parse_results(synth.results(synth.context(machine, "quick", registry=registry), records))


def modelled(impl: str, device: str, shape=(16, 16)):
    """A plausible record of `impl` (any name) on `device`, timed like a known one."""
    rec = synth.modelled("gpu_naive" if device == "gpu" else "cpu_scalar", list(shape), queries=1024)
    rec["impl"], rec["device"] = impl, device
    rec["case_id"] = impl + rec["case_id"][rec["case_id"].index("/"):]
    return rec


def test_order_and_device_come_from_the_recorded_registry():
    # Registry order interleaves devices; the display order is CPU first, then GPU,
    # each in registry order; a registered name that did not run is still listed.
    registry = [entry("cpu_b", "cpu"), entry("gpu_z", "gpu"), entry("cpu_a", "cpu"), entry("gpu_y", "gpu", False,
                                                                                          "no CUDA device")]
    run = run_with([modelled("cpu_a", "cpu"), modelled("gpu_z", "gpu")], registry)
    reg = implementations.for_runs([run])
    assert reg.names == ["cpu_b", "cpu_a", "gpu_z", "gpu_y"]
    assert reg.ordered(["gpu_z", "cpu_a"]) == ["cpu_a", "gpu_z"]
    assert reg.device("gpu_y") == "gpu" and reg.device("cpu_b") == "cpu"
    assert reg.entry("gpu_y").reason == "no CUDA device" and reg.entry("gpu_y").available is False


def test_colours_follow_registry_position_and_do_not_depend_on_what_ran():
    registry = [entry(name, device) for name, device in REGISTRY]
    only_gpu = implementations.for_runs([run_with([modelled("gpu_flex", "gpu")], registry)])
    only_cpu = implementations.for_runs([run_with([modelled("cpu_simd", "cpu")], registry)])
    for position, (name, _) in enumerate(REGISTRY):
        assert only_gpu.colour(name) == only_cpu.colour(name) == PALETTE[position]
    assert len({only_gpu.colour(name) for name, _ in REGISTRY}) == len(REGISTRY)


def test_gpu_texture_binned_is_known_from_the_registry(gpu_run):
    reg = implementations.for_runs([gpu_run])
    assert "gpu_texture_binned" in reg and reg.device("gpu_texture_binned") == "gpu"
    assert reg.names == [n for n, d in REGISTRY if d == "cpu"] + [n for n, d in REGISTRY if d == "gpu"]


def test_runs_without_a_registry_fall_back_to_their_records():
    records = [modelled("gpu_naive", "gpu"), modelled("cpu_sse", "cpu"), modelled("gpu_naive", "gpu", (8, 8)),
               modelled("cpu_simd", "cpu")]
    run = run_with(records, registry=None)
    assert "registry" not in run.context
    reg = implementations.for_runs([run])
    assert [e.name for e in reg.entries] == ["gpu_naive", "cpu_sse", "cpu_simd"]
    assert reg.names == ["cpu_sse", "cpu_simd", "gpu_naive"]
    assert reg.device("gpu_naive") == "gpu" and reg.entry("cpu_sse").available is None
    assert reg.colour("gpu_naive") == PALETTE[0]


def test_merged_runs_keep_each_runs_relative_order():
    # An old GPU-only run first, then an old run that also had CPU implementations:
    # the CPU names slot in where their own run had them.
    gpu_only = run_with([modelled(n, "gpu") for n in ("gpu_naive", "gpu_texture", "gpu_flex")], None, "a")
    mixed = run_with([modelled("gpu_naive", "gpu"), modelled("gpu_texture", "gpu"), modelled("cpu_sse", "cpu"),
                      modelled("gpu_flex", "gpu"), modelled("gpu_new", "gpu")], None, "b")
    reg = implementations.for_runs([gpu_only, mixed])
    assert [e.name for e in reg.entries] == ["gpu_naive", "gpu_texture", "cpu_sse", "gpu_flex", "gpu_new"]


def test_a_newly_registered_implementation_reaches_the_tables_without_an_edit(gpu_run):
    doc = json.loads((GPU_RUN / "results.json").read_text())
    doc["context"]["registry"].append(entry("cpu_new", "cpu", False, "needs AVX-1024"))
    run = parse_results(doc)
    # The status table names it with the machine's reason; the seed tables give it rows.
    notes = " ".join(status_table([run]).notes)
    assert "cpu_new (needs AVX-1024)" in notes
    rows = [row for row in ruijters_table1([run]).rows if row.cells[1:2] == ["cpu_new"]]
    assert [row.cells[2] for row in rows] == ["32^3", "256^3", "512^2×300"]
    assert all(row.note.startswith("implementation not in this run") for row in rows)
    # Without the registry entry it is nowhere.
    assert "cpu_new" not in " ".join(status_table([gpu_run]).notes)


def test_record_of_an_unregistered_name_is_still_shown_last():
    run = run_with([modelled("cpu_scalar", "cpu"), modelled("cpu_extra", "cpu")],
                   [entry("cpu_scalar", "cpu")])
    reg = implementations.for_runs([run])
    assert reg.ordered(["cpu_extra", "cpu_scalar"]) == ["cpu_scalar", "cpu_extra"]
    assert reg.colour("cpu_extra") in PALETTE
    rows = [row.cells[1] for row in accuracy_table([run]).rows if len(row.cells) > 1]
    assert rows.index("cpu_scalar") < rows.index("cpu_extra")


@pytest.mark.parametrize("registry, fragment", [
    ({"cpu_scalar": "cpu"}, "context.registry: must be a list"),
    ([entry("a", "cpu"), entry("a", "cpu")], "context.registry\\[1\\]: 'a' is listed twice"),
    ([entry("a", "tpu")], "context.registry\\[0\\]: 'device' must be one of"),
    ([{"name": "a", "device": "cpu", "available": "yes", "reason": ""}], "'available' must be true or false"),
    ([{"device": "cpu", "available": True}], "'name' must be a non-empty string"),
    (["cpu_scalar"], "context.registry\\[0\\]: must be an object"),
])
def test_loader_refuses_a_malformed_registry(registry, fragment):
    doc = synth.results(synth.context("m", "quick"), [modelled("cpu_scalar", "cpu")])
    doc["context"]["registry"] = copy.deepcopy(registry)
    with pytest.raises(ResultsFormatError, match=fragment):
        parse_results(doc, where="x/results.json")


def test_registry_of_the_fixture_runs_matches_their_records(cpu_run, gpu_run):
    for run in (cpu_run, gpu_run):
        reg = Registry.of_runs([run])
        for record in run.records:
            assert reg.device(record.impl) == record.device
