"""Seed 003's figures (scattered reconstruction): convergence per case, RMS_g against
lambda, the multigrid parameters N and P, and a reconstructed image. The records and
their accessors are those of the seed's tables (reports/scattered.py)."""
from __future__ import annotations

import math
from pathlib import Path


from .. import scattered as records  # noqa: E402
from . import style  # noqa: E402
from .style import Figure, Skipped  # noqa: E402


RMS_G_LABEL = "RMS_g (% of max sample)"
RELRES_LABEL = "relres ‖b − Ax‖ / ‖b‖ (dimensionless)"
ORACLE = "reference"


def _runs_of(runs, recs: list[dict]) -> list:
    """The runs that hold any of these records, in the order given."""
    ids = {id(r) for r in recs}
    return [run for run in runs if any(id(r) in ids for r in records.records(run))]


def _finish(fig, axes, out_dir, stem: str, title: str, caption: str, runs, short_caption: str,
            legend_title: str = "solver") -> Figure:
    return style.finish(fig, axes, title, caption, runs, Path(out_dir), stem, legend_title=legend_title,
                        short_caption=short_caption)


def plot_convergence(runs, out_dir) -> list:
    """Per case: relres and RMS_g against iteration and against time, one line per solver
    in its registry look, the oracle's exact RMS_g as a black dotted line."""
    cases: dict[str, list[dict]] = {}
    for r in records._ok(records._unblocked(records._all(runs))):
        if r.get("impl") != ORACLE and r.get("relres_history"):
            cases.setdefault(r["case_id"].rsplit("/", 1)[0], []).append(r)
    items: list = []
    for n, (case, recs) in enumerate(sorted(cases.items()), start=1):
        stem = f"scattered_convergence_{n}"
        fig = style.new_figure(11.5, 7.6)
        axes = fig.subplots(2, 2, squeeze=False)
        for r in sorted(recs, key=lambda r: r["solver"]):
            hist = r["relres_history"]
            its = list(range(1, len(hist) + 1))
            total = records._phase(r, "solve") or 0.0
            per_it = total / max(1, r.get("iterations") or len(hist))
            look = {"color": style.colour(r["solver"]), "linewidth": 1.4}
            dot = {"marker": style.marker(r["solver"]), "markersize": 4, "markevery": 0.2}
            axes[0][0].semilogy(its, hist, label=r["solver"], **look, **dot)
            axes[0][1].loglog([i * per_it for i in its], hist, **look, **dot)
            pts = sorted((int(k), v) for k, v in (r.get("rms_g_at_iteration") or {}).items() if v is not None)
            if pts:
                axes[1][0].loglog([p[0] for p in pts], [p[1] for p in pts], marker=style.marker(r["solver"]),
                                  markersize=4, **look)
                axes[1][1].loglog([p[0] * per_it for p in pts], [p[1] for p in pts],
                                  marker=style.marker(r["solver"]), markersize=4, **look)
        oracle = next((r for r in records._all(runs) if r.get("case_id") == case + "/" + ORACLE), None)
        ref = oracle.get("rms_g") if oracle else None
        for ax in axes[1]:
            if ref:
                ax.axhline(ref, color=style.colour(ORACLE), linestyle=":", linewidth=1.2,
                           label="exact RMS_g (oracle)")
        axes[0][0].set(xlabel="iteration (count)", ylabel=RELRES_LABEL, title="residual per iteration")
        axes[0][1].set(xlabel="solve time (s)", ylabel=RELRES_LABEL, title="residual against time")
        axes[1][0].set(xlabel="iteration (count)", ylabel=RMS_G_LABEL, title="RMS_g per iteration")
        axes[1][1].set(xlabel="solve time (s)", ylabel=RMS_G_LABEL, title="RMS_g against time")
        for ax in axes[1]:
            style.log_axes(ax)  # plain tick numbers: RMS_g often spans less than a decade
        shown = [r for r in recs] + ([oracle] if oracle else [])
        name = case.removeprefix("scattered/")
        items.append(_finish(
            fig, list(axes.flat), out_dir, stem, f"Seed 003: convergence, {name}",
            f"Scattered reconstruction, case {name}: relres (recomputed in f64 for stationary solvers; CG's "
            "recurrence) and RMS_g (RMS of the spline minus the data over all nodes, in % of the largest "
            "sample) against iteration and against solve time; time at iteration i = i × solve time / "
            "iterations. The dotted line is the exact solution's RMS_g (f64 oracle), the floor every solver "
            "converges to.", _runs_of(runs, shown),
            short_caption=f"Seed 003: residual and RMS_g against iteration and time, {name}"[:style.SHORT_CAPTION_MAX]))
    return items or [Skipped("scattered_convergence", "Seed 003: convergence", "no solver records with a history")]


