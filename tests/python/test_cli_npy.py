"""What `splinebench prefilter` / `interpolate` read and write: dtypes in and out (with
the notes on stderr), .npy versions, query shapes, Fortran-order coordinates, NaN and
infinite coordinates, --threads."""
import io

import numpy as np
import pytest
import scipy.ndimage as ndi

from conftest import exact_prefilter, interp_f32_bound, prefilter_f32_bound


def run_interp(cli_ok, tmp_path, data, coords, *options, impl="reference", mode="mirror", prefilter=True):
    np.save(tmp_path / "in.npy", data)
    np.save(tmp_path / "x.npy", coords)
    result = cli_ok("interpolate", "--impl", impl, "--mode", mode, *(["--prefilter"] if prefilter else []),
                    *options, tmp_path / "in.npy", tmp_path / "x.npy", tmp_path / "out.npy")
    return np.load(tmp_path / "out.npy"), result.stderr


# --- dtypes ------------------------------------------------------------------------

@pytest.mark.parametrize("impl,in_dtype,out_dtype,note", [
    ("reference", np.float64, np.float64, None),
    ("reference", np.float32, np.float32, None),
    ("cpu_scalar", np.float32, np.float32, None),
    ("cpu_scalar", np.float64, np.float32, "converting the input from float64 to float32 (cpu_scalar computes in float32)"),
])
def test_prefilter_output_dtype(impl, in_dtype, out_dtype, note, cli_ok, tmp_path, rng):
    np.save(tmp_path / "f.npy", rng.uniform(-1, 1, (9, 7)).astype(in_dtype))
    result = cli_ok("prefilter", "--impl", impl, "--mode", "half", tmp_path / "f.npy", tmp_path / "c.npy")
    c = np.load(tmp_path / "c.npy")
    assert c.dtype == out_dtype and c.shape == (9, 7)
    if note:
        assert f"splinebench: note: {note}" in result.stderr
    else:
        assert result.stderr == ""


def test_reference_float32_input_is_rounded_once(cli_ok, tmp_path, rng):
    # float32 samples are widened exactly, filtered in double, rounded to float32 at the end.
    f = rng.uniform(-1, 1, (11, 13)).astype(np.float32)
    np.save(tmp_path / "f.npy", f)
    cli_ok("prefilter", "--impl", "reference", "--mode", "periodic", tmp_path / "f.npy", tmp_path / "c.npy")
    expected = ndi.spline_filter(f.astype(np.float64), order=3, mode="grid-wrap").astype(np.float32)
    # Correctly rounded double results differ from SciPy's by ~1e-16 relative, which can
    # flip a float32 rounding by one ulp at most.
    assert np.max(np.abs(np.load(tmp_path / "c.npy") - expected) / np.spacing(np.abs(expected))) <= 1.0


def test_float64_coordinates_note_for_float32_implementation(cli_ok, tmp_path, rng):
    data = rng.uniform(-1, 1, (8, 9)).astype(np.float32)
    _, stderr = run_interp(cli_ok, tmp_path, data, rng.uniform(0, 7, (2, 30)), impl="cpu_scalar")
    assert "converting the coordinates from float64 to float32" in stderr
    assert "converting the samples" not in stderr


def test_reference_uses_float64_coordinates_as_given(cli_ok, tmp_path, rng):
    # x and float32(x) differ by ~1e-8; the reference must see x itself.
    data = rng.uniform(-1, 1, (30,))
    x = rng.uniform(0, 29, (1, 50))
    s, _ = run_interp(cli_ok, tmp_path, data, x)
    expected = ndi.map_coordinates(data, x, order=3, mode="mirror")
    rounded = ndi.map_coordinates(data, x.astype(np.float32).astype(np.float64), order=3, mode="mirror")
    assert np.max(np.abs(s - expected)) <= 1e-12
    assert np.max(np.abs(s - rounded)) > 1e-10  # would pass only if the coordinates were rounded


# --- .npy versions and layout -----------------------------------------------------------

