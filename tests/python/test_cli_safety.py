"""The CLI harms nothing it touches.

Outputs that are FIFOs, character devices or symbolic links are written through,
never replaced; an interrupted write leaves no temporary file; thread counts are
bounded; a job too large for memory is refused before any work; a run folder has one
writer at a time; suite files with duplicate keys, an empty --machine and a
--run-dir-file in a missing folder are refused before anything runs.

The executable is $SPLINEBENCH_BIN (default build/bin/splinebench), see conftest.py.
"""
from __future__ import annotations

import io
import json
import os
import re
import signal
import stat
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

THREAD_LIMIT = max(1024, 4 * (os.cpu_count() or 1))
GIB = 2 ** 30


def prefilter(path_in, path_out, *extra):
    return ("prefilter", "--impl", "reference", "--mode", "mirror", *extra, path_in, path_out)


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "f.npy"
    np.save(path, np.linspace(-1.0, 2.0, 24).reshape(4, 6))
    return path


def reference_coefficients(cli_ok, tmp_path, src):
    out = tmp_path / "expected.npy"
    cli_ok(*prefilter(src, out))
    return np.load(out)


# --- outputs that are not regular files ---------------------------------------------

def write_to_fifo(cli, src, fifo):
    """Runs prefilter into `fifo` with `cat` reading it; returns (result, bytes read or None)."""
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    try:
        result = cli(*prefilter(src, fifo), timeout=60)
        try:
            data, _ = reader.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            data = None  # the FIFO was never opened for writing
    finally:
        reader.kill()
        reader.wait()
    return result, data