def plot_lambda(runs, out_dir) -> Figure | Skipped:
    """RMS_g of the exact solution against lambda per data set (seed Fig. 8-10). The
    seed's points are of Lena, which no run here holds: they get a panel of their own,
    never drawn over the curves of other images."""
    series: dict[str, dict[float, float]] = {}
    used: list[dict] = []
    for r in records._ok(records._unblocked(records._all(runs))):
        if r.get("impl") == ORACLE and r.get("rms_g") is not None:
            series.setdefault(f"{records._data_label(r)}, {int(round(100 * r['fraction']))} % samples",
                              {})[float(r["lambda"])] = r["rms_g"]
            used.append(r)
    series = {k: v for k, v in series.items() if len(v) >= 2}
    stem, title = "scattered_lambda", "Seed 003: RMS_g against λ (Fig. 8-10)"
    if not series:
        return Skipped(stem, title, "no data set with the oracle at two or more lambdas in these runs")
    fig = style.new_figure(11.5, 4.6)
    ours, seed_ax = fig.subplots(1, 2, width_ratios=(1.6, 1))
    for i, (label, pts) in enumerate(sorted(series.items())):
        ls = sorted(pts)
        ours.semilogx(ls, [pts[x] for x in ls], label=label, **style.series_look(i))
    ours.set(xlabel="λ (dimensionless)", ylabel=RMS_G_LABEL, title="ours: exact solution (f64 oracle), per data set")
    seed = records.SEED["fig8"]["lambda_rms"]
    seed_ax.semilogx([a for a, _ in seed], [b for _, b in seed], "k--", marker="s", label="seed Fig. 8: Lena")
    seed_ax.set(xlabel="λ (dimensionless)", ylabel=RMS_G_LABEL, title="seed Fig. 8: Lena (not in our runs)")
    return style.finish(fig, [ours, seed_ax], title,
                        "RMS_g of the exact (oracle) solution against the smoothing weight λ for each of our data "
                        "sets (left) and the seed's published points for Lena (right, its own panel: Lena is not "
                        "among our data). The seed's best λ lies in [2, 3] for its images.",
                        _runs_of(runs, used), Path(out_dir), stem, legend_title="data set",
                        short_caption="Seed 003: exact RMS_g against λ per data set, and the seed's Lena points apart")


def mg_sweep_points(pts: list[dict], key: str) -> list[tuple[int, float, float | None]]:
    """(value of `key`, RMS_g, seed-count time) of the mg_seed records that vary `key` with
    every other schedule parameter held: those equal to the records' most common setting
    of the others (the sweep's base schedule), the fastest run of each value."""
    others = [k for k in ("N", "N0", "N1", "N2", "M", "M0", "M1", "M2", "P") if k != key]
    settings = [tuple(r["mg"].get(k) for k in others) for r in pts]
    if not settings:
        return []
    base = max(set(settings), key=lambda s: (len({r["mg"][key] for r, t in zip(pts, settings) if t == s}),
                                             settings.count(s)))
    out = []
    for x in sorted({r["mg"][key] for r, t in zip(pts, settings) if t == base}):
        same = [r for r, t in zip(pts, settings) if t == base and r["mg"][key] == x]
        best = min(same, key=lambda r: records._phase(r, "solve_seed_iterations") or math.inf)
        out.append((x, best.get("rms_g"), records._phase(best, "solve_seed_iterations")))
    return out


