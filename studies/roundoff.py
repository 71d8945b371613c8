"""python -m studies.roundoff --bin build/bin/splinebench [--machine M] [--impls ...]

Round-off of the f32 implementations against the f64 oracle as the line length N and
the dimension D grow: the prefilter's relative L2 error and the interpolation's worst
error / max|f|, on white noise (the prefilter's worst case) and smooth data, next to the
bounds the tolerances use (f32_accuracy.hpp: the pass-by-pass prefilter bound, which
grows about 2x per axis, and the 1e-5 max|f| evaluation estimate). Runs the
`roundoff` suite (harness/suites/roundoff.json), so every number is a standard record.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from matplotlib.lines import Line2D

from reports.implementations import evaluation_of
from reports.plots import style

from . import data

from .common import Splinebench, StudyError
from .report_common import figure, md_table, write_section
from .suite_study import load_harness_run, run_suite, section_context

METRICS = (("prefilter", "rel_l2", "prefilter_rel_l2", "prefilter ‖c − c_ref‖ / ‖c_ref‖"),
           ("interp", "max_rel_to_maxf", "interp_max_rel_to_maxf", "interpolation max |s − s_ref| / max|f|"))


def write_report(folder: Path, out: Path | None = None) -> Path:
    """`out`: where the section goes (default: the run's report/ folder; reports.machine
    writes it beside the machine's report instead)."""
    out = out if out is not None else folder / "report"
    run = load_harness_run(folder)
    records = [r for r in run.records if r.ok]
    dims_list = sorted({r.dims for r in records})
    impls = list(dict.fromkeys(r.impl for r in records))
    figures = []
    for part, key, tol_key, label in METRICS:
        cols = 3
        rows_n = (len(dims_list) + cols - 1) // cols
        fig, axes = style.panels(len(dims_list), max_cols=cols)
        for ax, dims in zip(axes, dims_list):
            for impl in impls:
                for data_kind, line in (("noise", "-"), ("smooth", ":")):
                    pts = sorted((r.shape[0], r.accuracy_value(part, key)) for r in records
                                 if r.impl == impl and r.dims == dims and r.data == data_kind
                                 and r.accuracy_value(part, key) is not None)
                    if pts:
                        ax.loglog([n for n, _ in pts], [max(e, 1e-18) for _, e in pts], line,
                                  marker=style.marker(impl), markersize=3.5, color=style.colour(impl),
                                  label=impl if data_kind == "noise" else "_" + impl, linewidth=1)
            bound = sorted({(r.shape[0], float(r.tolerance[tol_key])) for r in records
                            if r.dims == dims and r.impl in ("cpu_scalar", "gpu_naive", "cpu_simd")
                            and isinstance(r.tolerance.get(tol_key), (int, float))})
            if bound:
                ax.loglog([n for n, _ in bound], [b for _, b in bound], color="k", linewidth=1.5, alpha=0.6,
                          label="f32 tolerance (f32_accuracy.hpp)")
            ax.set_title(f"D = {dims}")
            ax.set_xlabel("samples per axis N (samples)")
            ax.set_ylabel(f"{label} (dimensionless)")
        style.title_and_legend(fig, axes, f"Round-off: {label} against N", [
            (Line2D([], [], color="#555", linestyle="-"), "white noise"),
            (Line2D([], [], color="#555", linestyle=":"), "smooth data")])
        figures.append(figure(fig, out, f"roundoff-{part}", f"{label} against N per D; solid: "
                              "noise, dotted: smooth data; black: the bound of the pass-by-pass f32 tolerance."))

    # Table: per D and N, on noise, the worst error of the f32 implementations against the
    # bound, and the f64 path beside them. Reduced-precision evaluations (8-bit texture
    # weights, 16-bit coefficients) have their own bounds and studies.
    kind = {name: _arithmetic(evaluation_of(run, name)) for name in {r.impl for r in records}}
    table_rows = []
    worst_ratio = defaultdict(float)
    for dims in dims_list:
        for n in sorted({r.shape[0] for r in records if r.dims == dims}):
            cell = [r for r in records if r.dims == dims and r.shape[0] == n and r.data == "noise"]
            f32 = [r for r in cell if kind.get(r.impl, "f32") == "f32"]
            f64 = [r for r in cell if kind.get(r.impl) == "f64"]
            row = [dims, n]
            for part, key, tol_key, _ in METRICS:
                worst = max(f32, key=lambda r: r.accuracy_value(part, key) or 0, default=None)
                if worst is None or worst.accuracy_value(part, key) is None:
                    row += ["—", "—", "—"]
                    continue
                value = worst.accuracy_value(part, key)
                tol = worst.tolerance.get(tol_key)
                ratio = value / tol if tol else None
                if ratio is not None:
                    worst_ratio[part] = max(worst_ratio[part], ratio)
                row += [f"{value:.2e} ({worst.impl})", f"{tol:.2e}" if tol else "—",
                        f"{ratio:.2f}" if ratio is not None else "—"]
            for part, key, _, _ in METRICS:
                values = [r.accuracy_value(part, key) for r in f64 if r.accuracy_value(part, key) is not None]
                row.append(f"{max(values):.1e}" if values else "—")
            table_rows.append(row)
    table = md_table(["D", "N", "f32 prefilter worst", "its tolerance", "ratio", "f32 interp worst",
                      "its tolerance", "ratio", "f64 path prefilter", "f64 path interp"], table_rows)
    context = section_context(run, "roundoff")
    paragraph = _paragraph(records, worst_ratio)
    return write_section(out, "Round-off against N and D", context, paragraph, table, figures,
                         command=f"python -m studies.roundoff --machine {run.context.get('machine')}")


def _arithmetic(evaluation: str) -> str:
    """"f32", "f64" or "reduced" (hardware filter weights, 16-bit coefficients) from a
    registry evaluation string; runs without one count as f32."""
    if evaluation.startswith("f64"):
        return "f64"
    if "linear filter" in evaluation or "coefficients" in evaluation:
        return "reduced"
    return "f32"


def _growth(values: dict[int, float]) -> float | None:
    """Geometric mean factor per added axis between the smallest and largest D."""
    dims = sorted(values)
    if len(dims) < 2 or values[dims[0]] <= 0:
        return None
    return (values[dims[-1]] / values[dims[0]]) ** (1 / (dims[-1] - dims[0]))


def _paragraph(records, worst_ratio) -> str:
    parts = []
    for data_kind in ("noise", "smooth"):
        rows = [r for r in records if r.data == data_kind and r.accuracy_value("prefilter", "rel_l2") is not None
                and "texture" not in r.impl and "f64" not in r.impl and "half" not in r.impl]
        if not rows:
            continue
        worst: dict[int, float] = defaultdict(float)
        bound: dict[int, float] = defaultdict(float)
        for r in rows:
            worst[r.dims] = max(worst[r.dims], r.accuracy_value("prefilter", "rel_l2"))
            tol = r.tolerance.get("prefilter_rel_l2")
            if isinstance(tol, (int, float)):
                bound[r.dims] = max(bound[r.dims], float(tol))
        g, gb = _growth(worst), _growth(bound)
        span = ", ".join(f"D={d}: {v:.1e}" for d, v in sorted(worst.items()))
        text = f"On {data_kind} data the worst f32 prefilter error (rel. L2) is {span}"
        if g and gb:
            text += f", growing {g:.2f}x per added axis against the bound's {gb:.2f}x"
        parts.append(text + ".")
    parts.append("Within one D the line length N changes the error little once N exceeds a few samples (the "
                 "recursive filter forgets its start within ~10 samples). The tolerance bound "
                 "(f32_accuracy.hpp) assumes each later pass amplifies the earlier passes' rounding by the "
                 "prefilter's noise gain; measured errors grow more slowly, so the bound is tightest at D = 1 "
                 f"(worst measured/bound ratio {worst_ratio.get('prefilter', 0):.2f} over all D for the prefilter, "
                 f"{worst_ratio.get('interp', 0):.2f} for interpolation against its 1e-5 max|f| estimate). The "
                 "reduced-precision evaluations (hardware filter weights, 16-bit coefficients) are left out of "
                 "these numbers: their own bounds and the texture-weights study cover them. An f64 path, where "
                 "present, is shown beside the f32 ones: through the f32 interface only its output rounding "
                 "remains.")
    return " ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.roundoff", description=__doc__.split("\n\n")[1])
    parser.add_argument("--bin", type=Path, default=Path("build/bin/splinebench"))
    parser.add_argument("--machine", default=None, help="results label (default: short host name)")
    parser.add_argument("--impls", nargs="+", default=None, help="implementations (default: the suite's)")
    parser.add_argument("--results", type=Path, default=None, help="results root (default: results/)")
    parser.add_argument("--report-only", type=Path, default=None, metavar="RUN_DIR",
                        help="only (re)write the report section of an existing roundoff run")
    args = parser.parse_args(argv)
    try:
        folder = args.report_only or run_suite(Splinebench(args.bin), "roundoff", args.machine or data.short_host(),
                                               args.results, args.impls)
        print(write_report(folder))
    except StudyError as exc:
        print(f"studies.roundoff: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
