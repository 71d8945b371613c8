"""Seed 003's figures (scattered reconstruction): convergence per case, RMS_g against
lambda, the multigrid parameters N and P, and a reconstructed image. The records and
their accessors are those of the seed's tables (reports/scattered.py)."""
from __future__ import annotations

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .. import scattered as records  # noqa: E402
from .style import Figure, Skipped  # noqa: E402


def _save(fig, out_dir, stem: str, title: str, caption: str) -> Figure:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    fig.suptitle(title, fontweight="bold")
    fig.text(0.01, 0.005, caption, fontsize=8, color="#333")
    fig.subplots_adjust(bottom=0.2)
    png, svg = out_dir / f"{stem}.png", out_dir / f"{stem}.svg"
    fig.savefig(png, dpi=100)
    fig.savefig(svg)
    plt.close(fig)
    return Figure(stem, title, caption, png, svg)


def plot_convergence(runs, out_dir) -> list:
    """Per case: relres and RMS_g against iteration and against time, one line per solver."""
    cases: dict[str, list[dict]] = {}
    for r in records._ok(records._unblocked(records._all(runs))):
        if r.get("impl") != "reference" and r.get("relres_history"):
            cases.setdefault(r["case_id"].rsplit("/", 1)[0], []).append(r)
    items: list = []
    for n, (case, recs) in enumerate(sorted(cases.items()), start=1):
        stem = f"scattered_convergence_{n}"
        fig, axes = plt.subplots(2, 2, figsize=(10, 7))
        for r in sorted(recs, key=lambda r: r["solver"]):
            hist = r["relres_history"]
            its = list(range(1, len(hist) + 1))
            total = records._phase(r, "solve") or 0.0
            per_it = total / max(1, r.get("iterations") or len(hist))
            axes[0][0].semilogy(its, hist, label=r["solver"])
            axes[0][1].semilogy([i * per_it for i in its], hist, label=r["solver"])
            pts = sorted((int(k), v) for k, v in (r.get("rms_g_at_iteration") or {}).items() if v is not None)
            if pts:
                axes[1][0].loglog([p[0] for p in pts], [p[1] for p in pts], marker="o", markersize=3, label=r["solver"])
                axes[1][1].loglog([p[0] * per_it for p in pts], [p[1] for p in pts], marker="o", markersize=3)
        ref = next((r.get("rms_g") for r in records._all(runs) if r.get("case_id") == case + "/reference"), None)
        for ax in axes[1]:
            if ref:
                ax.axhline(ref, color="grey", linestyle=":", label="exact (oracle)")
        axes[0][0].set(xlabel="iteration", ylabel="relres")
        axes[0][1].set(xlabel="time (s, solve to tolerance / iterations)", ylabel="relres")
        axes[1][0].set(xlabel="iteration", ylabel="RMS_g")
        axes[1][1].set(xlabel="time (s)", ylabel="RMS_g")
        axes[0][0].legend(fontsize=7, frameon=False)
        axes[1][0].legend(fontsize=7, frameon=False)
        items.append(_save(fig, out_dir, stem, f"Seed 003: convergence, {case.removeprefix('scattered/')}",
                           "relres (recomputed in f64 for stationary solvers; CG's recurrence) and RMS_g against "
                           "iteration and time (time per iteration = solve time / iterations)."))
    return items or [Skipped("scattered_convergence", "Seed 003: convergence", "no solver records with a history")]


def plot_lambda(runs, out_dir) -> Figure | Skipped:
    """RMS_g of the exact solution against lambda per data set (seed Fig. 8-10)."""
    series: dict[str, dict[float, float]] = {}
    for r in records._ok(records._unblocked(records._all(runs))):
        if r.get("impl") == "reference" and r.get("rms_g") is not None:
            series.setdefault(f"{records._data_label(r)} {int(round(100 * r['fraction']))} %", {})[float(r["lambda"])] = r["rms_g"]
    series = {k: v for k, v in series.items() if len(v) >= 2}
    stem, title = "scattered_lambda", "Seed 003: RMS_g against lambda (Fig. 8-10)"
    if not series:
        return Skipped(stem, title, "no data set with the oracle at two or more lambdas in these runs")
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, pts in sorted(series.items()):
        ls = sorted(pts)
        ax.semilogx(ls, [pts[x] for x in ls], marker="o", label=label)
    seed = records.SEED["fig8"]["lambda_rms"]
    ax.semilogx([a for a, _ in seed], [b for _, b in seed], "k--", marker="s", label="seed Fig. 8 (Lena)")
    ax.set(xlabel="λ", ylabel="RMS_g")
    ax.legend(fontsize=7, frameon=False)
    return _save(fig, out_dir, stem, title, "Exact (oracle) RMS_g; the seed's best λ lies in [2, 3] for its images.")


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
    """mg_seed RMS_g and time against N and against P, the other parameters held (seed Fig. 12/13)."""
    pts = [r for r in records._ok(records._all(runs)) if r.get("solver") == "mg_seed" and isinstance(r.get("mg"), dict)]
    stem, title = "scattered_mg_sweep", "Seed 003: multigrid parameters N and P (Fig. 12/13)"
    sweeps = {key: mg_sweep_points(pts, key) for key in ("N", "P")}
    if all(len(v) < 2 for v in sweeps.values()):
        return Skipped(stem, title, "no mg_seed records at two or more values of N or P with the other "
                       "parameters held (driver --mg)")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, key in zip(axes, ("N", "P")):
        xs = [x for x, _, _ in sweeps[key]]
        ax.plot(xs, [rms if rms is not None else math.nan for _, rms, _ in sweeps[key]], marker="o", label="RMS_g")
        ax.set(xlabel=key, ylabel="RMS_g")
        ax.ticklabel_format(axis="y", useOffset=False)
        tw = ax.twinx()
        tw.plot(xs, [t if t is not None else math.nan for _, _, t in sweeps[key]], "r--", marker="s")
        tw.set_ylabel("time (s)", color="r")
    fig.tight_layout(rect=(0, 0.08, 1, 0.93))
    data = sorted({records._data_label(r) for r in pts})
    return _save(fig, out_dir, stem, title, f"{', '.join(data)}: each panel varies one parameter with the others "
                 "held. Seed: time linear in N with RMS_g falling; time ~ log P, RMS_g flat.")


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
        fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels), 3.6), squeeze=False)
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
        return _save(fig, out_dir, stem, title, f"{what}: spline values at the grid nodes from the saved "
                     f"coefficients ({run.label}); {shown}mask: the sampled nodes.")
    return Skipped(stem, title, "no run here holds the arrays of a 2-D case (driver --save-coefficients "
                   f"<run>/{ARRAYS_DIR}; they are not committed)")