def test_fifo_output_is_written_through(cli, cli_ok, tmp_path, small):
    expected = reference_coefficients(cli_ok, tmp_path, small)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    result, data = write_to_fifo(cli, small, fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a file"
    assert result.returncode == 0, result.stderr
    assert data is not None, "nothing was written into the FIFO"
    np.testing.assert_array_equal(np.load(io.BytesIO(data)), expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["expected.npy", "f.npy", "out.fifo"]


def test_symlink_output_keeps_the_link_and_replaces_its_target(cli, cli_ok, tmp_path, small):
    expected = reference_coefficients(cli_ok, tmp_path, small)
    (tmp_path / "store").mkdir()
    target = tmp_path / "store" / "coeffs.npy"
    target.write_bytes(b"old")
    link = tmp_path / "link.npy"
    link.symlink_to(Path("store") / "coeffs.npy")
    result = cli(*prefilter(small, link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink(), "the symbolic link was replaced by a file"
    assert os.readlink(link) == str(Path("store") / "coeffs.npy")
    np.testing.assert_array_equal(np.load(target), expected)
    assert [p.name for p in (tmp_path / "store").iterdir()] == ["coeffs.npy"]


def test_dev_null_is_written_through(cli, tmp_path, small):
    # Only after a FIFO was written through: a binary that replaces special files
    # would replace /dev/null for the whole machine when run as root.
    fifo = tmp_path / "guard.fifo"
    os.mkfifo(fifo)
    result, data = write_to_fifo(cli, small, fifo)
    if not (stat.S_ISFIFO(os.lstat(fifo).st_mode) and result.returncode == 0 and data):
        pytest.fail("this binary replaces FIFOs; not letting it write to /dev/null")
    before = os.stat("/dev/null")
    result = cli(*prefilter(small, "/dev/null"))
    after = os.stat("/dev/null")
    assert result.returncode == 0, result.stderr
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino


def test_link_to_the_commands_stdout_writes_into_that_stream(splinebench_bin, cli_ok, tmp_path, small):
    # What /dev/stdout is (a link to /proc/self/fd/1), made in the test's own folder so
    # that a binary which replaces links cannot break the machine's /dev/stdout.
    expected = reference_coefficients(cli_ok, tmp_path, small)
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    out = tmp_path / "captured.npy"
    out.write_bytes(b"kept: ")
    # Appending redirection: the output goes where stdout points, in its mode.
    with open(out, "ab") as stream:
        result = subprocess.run([str(splinebench_bin), *prefilter(small, link)], stdout=stream,
                                stderr=subprocess.PIPE, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1", "the link was replaced"
    data = out.read_bytes()
    assert data.startswith(b"kept: "), data[:16]
    np.testing.assert_array_equal(np.load(io.BytesIO(data[len(b"kept: "):])), expected)


def test_block_devices_and_sockets_are_refused(cli, tmp_path, small):
    import socket
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        result = cli(*prefilter(small, path))
    finally:
        server.close()
    assert result.returncode == 1
    assert "socket" in result.stderr and "error:" in result.stderr, result.stderr
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


# --- interrupted writes -------------------------------------------------------------------

def sparse_npy(path, count, dtype=np.float32):
    """A .npy of `count` zeros whose data is a hole in the file (no disk used)."""
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False,
                 "shape": (count,)})
    with open(path, "wb") as f:
        f.write(header.getvalue())
        f.truncate(len(header.getvalue()) + count * np.dtype(dtype).itemsize)
    return path


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_during_a_write_leaves_no_temporary(splinebench_bin, tmp_path, sig):
    src = sparse_npy(tmp_path / "in.npy", 2 ** 26)  # 256 MiB of float32 to write back
    # The signal must land while the temporary exists. On a loaded machine the write can
    # finish (and the process exit 0 with its output in place) between the moment the test
    # sees the temporary and the signal: that attempt proves nothing either way, so it is
    # repeated, and the test skips only if every attempt lost that race.
    for attempt in range(4):
        out_dir = tmp_path / f"out{attempt}"
        out_dir.mkdir()
        proc = subprocess.Popen([str(splinebench_bin), "prefilter", "--impl", "cpu_scalar", "--mode", "mirror",
                                 str(src), str(out_dir / "c.npy")], stderr=subprocess.PIPE)
        temporaries = []
        deadline = time.monotonic() + 120
        while proc.poll() is None and not temporaries and time.monotonic() < deadline:
            temporaries = [p.name for p in out_dir.iterdir()]
            if not temporaries:
                time.sleep(0.001)
        if proc.poll() is not None:
            proc.wait()
            continue  # finished before the test saw its temporary
        proc.send_signal(sig)
        proc.communicate(timeout=60)
        assert temporaries and temporaries[0].startswith(".c.npy.tmp"), temporaries
        if proc.returncode == 0 and [p.name for p in out_dir.iterdir()] == ["c.npy"]:
            continue  # the write and the rename finished before the signal arrived
        assert proc.returncode == -sig, f"exit status {proc.returncode}, expected death by signal {sig}"
        assert list(out_dir.iterdir()) == [], f"left behind: {[p.name for p in out_dir.iterdir()]}"
        return
    pytest.skip("in every attempt the write finished before the signal arrived")


# --- thread counts -------------------------------------------------------------------------

def test_threads_beyond_the_limit_are_refused(cli, tmp_path):
    field = tmp_path / "f.npy"
    coords = tmp_path / "x.npy"
    np.save(field, np.random.default_rng(0).random((64, 64), dtype=np.float32))
    np.save(coords, np.random.default_rng(1).random((2, 50000), dtype=np.float32) * 63)
    for threads in (THREAD_LIMIT + 1, 90000):
        result = cli("interpolate", "--impl", "cpu_simd", "--mode", "mirror", "--threads", threads,
                     field, coords, tmp_path / "v.npy", timeout=120)
        assert result.returncode == 1, (threads, result.returncode, result.stderr)
        assert f"--threads must be in [0, {THREAD_LIMIT}]" in result.stderr, result.stderr
        assert not (tmp_path / "v.npy").exists()
    assert cli("interpolate", "--impl", "cpu_simd", "--mode", "mirror", "--threads", 2, field, coords,
               tmp_path / "v.npy").returncode == 0


def run_cli(binary, *args, timeout=600):
    return subprocess.run([str(binary), "run", *map(str, args)], capture_output=True, text=True, timeout=timeout)


def suite_file(path, **sweep_axes):
    sweep = {"name": "s", "impls": ["cpu_scalar", "cpu_simd"], "shapes": [[8, 8]], "queries": [16]}
    sweep.update(sweep_axes)
    path.write_text(json.dumps({"name": "t", "sweeps": [sweep]}))
    return path


def test_run_threads_are_bounded(splinebench_bin, tmp_path):
    ok = suite_file(tmp_path / "ok.json")
    result = run_cli(splinebench_bin, "--suite-file", ok, "--dry-run", "--threads", THREAD_LIMIT + 1)
    assert result.returncode == 1 and f"--threads must be in [1, {THREAD_LIMIT}]" in result.stderr, result.stderr
    assert run_cli(splinebench_bin, "--suite-file", ok, "--dry-run", "--threads", THREAD_LIMIT).returncode == 0
    big = suite_file(tmp_path / "big.json", threads=[1, THREAD_LIMIT + 1])
    result = run_cli(splinebench_bin, "--suite-file", big, "--dry-run")
    assert result.returncode == 1, result.stdout
    assert f"threads (or \"max\") must be in [1, {THREAD_LIMIT}]" in result.stderr, result.stderr


# --- memory --------------------------------------------------------------------------------

def mem_total():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    pytest.skip("no /proc/meminfo")


NEEDS = re.compile(r"error: .*needs (\d+(?:\.\d+)?) GiB.*, (\d+(?:\.\d+)?) GiB available")


def test_input_too_large_for_memory_is_refused_before_work(cli, tmp_path):
    count = 1 << max(33, (8 * mem_total() // 4).bit_length())  # float32 values: > 8x the machine's memory
    try:
        src = sparse_npy(tmp_path / "huge.npy", count)
    except OSError as exc:
        pytest.skip(f"cannot make a sparse file of {count * 4} bytes here: {exc}")
    start = time.monotonic()
    result = cli(*prefilter(src, tmp_path / "c.npy"), timeout=120)
    assert result.returncode == 1, (result.returncode, result.stderr)
    match = NEEDS.search(result.stderr)
    assert match, result.stderr
    assert float(match.group(1)) >= count * 4 / GIB > float(match.group(2))
    assert time.monotonic() - start < 10, "the refusal came after the work"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["huge.npy"]


def test_run_with_a_case_too_large_for_memory_is_refused_before_anything(splinebench_bin, tmp_path):
    count = 1 << max(33, (8 * mem_total() // 4).bit_length())
    suite = suite_file(tmp_path / "huge.json", impls=["cpu_scalar"], shapes=[[8], [count]], queries=[0])
    results = tmp_path / "results"
    result = run_cli(splinebench_bin, "--suite-file", suite, "--results-dir", results, "--machine", "t")
    assert result.returncode == 1, result.stderr
    match = NEEDS.search(result.stderr)
    assert match and f"cpu_scalar/D1/{count}/" in result.stderr, result.stderr
    assert not results.exists(), list(results.rglob("*"))


# --- one writer per run folder -------------------------------------------------------------

SLOW_SUITE = {"name": "slow", "sweeps": [{"name": "s", "impls": ["reference"],
                                          "shapes": [[96, 96, 96]], "modes": "all",
                                          "data": ["noise", "smooth"], "queries": [0, 4096]}]}


def start_run(binary, *args):
    """Starts `splinebench run ARGS` and returns (process, run folder) once the folder is announced."""
    proc = subprocess.Popen([str(binary), "run", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        if line.startswith("run directory: "):
            return proc, Path(line[len("run directory: "):].split(" (if interrupted")[0].strip())
    proc.wait()
    pytest.fail(f"the run did not start: exit {proc.returncode}")


def finish(proc):
    out, err = proc.communicate(timeout=600)
    return proc.returncode, out, err


def test_a_run_folder_has_one_writer(splinebench_bin, tmp_path):
    suite = tmp_path / "slow.json"
    suite.write_text(json.dumps(SLOW_SUITE))
    results = tmp_path / "results"
    common = ("--repetitions", "3", "--warmups", "0")
    first, run_dir = start_run(splinebench_bin, "--suite-file", suite, "--results-dir", results,
                               "--machine", "t", *common)
    try:
        # A resume while the run is going: refused, naming the process that holds it.
        second = run_cli(splinebench_bin, "--resume", run_dir, timeout=600)
        assert first.poll() is None, "the first run ended before the test could start a second writer"
        assert second.returncode == 1, second.stderr
        assert f"pid {first.pid}" in second.stderr and "in use" in second.stderr, second.stderr
    finally:
        code, _, err = finish(first)
    assert code == 0, err
    assert (run_dir / "results.json").exists()


def test_two_resumes_of_one_folder_the_second_refuses(splinebench_bin, tmp_path):
    suite = tmp_path / "slow.json"
    suite.write_text(json.dumps(SLOW_SUITE))
    results = tmp_path / "results"
    first, run_dir = start_run(splinebench_bin, "--suite-file", suite, "--results-dir", results,
                               "--machine", "t", "--repetitions", "3", "--warmups", "0")
    first.kill()  # an interrupted run, as a crash leaves it
    first.communicate()
    assert not (run_dir / "results.json").exists()
    a, _ = start_run(splinebench_bin, "--resume", run_dir)
    try:
        b = run_cli(splinebench_bin, "--resume", run_dir, timeout=600)
        assert a.poll() is None, "the first resume ended before the second started"
        assert b.returncode == 1 and f"pid {a.pid}" in b.stderr, b.stderr
    finally:
        code, _, err = finish(a)
    assert code == 0, err
    doc = json.loads((run_dir / "results.json").read_text())
    assert len(doc["records"]) == len({r["case_id"] for r in doc["records"]}) == 3 * 2 * 2


# --- requests refused before they run ------------------------------------------------------

def test_duplicate_keys_in_a_suite_are_refused(splinebench_bin, tmp_path):
    path = tmp_path / "dup.json"
    path.write_text('{"name": "t", "sweeps": [{"name": "s", "impls": ["cpu_scalar"], "shapes": [[8]],'
                    ' "queries": [3], "threads": [1], "queries": [0]}]}')
    result = run_cli(splinebench_bin, "--suite-file", path, "--dry-run")
    assert result.returncode == 1, result.stdout
    assert "dup.json" in result.stderr and "duplicate key \"queries\"" in result.stderr, result.stderr
    path.write_text('{"name": "t", "name": "u", "sweeps": [{"name": "s", "impls": ["cpu_scalar"],'
                    ' "shapes": [[8]], "queries": [3]}]}')
    result = run_cli(splinebench_bin, "--suite-file", path, "--dry-run")
    assert result.returncode == 1 and "duplicate key \"name\"" in result.stderr, result.stderr


def test_empty_machine_label_is_an_error(splinebench_bin, tmp_path):
    suite = suite_file(tmp_path / "ok.json", impls=["cpu_scalar"])
    results = tmp_path / "results"
    result = run_cli(splinebench_bin, "--suite-file", suite, "--results-dir", results, "--machine", "")
    assert result.returncode == 1, result.stderr
    assert "--machine" in result.stderr and "empty" in result.stderr, result.stderr
    assert not results.exists()


def test_run_dir_file_in_a_missing_folder_is_refused_before_the_run(splinebench_bin, tmp_path):
    suite = suite_file(tmp_path / "ok.json", impls=["cpu_scalar"])
    results = tmp_path / "results"
    result = run_cli(splinebench_bin, "--suite-file", suite, "--results-dir", results, "--machine", "t",
                     "--run-dir-file", tmp_path / "missing" / "dir.txt")
    assert result.returncode == 1, result.stderr
    assert "--run-dir-file" in result.stderr and "does not exist" in result.stderr, result.stderr
    assert not results.exists(), "the run started although its --run-dir-file could not be written"
