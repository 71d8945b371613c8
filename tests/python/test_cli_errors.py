"""Bad input to `splinebench prefilter` / `interpolate`: each case must exit non-zero
with a message that names the problem, and leave no output file and no temporary file
behind (the working directory holds exactly the inputs afterwards)."""
import numpy as np
import pytest


def listing(path):
    return sorted(p.name for p in path.iterdir())


def expect_failure(cli, tmp_path, args, *fragments, output="out.npy"):
    """Runs the CLI, expects exit status 1 (a splinebench error) and every fragment in
    stderr, and checks that nothing was written to tmp_path."""
    before = listing(tmp_path)
    result = cli(*args)
    assert result.returncode == 1, f"exit {result.returncode}, stderr:\n{result.stderr}"
    assert result.stderr.startswith("splinebench: error: "), result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, f"{fragment!r} not in:\n{result.stderr}"
    assert not (tmp_path / output).exists()
    assert listing(tmp_path) == before, "files left behind"
    return result


@pytest.fixture
def samples(tmp_path, rng):
    """A valid 2-D float64 input (5, 6) and valid (2, 10) coordinates."""
    np.save(tmp_path / "f.npy", rng.uniform(-1, 1, (5, 6)))
    np.save(tmp_path / "x.npy", rng.uniform(-1, 6, (2, 10)))
    return tmp_path


def prefilter_args(tmp_path, src="f.npy", *options, impl="reference", mode="mirror"):
    return ["prefilter", "--impl", impl, "--mode", mode, *options, tmp_path / src, tmp_path / "out.npy"]


def interpolate_args(tmp_path, src="f.npy", coords="x.npy", *options, impl="reference", mode="mirror"):
    return ["interpolate", "--impl", impl, "--mode", mode, *options, tmp_path / src, tmp_path / coords,
            tmp_path / "out.npy"]


# --- shapes ---------------------------------------------------------------------

@pytest.mark.parametrize("command", ["prefilter", "interpolate"])
def test_zero_dimensional_input(command, cli, samples):
    np.save(samples / "s.npy", np.float64(3.0))
    args = prefilter_args(samples, "s.npy") if command == "prefilter" else interpolate_args(samples, "s.npy")
    expect_failure(cli, samples, args, "0-d array", "1 to 6 grid axes")


@pytest.mark.parametrize("impl", ["reference", "cpu_scalar"])
def test_more_than_six_axes(impl, cli, samples):
    np.save(samples / "d7.npy", np.ones((2,) * 7))
    expect_failure(cli, samples, prefilter_args(samples, "d7.npy", impl=impl), "7 grid axes", "1 to 6")
    np.save(samples / "d7c.npy", np.ones((2,) * 7 + (2,)))
    expect_failure(cli, samples, prefilter_args(samples, "d7c.npy", "--channels", "2", impl=impl), "7 grid axes")


def test_zero_length_axis(cli, samples):
    np.save(samples / "z.npy", np.ones((4, 0, 3)))
    expect_failure(cli, samples, prefilter_args(samples, "z.npy"), "axis 1", "has length 0", "(4, 0, 3)")
    expect_failure(cli, samples, interpolate_args(samples, "z.npy"), "axis 1", "has length 0")


def test_coords_first_axis_differs_from_dims(cli, samples, rng):
    np.save(samples / "x3.npy", rng.uniform(0, 4, (3, 10)))
    expect_failure(cli, samples, interpolate_args(samples, coords="x3.npy"),
                   "coordinates have 3 rows", "2 grid axes")


@pytest.mark.parametrize("shape", [(2,), ()], ids=["1d", "0d"])
def test_coords_need_two_or_more_axes(shape, cli, samples):
    np.save(samples / "xbad.npy", np.ones(shape))
    expect_failure(cli, samples, interpolate_args(samples, coords="xbad.npy"), "at least 2 axes",
                   "map_coordinates")


def test_channel_axis_length_mismatch(cli, samples, rng):
    np.save(samples / "rgb.npy", rng.uniform(size=(5, 6, 3)))
    expect_failure(cli, samples, prefilter_args(samples, "rgb.npy", "--channels", "2"),
                   "--channels 2", "must have length 2", "(5, 6, 3)")
    expect_failure(cli, samples, interpolate_args(samples, "rgb.npy", "x.npy", "--channels", "4"),
                   "must have length 4")
    np.save(samples / "only.npy", rng.uniform(size=(4,)))
    expect_failure(cli, samples, prefilter_args(samples, "only.npy", "--channels", "4"), "only the channel axis")


def test_unsupported_channel_count_and_threads(cli, samples):
    expect_failure(cli, samples, prefilter_args(samples, "f.npy", "--channels", "3"), "1, 2 or 4")
    expect_failure(cli, samples, prefilter_args(samples, "f.npy", "--threads", "-1"), "--threads")


# --- dtypes and file contents ------------------------------------------------------

@pytest.mark.parametrize("dtype,fragment", [
    (np.complex64, "'<c8' (complex)"),
    (np.complex128, "'<c16' (complex)"),
    (np.bool_, "'|b1' (bool)"),
    (">f4", "'>f4' is big-endian"),
    (">f8", "'>f8' is big-endian"),
    (np.float16, "'<f2' (float16)"),
    ("<U3", "'<U3' (strings)"),
])
@pytest.mark.parametrize("role", ["input", "coords"])
def test_unsupported_dtype(dtype, fragment, role, cli, samples):
    np.save(samples / "bad.npy", np.ones((2, 10)).astype(dtype))
    args = (prefilter_args(samples, "bad.npy") if role == "input"
            else interpolate_args(samples, coords="bad.npy"))
    expect_failure(cli, samples, args, "bad.npy", fragment, "not supported" if "endian" not in fragment else "")


