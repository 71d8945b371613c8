"""The Python module as a library: errors are Python exceptions carrying the harness's
messages (the same text the CLI prints), dtypes follow the CLI's rules, arrays of any
layout are handled, the GIL is released during work and concurrent threads share nothing,
the registry is the CLI's, and every public function documents itself with an example
that runs (doctest)."""
import doctest
import re
import threading
import time

import numpy as np
import pytest


def message(excinfo):
    return str(excinfo.value)


# ---- errors, with the harness's messages --------------------------------------------------

def cli_error(cli, tmp_path, *args, array=None, coords=None):
    """The CLI's message for the same request (after 'splinebench: error: ')."""
    f = tmp_path / "f.npy"
    np.save(f, np.zeros((4, 3)) if array is None else array)
    if coords is None:
        result = cli("prefilter", *args, f, tmp_path / "out.npy")
    else:
        x = tmp_path / "x.npy"
        np.save(x, coords)
        result = cli("interpolate", *args, f, x, tmp_path / "out.npy")
    assert result.returncode == 1, result.stderr
    return re.search(r"splinebench: error: (.*)", result.stderr).group(1)


def test_unknown_mode_and_implementation_are_the_harness_errors(sb, cli, tmp_path):
    with pytest.raises(ValueError) as e:
        sb.spline_filter(np.zeros((4, 3)), mode="wrap")
    assert isinstance(e.value, sb.Error)
    assert message(e) == cli_error(cli, tmp_path, "--impl", "reference", "--mode", "wrap")
    with pytest.raises(sb.Error) as e:
        sb.spline_filter(np.zeros((4, 3)), impl="nope")
    assert message(e) == cli_error(cli, tmp_path, "--impl", "nope", "--mode", "mirror")
    assert "known: reference cpu_scalar" in message(e)


@pytest.mark.parametrize("shape", [(), (2,) * 7, (3, 0, 2)], ids=["0-d", "7 axes", "zero-length axis"])
def test_shapes_the_harness_refuses(sb, cli, tmp_path, shape):
    a = np.zeros(shape)
    with pytest.raises(sb.Error) as e:
        sb.spline_filter(a, impl="reference")
    assert message(e) == cli_error(cli, tmp_path, "--impl", "reference", "--mode", "mirror", array=a)


def test_channel_axis_and_coordinates_errors(sb, cli, tmp_path):
    a = np.zeros((5, 6, 3))
    with pytest.raises(sb.Error) as e:
        sb.spline_filter(a, channels=2)
    assert message(e) == cli_error(cli, tmp_path, "--impl", "reference", "--mode", "mirror", "--channels", "2",
                                   array=a).replace("--channels 2", "channels=2")
    f = np.zeros((5, 6))
    for coords in (np.zeros((3, 4)), np.zeros(4)):
        with pytest.raises(sb.Error) as e:
            sb.map_coordinates(f, coords, impl="reference")
        assert message(e) == cli_error(cli, tmp_path, "--impl", "reference", "--mode", "mirror", "--prefilter",
                                       array=f, coords=coords)


def test_other_refusals(sb):
    f = np.zeros((5, 6))
    with pytest.raises(ValueError, match="order must be 3"):
        sb.spline_filter(f, order=1)
    with pytest.raises(sb.Error, match=r"channels must be 1, 2 or 4, got 3"):
        sb.spline_filter(f, channels=3)
    with pytest.raises(sb.Error, match=r"threads must be in \[0, "):
        sb.spline_filter(f, threads=-1)
    with pytest.raises(TypeError, match="complex128"):
        sb.spline_filter(f.astype(np.complex128))
    with pytest.raises(sb.Error, match="with batch=True the first axis of the input counts the fields"):
        sb.spline_filter(np.zeros((0, 4)), batch=True)


def test_an_implementation_that_cannot_run_here_says_why(sb):
    unavailable = [r for r in sb.implementations() if not r["available"]]
    if not unavailable:
        pytest.skip("every implementation can run on this machine")
    row = unavailable[0]
    with pytest.raises(sb.Error) as e:
        sb.spline_filter(np.zeros((4, 3), np.float32), impl=row["name"])
    assert message(e) == f"implementation '{row['name']}' cannot run here: {row['reason']}"


