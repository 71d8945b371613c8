"""The scipy adapter (adapters/python/) and its protocol: requests and errors, which
scipy.ndimage mode is which of the project's extensions (measured against the exact
solve, not assumed), and the adapter's answers against an exact oracle in f32 and f64,
with fields and channels, NaN for non-finite and huge coordinates folded."""
from __future__ import annotations

import numpy as np
import pytest

import peers_oracle as oracle
from adapter_client import AdapterClient, AdapterError

scipy_ndimage = pytest.importorskip("scipy.ndimage", reason="scipy not installed in this Python")


@pytest.fixture(scope="module")
def adapter():
    with AdapterClient("scipy") as a:
        yield a


def test_hello_names_the_library_and_its_versions(adapter):
    hello = adapter.request({"op": "hello"})
    assert hello["available"] is True and hello["library"] == "scipy" and hello["protocol"] == 1
    assert set(hello["versions"]) >= {"scipy", "numpy"} and hello["timer"] == "time.perf_counter"


def test_null_request_and_errors_keep_the_adapter_alive(adapter):
    assert adapter.request({"op": "null"}) == {"ok": True}
    assert "not JSON" in adapter.raw("{nope")["error"]
    assert "unknown op" in adapter.raw('{"op": "frobnicate"}')["error"]
    with pytest.raises(AdapterError, match="lacks 'mode'"):
        adapter.request({"op": "prepare", "shape": [4], "fields": 1, "channels": 1, "dtype": "f32",
                         "prefilter": True, "input": "/nonexistent"})
    with pytest.raises(AdapterError, match="mode must be one of"):
        adapter.request({"op": "prepare", "shape": [4], "fields": 1, "channels": 1, "dtype": "f32",
                         "mode": "wrap", "prefilter": True, "input": "/nonexistent"})
    with pytest.raises(AdapterError, match="evaluate before prepare"):
        adapter.request({"op": "evaluate", "coords": "/nonexistent", "n": 1, "output": "/nonexistent"})
    assert adapter.request({"op": "null"}) == {"ok": True}


def scipy_coeffs(f: np.ndarray, mode: str) -> np.ndarray:
    return scipy_ndimage.spline_filter1d(f, order=3, mode=mode, output=np.float64)


@pytest.mark.parametrize("n", range(2, 21))
def test_which_scipy_mode_is_which_extension(n):
    f = np.random.default_rng(n).uniform(-1, 1, n)
    exact = {m: oracle.prefilter(f[None, :, None], m)[0, :, 0] for m in ("mirror", "half", "periodic")}
    assert np.max(np.abs(scipy_coeffs(f, "mirror") - exact["mirror"])) < 1e-14
    assert np.max(np.abs(scipy_coeffs(f, "grid-wrap") - exact["periodic"])) < 1e-14
    # 'grid-mirror' is 'reflect' (the same code), and both are the half-sample extension...
    assert np.array_equal(scipy_coeffs(f, "grid-mirror"), scipy_coeffs(f, "reflect"))
    half_error = np.max(np.abs(scipy_coeffs(f, "grid-mirror") - exact["half"]))
    if n >= 16:
        assert half_error < 1e-13
    # ...with an inexact initialisation on short lines (scipy gh-24550), which the
    # scipy implementation names as its known defect (impls/external/peers.cpp).
    if n <= 5:
        assert half_error > 1e-7
    # 'wrap' is not the periodic extension of the samples.
    if n >= 3:
        assert np.max(np.abs(scipy_coeffs(f, "wrap") - exact["periodic"])) > 1e-3


# Long lines (>= 16 samples: no short-line defect), every D up to 3, fields and channels.
CASES = [((40,), 2, 1), ((20, 17), 1, 3), ((16, 18, 17), 2, 2)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("mode", ["mirror", "half", "periodic"])
@pytest.mark.parametrize("extents,fields,channels", CASES)
def test_adapter_matches_the_exact_oracle(adapter, extents, fields, channels, mode, dtype):
    rng = np.random.default_rng(len(extents) * 10 + channels)
    samples = rng.uniform(-1, 1, (fields, *extents, channels)).astype(dtype)
    phases = adapter.prepare(samples, mode)
    assert phases["prefilter"] > 0
    exact = oracle.prefilter(samples, mode)
    coeffs = adapter.coefficients()
    assert coeffs.dtype == dtype and not np.isnan(coeffs).any()
    rel = np.linalg.norm(coeffs - exact) / np.linalg.norm(exact)
    # f64: double arithmetic, ~1e-15; f32: one float rounding per pass (2^-24 relative
    # each, amplified < 2.3x per later pass: f32_accuracy.hpp), well under 1e-6.
    assert rel < (1e-13 if dtype == np.float64 else 1e-6)

    coords = oracle.queries(extents, 300, rng, dtype)
    values, phases = adapter.evaluate(coords)
    assert phases["evaluate"] > 0
    want = oracle.evaluate(coeffs.astype(np.float64), coords, mode)
    assert np.array_equal(np.isnan(values), np.isnan(want)), "NaN exactly at non-finite coordinates"
    ok = ~np.isnan(want)
    # Double taps on the returned coefficients: only the final rounding to dtype.
    bound = 1e-12 if dtype == np.float64 else 1e-6
    assert np.max(np.abs(values[ok] - want[ok])) < bound * np.max(np.abs(samples))


def test_handed_in_coefficients_are_used_as_given(adapter):
    rng = np.random.default_rng(5)
    coeffs = rng.uniform(-1, 1, (1, 24, 19, 1))
    assert "prefilter" not in adapter.prepare(coeffs, "periodic", prefilter=False)
    assert np.array_equal(adapter.coefficients(), coeffs)
    coords = oracle.queries((24, 19), 50, rng, np.float64)
    values, _ = adapter.evaluate(coords)
    want = oracle.evaluate(coeffs, coords, "periodic")
    assert np.allclose(values, want, rtol=0, atol=1e-12, equal_nan=True)
