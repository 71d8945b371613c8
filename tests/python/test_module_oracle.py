"""The Python module against the double-precision oracle: every implementation of the
registry that can run here, every mode, D = 1..6, through `splinebench.spline_filter` and
`splinebench.map_coordinates` (with and without the prefilter), within the
implementation's own tolerance (`splinebench.tolerance`, the bound the conformance test
and every record use), as tests/conformance does through the C++ interface.

The oracle is the registry's `reference` on float64 arrays: oracle::prefilter_f64 and
oracle::evaluate_f64, the conformance test's oracle. It is checked here first against a
dense solve of the interpolation system and a 4^D-tap evaluation written in NumPy
(conftest.py), which share nothing with it.

Implementations that cannot run on this machine (GPU ones without a device) skip with
their reason; a peer's documented defect (SciPy's short-line 'half' prefilter) skips its
cases as in the conformance test."""
import numpy as np
import pytest

from conftest import MODES, REL64, evaluate_spline, exact_prefilter

# The conformance test's shapes: odd lengths and every short length, so the exact
# boundary initialisation of each mode and lines shorter than the filter's reach count.
SHAPES = {1: (37,), 2: (9, 4), 3: (7, 2, 5), 4: (5, 3, 4, 3), 5: (4, 3, 1, 3, 2), 6: (3, 2, 3, 2, 2, 3)}
DIMS = tuple(SHAPES)