def test_object_and_structured_dtypes(cli, samples):
    np.save(samples / "obj.npy", np.array([1, "a", None], dtype=object), allow_pickle=True)
    expect_failure(cli, samples, prefilter_args(samples, "obj.npy"), "'|O' (Python objects)")
    np.save(samples / "rec.npy", np.zeros(4, dtype=[("x", "<f4"), ("y", "<f4")]))
    expect_failure(cli, samples, prefilter_args(samples, "rec.npy"), "structured")


def test_truncated_file(cli, samples):
    data = (samples / "f.npy").read_bytes()
    (samples / "cut.npy").write_bytes(data[:-5])
    expect_failure(cli, samples, prefilter_args(samples, "cut.npy"), "cut.npy", "truncated",
                   "needs 240 data bytes, the file has 235")
    (samples / "cut_header.npy").write_bytes(data[:40])
    expect_failure(cli, samples, prefilter_args(samples, "cut_header.npy"), "truncated")


def test_trailing_bytes(cli, samples):
    (samples / "long.npy").write_bytes((samples / "f.npy").read_bytes() + b"\0" * 8)
    expect_failure(cli, samples, prefilter_args(samples, "long.npy"), "shape/size mismatch", "8 extra")


def test_corrupt_magic(cli, samples):
    data = bytearray((samples / "f.npy").read_bytes())
    data[0:6] = b"NOTNPY"
    (samples / "magic.npy").write_bytes(bytes(data))
    expect_failure(cli, samples, prefilter_args(samples, "magic.npy"), "magic.npy", "not a .npy file")
    expect_failure(cli, samples, interpolate_args(samples, coords="magic.npy"), "not a .npy file")


def test_bad_header_dict(cli, samples):
    data = (samples / "f.npy").read_bytes()
    (samples / "hdr.npy").write_bytes(data.replace(b"'fortran_order'", b"'fortran_ordex'"))
    expect_failure(cli, samples, prefilter_args(samples, "hdr.npy"), "bad .npy header dict", "'fortran_ordex'")


def test_header_too_long(cli, samples):
    header = b"\x93NUMPY\x02\x00" + (200000).to_bytes(4, "little")
    (samples / "huge.npy").write_bytes(header + b" " * 64)
    expect_failure(cli, samples, prefilter_args(samples, "huge.npy"), "200000 bytes", "over the limit")


# --- names, paths ----------------------------------------------------------------

@pytest.mark.parametrize("command", ["prefilter", "interpolate"])
def test_unknown_implementation(command, cli, samples):
    args = (prefilter_args(samples, impl="no_such_impl") if command == "prefilter"
            else interpolate_args(samples, impl="no_such_impl"))
    expect_failure(cli, samples, args, "unknown implementation 'no_such_impl'", "reference", "cpu_scalar")


@pytest.mark.parametrize("mode", ["wrap", "reflect", "MIRROR", ""])
def test_unknown_mode(mode, cli, samples):
    expect_failure(cli, samples, prefilter_args(samples, mode=mode), f"unknown mode '{mode}'",
                   "half (SciPy 'reflect'/'grid-mirror')")
    expect_failure(cli, samples, interpolate_args(samples, mode=mode), f"unknown mode '{mode}'")


def test_missing_input_files(cli, samples):
    expect_failure(cli, samples, prefilter_args(samples, "absent.npy"), "absent.npy", "no such file")
    expect_failure(cli, samples, interpolate_args(samples, "absent.npy"), "absent.npy", "no such file")
    expect_failure(cli, samples, interpolate_args(samples, coords="absent.npy"), "absent.npy", "no such file")


def test_output_directory_missing(cli, samples):
    for args in (["prefilter", "--impl", "cpu_scalar", "--mode", "half", samples / "f.npy"],
                 ["interpolate", "--impl", "reference", "--mode", "half", samples / "f.npy", samples / "x.npy"]):
        before = listing(samples)
        result = cli(*args, samples / "missing_dir" / "out.npy")
        assert result.returncode == 1
        assert "directory" in result.stderr and "does not exist" in result.stderr, result.stderr
        assert listing(samples) == before


def test_output_path_is_a_directory(cli, samples):
    (samples / "out.npy").mkdir()
    before = listing(samples)
    result = cli(*prefilter_args(samples))
    assert result.returncode == 1 and "is a directory" in result.stderr, result.stderr
    assert listing(samples) == before


def test_failed_run_keeps_an_existing_output(cli, samples):
    (samples / "out.npy").write_bytes(b"previous result")
    np.save(samples / "z.npy", np.ones((0, 3)))
    result = cli(*prefilter_args(samples, "z.npy"))
    assert result.returncode == 1
    assert (samples / "out.npy").read_bytes() == b"previous result"
    assert sorted(p.name for p in samples.iterdir()) == ["f.npy", "out.npy", "x.npy", "z.npy"]


def test_missing_required_option(cli, samples):
    result = cli("prefilter", "--mode", "mirror", samples / "f.npy", samples / "out.npy")
    assert result.returncode != 0
    assert "--impl" in result.stderr + result.stdout
    assert not (samples / "out.npy").exists()


def test_unavailable_implementation_is_refused(cli, samples):
    listed = cli("list")
    assert listed.returncode == 0
    unavailable = [line.split()[0] for line in listed.stdout.splitlines()[1:] if line.split()[3:4] == ["no"]]
    if not unavailable:
        pytest.skip("every implementation can run on this machine")
    expect_failure(cli, samples, prefilter_args(samples, impl=unavailable[0]), f"'{unavailable[0]}' cannot run here")
