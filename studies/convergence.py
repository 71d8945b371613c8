"""python -m studies.convergence --bin build/bin/splinebench [--machine M] [--dims 1 2 3 4]

Convergence of the interpolating cubic spline to a smooth function: the error against
the analytic function itself (not against the oracle spline) as the grid spacing h
shrinks, for every implementation available here and for each precision it has
(float32 through the common interface; float64 where an implementation has an f64
path). For a smooth function whose boundary extension is smooth, the error is O(h^4);
an f32 implementation follows that line until its round-off floor (~1e-7 of max|f|
times the prefilter's gain) takes over.

Function: `cos_product` (datasets/README.md: cos(2 pi m_d x_d) with m_d = 1, 2, 1, 2,
whose mirror, half and periodic extensions are all smooth), mode `mirror`, 4096
uniformly random query points of the unit cube, the same points for every h. The
exact value is taken at the float32-rounded coordinate an f32 implementation receives,
so coordinate rounding is not counted as interpolation error.

Fitted order: least-squares slope of log(error) against log(h) over the points in the
asymptotic, truncation-dominated range: from h = 1/20 (10 samples per period of the
function's fastest cosine) down to h_floor, the h
at which the local order (between neighbouring h) first drops below 2 (round-off takes
over), keeping only errors at least 20 times the smallest error of the series when such
a floor is reached.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from . import data
from .common import Splinebench, StudyError, StudyRun, finite_or_none
from .convergence_report import write_convergence_report

FUNCTION, MODE = "cos_product", "mirror"
QUERIES = 4096
FLOOR_MARGIN = 20
# cos_product's fastest factor is cos(4 pi x): h <= 1/20 gives at least 10 samples per
# period, where the h^4 term dominates the error (coarser grids are pre-asymptotic).
ASYMPTOTIC_H = 1 / 20
# Grid extents per D (sample count per axis); h = 1 / (N - 1) under mirror.
SIZES = {1: [8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256, 512, 1024, 2048, 4096],
         2: [8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256, 512],
         3: [8, 12, 16, 24, 32, 48, 64, 96, 128],
         4: [8, 12, 16, 21, 24, 28, 32, 40, 48, 56]}


def fit_order(h: list[float], err: list[float]) -> dict[str, float | int | None]:
    """The fitted order over the truncation-dominated range (module docstring)."""
    pts = [(a, e) for a, e in sorted(zip(h, err), reverse=True) if e is not None and e > 0]
    if len(pts) < 3:
        return {"order": None, "h_floor": None, "points": len(pts)}
    local = [np.log(pts[i][1] / pts[i + 1][1]) / np.log(pts[i][0] / pts[i + 1][0]) for i in range(len(pts) - 1)]
    h_floor = None
    floor = 0.0
    for i, p in enumerate(local):
        if i >= 1 and p < 2:
            h_floor = pts[i][0]
            floor = min(e for _, e in pts)
            break
    # Above the floor by FLOOR_MARGIN, so round-off is a small part of every fitted error.
    used = [(a, e) for a, e in pts if a <= ASYMPTOTIC_H and e >= FLOOR_MARGIN * floor
            and (h_floor is None or a >= h_floor)]
    if len(used) < 2:
        return {"order": None, "h_floor": h_floor, "points": len(used)}
    x = np.log([a for a, _ in used])
    y = np.log([e for _, e in used])
    slope = float(np.polyfit(x, y, 1)[0])
    return {"order": slope, "h_floor": h_floor, "points": len(used)}


def unit_queries(dims: int, seed: int = 20261125) -> np.ndarray:
    return np.random.default_rng(seed + dims).random((dims, QUERIES))


def analytic_point(tool: Splinebench, dims: int, n: int,
                   coords: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The function's samples on the n^dims grid per precision, and its exact values at
    each precision's coordinates, in two calls of `splinebench analytic`: the float32
    samples are the float64 ones rounded once (what its --float32 writes), and float32
    coordinates widen to double exactly (as it reads them), so one --at call serves both."""
    shape = (n,) * dims
    f64 = tool.analytic(FUNCTION, shape, MODE)
    both = tool.analytic(FUNCTION, shape, MODE, at=np.concatenate([coords["f64"], coords["f32"].astype(np.float64)],
                                                                  axis=1))
    count = coords["f64"].shape[1]
    return {"f64": f64, "f32": f64.astype(np.float32)}, {"f64": both[:count], "f32": both[count:]}


