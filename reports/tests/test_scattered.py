"""reports.scattered on small synthetic runs (no solver): every seed table carries the
published rows beside ours, missing rows say why, the figures are written or skipped with
a reason, and a report of a run holding scattered records builds."""
from __future__ import annotations

from types import SimpleNamespace

from reports import scattered
from reports.plots import scattered as scattered_plots
from reports.plots.style import Figure, Skipped
from reports.render_markdown import render_markdown


def _phases(**medians) -> dict:
    return {k: {"samples": 1, "median": v, "min": v, "max": v, "q1": v, "q3": v, "iqr": 0} for k, v in medians.items()}


def _rec(solver: str, fraction: float, *, data="gravel", shape=(64, 64), lam=1.8, rms=10.0, **extra) -> dict:
    case = f"scattered/{data}/{'x'.join(map(str, shape))}/mirror/laplace{fraction}/lambda{lam}"
    r = {"operation": scattered.OPERATION, "status": "ok", "device": "cpu", "threads": 2, "threads_used": 2,
         "dims": len(shape), "shape": list(shape), "data": data, "selection": "laplace", "fraction": fraction,
         "lambda": lam, "solver": solver, "impl": solver, "case_id": f"{case}/{solver}", "rms_g": rms,
         "iterations": 3, "relres_history": [1e-1, 1e-4, 1e-9], "rms_g_at_iteration": {"1": 30.0, "2": 12.0},
         "at_seed_iterations": {"iterations": 100, "rms_g": rms * 1.5, "relres": 1e-3},
         "phases": _phases(assemble_pattern=0.01, assemble_FtF_Ftf=0.02, add_R=0.01, solve_seed_iterations=0.5,
                           solve=0.8)}
    r.update(extra)
    return r


def synthetic_runs():
    recs = []
    for f in (0.2, 0.3, 0.5):
        recs.append(_rec("ldlt", f, impl="reference", case_id=f"scattered/gravel/64x64/mirror/laplace{f}/lambda1.8/reference"))
        for s in ("jacobi", "gs8x", "cg"):
            recs.append(_rec(s, f))
    for lam, rms in ((0.1, 14.0), (2.1, 12.0)):
        recs.append(_rec("ldlt", 0.2, data="moon", lam=lam, rms=rms, impl="reference"))
    recs.append(_rec("mg_seed", 0.2, data="smooth", shape=(9, 9, 9), lam=0.002,
                     mg={"N": 3, "N0": 10, "N1": 10, "N2": 10, "M": 2, "M0": 10, "M1": 5, "M2": 10, "P": 2}))
    recs.append(_rec("mg_seed", 0.2, data="smooth", shape=(9, 9, 9), lam=0.002, rms=9.0,
                     mg={"N": 4, "N0": 10, "N1": 10, "N2": 10, "M": 2, "M0": 10, "M1": 5, "M2": 10, "P": 2}))
    recs.append(_rec("cg", 0.2, data="smooth", shape=(9, 9, 9), lam=0.002, blocks=[2, 2, 2], block_padding=3,
                     unblocked_rms_g=10.0, rms_g_change=0.004, unblocked_time=0.6, time_ratio=2.5,
                     phases=_phases(blocked_assemble_solve=1.5)))
    recs.append({"operation": scattered.OPERATION, "status": "skipped", "solver": "gpu_cg", "message": "no device"})
    return [SimpleNamespace(system_records={scattered.OPERATION: recs}, context={"run_id": "r1"})]


def test_table2_has_seed_rows_and_ours_per_fraction():
    t = scattered.table2(synthetic_runs())
    seed = t.data_rows("seed")
    assert [r.cells[0] for r in seed] == ["jacobi", "gs8x", "cg"] * 3
    assert [r.cells[3] for r in seed] == ["20"] * 3 + ["30"] * 3 + ["50"] * 3
    assert seed[2].cells[4:8] == ["1.404", "—", "0.34", "—"]
    ours = t.data_rows("ours")
    assert {r.cells[0] for r in ours} == {"jacobi", "gs8x", "cg"}
    cg = next(r for r in ours if r.cells[0] == "cg" and r.cells[3] == "20")
    # Whole run on the host = assembly (0.04) + 100 iterations (0.5); no device time; RMS_g at 100 and converged.
    assert cg.cells[4:8] == ["0.54", "—", "15", "10"]
    assert "Bridge" in cg.cells[1]
    assert any(r.kind == "missing" and "GPU" in r.cells[0] for r in t.rows)
    assert "Table 2" in render_markdown(t)


