"""Shared fixtures for the Python tests that drive the `splinebench` executable.

The executable is taken from the environment variable SPLINEBENCH_BIN, by default
<repo>/build/bin/splinebench. Tests that need it are skipped, with the path in the
reason, when it does not exist (e.g. on a checkout that has not been built).
"""
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
