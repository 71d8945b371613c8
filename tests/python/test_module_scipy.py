"""The Python module against scipy.ndimage where SciPy is exact (tests/python/test_cli_scipy.py
keeps checking where that is): spline_filter in 'mirror' and 'grid-wrap' for every length,
in 'reflect' (our 'half') only on lines of 12 samples or more (gh-24550), and
map_coordinates(prefilter=False), which extends the coefficients exactly, in every mode.
Every implementation that can run here (the peers apart: they are SciPy and CuPy), D = 1..6,
within its own tolerance against the oracle (SciPy in double agrees with the oracle to
round-off)."""
import numpy as np
import pytest
import scipy.ndimage as ndi

from conftest import SCIPY_MODE
from test_module_oracle import SHAPES, queries, registry_names, rel_l2, runnable

# 'half' compared only where SciPy's prefilter is exact: every axis at least 12 samples.
LONG_SHAPES = {1: (40,), 2: (13, 17), 3: (12, 13, 14)}


@pytest.fixture(scope="module")
def registry(sb):
    return {row["name"]: row for row in sb.implementations()}


@pytest.mark.parametrize("name", [n for n in registry_names() if n not in ("scipy", "cupy")])
def test_against_scipy_where_scipy_is_exact(sb, registry, name):
    row = runnable(registry, name)
    rng = np.random.default_rng(2 + sum(map(ord, name)))
    for dims in range(max(1, row["dims"][0]), min(6, row["dims"][1]) + 1):
        for mode in row["modes"]:
            shapes = [SHAPES[dims]] if mode != "half" else []
            if mode == "half" and dims in LONG_SHAPES:
                shapes = [LONG_SHAPES[dims]]
            for shape in shapes:
                f = rng.standard_normal(shape).astype(np.float32)
                tol = sb.tolerance(name, shape)
                c = sb.spline_filter(f, mode=mode, impl=name)
                ref = ndi.spline_filter(f.astype(np.float64), order=3, mode=SCIPY_MODE[mode])
                assert rel_l2(c, ref) <= tol["prefilter_rel_l2"], (name, shape, mode)
            # Evaluation of given coefficients: SciPy is exact in every mode and length. As
            # in the conformance test, the coefficients are the oracle's of random samples,
            # rounded to float32, and the bound is relative to max|f| of those samples.
            shape = SHAPES[dims]
            f = rng.standard_normal(shape).astype(np.float32)
            c = sb.spline_filter(f.astype(np.float64), mode=mode, impl="reference").astype(np.float32)
            x = queries(rng, shape)
            x = x[:, np.all(np.isfinite(x), axis=0)]  # SciPy gives cval, not NaN, for those
            s = sb.map_coordinates(c, x, mode=mode, prefilter=False, impl=name)
            ref = ndi.map_coordinates(c.astype(np.float64), x.astype(np.float64), order=3, mode=SCIPY_MODE[mode],
                                      prefilter=False)
            tol = sb.tolerance(name, shape)
            assert np.max(np.abs(s - ref)) / np.max(np.abs(f)) <= tol["interp_max_rel_to_maxf"], (name, shape, mode)