def test_volume_and_block_tables():
    runs = synthetic_runs()
    t4 = scattered.table4(runs)
    assert [r.cells[2] for r in t4.data_rows("seed")] == ["2.11", "4.58"]
    assert any(r.cells[0].startswith("mg_seed") for r in t4.data_rows("ours"))
    t9 = scattered.table9(runs)
    ours = t9.data_rows("ours")
    assert len(ours) == 1 and ours[0].cells[2] == "2x2x2 (p=3)" and ours[0].cells[-1] == "0.4"
    assert ours[0].cells[4:7] == ["1.5", "0.6", "2.5"]  # blocked, unblocked time, ratio
    assert len(t9.data_rows("seed")) == 5
    assert any(r.kind == "missing" and r.cells[0] == "GPU" for r in t9.rows)
    t8 = scattered.table8(runs)
    assert any(r.cells[2].startswith("oracle") for r in t8.data_rows("ours"))
    for t in scattered.table7_10_1():
        assert t.data_rows("seed") and any(r.kind == "missing" for r in t.rows)


def test_figures_written_or_skipped_with_reason(tmp_path):
    runs = synthetic_runs()
    items = scattered.report_items(runs, tmp_path)
    figs = [i for i in items if isinstance(i, Figure)]
    skipped = [i for i in items if isinstance(i, Skipped)]
    stems = {f.stem for f in figs}
    assert "scattered_lambda" in stems and "scattered_mg_sweep" in stems
    assert any(s.startswith("scattered_convergence") for s in stems)
    for f in figs:
        assert f.png.is_file() and f.svg.is_file()
    assert all(s.reason for s in skipped)


def test_no_scattered_records_no_section(tmp_path):
    assert scattered.report_items([SimpleNamespace(system_records={}, context={})], tmp_path) == []


def test_rms_cells_say_why_a_solver_stopped():
    from reports import scattered as sc
    diverged = {"solve_status": "diverged", "iterations": 5, "rms_g": 3.9e5}
    assert sc._rms_at_seed(diverged) == "diverged (it 5)" and sc._rms_final(diverged) == "diverged (it 5)"
    early = {"solve_status": "converged", "iterations": 12, "rms_g": 26.2535, "at_seed_iterations": None}
    assert sc._rms_at_seed(early) == "26.3 (conv. at 12)" and sc._rms_final(early) == "26.3"
    budget = {"solve_status": "max_iterations", "iterations": 1000, "rms_g": 10.756,
              "at_seed_iterations": {"rms_g": 10.274}}
    assert sc._rms_at_seed(budget) == "10.3" and sc._rms_final(budget) == "10.8 (max_iterations, 1000 it)"
    late = {"solve_status": "converged", "iterations": 192, "rms_g": 26.25, "seed_iterations": 100}
    assert sc._rms_at_seed(late) == "—"
    assert "no seed counterpart" in sc._data_label({"data": "smooth", "dims": 2, "shape": [128, 128]})
    assert "Neghip" in sc._data_label({"data": "smooth", "dims": 3, "shape": [24, 24, 24]})
    assert "Bridge" in sc._data_label({"data": "gravel257", "dims": 2, "shape": [257, 257]})


def test_image_figure_from_saved_arrays(tmp_path):
    """The reconstruction figure draws the saved node values and the mask when the run
    keeps them in <run>/arrays/, and says where to get them otherwise."""
    import numpy as np
    run_dir = tmp_path / "run"
    arrays = run_dir / scattered_plots.ARRAYS_DIR
    arrays.mkdir(parents=True)
    mask = (np.random.default_rng(1).random((16, 12)) < 0.2).astype(np.float32)
    np.save(arrays / "mask_f0.2_lambda2.1.npy", mask)
    np.save(arrays / "original.npy", np.full((16, 12), 2.0, np.float32))
    np.save(arrays / "values_f0.2_lambda2.1_reference.npy", np.ones((16, 12), np.float32))
    np.save(arrays / "values_f0.2_lambda2.1_cg.npy", np.ones((16, 12), np.float32))
    base = {"dims": 2, "shape": [16, 12], "data": "gravel", "fraction": 0.2, "lambda": 2.1, "status": "ok",
            "operation": scattered.OPERATION}
    recs = [dict(base, case_id="scattered/gravel/16x12/mirror/laplace0.2/lambda2.1/reference", impl="reference",
                 rms_g=13.0, saved={"original": "original.npy", "mask": "mask_f0.2_lambda2.1.npy",
                                    "values": "values_f0.2_lambda2.1_reference.npy"}),
            dict(base, case_id="scattered/gravel/16x12/mirror/laplace0.2/lambda2.1/cg", impl="cg", solver="cg",
                 rms_g=13.1, saved={"values": "values_f0.2_lambda2.1_cg.npy"})]
    run = SimpleNamespace(system_records={scattered.OPERATION: recs}, context={"run_id": "r1"}, path=run_dir,
                          label="dev/r1")
    fig = scattered_plots.plot_image([run], tmp_path / "plots")
    assert fig.png.exists() and "gravel" in fig.caption and "original: the full data" in fig.caption
    missing = SimpleNamespace(system_records={scattered.OPERATION: recs}, context={}, path=tmp_path / "none",
                              label="x")
    skipped = scattered_plots.plot_image([missing], tmp_path / "plots2")
    assert "save_coefficients" in skipped.reason


