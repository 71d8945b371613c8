"""Seed 003 (Csuk: cubic B-spline reconstruction from scattered samples) in the report:
every table of the seed with its published numbers beside ours, and the convergence,
lambda, multigrid-parameter and block figures.

Records are those with "operation": "scattered_reconstruction"
(systems/scattered/README.md): `report_items` takes them from loaded runs
(`Run.system_records`), for reports.build. Our data are stand-ins (the seed's data sets
ship in no package): gravel for Bridge, moon for Head, brick (a texture) for Lena and
Fruits, camera as a stress case with large holes, synthetic smooth volumes for the seed's
volumes; each table names the data of every row. Times are what the record's machine
measured (CPU rows on a CPU; GPU rows only where a run holds GPU records)."""
from __future__ import annotations

import math
import re
from pathlib import Path

from .table_model import Column, Row, Table

OPERATION = "scattered_reconstruction"

# Which of our data stands in for which of the seed's (the notes' calibration: exact
# RMS_g at lambda = 2.1, 20 % top |Laplacian|, gravel 13.0 ~ Bridge 10.53, moon 1.31 ~
# Head 1.99, textures 11-12 ~ Lena 5.08 / Fruits 4.42).
STAND_INS = {"gravel": "Bridge", "moon": "Head", "brick": "Lena / Fruits", "grass": "Lena / Fruits",
             "camera": "stress case (large holes)", "astronaut": "stress case (large holes)",
             "smooth": "Neghip / Skull (synthetic smooth volume)"}

# The seed's published numbers: M. Csuk, "CUDA-based Reconstruction and Visualization of
# Non-uniform Point Sets", bachelor thesis, TU Wien; table numbers as printed (page
# numbers are not in our notes). Times in seconds, GT 220 unless stated.
SEED = {
    "source": "Csuk, CUDA-based Reconstruction and Visualization of Non-uniform Point Sets (TU Wien)",
    "table1": {"data": "Natural Convection 61^3", "share_percent": {
        "FtF": 47.16, "matvec": 37.98, "Ftf": 5.46, "filter matrix": 5.03, "add R": 2.36, "rest": 2.01}},
    "table2": {"data": "Fruits 512^2", "lambda": 1.9, "iterations": 100, "fractions": [0.2, 0.3, 0.5],
               "rows": {"jacobi": [(1.663, 1.31), (1.719, 0.72), (1.813, 0.30)],
                        "gs8x": [(2.457, 1.27), (2.497, 0.69), (2.534, 0.26)],
                        "cg": [(1.404, 0.34), (1.416, 0.21), (1.503, 0.18)]}},
    "table4": {"data": "Neghip 64^3", "mg": [3, 10, 10, 10, 2, 10, 5, 10, 2],
               "mg_seed": [2.11, 2.12, 2.13], "single_grid_100": [4.58, 4.59, 4.60]},
    "table5": {"data": "Skull 256^3", "mg": [3, 2, 2, 2, 2, 2, 2, 2, 2],
               "GT 220": [156.16, 156.91, 158.60], "GTX 285": [28.70, 29.00, 29.83]},
    "table6": {"data": "Neghip 64^3", "GT 220": [2.11, 2.12, 2.13], "GTX 285": [0.85, 0.88, 0.89]},
    "table7": [("Engine 256^3", (21.1, 0.44), (45.9, 0.54), (76.8, 0.94)),
               ("Tooth 256^2x160", (25.7, 0.45), (74.0, 0.41), (112.8, 0.57)),
               ("CT Chest 384^2x240", (69.4, 0.34), (192.9, 0.39), (304.8, 0.6)),
               ("Carp 256^2x512", (63.2, 0.32), (219.1, 0.38), (343.8, 0.36))],
    "table8": [("Bridge", 1.8, 1.18, 10.53), ("Lena", 2.1, 1.20, 5.08), ("Fruits", 2.1, 1.18, 4.42),
               ("Head", 2.3, 0.64, 1.99)],
    "table9": [("Neghip 64^3", 0.002, "-", 2.56, 0.496), ("Fuel 64^3", 0.0015, "-", 2.624, 0.081),
               ("Hydrogen 128^3", 0.004, "2x1x1", 18.483, 0.072), ("Skull 256^3", 0.002, "2x2x2", 156.42, 0.264),
               ("Aneurism 256^3", 0.001, "2x2x2", 156.88, 0.388)],
    "table10": [("Oil 38x40x38", 0.003, 1.037, 0.13), ("Natural Convection 61^3", 0.001, 3.512, 1.136),
                ("Synthetic Chirp 64^3", 0.001, 2.675, 0.153), ("Flow Transport 44x58x58", 0.002, 1.86, 0.052),
                ("Fuel Injection 39x51x60", 0.001, 1.745, 0.362),
                ("Cooling Jacket 222x128x122 (2x1x1 blocks)", 0.02, 118.64, 1.121)],
    "fig8": {"data": "Lena", "lambda_rms": [(0.1, 8.03), (2.1, 5.08), (4.1, 5.34)]},
}