def queries(rng, shape, n=60):
    """(D, n) float32 coordinates: inside, outside (the extension), far out, on grid
    points, and NaN or +-inf on a rotating axis every seventh query."""
    rows = []
    for extent in shape:
        inside = rng.uniform(0, extent - 1, n // 2)
        outside = rng.uniform(-extent - 2, 2 * extent + 2, n // 4)
        far = rng.uniform(-50 * extent, 50 * extent, n // 8)
        grid = rng.integers(0, extent, n - n // 2 - n // 4 - n // 8).astype(np.float64)
        rows.append(rng.permutation(np.concatenate([inside, outside, far, grid])))
    x = np.stack(rows).astype(np.float32)
    specials = (np.nan, np.inf, -np.inf)
    for k, q in enumerate(range(3, n, 7)):
        x[k % len(shape), q] = specials[k % 3]
    return x


def rel_l2(a, ref):
    return float(np.linalg.norm((a.astype(np.float64) - ref).ravel()) / np.linalg.norm(ref.ravel()))


def registry_names():
    """Names from the registry of the build under test, read without importing the module at
    collection time (the module fixture skips when the build has none)."""
    import json
    import subprocess
    from conftest import splinebench_path
    path = splinebench_path()
    if not path.is_file():
        return ["(no build)"]
    listed = json.loads(subprocess.run([str(path), "list", "--json"], capture_output=True, text=True,
                                       check=True).stdout)
    rows = listed["implementations"] if isinstance(listed, dict) else listed
    return [row["name"] for row in rows]


@pytest.fixture(scope="module")
def registry(sb):
    return {row["name"]: row for row in sb.implementations()}


def runnable(registry, name):
    if name not in registry:
        pytest.skip(f"{name} is not in this build's registry")
    row = registry[name]
    if not row["available"]:
        pytest.skip(f"{name} cannot run here: {row['reason']}")
    return row


# ---- the oracle itself, against an independent exact solve ------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dims", DIMS)
def test_the_oracle_matches_a_dense_solve(sb, rng, mode, dims):
    shape = SHAPES[dims]
    f = rng.standard_normal(shape)
    c = sb.spline_filter(f, mode=mode, impl="reference")
    exact = exact_prefilter(f, mode)
    assert c.dtype == np.float64
    assert rel_l2(c, exact) <= REL64
    x = queries(rng, shape).astype(np.float64)
    finite = np.all(np.isfinite(x), axis=0)
    s = sb.map_coordinates(c, x, mode=mode, prefilter=False, impl="reference")
    assert np.array_equal(np.isnan(s), ~finite)
    ref = evaluate_spline(exact, mode, x[:, finite])
    assert np.max(np.abs(s[finite] - ref)) <= REL64 * np.max(np.abs(f)) * 10 ** dims


# ---- every implementation, through the module -------------------------------------------

@pytest.mark.parametrize("name", registry_names())
def test_every_implementation_matches_the_oracle(sb, registry, name):
    """All modes and D = 1..6 of one implementation (one test each, so that the report
    names the implementation once and a skip says why it cannot run here)."""
    row = runnable(registry, name)
    rng = np.random.default_rng(sum(map(ord, name)))
    checked = 0
    for dims in range(max(1, row["dims"][0]), min(6, row["dims"][1]) + 1):
        for mode in row["modes"]:
            shape = SHAPES[dims]
            if sb._core.known_defect(name, list(shape), 1, mode):
                continue  # a peer's documented defect: measured by its records, not here
            check_one(sb, name, shape, mode, rng)
            checked += 1
    assert checked, f"{name}: no case ran"


def check_one(sb, name, shape, mode, rng):
    where = f"{name} {len(shape)}-D {shape} {mode}"
    f = rng.standard_normal(shape).astype(np.float32)
    f64 = f.astype(np.float64)
    oracle_c = sb.spline_filter(f64, mode=mode, impl="reference")
    tol = sb.tolerance(name, shape)
    max_f = float(np.max(np.abs(f)))

    c = sb.spline_filter(f, mode=mode, impl=name)
    assert c.shape == f.shape and c.dtype == np.float32, where
    assert rel_l2(c, oracle_c) <= tol["prefilter_rel_l2"], f"{where}: prefilter; basis: {tol['basis']}"

    x = queries(rng, shape)
    finite = np.all(np.isfinite(x), axis=0)
    oracle_s = sb.map_coordinates(oracle_c, x.astype(np.float64), mode=mode, prefilter=False, impl="reference")
    s = sb.map_coordinates(f, x, mode=mode, impl=name)
    assert s.shape == (x.shape[1],) and s.dtype == np.float32, where
    assert np.array_equal(np.isnan(s), ~finite), f"{where}: NaN exactly at the non-finite coordinates"
    assert np.max(np.abs(s[finite] - oracle_s[finite])) / max_f <= tol["interp_max_rel_to_maxf"], (
        f"{where}: values from samples; basis: {tol['basis']}")

    # Coefficients handed in: the oracle's rounded to float, evaluated by the oracle exactly.
    c32 = oracle_c.astype(np.float32)
    oracle_s = sb.map_coordinates(c32.astype(np.float64), x.astype(np.float64), mode=mode, prefilter=False,
                                  impl="reference")
    s = sb.map_coordinates(c32, x, mode=mode, prefilter=False, impl=name)
    assert np.array_equal(np.isnan(s), ~finite), where
    assert np.max(np.abs(s[finite] - oracle_s[finite])) / max_f <= tol["interp_max_rel_to_maxf"], (
        f"{where}: values from coefficients; basis: {tol['basis']}")


@pytest.mark.parametrize("name", registry_names())
def test_channels_and_batches_are_the_harness_layout(sb, registry, name):
    """channels=C: the last axis; batch=True: the first axis counts fields. Each field and
    channel within the tolerance of the oracle, which computes them independently."""
    row = runnable(registry, name)
    rng = np.random.default_rng(1 + sum(map(ord, name)))
    channels = max(row["channels"])
    batch = row["field_batches"]
    shape = (6, 5)
    mode = row["modes"][-1]
    if sb._core.known_defect(name, list(shape), channels, mode):
        mode = row["modes"][0]
    full = ((2,) if batch else ()) + shape + ((channels,) if channels > 1 else ())
    f = rng.standard_normal(full).astype(np.float32)
    c = sb.spline_filter(f, mode=mode, impl=name, channels=channels, batch=batch)
    x = queries(rng, shape, n=30)
    finite = np.all(np.isfinite(x), axis=0)
    s = sb.map_coordinates(f, x, mode=mode, impl=name, channels=channels, batch=batch)
    assert s.shape == ((2,) if batch else ()) + (30,) + ((channels,) if channels > 1 else ())
    tol = sb.tolerance(name, shape, channels)
    fields = f.reshape((-1,) + shape + (channels,))
    for k in range(fields.shape[0]):
        for ch in range(channels):
            one = fields[k, ..., ch].astype(np.float64)
            oracle_c = sb.spline_filter(one, mode=mode, impl="reference")
            got_c = c.reshape(fields.shape)[k, ..., ch]
            assert rel_l2(got_c, oracle_c) <= tol["prefilter_rel_l2"], (name, k, ch)
            oracle_s = sb.map_coordinates(oracle_c, x.astype(np.float64), mode=mode, prefilter=False,
                                          impl="reference")
            got_s = s.reshape((fields.shape[0], 30, channels))[k, :, ch]
            assert np.array_equal(np.isnan(got_s), ~finite)
            assert np.max(np.abs(got_s[finite] - oracle_s[finite])) / np.max(np.abs(one)) <= \
                tol["interp_max_rel_to_maxf"], (name, k, ch)
