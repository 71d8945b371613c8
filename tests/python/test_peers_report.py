"""The speed-up-over-peer table: CPU rows against scipy, GPU rows against cupy, on the
same case of the same run; the peers' versions and adapter cost from the run context."""
from __future__ import annotations

from reports.loader import load_run
from reports.tables_peer_speedup import peer_speedup_table
from reports.tests import synth


def test_rows_pair_each_device_with_its_peer(tmp_path):
    registry = [{"name": n, "device": d, "available": True, "reason": "", "evaluation": "", "f64": False}
                for n, d in (("cpu_simd", "cpu"), ("gpu_flex", "gpu"), ("scipy", "cpu"), ("cupy", "gpu"))]
    facts = {"scipy": ["scipy=1.17.1", "numpy=2.4.6", "adapter_null_request_us=median 17.5, q1 16.0, q3 17.9 (200 calls)"],
             "cupy": ["cupy=14.2.0"]}
    ctx = synth.context("box", "gpu", gpu=synth.GPU_H100, registry=registry, implementations=facts)
    shape = (256, 256, 256)
    records = [synth.record("scipy", "cpu", shape, phases={"prefilter": [0.8] * 9}),
               synth.record("cpu_simd", "cpu", shape, phases={"prefilter": [0.02] * 9}),
               synth.record("cupy", "gpu", shape, phases={"upload": [0.01] * 9, "prefilter": [0.0016] * 9}),
               synth.record("gpu_flex", "gpu", shape, phases={"upload": [0.01] * 9, "prefilter": [0.0002] * 9})]
    run = load_run(synth.write_run(tmp_path / "run", synth.results(ctx, records)))
    table = peer_speedup_table([run])
    rows = {r.cells[2]: r.cells for r in table.data_rows("ours")}
    assert set(rows) == {"cpu_simd", "gpu_flex"}
    assert rows["cpu_simd"][3] == "scipy" and float(rows["cpu_simd"][6]) == 40
    assert rows["gpu_flex"][3] == "cupy" and float(rows["gpu_flex"][6]) == 8
    notes = " ".join(table.notes)
    assert "scipy 1.17.1" in notes and "adapter cost per request median 17.5" in notes and "cupy 14.2.0" in notes