def test_gpu_records_time_the_device_assembly_and_seed_iterations():
    runs = synthetic_runs()
    recs = runs[0].system_records[scattered.OPERATION]
    for f in (0.2, 0.3, 0.5):
        recs.append(_rec("gpu_cg_gather", f, device="gpu", assembly="gpu_gather",
                         phases=_phases(device_seed_iterations=0.004, assemble=0.001, solve=0.01)))
    recs.append(_rec("gpu_mg_seed", 0.2, data="smooth", shape=(9, 9, 9), lam=0.002, device="gpu",
                     phases=_phases(device_seed_iterations=0.2, solve=0.2)))
    t2 = scattered.table2(runs)
    gpu = next(r for r in t2.data_rows("ours") if r.cells[0] == "gpu_cg_gather")
    assert gpu.cells[5] == "0.004"  # the device-only time, not a CPU assembly added to it
    assert not any(r.kind == "missing" and "GPU" in r.cells[0] for r in t2.rows)
    t4 = scattered.table4(runs)
    row = next(r for r in t4.data_rows("ours") if r.cells[0].startswith("gpu_mg_seed"))
    assert row.cells[2] == "—"  # no host time in this record: the whole run is not made up
    assert row.cells[3] == "0.2"  # the device time beside it
    assert not any(r.kind == "missing" and "GPU" in r.cells[0] for r in t4.rows)


def test_a_solve_to_the_tolerance_shows_its_measured_whole_run_first():
    runs = synthetic_runs()
    recs = runs[0].system_records[scattered.OPERATION]
    # whole_run (a fresh preparation + the solve, measured) wins over the sum of the
    # prepared-once parts, which would leave out what a second preparation costs.
    recs.append(_rec("gpu_mg_pcg", 0.2, data="smooth", shape=(9, 9, 9), lam=0.002, device="gpu",
                     phases=_phases(whole_run=0.0042, solve_wall=0.003, solver_setup=0.5)))
    t4 = scattered.table4(runs)
    row = next(r for r in t4.data_rows("ours") if r.cells[0].startswith("gpu_mg_pcg"))
    assert row.cells[2] == "0.0042 ‡" and row.cells[3] == "—"
    assert any(n.startswith("‡") for n in t4.notes)


def test_gpu_rows_on_the_cpu_system_add_the_device_assembly_of_the_same_case():
    runs = synthetic_runs()
    recs = runs[0].system_records[scattered.OPERATION]
    recs.append(_rec("gpu_cg_atomic", 0.2, device="gpu", assembly="gpu_atomic",
                     phases=_phases(device_seed_iterations=0.0055, assemble=0.0005, solve=0.01)))
    for f in (0.2, 0.3):
        recs.append(_rec("gpu_sgs_mc", f, device="gpu", assembly="cpu",
                         phases=_phases(device_seed_iterations=0.004, solve=0.02, solve_seed_iterations=0.3)))
    t2 = scattered.table2(runs)
    row20, row30 = (next(r for r in t2.data_rows("ours") if r.cells[0] == "gpu_sgs_mc" and r.cells[3] == pct)
                    for pct in ("20", "30"))
    assert row20.cells[5] == "0.0045 †"  # 4 ms of iterations + the atomic assembly's 0.5 ms
    assert row30.cells[5] == "0.004 (no assembly)"  # no device assembly of the 30 % case to add
    # The whole run on the host's clock stands beside it: the seed's count (0.3 s; this record has no
    # CPU assembly phases).
    assert row20.cells[4] == "0.3"
    assert any(n.startswith("† ") for n in t2.notes)


def test_multigrid_tables_take_only_their_own_schedule_and_size():
    runs = synthetic_runs()
    recs = runs[0].system_records[scattered.OPERATION]
    big = dict(data="smooth", shape=(256, 256, 256), lam=0.002, device="gpu")
    recs.append(_rec("gpu_mg_seed", 0.2, mg=dict(scattered.TABLE5_MG), phases=_phases(device_seed_iterations=0.4), **big))
    recs.append(_rec("gpu_cg_matrix_free", 0.2, phases=_phases(device_seed_iterations=0.22), **big))
    t4, t5 = scattered.table4(runs), scattered.table5_6(runs)[0]
    assert not any("256" in r.cells[1] for r in t4.data_rows("ours"))
    assert [r.cells[0] for r in t4.data_rows("ours")] == ["mg_seed (cpu, 2 thr)"]  # the N = 4 run is not Table 4's
    assert sorted(r.cells[0] for r in t5.data_rows("ours")) == ["gpu_cg_matrix_free (gpu)", "gpu_mg_seed (gpu)"]


