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


# --- like for like: kernel against kernel, end to end against end to end ---------------------

GPU_REGISTRY = [{"name": n, "device": d, "available": True, "reason": "", "evaluation": "", "f64": False}
                for n, d in (("cpu_simd", "cpu"), ("gpu_flex", "gpu"), ("gpu_texture", "gpu"), ("scipy", "cpu"),
                             ("cupy", "gpu"))]
SHAPE = (256, 256, 256)
Q = 16777216
# Columns of the table (after run, case, implementation, peer).
PEER_PRE, PRE, PRE_X, PEER_EVAL, EVAL, EVAL_X, PEER_E2E, E2E, E2E_X = range(4, 13)


def _table(tmp_path, records):
    ctx = synth.context("box", "gpu", gpu=synth.GPU_H100, registry=GPU_REGISTRY)
    run = load_run(synth.write_run(tmp_path / "run", synth.results(ctx, records)))
    return peer_speedup_table([run])


def _rows(table):
    return {r.cells[2]: r.cells for r in table.data_rows("ours")}


def _gpu(impl, reps=9, **phases):
    return synth.record(impl, "gpu", SHAPE, queries=Q, phases={k: [v] * reps for k, v in phases.items()})


# CuPy's transfers hold its pageable copies; ours are in host_staging (samples, coordinates, values).
CUPY = dict(upload=0.010, prefilter=0.0018, query_upload=0.022, evaluate=0.0068, download=0.020)
FLEX = dict(host_staging=0.030, upload=0.001, prefilter=0.0002, query_upload=0.004, evaluate=0.006,
            download=0.001)


def test_end_to_end_includes_host_staging_and_kernel_ratio_is_compute_only(tmp_path):
    table = _table(tmp_path, [_gpu("cupy", **CUPY), _gpu("gpu_flex", **FLEX)])
    row = _rows(table)["gpu_flex"]
    assert row[3] == "cupy"
    # Kernel: prefilter phase against prefilter phase, evaluate against evaluate.
    assert row[PEER_PRE] == "1.80" and row[PRE] == "0.2" and row[PRE_X] == "9.00"
    assert row[PEER_EVAL] == "6.80" and row[EVAL] == "6.00" and row[EVAL_X] == "1.13"
    # End to end: every phase of the cycle on both sides, ours with host_staging.
    peer_e2e, ours_e2e = sum(CUPY.values()), sum(FLEX.values())
    assert row[PEER_E2E] == "60.6" and row[E2E] == "42.2"
    assert row[E2E_X] == f"{peer_e2e / ours_e2e:.2f}" == "1.44"
    # The old, unfair lookup (CuPy's transfers against ours without host_staging) is gone.
    unfair = (CUPY["query_upload"] + CUPY["evaluate"] + CUPY["download"]) / (
        FLEX["query_upload"] + FLEX["evaluate"] + FLEX["download"])
    assert f"{unfair:.2f}" not in row


def test_end_to_end_adds_texture_binding_and_bound_stats_not_axis_phases(tmp_path):
    texture = dict(FLEX, bind=0.0003, bound_stats=0.0007, prefilter_axis0=0.0001, prefilter_axis1=0.0001)
    table = _table(tmp_path, [_gpu("cupy", **CUPY), _gpu("gpu_texture", **texture)])
    row = _rows(table)["gpu_texture"]
    assert row[E2E] == "43.2"  # 42.2 + bind 0.3 + bound_stats 0.7; the axis phases are parts of prefilter


def test_end_to_end_is_the_median_of_per_repetition_sums(tmp_path):
    from reports import timing
    rec = synth.record("gpu_flex", "gpu", SHAPE, queries=Q,
                       phases={"host_staging": [1.0, 1.0, 5.0], "evaluate": [5.0, 1.0, 1.0]})
    ctx = synth.context("box", "gpu", gpu=synth.GPU_H100, registry=GPU_REGISTRY)
    run = load_run(synth.write_run(tmp_path / "run", synth.results(ctx, [rec])))
    # Repetitions sum to 6, 2, 6: median 6 (the sum of the phases' medians would say 2).
    assert timing.end_to_end_seconds(run.records[0]) == 6.0


def test_unknown_phase_gives_no_end_to_end_time(tmp_path):
    table = _table(tmp_path, [_gpu("cupy", **CUPY), _gpu("gpu_flex", **FLEX, warp_shuffle=0.5)])
    row = _rows(table)["gpu_flex"]
    assert row[E2E] == "—" and row[E2E_X] == "—" and row[EVAL_X] == "1.13"
    assert any("gpu_flex" in n and "warp_shuffle" in n for n in table.notes)


def test_caption_and_notes_name_the_summed_phases(tmp_path):
    from reports import timing
    table = _table(tmp_path, [_gpu("cupy", **CUPY), _gpu("gpu_flex", **FLEX)])
    notes = " ".join(table.notes)
    # The caption is one paragraph; the phases it sums are named with it or in the notes below.
    for name in timing.END_TO_END_PHASES:
        assert name in table.caption or name in notes, name
    assert "host_staging" in notes and "pageable" in notes and "cp.asnumpy" in notes
    assert "SciPy, end to end" not in notes  # only the sides the table shows


def test_cpu_rows_end_to_end_counts_our_upload_against_us(tmp_path):
    scipy = synth.record("scipy", "cpu", SHAPE, queries=Q, phases={"prefilter": [0.66] * 9, "evaluate": [9.96] * 9})
    simd = synth.record("cpu_simd", "cpu", SHAPE, queries=Q,
                        phases={"upload": [0.008] * 9, "prefilter": [0.027] * 9, "evaluate": [0.745] * 9})
    table = _table(tmp_path, [scipy, simd])
    row = _rows(table)["cpu_simd"]
    assert row[3] == "scipy" and row[EVAL_X] == "13.4"
    assert row[PEER_E2E] == "10620" and row[E2E] == "780" and row[E2E_X] == "13.6"
    assert "SciPy, end to end = prefilter + evaluate" in " ".join(table.notes)


def test_cases_the_peer_finishes_under_a_millisecond_end_to_end_are_left_out(tmp_path):
    tiny = {k: v / 1000 for k, v in CUPY.items()}  # 60.6 µs end to end
    table = _table(tmp_path, [_gpu("cupy", **tiny), _gpu("gpu_flex", **FLEX)])
    assert not table.data_rows("ours")


def test_noisy_end_to_end_time_is_marked(tmp_path):
    staging = [0.010] * 5 + [0.030] * 4  # two regimes of the host copy
    flex = synth.record("gpu_flex", "gpu", SHAPE, queries=Q,
                        phases={**{k: [v] * 9 for k, v in FLEX.items()}, "host_staging": staging})
    table = _table(tmp_path, [_gpu("cupy", **CUPY), flex])
    row = _rows(table)["gpu_flex"]
    assert row[E2E].endswith(" NOISY") and "NOISY" not in row[EVAL] and "NOISY" not in row[PEER_E2E]
    assert any(n.startswith("NOISY: gpu_flex, end to end") for n in table.notes)