def plot_mg_sweep(runs, out_dir) -> Figure | Skipped:
    """mg_seed RMS_g and time against N and against P, the other parameters held (seed
    Fig. 12/13): a row per quantity, a column per parameter (no twin axes)."""
    pts = [r for r in records._ok(records._all(runs)) if r.get("solver") == "mg_seed" and isinstance(r.get("mg"), dict)]
    stem, title = "scattered_mg_sweep", "Seed 003: multigrid parameters N and P (Fig. 12/13)"
    sweeps = {key: mg_sweep_points(pts, key) for key in ("N", "P")}
    if all(len(v) < 2 for v in sweeps.values()):
        return Skipped(stem, title, "no mg_seed records at two or more values of N or P with the other "
                       "parameters held (a scattered suite's `mg` key)")
    fig = style.new_figure(10.5, 6.4)
    axes = fig.subplots(2, 2, sharex="col", squeeze=False)
    look = {"color": style.colour("mg_seed"), "marker": style.marker("mg_seed")}
    names = {"N": "N: number of grid levels (count)", "P": "P: prolongation parameter (count)"}
    for col, key in enumerate(("N", "P")):
        xs = [x for x, _, _ in sweeps[key]]
        top, bottom = axes[0][col], axes[1][col]
        top.plot(xs, [rms if rms is not None else math.nan for _, rms, _ in sweeps[key]], label="mg_seed", **look)
        top.set(ylabel=RMS_G_LABEL, title=f"varying {key}")
        top.ticklabel_format(axis="y", useOffset=False)
        bottom.plot(xs, [t if t is not None else math.nan for _, _, t in sweeps[key]], linestyle="--", **look)
        bottom.set(xlabel=names[key], ylabel="solve time, seed's count (s)")
        bottom.xaxis.get_major_locator().set_params(integer=True)
    data = sorted({records._data_label(r) for r in pts})
    return style.finish(fig, list(axes.flat), title,
                        f"{', '.join(data)}: each column varies one parameter of the mg_seed schedule with the others "
                        "held; top: RMS_g, bottom: solve time to the seed's iteration count (the fastest run of each "
                        "value). Seed: time linear in N with RMS_g falling; time ~ log P, RMS_g flat.",
                        _runs_of(runs, pts), Path(out_dir), stem, legend_title="solver",
                        short_caption="Seed 003: mg_seed RMS_g and time against the multigrid parameters N and P")


# Where a run keeps the arrays a scattered suite's `save_coefficients` writes, for the
# image figure: <run>/arrays/ (records name them relative to it; git-ignored, like the
# reports: the figure is drawn on the machine that holds them).
ARRAYS_DIR = "arrays"


def plot_image(runs, out_dir) -> Figure | Skipped:
    """A reconstruction beside the full data and the sample mask (seed Fig. 6/7 layout): the
    first 2-D case whose saved arrays are present: the original (where the run saved it),
    the mask, and the oracle's and up to two solvers' node values on one grey scale."""
    stem, title = "scattered_image", "Seed 003: reconstructed image, original and sample mask"
    for run in runs:
        if getattr(run, "path", None) is None:
            continue
        arrays = Path(run.path) / ARRAYS_DIR
        recs = [r for r in records.records(run) if r.get("dims") == 2 and r.get("saved") and "blocks" not in r]
        oracle = next((r for r in recs if r.get("impl") == "reference" and (r["saved"] or {}).get("mask")), None)
        if oracle is None or not (arrays / oracle["saved"]["mask"]).is_file():
            continue
        import numpy as np
        mask = np.load(arrays / oracle["saved"]["mask"])
        panels = [("sample mask", mask, "gray")]
        original = (oracle["saved"] or {}).get("original")
        if original and (arrays / original).is_file():
            panels.insert(0, ("original", np.load(arrays / original), "gray"))
        case = oracle["case_id"].rsplit("/", 1)[0]
        solvers = [r for r in recs if r["case_id"].rsplit("/", 1)[0] == case and (r["saved"] or {}).get("values")]
        for r in solvers[:3]:
            if (arrays / r["saved"]["values"]).is_file():
                label = "oracle" if r.get("impl") == "reference" else r.get("solver", r.get("impl"))
                panels.append((f"{label}: RMS_g {records._num(r.get('rms_g'))}", np.load(arrays / r["saved"]["values"]), "gray"))
        fig = style.new_figure(3.2 * len(panels), 3.8)
        axes = fig.subplots(1, len(panels), squeeze=False)
        values = [p[1] for p in panels if p[0] != "sample mask"]
        lo = min(float(v.min()) for v in values) if values else 0.0
        hi = max(float(v.max()) for v in values) if values else 1.0
        for ax, (label, image, cmap) in zip(axes.flat, panels):
            ax.imshow(image, cmap=cmap, vmin=0 if label == "sample mask" else lo,
                      vmax=1 if label == "sample mask" else hi, interpolation="nearest")
            ax.set_title(label, fontsize=8)
            ax.axis("off")
        what = (f"{records._data_label(oracle)}, {int(round(100 * float(oracle['fraction'])))} % samples, "
                f"λ {oracle['lambda']}")
        shown = "original: the full data; " if panels[0][0] == "original" else ""
        fig.suptitle(title, fontweight="bold")
        return style.save(fig, out_dir, stem, title,
                          f"{what}: spline values at the grid nodes from the saved coefficients; {shown}mask: the "
                          f"sampled nodes. Machine and runs — {style.device_caption([run])}.",
                          "Seed 003: a reconstructed image beside the original and the sample mask")
    return Skipped(stem, title, "no run here holds the arrays of a 2-D case (a scattered suite's `save_coefficients` "
                   f"key writes them to <run>/{ARRAYS_DIR}; they are not committed)")