@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_npy_format_versions(version, cli_ok, tmp_path, rng):
    f = rng.uniform(-1, 1, (6, 5))
    np.save(tmp_path / "v1.npy", f)
    with open(tmp_path / "vN.npy", "wb") as fh:
        np.lib.format.write_array(fh, f, version=version)
    assert (tmp_path / "vN.npy").read_bytes()[6] == version[0]
    for name in ("v1", "vN"):
        cli_ok("prefilter", "--impl", "reference", "--mode", "mirror", tmp_path / f"{name}.npy",
               tmp_path / f"{name}_c.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "vN_c.npy"), np.load(tmp_path / "v1_c.npy"))


def test_output_is_plain_npy(cli_ok, tmp_path, rng):
    np.save(tmp_path / "f.npy", rng.uniform(-1, 1, (4, 5, 6)))
    cli_ok("prefilter", "--impl", "reference", "--mode", "mirror", tmp_path / "f.npy", tmp_path / "c.npy")
    raw = (tmp_path / "c.npy").read_bytes()
    fh = io.BytesIO(raw)
    assert np.lib.format.read_magic(fh) == (1, 0)
    shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(fh)
    assert (shape, fortran_order, dtype.str) == ((4, 5, 6), False, "<f8")
    assert fh.tell() % 64 == 0  # data aligned like NumPy's own files
    assert len(raw) == fh.tell() + 4 * 5 * 6 * 8


def test_output_replaces_existing_file(cli_ok, tmp_path, rng):
    (tmp_path / "c.npy").write_bytes(b"stale")
    np.save(tmp_path / "f.npy", rng.uniform(-1, 1, (5,)))
    cli_ok("prefilter", "--impl", "reference", "--mode", "mirror", tmp_path / "f.npy", tmp_path / "c.npy")
    assert np.load(tmp_path / "c.npy").shape == (5,)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.npy", "f.npy"]


# --- query shapes -------------------------------------------------------------------

@pytest.mark.parametrize("impl", ["reference", "cpu_scalar"])
def test_query_shape_like_map_coordinates(impl, cli_ok, tmp_path, rng):
    data = rng.uniform(-1, 1, (12, 13)).astype(np.float32)
    x = rng.uniform(-3, 15, (2, 4, 5, 6)).astype(np.float32)
    s, _ = run_interp(cli_ok, tmp_path, data, x, impl=impl, mode="half")
    assert s.shape == (4, 5, 6)
    expected = ndi.map_coordinates(data.astype(np.float64), x.astype(np.float64), order=3, mode="reflect")
    assert np.max(np.abs(s - expected)) <= 1e-5  # float32 output; far below any indexing error


def test_query_shape_with_channels(cli_ok, tmp_path, rng):
    data = rng.uniform(-1, 1, (12, 13, 2))
    x = rng.uniform(0, 11, (2, 3, 7))
    s, _ = run_interp(cli_ok, tmp_path, data, x, "--channels", "2")
    assert s.shape == (3, 7, 2)
    for ch in range(2):
        expected = ndi.map_coordinates(data[..., ch], x, order=3, mode="mirror")
        assert np.max(np.abs(s[..., ch] - expected)) <= 1e-12


@pytest.mark.parametrize("impl", ["reference", "cpu_scalar"])
def test_no_queries_gives_empty_output(impl, cli_ok, tmp_path, rng):
    s, _ = run_interp(cli_ok, tmp_path, rng.uniform(size=(5, 4)).astype(np.float32),
                      np.zeros((2, 0), np.float32), impl=impl)
    assert s.shape == (0,)


def test_fortran_order_coordinates(cli_ok, tmp_path, rng):
    data = rng.uniform(-1, 1, (10, 11))
    x = rng.uniform(-2, 12, (2, 40, 3))
    s_c, _ = run_interp(cli_ok, tmp_path, data, x)
    s_f, _ = run_interp(cli_ok, tmp_path, data, np.asfortranarray(x))
    np.testing.assert_array_equal(s_f, s_c)


# --- NaN and infinite coordinates -------------------------------------------------------

def cpu_implementations(cli):
    listed = cli("list").stdout.splitlines()[1:]
    return [line.split()[0] for line in listed if line.split()[1] == "cpu" and line.split()[3] == "ok"]


@pytest.mark.parametrize("channels", [1, 4])
@pytest.mark.parametrize("mode", ["mirror", "half", "periodic"])
def test_non_finite_coordinates_give_nan(mode, channels, cli, cli_ok, tmp_path, rng):
    """Documented behaviour: a query with a NaN or infinite coordinate on any axis gives
    NaN (in every channel); every other query gets its ordinary value. Checked for every
    CPU implementation that runs here."""
    grid = (9, 10, 11)
    shape = grid + ((channels,) if channels > 1 else ())
    data = rng.uniform(-1, 1, shape).astype(np.float32)
    x = rng.uniform(-4, 14, (3, 64)).astype(np.float32)
    bad = [3, 10, 11, 40, 63]
    x[0, 3], x[1, 10], x[2, 11], x[0, 40], x[1, 40], x[2, 63] = np.nan, np.inf, -np.inf, np.nan, np.inf, np.nan
    clean = np.delete(x, bad, axis=1)
    options = ["--channels", str(channels)]
    expected, _ = run_interp(cli_ok, tmp_path, data.astype(np.float64), clean.astype(np.float64), *options,
                             mode=mode)
    max_c = np.max(np.abs(exact_prefilter(data, mode, grid_dims=3)))
    # float32 prefilter + evaluation error bound (conftest.py), data max|f| <= 1.
    bound = prefilter_f32_bound(3, 1.0) + interp_f32_bound(3, max_c)
    for impl in cpu_implementations(cli):
        s, _ = run_interp(cli_ok, tmp_path, data, x, *options, impl=impl, mode=mode)
        nan_rows = np.isnan(s.reshape(64, -1))
        assert nan_rows[bad].all(), impl
        assert not np.delete(nan_rows, bad, axis=0).any(), impl
        assert np.max(np.abs(np.delete(s, bad, axis=0) - expected)) <= bound, impl


def test_far_outside_coordinates(cli_ok, tmp_path, rng):
    # Coefficients (no prefilter): the lines are short, where SciPy's 'reflect'
    # prefilter is off (gh-24550); its evaluation folds far coordinates exactly.
    data = rng.uniform(-1, 1, (7, 6))
    x = np.array([[1e7 + 0.25, -3e9, 12.5, 2.0**40], [-1e7 - 0.5, 5e8 + 0.75, -2.0**45, 3.0]])
    for mode, scipy_mode in (("mirror", "mirror"), ("half", "reflect"), ("periodic", "grid-wrap")):
        s, _ = run_interp(cli_ok, tmp_path, data, x, mode=mode, prefilter=False)
        expected = ndi.map_coordinates(data, x, order=3, mode=scipy_mode, prefilter=False)
        assert np.max(np.abs(s - expected)) <= 1e-12, mode


# --- threads ---------------------------------------------------------------------------

def test_threads_option(cli_ok, tmp_path, rng):
    np.save(tmp_path / "f.npy", rng.uniform(-1, 1, (40, 30)))
    cli_ok("prefilter", "--impl", "reference", "--mode", "mirror", tmp_path / "f.npy", tmp_path / "a.npy")
    result = cli_ok("prefilter", "--impl", "reference", "--mode", "mirror", "--threads", "1", tmp_path / "f.npy",
                    tmp_path / "b.npy")
    assert result.stderr == ""
    # Lines are independent, so the thread count cannot change a single bit.
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), np.load(tmp_path / "b.npy"))
    result = cli_ok("prefilter", "--impl", "cpu_scalar", "--mode", "mirror", "--threads", "2", tmp_path / "f.npy",
                    tmp_path / "c.npy")
    assert "cpu_scalar' runs on one thread; --threads ignored" in result.stderr
