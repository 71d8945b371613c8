#!/usr/bin/env python3
"""Writes the two volumes of the scattered calibration (../shared/docs/seed-003-reconstruction.md,
T6) as float64 .npy for the driver's --data:

  marschner_lobb41.npy  Marschner & Lobb (1994) on 41^3 nodes, the formula of datasets/README.md
                        (f_M = 6, alpha = 0.25, (X, Y, Z) = 2x - 1 on axes 0, 1, 2)
  stent4.npy            the imageio stent CT (256x128x128, exported by datasets/real/export_real.py)
                        averaged over 4x4x4 boxes: 64x32x32

Usage: calibration_volumes.py OUT_DIR [DATASETS_DIR]   (DATASETS_DIR default .cache/datasets)
"""
import pathlib
import sys

import numpy as np


def marschner_lobb(n: int) -> np.ndarray:
    t = 2 * np.linspace(0.0, 1.0, n) - 1
    x, y, z = np.meshgrid(t, t, t, indexing="ij")
    alpha, f_m = 0.25, 6.0
    r = np.sqrt(x**2 + y**2)
    return (1 - np.sin(np.pi * z / 2) + alpha * (1 + np.cos(2 * np.pi * f_m * np.cos(np.pi * r / 2)))) / (2 * (1 + alpha))


def box_mean(volume: np.ndarray, k: int) -> np.ndarray:
    if any(s % k for s in volume.shape):
        raise SystemExit(f"stent: shape {volume.shape} is not divisible by {k}")
    a, b, c = (s // k for s in volume.shape)
    return volume.astype(np.float64).reshape(a, k, b, k, c, k).mean(axis=(1, 3, 5))


def main() -> None:
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    out = pathlib.Path(sys.argv[1])
    datasets = pathlib.Path(sys.argv[2] if len(sys.argv) == 3 else ".cache/datasets")
    stent = datasets / "stent.npy"
    if not stent.is_file():
        raise SystemExit(f"no {stent}: run datasets/real/export_real.py first")
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / "marschner_lobb41.npy", marschner_lobb(41))
    np.save(out / "stent4.npy", box_mean(np.load(stent), 4))
    print(f"wrote {out / 'marschner_lobb41.npy'} and {out / 'stent4.npy'}")


if __name__ == "__main__":
    main()
