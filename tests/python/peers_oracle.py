"""An exact cubic B-spline oracle in NumPy for the peer adapters' tests (small grids):
the prefilter as a dense solve of the interpolation system per axis, evaluation as the
tensor product of the four taps, both on the mode's extension (README, Conventions)."""
from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

ADAPTERS = Path(__file__).resolve().parents[2] / "adapters" / "python"
if str(ADAPTERS) not in sys.path:
    sys.path.insert(0, str(ADAPTERS))


def fold(k: np.ndarray, n: int, mode: str) -> np.ndarray:
    """Sample index of integer positions k on the mode's extension of n samples."""
    if n == 1:
        return np.zeros_like(k)
    if mode == "mirror":
        p = 2 * n - 2
        k = np.mod(k, p)
        return np.where(k < n, k, p - k)
    if mode == "half":
        p = 2 * n
        k = np.mod(k, p)
        return np.where(k < n, k, p - 1 - k)
    return np.mod(k, n)


def interpolation_matrix(n: int, mode: str) -> np.ndarray:
    a = np.zeros((n, n))
    for i in range(n):
        for off, w in ((-1, 1 / 6), (0, 4 / 6), (1, 1 / 6)):
            a[i, fold(np.array(i + off), n, mode)] += w
    return a


def prefilter(samples: np.ndarray, mode: str) -> np.ndarray:
    """samples (fields, *extents, channels) -> exact coefficients, in float64."""
    c = samples.astype(np.float64)
    for axis in range(1, c.ndim - 1):
        a = interpolation_matrix(c.shape[axis], mode)
        c = np.moveaxis(np.tensordot(np.linalg.inv(a), np.moveaxis(c, axis, 0), axes=1), 0, axis)
    return c


def weights(t: np.ndarray) -> np.ndarray:
    """(4, n) tap weights at fractional offsets t."""
    return np.stack([(1 - t) ** 3 / 6, 2 / 3 - t * t * (2 - t) / 2, 2 / 3 - (1 - t) ** 2 * (1 + t) / 2, t**3 / 6])


def evaluate(coeffs: np.ndarray, coords: np.ndarray, mode: str) -> np.ndarray:
    """coeffs (fields, *extents, channels), coords (D, n) -> (fields, n, channels) float64;
    NaN where a coordinate is not finite."""
    x = coords.astype(np.float64)
    finite = np.isfinite(x).all(axis=0)
    x = np.where(np.isfinite(x), x, 0)
    dims, n = x.shape
    # One period of the extension first (exact in double), so huge coordinates index.
    for d in range(dims):
        e = coeffs.shape[1 + d]
        p = 1 if e == 1 else {"mirror": 2 * e - 2, "half": 2 * e, "periodic": e}[mode]
        x[d] = np.mod(x[d], p)
    base = np.floor(x).astype(np.int64)
    w = [weights(x[d] - base[d]) for d in range(dims)]
    out = np.zeros((coeffs.shape[0], n, coeffs.shape[-1]))
    for taps in itertools.product(range(4), repeat=dims):
        idx = tuple(fold(base[d] + taps[d] - 1, coeffs.shape[1 + d], mode) for d in range(dims))
        wt = np.prod([w[d][taps[d]] for d in range(dims)], axis=0)
        out += wt[None, :, None] * coeffs[(slice(None), *idx, slice(None))]
    out[:, ~finite, :] = np.nan
    return out


def queries(extents, n: int, rng: np.random.Generator, dtype) -> np.ndarray:
    """(D, n): inside and outside the grid, the ends, NaN/inf, and huge coordinates."""
    coords = np.stack([rng.uniform(-e - 2, 2 * e + 1, n) for e in extents]).astype(dtype)
    coords[:, 0] = 0
    coords[:, 1] = [e - 1 for e in extents]
    coords[0, 2], coords[-1, 3], coords[0, 4] = np.nan, np.inf, -np.inf
    coords[0, 5], coords[-1, 6] = 3.0e9, -1.0e30
    return coords
