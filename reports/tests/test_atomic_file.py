"""reports/atomic_file.py, the Python side's whole-or-nothing writer: a file the user
made read-only is refused with a clear error, never replaced by the rename."""
from __future__ import annotations

import os
import stat

import pytest

from reports.atomic_file import PARTIAL_DIR, write_atomically
from reports.errors import ReportError


def test_a_file_is_replaced_whole_and_the_partial_folder_goes(tmp_path):
    target = tmp_path / "table.md"
    target.write_bytes(b"old")
    write_atomically(target, b"new")
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.md"]


def test_a_read_only_file_is_refused_and_kept(tmp_path):
    target = tmp_path / "results.json.gz"
    target.write_bytes(b"old")
    target.chmod(0o444)
    with pytest.raises(ReportError, match=r"read-only \(mode 0444\)"):
        write_atomically(target, b"new")
    assert target.read_bytes() == b"old"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json.gz"]
    assert not (tmp_path / PARTIAL_DIR).exists()
