"""python -m studies.rotation --bin build/bin/splinebench [--machine M] [--images camera astronaut]

Ruijters & Thévenaz's repeated-rotation experiment (their Fig. 5): an image is rotated
36 times by 10° about its centre, each step resampling the previous step's float32
result, and the result is compared with the original. Methods: nearest neighbour and
linear interpolation (SciPy, float32 intermediates), the cubic B-spline used without
prefilter (the samples taken as coefficients: a smoothing approximation) and the
prefiltered cubic B-spline (interpolation), the last two through every implementation
available here. Also their Fig. 4-style zoom of a small patch with the same methods.

Error is measured on the inscribed disk that never leaves the image during the turns
(radius (min(H, W) - 1) / 2 - 3 pixels, so no tap of the cubic kernel reaches the
boundary extension): SNR = 10 log10(sum f^2 / sum (f - g)^2), PSNR = 20 log10(peak /
RMSE) with peak = the original's max - min on the disk.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy import ndimage

from . import data
from .common import Splinebench, StudyError, StudyRun, finite_or_none, rotation_coordinates, save_npy_atomic
from .rotation_report import write_rotation_report

STEPS, ANGLE = 36, 10.0
MODE = "mirror"  # SciPy 'mirror' is the same extension, so the SciPy rows match
ZOOM_PATCH, ZOOM_FACTOR = 32, 8


def disk_mask(height: int, width: int) -> np.ndarray:
    radius = (min(height, width) - 1) / 2 - 3
    yy, xx = np.mgrid[0:height, 0:width]
    return (yy - (height - 1) / 2) ** 2 + (xx - (width - 1) / 2) ** 2 <= radius ** 2


def quality(original: np.ndarray, result: np.ndarray, mask: np.ndarray) -> dict[str, float | None]:
    f = original[mask].astype(np.float64)
    g = result[mask].astype(np.float64)
    err = f - g
    sse = float(np.sum(err ** 2))
    peak = float(f.max() - f.min())
    rmse = float(np.sqrt(np.mean(err ** 2)))
    return {"snr_db": finite_or_none(10 * np.log10(np.sum(f ** 2) / sse)) if sse > 0 else None,
            "psnr_db": finite_or_none(20 * np.log10(peak / rmse)) if rmse > 0 else None,
            "rmse": rmse, "max_abs": float(np.max(np.abs(err))), "pixels": int(mask.sum())}


def scipy_rotate(image: np.ndarray, order: int) -> np.ndarray:
    """float32 intermediates: each step's output is stored as float32, as the
    implementations do. order 3 includes SciPy's own (double) prefilter."""
    coords = rotation_coordinates(image.shape[0], image.shape[1], ANGLE).astype(np.float64)
    planes = image[..., None] if image.ndim == 2 else image
    out = np.empty_like(planes, dtype=np.float32)
    for ch in range(planes.shape[-1]):
        plane = planes[..., ch].astype(np.float32)
        for _ in range(STEPS):
            plane = ndimage.map_coordinates(plane, coords, order=order, mode=MODE, prefilter=order > 1,
                                            output=np.float32)
        out[..., ch] = plane
    return out[..., 0] if image.ndim == 2 else out


def zoom_coordinates(top: int, left: int) -> np.ndarray:
    """Sample positions magnifying a ZOOM_PATCH square ZOOM_FACTOR times."""
    n = ZOOM_PATCH * ZOOM_FACTOR
    t = (np.arange(n) + 0.5) / ZOOM_FACTOR - 0.5
    yy, xx = np.meshgrid(top + t, left + t, indexing="ij")
    return np.stack([yy, xx]).astype(np.float32)


def run_study(tool: Splinebench, machine: str, images: list[str], impls: list[str] | None,
              results_root: Path | None = None) -> StudyRun:
    available = tool.available()
    names = [e["name"] for e in available]
    if impls:
        unknown = sorted(set(impls) - set(names))
        if unknown:
            raise StudyError(f"not available here: {', '.join(unknown)} (splinebench list says why)")
        names = [n for n in names if n in impls]
    evaluation = {e["name"]: e.get("evaluation", "") for e in available}
    device = {e["name"]: e["device"] for e in available}
    loaded = {name: data.load_image(name) for name in images}
    run = StudyRun.create("rotation", machine, tool, {"images": images, "impls": names, "steps": STEPS,
                                                        "angle_degrees": ANGLE, "mode": MODE}, results_root)
    with tempfile.TemporaryDirectory(prefix="splinebench-rotation-") as scratch:
        _run_all(tool, run, Path(scratch), loaded, names, device, evaluation, images)
    return run