# ---- dtypes and layouts --------------------------------------------------------------------

def test_dtypes_follow_the_cli(sb, rng):
    f = rng.standard_normal((9, 7))
    assert sb.spline_filter(f).dtype == np.float64                      # default for float64: the oracle
    assert sb.spline_filter(f.astype(np.float32)).dtype == np.float32   # default for float32: cpu_simd
    assert sb.spline_filter(f, impl="cpu_scalar").dtype == np.float32   # float32 arithmetic: float32 out
    c64 = sb.spline_filter(f.astype(np.float32).astype(np.float64), impl="reference")
    c32 = sb.spline_filter(f.astype(np.float32), impl="reference")      # computed in double, rounded once
    assert c32.dtype == np.float32 and np.array_equal(c32, c64.astype(np.float32))
    ints = np.arange(63, dtype=np.int16).reshape(9, 7)
    assert np.array_equal(sb.spline_filter(ints), sb.spline_filter(ints.astype(np.float64)))


def test_scipy_mode_names_are_the_same_modes(sb, rng):
    f = rng.standard_normal((13, 12))
    for scipy_name, ours in (("reflect", "half"), ("grid-mirror", "half"), ("grid-wrap", "periodic")):
        assert np.array_equal(sb.spline_filter(f, mode=scipy_name), sb.spline_filter(f, mode=ours))


def test_any_layout_is_read_as_its_values(sb, rng):
    f = rng.standard_normal((12, 10))
    for view in (f.T, f[::2, ::3], np.asfortranarray(f), f.astype(">f8")):
        want = sb.spline_filter(np.ascontiguousarray(view, dtype=np.float64), impl="cpu_scalar")
        assert np.array_equal(sb.spline_filter(view, impl="cpu_scalar"), want)
    x = np.asfortranarray(rng.uniform(0, 9, (2, 20)))
    assert np.array_equal(sb.map_coordinates(f, x), sb.map_coordinates(f, np.ascontiguousarray(x)))


def test_query_shape_is_kept(sb, rng):
    f = rng.standard_normal((8, 9))
    x = rng.uniform(-3, 12, (2, 4, 5))
    s = sb.map_coordinates(f, x)
    assert s.shape == (4, 5)
    assert np.array_equal(s.ravel(), sb.map_coordinates(f, x.reshape(2, 20)))
    assert sb.map_coordinates(f, np.zeros((2, 0))).shape == (0,)


# ---- threads and the GIL -------------------------------------------------------------------

def test_the_gil_is_released_during_work(sb, rng):
    """While one thread is inside a long call, another runs Python: with the GIL held for
    the whole call the counter could not move between the call's start and its end."""
    f = rng.standard_normal((160, 160, 160)).astype(np.float32)
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        time.sleep(0.01)
        before = count[0]
        t0 = time.perf_counter()
        sb.spline_filter(f, impl="cpu_scalar")
        elapsed = time.perf_counter() - t0
        during = count[0] - before
    finally:
        stop.set()
        spinner.join()
    assert elapsed > 0.02, "the call was too short to tell"
    assert during > 1000, f"{during} increments in {elapsed:.3f} s of work: the GIL was held"


def test_concurrent_calls_give_the_sequential_results(sb, rng):
    names = [r["name"] for r in sb.implementations()
             if r["available"] and r["device"] == "cpu" and not r["test_only"] and r["name"] != "scipy"]
    fields = [rng.standard_normal((40, 33)).astype(np.float32) for _ in range(6)]
    x = rng.uniform(-5, 45, (2, 500)).astype(np.float32)
    jobs = [(name, f, mode) for name in names for f in fields[:2] for mode in ("mirror", "half", "periodic")]
    want = [(sb.spline_filter(f, mode=m, impl=n), sb.map_coordinates(f, x, mode=m, impl=n)) for n, f, m in jobs]
    got = [None] * len(jobs)

    def work(k):
        for _ in range(3):
            n, f, m = jobs[k]
            got[k] = (sb.spline_filter(f, mode=m, impl=n), sb.map_coordinates(f, x, mode=m, impl=n))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for (n, _, m), (c0, s0), (c1, s1) in zip(jobs, want, got):
        assert np.array_equal(c0, c1) and np.array_equal(s0, s1), (n, m)


