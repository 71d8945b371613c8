"""Seed 004's Fig. 3 redrawn (2-D IIR filter, fixed vs flexible allocation): time
against the window size M at 2048^2, one line per scheme, the seed's claims as text.
The records and their accessors are those of the seed's tables (reports/iir2d.py)."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .. import iir2d as seed004  # noqa: E402
from .style import Figure, Skipped  # noqa: E402


def plot_fig3(run: dict, out_dir: str | Path, suffix: str = "") -> Figure | Skipped:
    stem, title = f"iir2d_fig3{suffix}", "Seed 004, Fig. 3 redrawn: 2-D IIR filter at 2048^2"
    c = seed004.curves(run)
    if not c:
        return Skipped(stem, title, "no iir2d records at 2048^2 in this run")
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for scheme in seed004.SCHEME_ORDER:
        if scheme in c:
            ms = sorted(c[scheme])
            ax.plot(ms, [c[scheme][m] * 1e3 for m in ms], marker="o", markersize=3, label=scheme)
    chain = {r["scheme"]: seed004.median_s(r) for r in seed004.records(run)
             if tuple(r["shape"]) == seed004.FIG3_SHAPE and r["scheme"].startswith("empty_chain")}
    for name, style in (("empty_chain", ":"), ("empty_chain_graph", "-.")):
        if name in chain:
            ax.axhline(chain[name] * 1e3, color="grey", linestyle=style, linewidth=1,
                       label=f"{name.replace('_', ' ')} (H + W - 1 launches)")
    ax.set_yscale("log")
    ax.set_xlabel("window size M")
    ax.set_ylabel("time (ms)")
    ax.text(0.02, 0.03, (f"Seed ({seed004.SEED['hardware']}): flexible faster for M > {seed004.SEED['crossover_M']}, "
                         f"≈ {seed004.SEED['ratio_at_31']}x at M = 31,\nflexible nearly constant in M, fixed about linear "
                         "(curve values illegible in our copy: not drawn)"),
            transform=ax.transAxes, fontsize=8, va="bottom", color="#444")
    ax.legend(fontsize=8, loc="upper left", frameon=False)
    device = (run.get("context", {}).get("gpu") or {}).get("name", "unknown device")
    caption = (f"Median GPU time per filtering of a 2048x2048 float image (gauss coefficients, sum|b| = 0.9), "
               f"{device}, run {run.get('run_id') or run.get('context', {}).get('run_id', '?')}.")
    fig.suptitle(title, fontweight="bold")
    fig.text(0.01, 0.005, caption, fontsize=8, color="#333")
    fig.subplots_adjust(bottom=0.18)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    png, svg = out_dir / f"{stem}.png", out_dir / f"{stem}.svg"
    fig.savefig(png, dpi=110)
    fig.savefig(svg)
    plt.close(fig)
    return Figure(stem, title, caption, png, svg)
