"""python -m studies.f64_path --bin build/bin/splinebench [--machine M] [--impls gpu_f64]

The float64 paths against the oracle: every implementation with an f64 path (`splinebench
list --json` says `"f64": true`; the reference is the oracle itself) prefilters and
interpolates fresh float64 white noise with float64 arrays in and out (the module's
spline_filter / map_coordinates, or `splinebench prefilter` / `interpolate` on float64
files: studies/README.md), for D = 1..6 and every mode, at float64 coordinates inside
and outside the grid; the reference implementation (the f64 oracle) does the same on the
same arrays. Records: the prefilter's relative L2 difference and the interpolation's max
difference / max|f|, against the 1e-12 the f64 paths promise.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from . import data
from .common import Splinebench, StudyError, StudyRun, finite_or_none
from .report_common import md_table, write_section

SHAPES = {1: (4099,), 2: (130, 97), 3: (41, 37, 33), 4: (17, 13, 11, 9), 5: (9, 8, 7, 6, 5), 6: (6, 5, 5, 4, 4, 3)}
MODES = ("mirror", "half", "periodic")
QUERIES = 20000
BOUND = 1e-12


def run_study(tool: Splinebench, machine: str, impls: list[str] | None, results_root: Path | None = None) -> StudyRun:
    entries = [e for e in tool.available() if e.get("f64") and e["name"] != "reference"]
    if impls:
        entries = [e for e in entries if e["name"] in impls]
    if not entries:
        raise StudyError("no implementation with an f64 path is available here (besides the reference)")
    run = StudyRun.create("f64_path", machine, tool, {"impls": [e["name"] for e in entries], "queries": QUERIES,
                                                        "bound": BOUND}, results_root)
    rng = np.random.default_rng(64)
    for dims, shape in SHAPES.items():
        for mode in MODES:
            f = rng.uniform(-1, 1, shape)
            # Inside and outside the grid: [-(N-1)/2 - 2, 3(N-1)/2 + 2] per axis.
            x = np.stack([rng.uniform(-(n - 1) / 2 - 2, 3 * (n - 1) / 2 + 2, QUERIES) for n in shape])
            c_ref = tool.prefilter(f, "reference", mode)
            v_ref = tool.interpolate(f, x, "reference", mode, prefilter=True)
            for entry in entries:
                base = {"operation": "f64_path", "impl": entry["name"], "device": entry["device"],
                        "evaluation": entry.get("evaluation", ""), "dims": dims, "shape": list(shape),
                        "mode": mode, "queries": QUERIES, "bound": BOUND}
                start = time.perf_counter()
                try:
                    c = tool.prefilter(f, entry["name"], mode)
                    v = tool.interpolate(f, x, entry["name"], mode, prefilter=True)
                except StudyError as exc:
                    run.add({**base, "status": "error", "message": str(exc)})
                    continue
                if c.dtype != np.float64 or v.dtype != np.float64:
                    run.add({**base, "status": "error", "message": f"outputs are {c.dtype}/{v.dtype}, not float64"})
                    continue
                prefilter = float(np.linalg.norm(c - c_ref) / np.linalg.norm(c_ref))
                interp = float(np.max(np.abs(v - v_ref)) / np.max(np.abs(f)))
                ok = prefilter <= BOUND and interp <= BOUND
                run.add({**base, "status": "ok", "seconds": time.perf_counter() - start,
                         "prefilter_rel_l2": finite_or_none(prefilter), "interp_max_rel_to_maxf": finite_or_none(interp),
                         "verdict": "pass" if ok else "fail"})
    run.write()
    write_report(run.context, run.records, run.report_dir)
    return run


def write_report(context: dict, records: list[dict], out: Path) -> Path:
    """The study's section (section.md, section.html) in `out`, from its records alone, so
    reports.machine rebuilds it from a committed run."""
    bound = float((context.get("arguments") or {}).get("bound", BOUND))
    rows = [[r["impl"], r["dims"], "x".join(map(str, r["shape"])), r["mode"],
             f"{r['prefilter_rel_l2']:.2e}" if r.get("prefilter_rel_l2") is not None else "—",
             f"{r['interp_max_rel_to_maxf']:.2e}" if r.get("interp_max_rel_to_maxf") is not None else "—",
             r.get("verdict", r["status"])] for r in records]
    table = md_table(["implementation", "D", "shape", "mode", "prefilter rel. L2", "interp max / max|f|",
                      f"verdict (≤ {bound:g})"], rows)
    per_impl = []
    for impl in sorted({r["impl"] for r in records}):
        mine = [r for r in records if r["impl"] == impl]
        ok = [r for r in mine if r["status"] == "ok"]
        bad = [r for r in mine if r.get("verdict") != "pass"]
        worst_p = max((r["prefilter_rel_l2"] or 0 for r in ok), default=0)
        worst_i = max((r["interp_max_rel_to_maxf"] or 0 for r in ok), default=0)
        per_impl.append(f"{impl}: {len(mine) - len(bad)} of {len(mine)} within {bound:g}, at most {worst_p:.1e} "
                        f"(prefilter) and {worst_i:.1e} (interpolation)"
                        + (" (exceeded: " + ", ".join(f"D = {r['dims']} {r['mode']}" for r in bad) + ")" if bad else ""))
    paragraph = ("Through float64 files, each f64 path against the oracle over D = 1..6 and every mode: the "
                 "prefilter's relative L2 difference and the interpolation's max difference / max|f| at queries "
                 "inside and outside the grid. " + "; ".join(per_impl) + ".")
    return write_section(out, "The f64 paths against the oracle", context, paragraph, table, [])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.f64_path", description=__doc__.split("\n\n")[1])
    parser.add_argument("--bin", type=Path, default=Path("build/bin/splinebench"))
    parser.add_argument("--machine", default=None, help="results label (default: short host name)")
    parser.add_argument("--impls", nargs="+", default=None)
    parser.add_argument("--results", type=Path, default=None)
    args = parser.parse_args(argv)
    try:
        run = run_study(Splinebench(args.bin), args.machine or data.short_host(), args.impls, args.results)
    except StudyError as exc:
        print(f"studies.f64_path: error: {exc}", file=sys.stderr)
        return 2
    print(run.folder)
    return 0 if all(r.get("verdict") == "pass" for r in run.records) else 1


if __name__ == "__main__":
    sys.exit(main())