def test_threads_argument(sb, rng):
    f = rng.standard_normal((64, 64, 32)).astype(np.float32)
    one = sb.spline_filter(f, impl="cpu_simd", threads=1)
    assert np.array_equal(sb.spline_filter(f, impl="cpu_simd", threads=2), one)
    assert np.array_equal(sb.spline_filter(f.astype(np.float64), impl="reference", threads=2),
                          sb.spline_filter(f.astype(np.float64), impl="reference", threads=1))


# ---- the registry, stubs and documentation -------------------------------------------------

def test_implementations_is_the_registry(sb, cli_ok):
    import json
    listed = json.loads(cli_ok("list", "--json").stdout)
    rows = sb.implementations()
    assert [r["name"] for r in rows] == [r["name"] for r in listed]
    for row, cli_row in zip(rows, listed):
        assert (row["available"], row["device"], row["f64"]) == (cli_row["available"], cli_row["device"],
                                                                 cli_row["f64"])
        assert set(row) >= {"reason", "description", "arithmetic", "evaluation", "dims", "channels", "modes",
                            "field_batches", "threads", "device_arrays", "device_arrays_f64", "test_only"}
        if row["device"] == "cpu":
            assert not row["device_arrays"]


def test_package_has_stubs_and_examples(sb):
    from pathlib import Path
    folder = Path(sb.__file__).parent
    assert (folder / "py.typed").is_file() and (folder / "_core.pyi").is_file()
    for name in sb.__all__:
        obj = getattr(sb, name)
        if callable(obj) and not isinstance(obj, type):
            assert ">>>" in (obj.__doc__ or ""), f"{name} has no example"
    failures, tried = doctest.testmod(sb, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried >= 5 and failures == 0


def test_the_module_uses_the_processes_shared_libstdcxx(sb):
    """_core carries no libstdc++ of its own: a static copy beside the interpreter's shared
    one (NumPy's) keeps a second std::locale registry, and the module dies on its first
    formatted number (it did on a machine whose compiler links libstdc++ statically)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    if not sys.platform.startswith("linux"):
        pytest.skip("an ELF check")
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm (binutils) to list the module's symbols")
    core = Path(sb._core.__file__)
    defined = subprocess.run([nm, "-D", "--defined-only", str(core)], capture_output=True, text=True,
                             check=True).stdout
    runtime = [line.split()[-1] for line in defined.splitlines() if re.search(r" _ZNSt6locale|_ZNSt8ios_base", line)]
    assert not runtime, f"{core.name} defines libstdc++'s own symbols (linked statically): {runtime[:5]}"
    needed = subprocess.run(["readelf", "-d", str(core)], capture_output=True, text=True).stdout \
        if shutil.which("readelf") else ""
    if needed:
        assert "libstdc++.so" in needed, f"{core.name} does not link libstdc++.so:\n{needed}"


def test_capsules_synchronise_only_across_streams(sb):
    """The DLPack stream argument (_arrays.capsule_order): work on the producer's own current
    stream asks for no synchronisation (-1); a stream the caller names, or any stream of a
    producer whose current stream is unknown, asks the producer to order its pending work
    before it (1 stands for the legacy default stream, 0 being no stream in DLPack)."""
    from splinebench import _arrays

    def producer(module):
        return type("Array", (), {"__module__": module})()

    for library in ("cupy._core.core", "torch"):
        assert _arrays.capsule_order(producer(library), 12345, given=False) == -1
        assert _arrays.capsule_order(producer(library), 12345, given=True) == 12345
        assert _arrays.capsule_order(producer(library), 0, given=True) == 1
    assert _arrays.capsule_order(producer("jax"), 0, given=False) == 1
