"""The repeated-rotation study's report section: a table of SNR/PSNR after 36 steps per
method and implementation, the images (Ruijters & Thévenaz Fig. 5 layout) and the
Fig. 4-style zoom, and one paragraph saying what they show."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from reports.plots import style

from .report_common import figure, md_table, write_section

METHOD_ORDER = ("nearest", "linear", "cubic-no-prefilter", "cubic-prefiltered")
LABEL = {"nearest": "nearest", "linear": "linear", "cubic-no-prefilter": "cubic B-spline, no prefilter",
         "cubic-prefiltered": "cubic B-spline, prefiltered"}


def _display(image: np.ndarray, lo: float, hi: float) -> np.ndarray:
    return np.clip((image - lo) / (hi - lo), 0, 1) if hi > lo else np.zeros_like(image)


def _pick(records: list[dict], image: str, method: str, prefer: tuple[str, ...]) -> dict | None:
    found = [r for r in records if r["image"] == image and r["method"] == method and r["status"] == "ok"]
    for name in prefer:
        for r in found:
            if r["impl"] == name:
                return r
    return found[0] if found else None


def _panel_figure(out: Path, stem: str, title: str, panels: list[tuple[str, np.ndarray]], lo: float, hi: float,
                  caption: str) -> str:
    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig = style.new_figure(3.4 * cols, 3.6 * rows)
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for ax, (label, image) in zip(axes.flat, panels):
        shown = _display(image, lo, hi)
        ax.imshow(shown, cmap="gray" if shown.ndim == 2 else None, interpolation="nearest", vmin=0, vmax=1)
        ax.set_title(label, fontsize=9)
    fig.suptitle(title, fontweight="bold")
    return figure(fig, out, stem, caption, svg=False)


def write_rotation_report(folder: Path, context: dict[str, Any], records: list[dict], arrays: Path | None,
                          out: Path | None = None) -> Path:
    """`arrays`: the study's float arrays, which live only while it runs; None (a section
    rebuilt later from the committed records) gives the table and the paragraph without
    the pictures. `out`: where the section goes (default: the run's report/ folder)."""
    out = out if out is not None else folder / "report"
    images = list(dict.fromkeys(r["image"] for r in records))
    rows = []
    for r in sorted(records, key=lambda r: (images.index(r["image"]), METHOD_ORDER.index(r["method"])
                                            if r["method"] in METHOD_ORDER else 9, r["impl"])):
        if r["status"] != "ok":
            rows.append([r["image"], LABEL.get(r["method"], r["method"]), r["impl"], r.get("evaluation", ""),
                         "error", "", "", r.get("message", "")[:120]])
            continue
        rows.append([r["image"], LABEL[r["method"]], r["impl"], r.get("evaluation", ""),
                     f"{r['snr_db']:.2f}" if r["snr_db"] is not None else "∞",
                     f"{r['psnr_db']:.2f}" if r["psnr_db"] is not None else "∞",
                     f"{r['rmse']:.4g}", f"{r['seconds']:.3g}"])
    table = md_table(["image", "method", "implementation", "evaluation", "SNR (dB)", "PSNR (dB)", "RMSE", "s (wall)"],
                     rows)

    figures = []
    accurate = ("reference", "cpu_scalar", "gpu_naive", "gpu_flex", "cpu_simd")
    for image in images if arrays is not None else []:
        original = np.load(arrays / f"{image}-original.npy")
        lo, hi = float(original.min()), float(original.max())
        panels = [("original", original)]
        for method in METHOD_ORDER:
            r = _pick(records, image, method, ("scipy",) if method in ("nearest", "linear") else accurate)
            if r is not None:
                panels.append((f"{LABEL[method]} ({r['impl']}): {r['snr_db']:.1f} dB",
                               np.load(arrays / f"{image}-{method}-{r['impl']}.npy")))
        texture = _pick(records, image, "cubic-prefiltered", ("gpu_texture",))
        if texture is not None and texture["impl"] == "gpu_texture":
            panels.append((f"prefiltered, gpu_texture (8-bit weights): {texture['snr_db']:.1f} dB",
                           np.load(arrays / f"{image}-cubic-prefiltered-gpu_texture.npy")))
        figures.append(_panel_figure(out, f"rotation-{image}", f"{image}: rotated 36 × 10°, float32 between steps",
                                     panels, lo, hi, "SNR on the inscribed disk (studies/rotation.py)."))

    zoom = context.get("zoom")
    if arrays is None:
        figures.append("The images are drawn only when the study runs (`python -m studies.rotation`): "
                       "its float arrays are not kept.")
    elif zoom:
        source = np.load(arrays / "zoom-source.npy")
        lo, hi = float(source.min()), float(source.max())
        panels = [(LABEL[m], np.load(arrays / f"zoom-{m}.npy")) for m in METHOD_ORDER]
        figures.append(_panel_figure(out, "zoom", f"{zoom['image']}: {zoom['patch']}×{zoom['patch']} patch at "
                                     f"({zoom['top']}, {zoom['left']}) magnified {zoom['factor']}×", panels, lo, hi,
                                     "Ruijters & Thévenaz Fig. 4 layout: the same patch through each method "
                                     "(reference implementation for the cubic ones, SciPy for nearest/linear)."))

    paragraph = _paragraph(records, images)
    return write_section(out, "Repeated rotation (Ruijters & Thévenaz Fig. 5)", context, paragraph, table, figures)


def _span(values: list[float]) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:.1f} dB" if round(lo, 1) == round(hi, 1) else f"{lo:.1f}–{hi:.1f} dB"


def _paragraph(records: list[dict], images: list[str]) -> str:
    parts = []
    for image in images:
        ok = [r for r in records if r["image"] == image and r["status"] == "ok" and r["snr_db"] is not None]

        def snr(method: str, impls: tuple[str, ...] | None = None) -> list[float]:
            return [r["snr_db"] for r in ok if r["method"] == method and (impls is None or r["impl"] in impls)]

        accurate = [r["snr_db"] for r in ok if r["method"] == "cubic-prefiltered"
                    and "linear filter" not in r.get("evaluation", "") and r["impl"] != "scipy"]
        hw = [r["snr_db"] for r in ok if r["method"] == "cubic-prefiltered" and "linear filter" in r.get("evaluation", "")]
        text = f"On {image}, after 36 rotations "
        pieces = []
        for method in ("nearest", "linear"):
            if snr(method, ("scipy",)):
                pieces.append(f"{method} keeps {snr(method, ('scipy',))[0]:.1f} dB")
        if snr("cubic-no-prefilter"):
            values = snr("cubic-no-prefilter")
            pieces.append(f"the cubic B-spline without prefilter {_span(values)} (it blurs "
                          "at every step)")
        if accurate:
            pieces.append(f"prefiltered cubic interpolation {_span(accurate)} over the "
                          "implementations with f32 or f64 weights")
        if hw:
            pieces.append(f"and {_span(hw)} through the hardware linear filter (8-bit weights)")
        parts.append(text + ", ".join(pieces) + ".")
    parts.append("The ranking is Ruijters & Thévenaz's (their Fig. 5 shows it in pictures only, so there are no "
                 "published numbers to set beside these): only the prefiltered cubic spline survives repeated "
                 "resampling, because its transfer function stays close to 1 up to high frequencies, while the "
                 "others multiply their low-pass attenuation 36 times.")
    return " ".join(parts)
