"""`splinebench analytic` refuses a grid too large for memory before it allocates
anything, with the need and what is available, as every other command does (instead of
std::bad_alloc, or the kernel's OOM killer, after the work started)."""
from __future__ import annotations

import re
import time

import numpy as np
import pytest

GIB = 2 ** 30
NEEDS = re.compile(r"error: .*needs (\d+(?:\.\d+)?) GiB of host memory, (\d+(?:\.\d+)?) GiB available")


def mem_total() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    pytest.skip("no /proc/meminfo: no memory limit to check against")


def cube_over(bytes_needed: int) -> int:
    """The edge of a 3-D grid whose float64 samples take more than `bytes_needed`."""
    return int(round((bytes_needed / 8) ** (1 / 3))) + 1


@pytest.mark.parametrize("extra", [[], ["--float32"]])
def test_a_grid_too_large_for_memory_is_refused_before_any_allocation(cli, tmp_path, extra):
    edge = cube_over(8 * mem_total())  # samples alone: more than 8x the machine's memory
    out = tmp_path / "f.npy"
    start = time.monotonic()
    result = cli("analytic", "cos_product", "--shape", f"{edge}x{edge}x{edge}", "--mode", "mirror", *extra, out,
                 timeout=60)
    assert result.returncode == 1, (result.returncode, result.stderr)
    match = NEEDS.search(result.stderr)
    assert match, result.stderr
    assert float(match.group(1)) >= edge ** 3 * 8 / GIB > float(match.group(2))
    assert f"{edge}x{edge}x{edge}" in result.stderr, result.stderr
    assert time.monotonic() - start < 10, "the refusal came after the work"
    assert list(tmp_path.iterdir()) == []


def test_values_at_too_many_coordinates_are_refused_before_they_are_computed(cli, tmp_path):
    # A small .npy header announcing more coordinates than memory holds, the data sparse.
    count = 1 << max(33, (8 * mem_total() // 8).bit_length())
    header = np.lib.format.header_data_from_array_1_0(np.zeros((1, 1), np.float32))
    header["shape"] = (1, count)
    coords = tmp_path / "k.npy"
    with open(coords, "wb") as f:
        np.lib.format.write_array_header_1_0(f, header)
        try:
            f.truncate(f.tell() + 4 * count)
        except OSError as exc:
            pytest.skip(f"cannot make a sparse file of {4 * count} bytes here: {exc}")
    result = cli("analytic", "cos_product", "--shape", "9", "--mode", "half", "--at", coords, tmp_path / "v.npy",
                 timeout=60)
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert NEEDS.search(result.stderr), result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.npy"]