def run_study(tool: Splinebench, machine: str, dims_list: list[int], impls: list[str] | None,
              results_root: Path | None = None) -> StudyRun:
    available = tool.available()
    names = [e["name"] for e in available]
    if impls:
        unknown = sorted(set(impls) - set(names))
        if unknown:
            raise StudyError(f"not available here: {', '.join(unknown)} (splinebench list says why)")
        available = [e for e in available if e["name"] in impls]
    run = StudyRun.create("convergence", machine, tool, {"function": FUNCTION, "mode": MODE, "queries": QUERIES,
                                                           "dims": dims_list, "sizes": {d: SIZES[d] for d in dims_list},
                                                           "impls": [e["name"] for e in available]}, results_root)
    for dims in dims_list:
        unit = unit_queries(dims)
        for n in SIZES[dims]:
            h = 1.0 / (n - 1)
            coords = {"f64": unit * (n - 1)}
            coords["f32"] = coords["f64"].astype(np.float32)
            samples, exact = analytic_point(tool, dims, n, coords)
            max_f = float(np.max(np.abs(samples["f64"])))
            for entry in available:
                precisions = ["f32"] + (["f64"] if entry.get("f64") else [])
                for precision in precisions:
                    start = time.perf_counter()
                    base = {"operation": "convergence", "impl": entry["name"], "device": entry["device"],
                            "evaluation": entry.get("evaluation", ""), "precision": precision, "dims": dims,
                            "n": n, "h": h, "function": FUNCTION, "mode": MODE, "queries": QUERIES}
                    try:
                        values = tool.interpolate(samples[precision], coords[precision], entry["name"], MODE,
                                                  prefilter=True)
                    except StudyError as exc:
                        run.add({**base, "status": "error", "message": str(exc)})
                        continue
                    err = np.abs(values.astype(np.float64) - exact[precision])
                    run.add({**base, "status": "ok", "seconds": time.perf_counter() - start,
                             "max_abs_rel_to_maxf": finite_or_none(np.max(err) / max_f),
                             "rms_rel_to_maxf": finite_or_none(np.sqrt(np.mean(err ** 2)) / max_f)})
    summarize(run)
    run.write()
    write_convergence_report(run.folder, run.context, run.records)
    return run


def summarize(run: StudyRun) -> None:
    """One fit per (implementation, precision, D), kept in the context."""
    fits = []
    keys = sorted({(r["impl"], r["precision"], r["dims"]) for r in run.records if r["status"] == "ok"})
    for impl, precision, dims in keys:
        rows = [r for r in run.records if r["status"] == "ok" and (r["impl"], r["precision"], r["dims"]) ==
                (impl, precision, dims)]
        fit = fit_order([r["h"] for r in rows], [r["max_abs_rel_to_maxf"] for r in rows])
        fits.append({"impl": impl, "precision": precision, "dims": dims, **fit,
                     "floor": min(r["max_abs_rel_to_maxf"] for r in rows if r["max_abs_rel_to_maxf"] is not None)})
    run.context["fits"] = fits


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.convergence", description=__doc__.split("\n\n")[1])
    parser.add_argument("--bin", type=Path, default=Path("build/bin/splinebench"), help="splinebench executable")
    parser.add_argument("--machine", default=None, help="results label (default: short host name)")
    parser.add_argument("--dims", nargs="+", type=int, default=[1, 2, 3, 4], choices=sorted(SIZES))
    parser.add_argument("--impls", nargs="+", default=None, help="implementations (default: every one available)")
    parser.add_argument("--results", type=Path, default=None, help="results root (default: results/)")
    parser.add_argument("--report-only", type=Path, default=None, metavar="RUN_DIR",
                        help="only (re)write the report section of an existing convergence run")
    args = parser.parse_args(argv)
    if args.report_only:
        from .common import load_study
        try:
            body = load_study(args.report_only)
        except StudyError as exc:
            print(f"studies.convergence: error: {exc}", file=sys.stderr)
            return 2
        print(write_convergence_report(args.report_only, body["context"], body["records"]))
        return 0
    try:
        run = run_study(Splinebench(args.bin), args.machine or data.short_host(), args.dims, args.impls, args.results)
    except StudyError as exc:
        print(f"studies.convergence: error: {exc}", file=sys.stderr)
        return 2
    print(run.folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