NO_GPU = "not measured here: GPU rows need a run on the device (no GPU records in these runs)"


def records(run) -> list[dict]:
    return list(run.system_records.get(OPERATION, []))


def _all(runs) -> list[dict]:
    return [r for run in runs for r in records(run)]


def _ok(recs: list[dict]) -> list[dict]:
    return [r for r in recs if r.get("status") == "ok"]


def _num(v, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—"
    return f"{v:.{digits}g}"


def _phase(r: dict, name: str) -> float | None:
    p = (r.get("phases") or {}).get(name)
    return float(p["median"]) if isinstance(p, dict) and "median" in p else None


def _assembly_s(r: dict) -> float:
    return sum(_phase(r, k) or 0.0 for k in ("assemble_pattern", "assemble_FtF_Ftf", "add_R"))


def _seed_time(r: dict) -> float | None:
    """The seed's timed quantity, assembly included: a GPU record's device time of the
    assembly and the seed's iteration count (device_seed_iterations), else the CPU
    assembly plus the solve to the seed's count."""
    device = _phase(r, "device_seed_iterations")
    if device is not None:
        return device
    fixed = _phase(r, "solve_seed_iterations")
    return fixed + _assembly_s(r) if fixed is not None else None


def _data_label(r: dict) -> str:
    name = str(r.get("data", "?"))
    # "gravel257": the image downsampled to 257^2 stands in for the same seed data.
    stand = STAND_INS.get(name) or STAND_INS.get(re.sub(r"\d+$", "", name))
    if name == "smooth" and r.get("dims") != 3:
        stand = "synthetic smooth image, no seed counterpart"
    shape = "x".join(str(s) for s in r.get("shape", []))
    return f"{name} {shape}" + (f" (~ {stand})" if stand else "")


def _rms_at_seed(r: dict) -> str:
    """RMS_g after the seed's iteration count; a solver that stopped earlier says why."""
    status, its = r.get("solve_status"), r.get("iterations")
    if status == "diverged":
        return f"diverged (it {its})"
    at = r.get("at_seed_iterations") or {}
    if at.get("rms_g") is not None:
        return _num(at["rms_g"])
    if status == "converged" and its is not None and its <= int(r.get("seed_iterations") or 100):
        return f"{_num(r.get('rms_g'))} (conv. at {its})"
    return "—"  # not recorded at that count (e.g. Eigen's CG reports only its end)


def _rms_final(r: dict) -> str:
    """RMS_g where the solver ended, with its status when that is not convergence."""
    status, its = r.get("solve_status"), r.get("iterations")
    if status == "diverged":
        return f"diverged (it {its})"
    if status in (None, "converged"):
        return _num(r.get("rms_g"))
    return f"{_num(r.get('rms_g'))} ({status}, {its} it)"


def _on_gpu(r: dict) -> bool:
    # Runs from before records named the device of the GPU solvers say "cpu" for them.
    return "gpu" in str(r.get("device")) or str(r.get("solver", "")).startswith("gpu_")


def _where(r: dict) -> str:
    if _on_gpu(r):
        return "gpu"
    return f"{r.get('device', 'cpu')}, {r.get('threads_used', r.get('threads', '?'))} thr"


def _unblocked(recs):
    return [r for r in recs if "blocks" not in r]


def _blocked(recs):
    return [r for r in recs if "blocks" in r]


def _whole_run(r: dict) -> tuple[float | None, bool]:
    """What the seed timed, on the host's clock: one whole run from the samples, its
    assembly (the CPU's, for a solver that iterates on the CPU's system), the solver's
    preparation and the seed's iteration count. A solver without a fixed-count solve
    (one that only runs to the tolerance) gives its solve to the tolerance instead:
    (seconds, True) then."""
    setup = _phase(r, "solver_setup") or 0.0
    fixed = _phase(r, "solve_seed_iterations")
    if fixed is not None:
        return _assembly_s(r) + setup + fixed, False
    whole = _phase(r, "whole_run")  # measured: a fresh preparation and the solve, per repetition
    if whole is not None:
        return whole, True
    wall = _phase(r, "solve_wall")
    return (_assembly_s(r) + setup + wall, True) if wall is not None else (None, False)


def _device_only(r: dict, device_assembly: dict, key: tuple) -> tuple[str, bool]:
    """A GPU record's device time of the assembly and the seed's count; a solver that
    iterates on the CPU's system borrows gpu_cg_atomic's device assembly of the case (†)."""
    device = _phase(r, "device_seed_iterations")
    if not _on_gpu(r) or device is None:
        return "—", False
    if r.get("assembly") == "cpu":
        assembly = device_assembly.get(key)
        return (_num(device + assembly) + " †", True) if assembly is not None else (_num(device) + " (no assembly)",
                                                                                    False)
    return _num(device), False


def table2(runs) -> Table:
    """Seed Table 2: time and RMS_g after 100 iterations at 20 / 30 / 50 %, per solver. The
    seed timed whole runs, so the time column is the host's whole run; the device's own
    time of the same work stands beside it, named so."""
    s = SEED["table2"]
    t = Table("scattered_table2", "Seed 003, Table 2: solvers at the seed's iteration count",
              f"Whole run: the host's time of one run as the seed timed it (assembly + the solver's preparation + "
              f"{s['iterations']} iterations); device only: the GPU's time of the assembly and the iterations. "
              "RMS_g after the seed's count and at convergence (relres 1e-8 or the run's budget), per sample "
              f"fraction. Seed: {s['data']}, λ {s['lambda']}, GT 220.",
              [Column("solver"), Column("data"), Column("where"), Column("samples", "%", True),
               Column("whole run", "s", True), Column("device only", "s", True),
               Column(f"RMS_g @{s['iterations']}", "%", True), Column("RMS_g conv.", "%", True)])
    recs = _ok(_unblocked(_all(runs)))
    groups: dict[tuple, dict[float, dict]] = {}
    for r in recs:
        if r.get("impl") == "reference" or r.get("dims") != 2:
            continue
        groups.setdefault((r["solver"], _data_label(r), _where(r), r.get("lambda")), {})[float(r["fraction"])] = r
    # The device's assembly of each case, for the GPU rows that iterate on the CPU's system.
    device_assembly = {(data, lam, f): _phase(by_f[f], "assemble")
                       for (solver, data, where, lam), by_f in groups.items() if solver == "gpu_cg_atomic"
                       for f in by_f}
    borrowed = to_tolerance = False
    for n, f in enumerate(s["fractions"]):
        pct = str(int(round(f * 100)))
        t.add(Row([], "group", note=f"{pct} % samples"))
        for solver, cells in s["rows"].items():
            time_s, rms = cells[n]
            t.add(Row([solver, f"{s['data']}, λ {s['lambda']}", "GT 220", pct, f"{time_s:.3f}", "—", f"{rms:.2f}",
                       "—"], kind="seed"))
        for (solver, data, where, lam), by_f in sorted(groups.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            r = by_f.get(f)
            if r is None:
                continue
            whole, tol = _whole_run(r)
            to_tolerance |= tol
            device, dagger = _device_only(r, device_assembly, (data, lam, f))
            borrowed |= dagger
            t.add(Row([solver, f"{data}, λ {lam}", where, pct, _num(whole) + (" ‡" if tol else ""), device,
                       _rms_at_seed(r), _rms_final(r)]))
    if borrowed:
        t.notes.append("† A GPU solver that iterates on the CPU's system: its device time of the iterations plus "
                       "gpu_cg_atomic's device assembly of the same case (the same system, formed on the device). "
                       "gpu_jacobi_damped's omega (20 Lanczos steps on the host) is not in the device time.")
    if to_tolerance:
        t.notes.append("‡ The solver has no fixed-count solve (it runs to the tolerance only): its whole run to "
                       "the tolerance.")
    if not t.data_rows("ours"):
        t.add(Row(["(ours)", "no 2-D scattered runs"], kind="missing", note="no 2-D records in these runs"))
    if not any(_on_gpu(r) for r in recs):
        t.add(Row(["GPU"], kind="missing", note=NO_GPU))
    t.notes.append("gpu_jacobi and gpu_gs8x are the seed's (omega = 1; GS in the seed's 8-colour order along x); "
                   "gpu_jacobi_damped uses omega = 1 / lambda_max(D^-1 A), gpu_sgs_mc is symmetric GS in a true "
                   "16-colour order. "
                   "RMS_g: sqrt(mean over all nodes (s - f)^2) * 100 / max sample value.")
    return t


def table8(runs) -> Table:
    """Seed Table 8 (and Fig. 8): images at 20 % top |Laplacian|: lambda, time, RMS_g."""
    t = Table("scattered_table8", "Seed 003, Table 8: images, 20 % top |Laplacian|",
              "lambda, time and RMS_g: seed's CG (100 iterations, GT 220) against the exact oracle, CG at the "
              "seed's count and CG converged on our stand-in data.",
              [Column("data"), Column("λ", "", True), Column("solver"), Column("time", "s", True),
               Column("RMS_g @100", "%", True), Column("RMS_g conv.", "%", True)])
    for name, lam, time_s, rms in SEED["table8"]:
        t.add(Row([name, str(lam), "seed (GT 220)", f"{time_s:.2f}", f"{rms:.2f}", "—"], kind="seed"))
    for r in _ok(_unblocked(_all(runs))):
        if r.get("dims") != 2 or abs(float(r.get("fraction", 0)) - 0.2) > 1e-9 or r.get("selection") != "laplace":
            continue
        if r.get("impl") == "reference":
            t.add(Row([_data_label(r), str(r["lambda"]), "oracle (exact, f64)", _num(_phase(r, "solve")), "—",
                       _num(r.get("rms_g"))]))
        elif r.get("solver") in ("cg", "mg_pcg", "eigen_cg", "gpu_cg_gather", "gpu_cg_matrix_free", "gpu_mg_pcg"):
            t.add(Row([_data_label(r), str(r["lambda"]), f"{r['solver']} ({_where(r)})",
                       _num(_seed_time(r)), _rms_at_seed(r), _rms_final(r)]))
    if not t.data_rows("ours"):
        t.add(Row(["(ours)"], kind="missing", note="no 2-D records at 20 % top |Laplacian| in these runs"))
    return t


# The solvers of the 3-D multigrid tables: the seed's schedule, the single grid and ours.
MG_TABLE_SOLVERS = ("mg_seed", "cg", "mg_pcg", "jacobi_damped", "gpu_mg_seed", "gpu_cg_matrix_free", "gpu_mg_pcg")


TABLE4_MG = {"N": 3, "N0": 10, "N1": 10, "N2": 10, "M": 2, "M0": 10, "M1": 5, "M2": 10, "P": 2}
TABLE5_MG = {"N": 3, "N0": 2, "N1": 2, "N2": 2, "M": 2, "M0": 2, "M1": 2, "M2": 2, "P": 2}


def _schedule_is(r: dict, params: dict) -> bool:
    """A multigrid record ran these parameters; a record of another solver has none to differ."""
    mg = r.get("mg")
    return mg is None or all(mg.get(k) == v for k, v in params.items())


def _rms_marked(r: dict) -> str:
    """RMS_g where the run ended (after the seed's count where recorded); an unconverged
    run says so beside its number, so that its time is not read as a finished one."""
    at = (r.get("at_seed_iterations") or {}).get("rms_g")
    rms = at if at is not None else r.get("rms_g")
    status = r.get("solve_status")
    if status == "diverged":
        return f"diverged (it {r.get('iterations')})"
    if status not in (None, "converged"):
        return f"{_num(rms)} (unconv., {r.get('iterations')} it)"
    return _num(rms)


def _mg_table(runs, key: str, title: str, seed_rows: list[tuple[str, list[float]]], caption: str,
              select=lambda r: True, missing: str = "no 3-D records in these runs") -> Table:
    cols = [Column("solver / hardware"), Column("data")]
    for pct in (20, 30, 50):
        cols += [Column(f"{pct} % whole run", "s", True), Column(f"{pct} % device", "s", True),
                 Column(f"{pct} % RMS_g", "%", True)]
    t = Table(key, title, caption, cols)
    for label, values in seed_rows:
        cells = [label, SEED[key.replace("scattered_", "")].get("data", "")]
        for v in values:
            cells += [f"{v:.2f}", "—", "—"]
        t.add(Row(cells, kind="seed"))
    groups: dict[tuple, dict[float, dict]] = {}
    to_tolerance = False
    for r in _ok(_unblocked(_all(runs))):
        if r.get("dims") == 3 and r.get("solver") in MG_TABLE_SOLVERS and select(r):
            groups.setdefault((r["solver"], _data_label(r), _where(r)), {})[float(r["fraction"])] = r
    for (solver, data, where), by_f in sorted(groups.items()):
        cells = [f"{solver} ({where})", data]
        for f in (0.2, 0.3, 0.5):
            r = by_f.get(f)
            if r is None:
                cells += ["—", "—", "—"]
                continue
            whole, tol = _whole_run(r)
            to_tolerance |= tol
            device = _phase(r, "device_seed_iterations")
            cells += [_num(whole) + (" ‡" if tol else ""), _num(device) if device is not None else "—",
                      _rms_marked(r)]
        t.add(Row(cells))
    t.notes.append("Whole run: the host's time of one run as the seed timed it (the CPU's assembly where the solver "
                   "takes its system, the solver's preparation and the seed's schedule or count); device: the GPU's "
                   "time of the assembly and the same iterations.")
    if to_tolerance:
        t.notes.append("‡ The solver has no fixed-count solve (it runs to the tolerance only): its whole run to "
                       "the tolerance.")
    if not t.data_rows("ours"):
        t.add(Row(["(ours)"], kind="missing", note=missing))
    if not any(r.get("solver", "").startswith("gpu_") for by_f in groups.values() for r in by_f.values()):
        t.add(Row(["GPU (H100)"], kind="missing", note=NO_GPU))
    return t


TABLE4_MISSING = ("no 3-D record at Table 4's schedule below 256^3 in these runs (a scattered suite sweep with "
                  "Table 4's `mg` on a 64^3-class volume)")


def table4(runs) -> Table:
    s = SEED["table4"]
    return _mg_table(runs, "scattered_table4", "Seed 003, Table 4: multigrid against a single grid (3-D)",
                     [("mg_seed (GT 220)", s["mg_seed"]), ("single grid, 100 it. (GT 220)", s["single_grid_100"])],
                     "Whole run and device time at the seed's schedule (mg_seed: Table 4's parameters N=3, N0=N1=N2=10, "
                     "M=2, M0=10, M1=5, M2=10, P=2, 70 fine iterations; single grid: 100 iterations).",
                     select=lambda r: _schedule_is(r, TABLE4_MG) and r.get("shape") != [256, 256, 256],
                     missing=TABLE4_MISSING)


def table5_6(runs) -> list[Table]:
    s5, s6 = SEED["table5"], SEED["table6"]
    t5 = _mg_table(runs, "scattered_table5", "Seed 003, Table 5: multigrid at 256^3",
                   [("GT 220", s5["GT 220"]), ("GTX 285", s5["GTX 285"])],
                   "Skull 256^3, N=3 and every other parameter 2, P=2. Ours: runs at 256^3 (a synthetic smooth "
                   "volume; a GPU's, as 256^3 has no CPU system): the whole run first (preparation + the schedule "
                   "(mg_seed) or 100 iterations (CG)), the device time of assembly and iterations beside it, and the "
                   "RMS_g it reached.",
                   select=lambda r: _schedule_is(r, TABLE5_MG) and r.get("shape") == [256, 256, 256],
                   missing="no 3-D record at Table 5's schedule on 256^3 in these runs (the scattered suite's volume256 "
                           "sweep)")
    skull = next(row for row in SEED["table9"] if row[0].startswith("Skull"))
    t5.notes.append(f"The seed prints no RMS_g in Table 5; its Table 9 gives Skull at 20 % samples RMS_g {skull[4]} "
                    f"after {skull[3]} s. A time beside an unconverged RMS_g is not the time of a finished "
                    "reconstruction.")
    t6 = _mg_table(runs, "scattered_table6", "Seed 003, Table 6: multigrid on two GPUs",
                   [("GT 220", s6["GT 220"]), ("GTX 285", s6["GTX 285"])],
                   "Neghip 64^3 with Table 4's parameters on the seed's two cards.",
                   select=lambda r: _schedule_is(r, TABLE4_MG) and r.get("shape") != [256, 256, 256],
                   missing=TABLE4_MISSING)
    return [t5, t6]


def table9(runs) -> Table:
    """Seed Table 9 (volumes in blocks): each blocked record beside its unblocked run. CPU
    solvers: wall time of every block's assembly and solve against the unblocked CPU
    assembly + solve, RMS_g against the oracle's. GPU (matrix-free) solvers: device time
    (assembly + setup + solve, summed over the blocks) against the same solver's unblocked
    run, RMS_g against its own (no oracle at 256^3; the record's rms_g_change_basis)."""
    t = Table("scattered_table9", "Seed 003, Table 9: volumes and blocks",
              "lambda, blocks, time and RMS_g; ours: each solver block by block beside its unblocked run "
              "(CPU: wall time of assembly + solve, RMS_g change against the oracle's; GPU: wall time of the "
              "blocks' whole runs, up to 8 at once, against the unblocked whole run, change against the same "
              "solver's unblocked RMS_g). ratio = blocked / unblocked time.",
              [Column("data"), Column("λ", "", True), Column("blocks"), Column("solver"), Column("time", "s", True),
               Column("unblocked time", "s", True), Column("ratio", "×", True), Column("RMS_g", "%", True),
               Column("unblocked RMS_g", "%", True), Column("change", "%", True)])
    for name, lam, blocks, time_s, rms in SEED["table9"]:
        t.add(Row([name, str(lam), blocks, "seed (GT 220)", f"{time_s:.3f}", "—", "—", f"{rms:.3f}", "—", "—"],
                  kind="seed"))
    blocked = _ok(_blocked(_all(runs)))
    for r in blocked:
        ch = r.get("rms_g_change")
        t.add(Row([_data_label(r), str(r["lambda"]), "x".join(map(str, r["blocks"])) + f" (p={r.get('block_padding')})",
                   f"{r['solver']} ({_where(r)})", _num(_phase(r, "blocked_assemble_solve")),
                   _num(r.get("unblocked_time")), _num(r.get("time_ratio")), _rms_final(r),
                   _num(r.get("unblocked_rms_g")),
                   "—" if r.get("solve_status") == "diverged" else _num(ch * 100 if ch is not None else None)]))
    if not t.data_rows("ours"):
        t.add(Row(["(ours)"], kind="missing", note="no blocked records in these runs (a scattered suite's `blocks` key, e.g. the scattered suite's volume256 sweep)"))
    if not any(_on_gpu(r) for r in blocked):
        t.add(Row(["GPU"], kind="missing", note=NO_GPU + "; a suite's `blocks` key with gpu_cg_matrix_free, gpu_mg_seed or "
                  "gpu_mg_pcg (also with `cpu_system` false)"))
    return t


def table7_10_1() -> list[Table]:
    """Tables whose data sets have no stand-in run yet: the seed's numbers, and why ours are missing."""
    t7 = Table("scattered_table7", "Seed 003, Table 7: against the CPU codes",
               "time / RMS_g: CUDA (GTX 285), Tech2011 (Core 2 Quad Q9400), Vuçini et al. (dual-core 2.7 GHz).",
               [Column("data set"), Column("CUDA", "s / RMS_g"), Column("Tech2011", "s / RMS_g"),
                Column("Vuçini", "s / RMS_g")])
    for name, *cells in SEED["table7"]:
        t7.add(Row([name] + [f"{a} / {b}" for a, b in cells], kind="seed"))
    t7.add(Row(["ours"], kind="missing", note="not run: no stand-in of these shapes (256^3 and larger) has been "
                                              "run (a 2-core CPU needs hours; the GPU MG-PCG at 256^3 does not "
                                              "finish, systems/scattered/README.md)"))
    t10 = Table("scattered_table10", "Seed 003, Table 10: non-uniform data sets",
                "lambda, time and RMS at the samples.",
                [Column("data set"), Column("λ", "", True), Column("time", "s", True), Column("RMS", "", True)])
    for name, lam, time_s, rms in SEED["table10"]:
        t10.add(Row([name, str(lam), str(time_s), str(rms)], kind="seed"))
    t10.add(Row(["ours"], kind="missing", note="off-grid stand-in sets (Gaussian mixture density) are not built yet"))
    t1 = Table("scattered_table1", "Seed 003, Table 1: where the time goes",
               "Share of the total time per phase, Natural Convection 61^3, GT 220.",
               [Column("phase"), Column("seed", "%", True)])
    for phase, share in SEED["table1"]["share_percent"].items():
        t1.add(Row([phase, f"{share:.2f}"], kind="seed"))
    t1.add(Row(["ours"], kind="missing", note="not measured: the records time the CPU assembly as pattern, "
                                              "F^T F with F^T f, and R, and the device assembly as one phase, so "
                                              "the seed's split of F^T F from F^T f has no counterpart"))
    return [t1, t7, t10]


def report_items(runs: list, plot_dir: str | Path) -> list:
    """Every seed table and the figures, for the runs that hold scattered records (none: [])."""
    # Imported here: the figures' module reads this module's record accessors.
    from .plots.scattered import plot_convergence, plot_image, plot_lambda, plot_mg_sweep
    if not _all(runs):
        return []
    return [table2(runs), table8(runs), table4(runs), *table5_6(runs), table9(runs), *table7_10_1(),
            *plot_convergence(runs, plot_dir), plot_lambda(runs, plot_dir), plot_mg_sweep(runs, plot_dir),
            plot_image(runs, plot_dir)]
