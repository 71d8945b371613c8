"""Shared fixtures for the Python tests that drive the `splinebench` executable.

The executable is taken from the environment variable SPLINEBENCH_BIN, by default
<repo>/build/bin/splinebench. Tests that need it are skipped, with the path in the
reason, when it does not exist (e.g. on a checkout that has not been built).
"""
import itertools
import os
import pathlib
import subprocess

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_BIN = REPO / "build" / "bin" / "splinebench"

# splinebench mode -> the scipy.ndimage mode with the same extension of samples and
# coefficients. 'grid-mirror' is SciPy's alias of 'reflect'.
SCIPY_MODE = {"mirror": "mirror", "half": "reflect", "periodic": "grid-wrap"}
MODES = tuple(SCIPY_MODE)


def splinebench_path():
    return pathlib.Path(os.environ.get("SPLINEBENCH_BIN", str(DEFAULT_BIN)))


@pytest.fixture(scope="session")
def splinebench_bin():
    path = splinebench_path()
    if not path.is_file() or not os.access(path, os.X_OK):
        pytest.skip(f"splinebench executable not found at {path} "
                    "(build it, or point SPLINEBENCH_BIN at it)")
    return path


@pytest.fixture
def cli(splinebench_bin):
    """cli(*args) runs `splinebench args...` and returns the CompletedProcess (text)."""
    def run(*args, timeout=300):
        return subprocess.run([str(splinebench_bin), *map(str, args)], capture_output=True,
                              text=True, timeout=timeout)
    return run


@pytest.fixture
def cli_ok(cli):
    """Like cli, but fails the test (showing stderr) unless the exit status is 0."""
    def run(*args, **kwargs):
        result = cli(*args, **kwargs)
        assert result.returncode == 0, f"splinebench {' '.join(map(str, args))} failed:\n{result.stderr}"
        return result
    return run


@pytest.fixture
def rng(request):
    """A generator seeded from the test's name: fresh noise per test, reproducible."""
    seed = sum(ord(ch) * (i + 1) for i, ch in enumerate(request.node.name)) % (2**32)
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------------
# Error bounds and exact references shared by the CLI tests (plain functions).

# float32 unit roundoff; the relative tolerance of the double-precision comparisons
# (derivation in test_cli_scipy.py).
U32 = 2.0 ** -24
REL64 = 1e-12


def prefilter_f32_bound(dims, max_f):
    """Bound on max|c_f32 - c| for the float32 prefilter of data with max |f| = max_f.

    One 1-D pass (causal + anticausal recursion, stable since |z| < 1) accumulates its
    per-step roundings with weights |z|^k, sum 1/(1 - |z|) = 1.37; with about eight
    roundings per step on magnitudes up to 6/(1-|z|) max|in| = 8.2 max|in| (causal) and
    3 max|in| (anticausal) that is <= 20 u max|in|. Every later pass multiplies both the
    data and the earlier errors by at most its l-inf gain 3. Summed over D passes:
    D * 3^(D-1) * 20 u max|f|.
    """
    return dims * 3 ** (dims - 1) * 20 * U32 * max_f


def interp_f32_bound(dims, max_c):
    """Bound on max|s_f32 - s| for float32 evaluation of coefficients with max |c| = max_c.

    The fraction a = x - floor(x) is exact; each of the 4 weights is computed with an
    absolute error <= 3u (they lie in [0, 2/3]), i.e. <= 12u per axis in sum; the nested
    4-term sums add <= 4u per axis relative to sum |w c| <= max|c| (weights are
    non-negative and sum to 1). Over D axes: 16 D u max|c|.
    """
    return 16 * dims * U32 * max_c


# ---------------------------------------------------------------------------------
# Exact references, independent of the implementation's boundary formulas.

def fold_index(mode, k, n):
    """Folds integer indices k into [0, n-1] by the extension rule of `mode`."""
    k = np.asarray(k, dtype=np.int64)
    if mode == "mirror":
        if n == 1:
            return np.zeros_like(k)
        period = 2 * n - 2
        r = np.mod(k, period)
        return np.where(r >= n, period - r, r)
    if mode == "half":
        period = 2 * n
        r = np.mod(k, period)
        return np.where(r >= n, period - 1 - r, r)
    return np.mod(k, n)


def interpolation_matrix(n, mode):
    """A with (A c)[k] = s(k) = (c~[k-1] + 4 c~[k] + c~[k+1]) / 6 on the extension c~."""
    a = np.zeros((n, n))
    for k in range(n):
        for t, w in ((-1, 1 / 6), (0, 4 / 6), (1, 1 / 6)):
            a[k, fold_index(mode, k + t, n)] += w
    return a


def exact_prefilter(f, mode, grid_dims=None):
    """Coefficients by a dense solve of the interpolation system along each grid axis
    (the first grid_dims axes; any further axis is a channel axis)."""
    c = np.array(f, dtype=np.float64)
    for axis in range(grid_dims or c.ndim):
        n = c.shape[axis]
        moved = np.moveaxis(c, axis, 0)
        solved = np.linalg.solve(interpolation_matrix(n, mode), moved.reshape(n, -1))
        c = np.moveaxis(solved.reshape(moved.shape), 0, axis)
    return c


def bspline_weights(a):
    b = 1.0 - a
    return (b ** 3 / 6, 2 / 3 - a * a * (2 - a) / 2, 2 / 3 - b * b * (1 + a) / 2, a ** 3 / 6)


def evaluate_spline(c, mode, coords):
    """The spline with coefficients c (one channel) at coords (D, ...), 4^D taps."""
    dims = c.ndim
    x = np.asarray(coords, dtype=np.float64).reshape(dims, -1)
    cell = np.floor(x)
    weights = [bspline_weights(x[d] - cell[d]) for d in range(dims)]
    cell = cell.astype(np.int64)
    out = np.zeros(x.shape[1])
    for taps in itertools.product(range(4), repeat=dims):
        index = tuple(fold_index(mode, cell[d] + taps[d] - 1, c.shape[d]) for d in range(dims))
        w = np.prod([weights[d][taps[d]] for d in range(dims)], axis=0)
        out += w * c[index]
    return out.reshape(np.shape(coords)[1:])


# ---- the Python module (python/README.md) ------------------------------------------------

def module_dir():
    """Where the build under test assembled the package: <build>/python beside <build>/bin."""
    return splinebench_path().resolve().parent.parent / "python"


@pytest.fixture(scope="session")
def sb():
    """The `splinebench` module of the build under test (that of SPLINEBENCH_BIN's build),
    ahead of any other on the path; skipped when that build has none."""
    import importlib
    import sys
    folder = module_dir()
    if not (folder / "splinebench" / "__init__.py").is_file() or not list((folder / "splinebench").glob("_core*")):
        pytest.skip(f"no Python module in {folder} (configure the build with a Python that has nanobind: "
                    "-DPython_EXECUTABLE=.venv/bin/python)")
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    module = importlib.import_module("splinebench")
    assert pathlib.Path(module.__file__).resolve().parent == (folder / "splinebench").resolve(), (
        f"imported splinebench from {module.__file__}, not from the build under test ({folder})")
    return module
