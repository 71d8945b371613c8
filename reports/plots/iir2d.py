"""Seed 004's Fig. 3 redrawn (2-D IIR filter, fixed vs flexible allocation): time
against the window size M at 2048^2, one line per scheme, the seed's claims as text.
The records and their accessors are those of the seed's tables (reports/iir2d.py)."""
from __future__ import annotations

from pathlib import Path

from matplotlib.patches import Patch

from .. import iir2d as seed004  # noqa: E402
from . import style  # noqa: E402
from .style import Figure, Skipped  # noqa: E402


def plot_fig3(run: dict, out_dir: str | Path, suffix: str = "") -> Figure | Skipped:
    """Time against M per scheme (registry looks), the empty launch chains as grey
    references; the legend and the seed's claims sit to the right of the axes."""
    stem, title = f"iir2d_fig3{suffix}", "Seed 004, Fig. 3 redrawn: 2-D IIR filter at 2048^2"
    c = seed004.curves(run)
    if not c:
        return Skipped(stem, title, "no iir2d records at 2048^2 in this run")
    fig = style.new_figure(9.0, 5.4)
    ax = fig.subplots()
    for scheme in seed004.SCHEME_ORDER:
        if scheme in c:
            ms = sorted(c[scheme])
            ax.plot(ms, [c[scheme][m] * 1e3 for m in ms], marker=style.marker(scheme), markersize=4,
                    color=style.colour(scheme), label=scheme)
    chain = {r["scheme"]: seed004.median_s(r) for r in seed004.records(run)
             if tuple(r["shape"]) == seed004.FIG3_SHAPE and r["scheme"].startswith("empty_chain")}
    for name, line in (("empty_chain", ":"), ("empty_chain_graph", "-.")):
        if name in chain:
            ax.axhline(chain[name] * 1e3, color="grey", linestyle=line, linewidth=1,
                       label=f"{name.replace('_', ' ')} (H + W − 1 launches)")
    ax.set_yscale("log")
    ax.set_xlabel("window size M (taps)")
    ax.set_ylabel("time per filtering (ms)")
    claims = (f"Seed ({seed004.SEED['hardware']}):\nflexible faster for M > {seed004.SEED['crossover_M']},\n"
              f"≈ {seed004.SEED['ratio_at_31']}x at M = 31;\nflexible nearly constant in M,\nfixed about linear.\n"
              "(Its curve values are illegible\nin our copy: not drawn.)")
    # The claims go below the legend, outside the axes: they are text, not data.
    device = (run.get("context", {}).get("gpu") or {}).get("name", "unknown device")
    run_id = run.get("run_id") or run.get("context", {}).get("run_id", "?")
    fig.suptitle(title, fontweight="bold")
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Patch(visible=False))
    labels.append(claims)
    fig.legend(handles, labels, loc="outside right center", frameon=False, title="scheme", fontsize=8.5)
    caption = (f"Median GPU time per filtering of a 2048x2048 float image (gauss coefficients, sum|b| = 0.9) "
               f"against the window size M, one line per scheme; grey: the fixed scheme's H + W − 1 launches "
               f"doing nothing, as launches and as one graph. Device {device}, run {run_id}.")
    return style.save(fig, out_dir, stem, title, caption,
                      "Seed 004, Fig. 3 redrawn: time of each 2-D IIR scheme against the window size M at 2048^2")