def _run_all(tool, run, arrays, loaded, names, device, evaluation, images) -> None:
    """The rotations and the zoom; the arrays go to `arrays` (a scratch folder: the
    report keeps pictures, not the 1-3 MB float arrays of every method)."""
    for image_name, image in loaded.items():
        image = image.astype(np.float32)
        mask = disk_mask(image.shape[0], image.shape[1])
        original = image
        save_npy_atomic(arrays / f"{image_name}-original.npy", image)

        def record(method: str, impl: str, result: np.ndarray, seconds: float, dev: str, ev: str) -> None:
            stem = f"{image_name}-{method}-{impl}"
            save_npy_atomic(arrays / f"{stem}.npy", result.astype(np.float32))
            run.add({"operation": "rotation", "image": image_name, "shape": list(image.shape), "method": method,
                     "impl": impl, "device": dev, "evaluation": ev, "steps": STEPS, "angle_degrees": ANGLE,
                     "mode": MODE, "status": "ok", "seconds": seconds, **quality(original, result, mask)})

        for method, order in (("nearest", 0), ("linear", 1), ("cubic-prefiltered", 3)):
            start = time.perf_counter()
            result = scipy_rotate(image, order)
            record(method, "scipy", result, time.perf_counter() - start, "cpu", "f64 taps, float32 output")
        for impl in names:
            for method, prefilter in (("cubic-no-prefilter", False), ("cubic-prefiltered", True)):
                start = time.perf_counter()
                try:
                    result = tool.rotate(image, impl, MODE, STEPS, ANGLE, prefilter)
                except StudyError as exc:
                    run.add({"operation": "rotation", "image": image_name, "method": method, "impl": impl,
                             "device": device[impl], "evaluation": evaluation[impl], "status": "error",
                             "message": str(exc)})
                    continue
                record(method, impl, result, time.perf_counter() - start, device[impl], evaluation[impl])

    # Fig. 4-style zoom: a patch of the first image, magnified, through the reference
    # (exact arithmetic) and SciPy's nearest/linear.
    first = images[0]
    image = loaded[first].astype(np.float32)
    plane = image if image.ndim == 2 else image[..., 0]
    top, left = plane.shape[0] // 2 - ZOOM_PATCH // 2, plane.shape[1] // 2 - ZOOM_PATCH // 2
    coords = zoom_coordinates(top, left)
    save_npy_atomic(arrays / "zoom-source.npy", plane)  # the report draws the patch from it
    for method, order in (("nearest", 0), ("linear", 1)):
        zoomed = ndimage.map_coordinates(plane, coords.astype(np.float64), order=order, mode=MODE).astype(np.float32)
        save_npy_atomic(arrays / f"zoom-{method}.npy", zoomed)
    for method, prefilter in (("cubic-no-prefilter", False), ("cubic-prefiltered", True)):
        save_npy_atomic(arrays / f"zoom-{method}.npy", tool.interpolate(plane, coords, "reference", MODE, prefilter))
    run.context["zoom"] = {"image": first, "top": top, "left": left, "patch": ZOOM_PATCH, "factor": ZOOM_FACTOR}
    run.write()
    write_rotation_report(run.folder, run.context, run.records, arrays)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m studies.rotation", description=__doc__.split("\n\n")[1])
    parser.add_argument("--bin", type=Path, default=Path("build/bin/splinebench"), help="splinebench executable")
    parser.add_argument("--machine", default=None, help="results label (default: short host name)")
    parser.add_argument("--images", nargs="+", default=["camera", "astronaut"], help="dataset names (datasets/README.md)")
    parser.add_argument("--impls", nargs="+", default=None, help="implementations (default: every one available)")
    parser.add_argument("--results", type=Path, default=None, help="results root (default: results/)")
    args = parser.parse_args(argv)
    try:
        tool = Splinebench(args.bin)
        run = run_study(tool, args.machine or data.short_host(), args.images, args.impls, args.results)
    except StudyError as exc:
        print(f"studies.rotation: error: {exc}", file=sys.stderr)
        return 2
    print(run.folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
