"""python -m studies.speed_accuracy --bin build/bin/splinebench [--machine M]

Throughput against error, one point per implementation, on the workloads a user picks
an implementation for: 3-D 256^3 random lookups (16.7 M queries), the thesis' 4-D case
(64^4 grid and queries) and a 512^3 prefilter. Runs the `speed_accuracy` suite (every
point is a standard record: median throughput, error against the f64 oracle), then
measures SciPy's float64 `map_coordinates(order=3)` / `spline_filter` as a reference
point: its error against the same oracle (the reference implementation, through the
module or `splinebench interpolate`, on the same float64 data) and its single-thread throughput on
this machine, on smaller batches of the same shapes (stated in the table).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import ndimage

from reports.implementations import evaluation_of
from reports.plots import style

from . import data
from .common import Splinebench, StudyError, write_atomic
from .report_common import figure, md_table, write_section
from .suite_study import load_harness_run, run_suite, section_context

# (workload key, shape, mode, SciPy queries (0: prefilter only)).
SCIPY_CASES = (("eval-3d", (256, 256, 256), "mirror", 2 ** 20),
               ("eval-4d", (64, 64, 64, 64), "half", 2 ** 18),
               ("prefilter-3d", (256, 256, 256), "mirror", 0))
# The SciPy reference points, beside the suite's results in its run folder.
SCIPY_FILE = "scipy_points.json"
SCIPY_MODE = {"mirror": "mirror", "half": "reflect", "periodic": "grid-wrap"}
TITLES = {"eval-3d": "3-D 256³, 16.7 M random lookups", "eval-4d": "4-D 64⁴, 64⁴ lookups (thesis)",
          "prefilter-3d": "prefilter 512³"}


def workload(record) -> str | None:
    if record.queries == 0 and record.dims == 3:
        return "prefilter-3d"
    if record.queries > 0 and record.dims == 3:
        return "eval-3d"
    if record.queries > 0 and record.dims == 4:
        return "eval-4d"
    return None


def scipy_points(tool: Splinebench) -> list[dict]:
    """SciPy's float64 error (against the reference implementation on the same data) and
    single-thread throughput."""
    points = []
    rng = np.random.default_rng(7)
    for key, shape, mode, queries in SCIPY_CASES:
        f = rng.uniform(-1, 1, shape)
        start = time.perf_counter()
        coeffs = ndimage.spline_filter(f, order=3, mode=SCIPY_MODE[mode])
        prefilter_s = time.perf_counter() - start
        if queries == 0:
            ref = tool.prefilter(f, "reference", mode)
            err = float(np.linalg.norm(coeffs - ref) / np.linalg.norm(ref))
            points.append({"workload": key, "shape": list(shape), "queries": 0, "error": err,
                           "error_kind": "prefilter rel L2", "rate": f.size / prefilter_s,
                           "rate_kind": "samples/s", "seconds": prefilter_s})
            continue
        x = np.stack([rng.uniform(0, n - 1, queries) for n in shape])
        start = time.perf_counter()
        values = ndimage.map_coordinates(coeffs, x, order=3, mode=SCIPY_MODE[mode], prefilter=False)
        eval_s = time.perf_counter() - start
        ref = tool.interpolate(f, x, "reference", mode, prefilter=True)
        points.append({"workload": key, "shape": list(shape), "queries": queries,
                       "error": float(np.max(np.abs(values - ref)) / np.max(np.abs(f))),
                       "error_kind": "max |s - s_ref| / max|f|", "rate": queries / eval_s,
                       "rate_kind": "queries/s", "seconds": eval_s})
    return points


def write_report(folder: Path, scipy: list[dict], out: Path | None = None) -> Path:
    """`out`: where the section goes (default: the run's report/ folder; reports.machine
    writes it beside the machine's report instead)."""
    out = out if out is not None else folder / "report"
    run = load_harness_run(folder)
    records = [r for r in run.records if r.ok and workload(r)]
    keys = [k for k in TITLES if any(workload(r) == k for r in records)]
    fig, axes = style.panels(max(1, len(keys)))
    rows = []
    # One legend entry per implementation (its registry look), instead of a text label at
    # every point: labels of close points piled up.
    for ax, key in zip(axes, keys):
        for r in (r for r in records if workload(r) == key):
            if key == "prefilter-3d":
                err, rate = r.accuracy_value("prefilter", "rel_l2"), r.throughput.get("prefilter_samples_per_s")
            else:
                err, rate = r.accuracy_value("interp", "max_rel_to_maxf"), r.throughput.get("queries_per_s")
            if err is None or not rate:
                continue
            ax.scatter([max(err, 1e-17)], [rate], color=style.colour(r.impl), marker=style.marker(r.impl), s=40,
                       zorder=3, label=r.impl, edgecolors="white", linewidths=0.5)
            rows.append([TITLES[key], r.impl, r.device, evaluation_of(run, r.impl), f"{err:.2e}", f"{rate:.3g}",
                         "this run (suite speed_accuracy)"])
        for p in (p for p in scipy if p["workload"] == key):
            ax.scatter([max(p["error"], 1e-17)], [p["rate"]], color=style.colour("scipy"),
                       marker=style.marker("scipy"), s=70, zorder=4, label="SciPy f64 (1 thread)")
            what = (f"same grid, {p['queries']} queries" if p["queries"]
                    else "prefilter of " + "x".join(map(str, p["shape"])))
            rows.append([TITLES[key], "SciPy float64", "cpu", "f64", f"{p['error']:.2e}", f"{p['rate']:.3g}",
                         f"SciPy, one thread, {what}"])
        style.log_axes(ax)
        ax.set_title(style.panel_title(TITLES[key]))
        ax.set_xlabel("prefilter ‖c − c_ref‖₂ / ‖c_ref‖₂ (dimensionless)" if key == "prefilter-3d"
                      else "max |s − s_ref| / max|f| (dimensionless)")
        ax.set_ylabel("throughput (samples/s)" if key == "prefilter-3d" else "throughput (queries/s)")
    style.title_and_legend(fig, axes, "Speed against accuracy")
    figs = [figure(fig, out, "speed_accuracy", "Up and left is better. Error against the f64 "
                   "oracle on white noise; throughput from the median repetition (SciPy: one timed call).")]
    table = md_table(["workload", "implementation", "device", "evaluation", "error", "throughput (/s)", "source"],
                     rows)
    context = section_context(run, "speed_accuracy")
    return write_section(out, "Speed against accuracy", context, _paragraph(rows), table, figs,
                         command=f"python -m studies.speed_accuracy --machine {run.context.get('machine')}")


def _paragraph(rows: list[list[str]]) -> str:
    """What the points say, per workload: the fastest and the most accurate, and what the
    fastest gives up."""
    parts = []
    for title in dict.fromkeys(r[0] for r in rows):
        ours = [r for r in rows if r[0] == title and not r[1].startswith("SciPy")]
        if not ours:
            continue
        fastest = max(ours, key=lambda r: float(r[5]))
        accurate = min(ours, key=lambda r: float(r[4]))
        text = f"{title}: fastest {fastest[1]} ({float(fastest[5]):.3g}/s, error {float(fastest[4]):.1e})"
        if accurate is not fastest:
            text += (f", most accurate {accurate[1]} ({float(accurate[5]):.3g}/s, error {float(accurate[4]):.1e}); "
                     f"the fastest is {float(fastest[5]) / float(accurate[5]):.2f}x faster at "
                     f"{float(fastest[4]) / max(float(accurate[4]), 1e-300):.3g}x the error")
        scipy = [r for r in rows if r[0] == title and r[1].startswith("SciPy")]
        if scipy:
            text += f"; SciPy float64: {float(scipy[0][5]):.3g}/s at {float(scipy[0][4]):.1e}"
        parts.append(text + ".")
    return " ".join(parts) + (" Up and left is better: a point that another beats on both axes is not worth "
                              "choosing for that workload.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.speed_accuracy", description=__doc__.split("\n\n")[1])
    parser.add_argument("--bin", type=Path, default=Path("build/bin/splinebench"))
    parser.add_argument("--machine", default=None, help="results label (default: short host name)")
    parser.add_argument("--impls", nargs="+", default=None, help="implementations (default: the suite's)")
    parser.add_argument("--results", type=Path, default=None, help="results root (default: results/)")
    parser.add_argument("--scipy-into", type=Path, default=None, metavar="RUN_DIR",
                        help="only measure the SciPy reference points into an existing speed_accuracy run")
    parser.add_argument("--report-only", type=Path, default=None, metavar="RUN_DIR",
                        help="only (re)write the report section of an existing speed_accuracy run")
    args = parser.parse_args(argv)
    try:
        if args.report_only:
            points = args.report_only / SCIPY_FILE
            scipy = json.loads(points.read_text()) if points.is_file() else []
            print(write_report(args.report_only, scipy))
            return 0
        tool = Splinebench(args.bin)
        folder = args.scipy_into or run_suite(tool, "speed_accuracy", args.machine or data.short_host(),
                                              args.results, args.impls)
        scipy = scipy_points(tool)
        write_atomic(folder / SCIPY_FILE, (json.dumps(scipy, indent=1) + "\n").encode())
        if args.scipy_into:
            return 0
        print(write_report(folder, scipy))
    except StudyError as exc:
        print(f"studies.speed_accuracy: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