def test_block_table_shows_gpu_rows():
    """A matrix-free GPU solver block by block at 256^3 (no oracle): its device time beside
    its unblocked run's and the change against its own unblocked RMS_g; skipped blocked
    records stay out, and the missing-GPU row goes once a GPU row is there."""
    runs = synthetic_runs()
    recs = runs[0].system_records[scattered.OPERATION]
    recs.append(_rec("gpu_cg_matrix_free", 0.2, data="smooth", shape=(256, 256, 256), lam=0.002, device="gpu",
                     assembly="matrix_free", rms=7.36, phases=_phases(device_assemble_solve=0.67)))
    recs.append(_rec("gpu_cg_matrix_free", 0.2, data="smooth", shape=(256, 256, 256), lam=0.002, device="gpu",
                     assembly="matrix_free", blocks=[2, 2, 2], block_padding=3, rms=7.40, unblocked_rms_g=7.36,
                     rms_g_change=0.0054, rms_g_change_basis="the same solver's unblocked RMS_g (no oracle)",
                     unblocked_time=0.67, time_ratio=1.3, solve_status="converged",
                     phases=_phases(blocked_assemble_solve=0.871, blocked_device_assemble_solve=2.1)))
    recs.append({"operation": scattered.OPERATION, "status": "skipped", "solver": "gpu_mg_pcg", "device": "gpu",
                 "blocks": [2, 2, 2], "block_padding": 3, "message": "no device"})
    t9 = scattered.table9(runs)
    gpu = [r for r in t9.data_rows("ours") if r.cells[3].startswith("gpu_")]
    assert len(gpu) == 1
    assert gpu[0].cells[3] == "gpu_cg_matrix_free (gpu)"
    assert gpu[0].cells[4:] == ["0.871", "0.67", "1.3", "7.4", "7.36", "0.54"]
    assert not any(r.kind == "missing" and r.cells[0] == "GPU" for r in t9.rows)
    assert "Table 9" in render_markdown(t9)


def test_mg_sweep_holds_the_other_parameters():
    """The N panel takes only the runs at the sweep's base P (and the P panel the base N):
    a run at another P must not stand in for its N."""
    base = {"N": 3, "N0": 10, "N1": 10, "N2": 10, "M": 2, "M0": 10, "M1": 5, "M2": 10, "P": 2}
    pts = []
    for n, rms in ((1, 24.0), (2, 23.0), (3, 22.0), (4, 21.0)):
        pts.append({"mg": dict(base, N=n), "rms_g": rms, "phases": _phases(solve_seed_iterations=float(n))})
    for p, rms in ((1, 32.0), (3, 19.0)):
        pts.append({"mg": dict(base, P=p), "rms_g": rms, "phases": _phases(solve_seed_iterations=9.0)})
    by_n = scattered_plots.mg_sweep_points(pts, "N")
    assert [(x, r) for x, r, _ in by_n] == [(1, 24.0), (2, 23.0), (3, 22.0), (4, 21.0)]
    by_p = scattered_plots.mg_sweep_points(pts, "P")
    assert [(x, r) for x, r, _ in by_p] == [(1, 32.0), (2, 22.0), (3, 19.0)]


def test_a_multigrid_table_without_its_schedule_names_what_is_missing():
    """A run with 3-D records at 256^3 only (the scattered suite's volume) has nothing for
    Table 4 or 6: the missing row says which records those tables read, not that there are
    no 3-D records."""
    big = dict(data="smooth", shape=(256, 256, 256), lam=0.002, device="gpu")
    recs = [_rec("gpu_mg_seed", 0.2, mg=dict(scattered.TABLE5_MG), phases=_phases(device_seed_iterations=0.4), **big)]
    runs = [SimpleNamespace(system_records={scattered.OPERATION: recs}, context={"run_id": "r1"})]
    t4 = scattered.table4(runs)
    t6 = scattered.table5_6(runs)[1]
    for t in (t4, t6):
        missing = [r for r in t.rows if r.kind == "missing" and r.cells[0] == "(ours)"]
        assert missing and "Table 4's schedule below 256^3" in missing[0].note, t.key
    assert scattered.table5_6(runs)[0].data_rows("ours")


def test_the_reproduction_status_names_every_system_s_runs():
    """The status table covers the four seeds, so its runs line names the scattered and 2-D
    IIR runs too, not only the runs holding grid records."""
    from reports.build import _kind_runs

    grid = SimpleNamespace(records=[object()], system_records={})
    scattered_only = SimpleNamespace(records=[], system_records={scattered.OPERATION: [object()]})
    assert _kind_runs("reproduction_status", [grid, scattered_only]) == [grid, scattered_only]
    assert _kind_runs("accuracy", [grid, scattered_only]) == [grid]
