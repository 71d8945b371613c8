"""The "Past one GPU" section (reports/multi_gpu.py) from synthetic files in tmp_path:
bench_gpu_slabs' prefilter and streamed rows land in the right cells with their ratios
(against the same file's one-GPU row, else another file's, marked), missing references and
skipped points are said, files of another machine folder are never compared, and a sharded
suite run is set beside its unsharded run with its wall times, a missing wall said and
mismatching cases or verdicts flagged. The section appears in a report only when there is
something to show."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from reports import multi_gpu
from reports.errors import ReportError
from reports.loader import load_runs
from reports.tests import synth

SLABS_FOLDER = "20261201-100000-gpu_slabs"


def stats(median: float) -> dict:
    return {"samples": [median * 0.99, median, median * 1.01], "median": median, "min": median * 0.99,
            "max": median * 1.01, "q1": median * 0.995, "q3": median * 1.005, "iqr": median * 0.01}


def accuracy(rel: float = 1e-7, verdict: str = "pass") -> dict:
    return {"rel_l2": rel, "bound": 3.3e-6, "max_abs": 4e-6, "checked_voxels": 100, "verdict": verdict}


def pre(edge: int, impl: str, devices: int, seconds: float, copy: float, **extra) -> dict:
    return {"edge": edge, "impl": impl, "devices": devices, "prefilter": stats(seconds), "upload": stats(0.08),
            "copy_split": copy, "copy_one": copy * 1.1, "accuracy": accuracy(), **extra}


def skipped(edge: int, impl: str, reason: str) -> dict:
    return {"edge": edge, "impl": impl, "skipped": reason}


def streamed(edge: int, **over) -> dict:
    row = {"edge": edge, "h2d_bytes_per_second": 50e9, "d2h_bytes_per_second": 40e9, "bound_seconds": 1.0,
           "duplex_bound_seconds": 0.5, "sweep": stats(0.8), "total": stats(2.0), "pin": stats(0.5),
           "unpin": stats(0.25), "prepass": stats(0.04), "host_corrections": stats(0.1), "slabs": 16,
           "buffers": 3, "host_memory": "registered", "accuracy": accuracy(1.03e-7), "readback": "in place"}
    row.update(over)
    return row


def write_slabs(machine_dir: Path, name: str, visible: int, prefilter=(), stream=(),
                folder: str = SLABS_FOLDER) -> Path:
    path = machine_dir / folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    context = {"machine": machine_dir.name, "run_id": folder[:15], "suite": "bench_gpu_slabs",
               "date": "2026-12-01T10:00:00Z", "git_sha": "abcdef0123", "git_dirty": False,
               "visible_devices": visible, "gpu": {"name": "NVIDIA H200", "uuid": "GPU-1"}}
    benchmarks = {}
    if prefilter:
        benchmarks["prefilter"] = {"description": "d", "axes": [], "rows": list(prefilter)}
    if stream:
        benchmarks["streamed"] = {"description": "d", "axes": [], "rows": list(stream)}
    path.write_text(json.dumps({"schema": multi_gpu.SCHEMA, "schema_version": 1, "context": context,
                                "benchmarks": benchmarks}))
    return path


def rows_of(table) -> dict[tuple[str, str, str], list[str]]:
    """(group, impl, file) -> cells of each data row; missing rows as [note]."""
    out, group = {}, ""
    for row in table.rows:
        if row.kind == "group":
            group = row.note
        else:
            out[(group.split(" ")[0], *row.cells[:1], row.cells[1], row.cells[2] if len(row.cells) > 2 else "")] = (
                row.cells if row.kind == "ours" else [row.note])
    return out


@pytest.fixture
def two_files(tmp_path):
    machine = tmp_path / "m"
    write_slabs(machine, "slabs_1gpu.json", 1, [
        pre(1024, "gpu_slabs", 1, 0.100, 0.002), pre(1024, "gpu_naive", 1, 0.110, 0.002),
        pre(1024, "gpu_flex", 1, 0.010, 0.002)])
    write_slabs(machine, "slabs_2gpu.json", 2, [
        pre(1024, "gpu_slabs", 2, 0.060, 0.001), skipped(1024, "gpu_naive", "needs 40 GiB on one device"),
        pre(1024, "gpu_flex", 1, 0.012, 0.002), pre(2048, "gpu_slabs", 2, 0.500, 0.010),
        pre(3456, "gpu_slabs", 2, 5.0, 0.1, readback="in place"),
        skipped(3456, "gpu_flex", "out of device memory")])
    return machine


def test_split_prefilter_ratios(two_files):
    table = multi_gpu.prefilter_table(multi_gpu.load_slabs_files(two_files))
    rows = rows_of(table)
    # One GPU: the reference itself; against gpu_flex of the same file.
    assert rows[("1024^3", "gpu_slabs", "1", "slabs_1gpu.json")][3:] == [
        "100", "ref.", "10.0", "2.00", "50.0", "1.00e-07", "pass"]
    assert rows[("1024^3", "gpu_flex", "1", "slabs_2gpu.json")][3:6] == ["12.0", "ref.", "ref."]
    # Two GPUs: the scaling against the other file's one-GPU row (marked), gpu_flex from its own file.
    assert rows[("1024^3", "gpu_slabs", "2", "slabs_2gpu.json")][3:8] == ["60.0", "0.60*", "5.00", "1.00", "60.0"]
    assert rows[("1024^3", "gpu_naive", "not recorded", "slabs_2gpu.json")] == ["skipped: needs 40 GiB on one device"]
    # 2048^3: no one-GPU row of either reference, said.
    assert rows[("2048^3", "gpu_slabs", "2", "slabs_2gpu.json")][4:6] == ["—", "—"]
    notes = " ".join(table.notes)
    assert "2048^3 f32 (32 GiB): gpu_slabs on 2 GPUs has no one-GPU row of gpu_slabs" in notes
    assert "no one-GPU gpu_flex row to set gpu_slabs on 2 GPUs against" in notes
    # 3456^3: gpu_flex's one-GPU point was skipped; its row says why, the note points at it.
    assert rows[("3456^3", "gpu_flex", "not recorded", "slabs_2gpu.json")] == ["skipped: out of device memory"]
    assert rows[("3456^3", "gpu_slabs", "2", "slabs_2gpu.json")][3:6] == ["5000", "—", "—"]
    assert "no one-GPU gpu_flex row to set gpu_slabs on 2 GPUs against (gpu_flex's row here has no time" in notes
    assert "* marks a ratio against another file's" in notes and "separate processes" in notes
    assert "not measured on this machine" not in notes
    assert f"slabs_2gpu.json: 2 visible GPUs (device 0 NVIDIA H200); {SLABS_FOLDER} (commit abcdef0123" in notes
    assert multi_gpu.cited_ids(multi_gpu.load_slabs_files(two_files)) == [SLABS_FOLDER]


def test_files_of_another_machine_folder_are_not_compared(tmp_path):
    write_slabs(tmp_path / "a", "one.json", 1, [pre(512, "gpu_slabs", 1, 0.010, 0.001),
                                                pre(512, "gpu_flex", 1, 0.002, 0.001)])
    write_slabs(tmp_path / "b", "two.json", 2, [pre(512, "gpu_slabs", 2, 0.006, 0.0005)])
    files = multi_gpu.load_slabs_files(tmp_path / "a") + multi_gpu.load_slabs_files(tmp_path / "b")
    rows = rows_of(multi_gpu.prefilter_table(files))
    assert rows[("512^3", "gpu_slabs", "2", "two.json")][4:6] == ["—", "—"]
    assert rows[("512^3", "gpu_slabs", "1", "one.json")][4:6] == ["ref.", "5.00"]


def test_one_gpu_only_says_the_scaling_is_not_measured(tmp_path):
    write_slabs(tmp_path / "m", "one.json", 1, [pre(512, "gpu_slabs", 1, 0.010, 0.001)])
    table = multi_gpu.prefilter_table(multi_gpu.load_slabs_files(tmp_path / "m"))
    assert any("not measured on this machine" in n for n in table.notes)


def test_streamed_rows(tmp_path):
    write_slabs(tmp_path / "m", "stream.json", 1, stream=[
        streamed(1024), streamed(2048, bound_seconds=None, sweep={"median": 1.6}),
        {"edge": 4096, "skipped": "the host cannot hold the volume"}])
    table = multi_gpu.streamed_table(multi_gpu.load_slabs_files(tmp_path / "m"))
    cells = {r.cells[0]: r for r in table.rows}
    assert cells["1024^3"].cells[1:] == ["stream.json", "50.0 / 40.0", "1.00", "0.8", "0.80", "2.00", "2.00",
                                         "0.5 + 0.25", "1.03e-07 (pass)"]
    assert cells["2048^3"].cells[3:8] == ["—", "1.60", "—", "2.00", "—"]
    assert cells["4096^3"].kind == "missing" and cells["4096^3"].note == "skipped: the host cannot hold the volume"
    notes = " ".join(table.notes)
    assert "full-duplex bound max(bytes / h2d, bytes / d2h) 0.5 s, the sweep 1.60x it" in notes
    assert "2048^3 (stream.json): not recorded: bound (—)" in notes
    assert multi_gpu.prefilter_table(multi_gpu.load_slabs_files(tmp_path / "m")) is None


def test_loader_passes_over_other_json_and_refuses_a_broken_slabs_file(tmp_path):
    machine = tmp_path / "m"
    other = machine / "20261201-090000-module-overhead" / "module_overhead.json"
    other.parent.mkdir(parents=True)
    other.write_text(json.dumps({"benchmark": "module_overhead", "rows": []}))
    (machine / "20261201-090000-gpu").mkdir()
    (machine / "20261201-090000-gpu" / "run.json").write_text("{}")
    (machine / "20261201-080000-thing").mkdir()
    (machine / "20261201-080000-thing" / "junk.json").write_text("{not json")
    assert multi_gpu.load_slabs_files(machine) == []
    assert multi_gpu.load_slabs_files(tmp_path / "none") == []
    broken = machine / SLABS_FOLDER / "slabs.json"
    broken.parent.mkdir()
    broken.write_text('{"schema": "splinebench-gpu-slabs", "context": {')
    with pytest.raises(ReportError, match="unreadable bench_gpu_slabs file"):
        multi_gpu.load_slabs_files(machine)
    broken.write_text(json.dumps({"schema": multi_gpu.SCHEMA, "context": {}}))
    with pytest.raises(ReportError, match="without its context or benchmarks"):
        multi_gpu.load_slabs_files(machine)


# --- sharded suite runs -----------------------------------------------------------------------

GPU = {"name": "NVIDIA H200", "uuid": "GPU-a", "device_count": 1}


def suite_run(machine_dir: Path, run_id: str, records: list[dict], wall: float | None = None,
              shards: list[dict] | None = None, repetitions: int = 9) -> Path:
    ctx = synth.context(machine_dir.name, "quick", gpu=GPU, run_id=run_id, date=f"2026-12-01T{run_id[9:11]}:00:00Z")
    if wall is not None:
        ctx["wall_seconds"] = wall
    if shards is not None:
        ctx["shards"] = shards
    folder = synth.write_run(machine_dir / run_id, synth.results(ctx, records))
    (folder / "run.json").write_text(json.dumps({"schema": "splinebench-run", "options": {
        "repetitions": repetitions, "warmups": 2, "filter": "", "impl": [], "threads": None}}))
    return folder


def rec(shape, verdict="pass", status="ok"):
    if status != "ok":
        return synth.skipped("gpu_naive", shape, "no room")
    r = synth.modelled("gpu_naive", shape, repetitions=3)
    r["verdict"] = verdict
    return r


def shard(n: int, of: int, uuid: str, cases: int, wall: float | None) -> dict:
    entry = {"shard": f"{n}/{of}", "run_id": f"20261201-1200{n:02d}-quick", "gpu": "NVIDIA H200",
             "gpu_uuid": uuid, "hostname": "h", "date": "2026-12-01T12:00:00Z", "cases": cases}
    if wall is not None:
        entry["wall_seconds"] = wall
    return entry


def test_sharded_suite_speed_up_and_mismatches(tmp_path):
    m = tmp_path / "m2"
    one = suite_run(m, "20261201-100000-quick", [rec((16, 16)), rec((32, 32)), rec((64, 64))], wall=100.0)
    # Another unsharded run with other options is never the partner, though later.
    other = suite_run(m, "20261201-103000-quick", [rec((16, 16))], wall=1.0, repetitions=3)
    sharded = suite_run(m, "20261201-110000-quick", [rec((16, 16)), rec((32, 32), verdict="fail"), rec((8, 8))],
                        wall=50.0, shards=[shard(1, 2, "GPU-a", 2, 30.0), shard(2, 2, "GPU-b", 1, None)])
    table = multi_gpu.sharded_table(load_runs([one, other, sharded]))
    (row,) = table.data_rows("ours")
    assert row.cells[:8] == ["quick", "20261201-100000-quick", "20261201-110000-quick", "3 (2 + 1)",
                             "2 shards on 2 GPUs by UUID: 2x NVIDIA H200", "100", "50.0", "2.00"]
    assert row.cells[8] == ("no: 1 case only in the one-GPU run, 1 case only in the sharded run, "
                            "1 case with another status or verdict")
    notes = " ".join(table.notes)
    assert "gpu_naive/D2/32x32/C1/F1/mirror/noise/q0/uniform ok/pass -> ok/fail" in notes
    assert "only in 20261201-100000-quick: gpu_naive/D2/64x64" in notes
    assert "only in 20261201-110000-quick: gpu_naive/D2/8x8" in notes
    assert "20261201-110000-quick: 1/2 30.0 s, 2/2 not recorded" in notes


def test_sharded_suite_without_wall_or_partner(tmp_path):
    m = tmp_path / "m3"
    one = suite_run(m, "20261201-100000-quick", [rec((16, 16)), rec((32, 32), status="skipped")])
    sharded = suite_run(m, "20261201-110000-quick", [rec((16, 16)), rec((32, 32), status="skipped")], wall=40.0,
                        shards=[shard(1, 2, "GPU-a", 1, None), shard(2, 2, "GPU-a", 1, None)])
    lonely = suite_run(tmp_path / "m4", "20261201-120000-quick", [rec((16, 16))], wall=5.0,
                       shards=[shard(1, 1, "", 1, None)])
    table = multi_gpu.sharded_table(load_runs([one, sharded, lonely]))
    (row,) = table.data_rows("ours")
    assert row.cells[3:] == ["2 (1 + 1)", "2 shards on 1 GPU by UUID: 2x NVIDIA H200", "wall time not recorded",
                             "40.0", "—", "yes: 2 cases, statuses and verdicts alike"]
    (missing,) = [r for r in table.rows if r.kind == "missing"]
    assert missing.cells == ["quick", "—", "20261201-120000-quick"]
    assert "no unsharded run of suite quick" in missing.note
    assert multi_gpu.sharded_table(load_runs([one])) is None


# --- the section in a report ------------------------------------------------------------------

def test_section_only_when_there_is_something_to_show(tmp_path, two_files):
    from reports.build import build_report

    run = load_runs([suite_run(tmp_path / "m5", "20261201-100000-quick", [rec((16, 16))])])
    plain = build_report(run, tmp_path / "plain", figures=False)
    assert multi_gpu.SECTION not in plain.read_text(encoding="utf-8")
    files = multi_gpu.load_slabs_files(two_files)
    index = build_report(run, tmp_path / "with", figures=False, gpu_slabs=files).read_text(encoding="utf-8")
    assert multi_gpu.SECTION in index and "Split prefilter across GPUs" in index
    assert "Out-of-core" not in index  # no streamed rows in these files
    # The file tables name their files, not the report's harness run.
    prefilter_md = (tmp_path / "with" / "tables" / f"{multi_gpu.PREFILTER_KEY}.md").read_text(encoding="utf-8")
    assert SLABS_FOLDER in prefilter_md and "Runs: 20261201-100000-quick" not in prefilter_md
