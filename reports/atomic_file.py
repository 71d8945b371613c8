"""Whole-or-nothing file writes for the Python side, as harness/io does for the C++ side:
a temporary in the folder's `.partial/` (same file system), flushed, renamed over the
target, and the folder flushed. A reader sees the old file, the new one, or none."""
from __future__ import annotations

import os
from pathlib import Path

PARTIAL_DIR = ".partial"


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(target: Path, data: bytes) -> None:
    target = Path(target)
    partial = target.parent / PARTIAL_DIR
    created = not partial.exists()
    partial.mkdir(parents=True, exist_ok=True)
    temporary = partial / (target.name + ".tmp")
    try:
        with open(temporary, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
        fsync_dir(target.parent)
    finally:
        temporary.unlink(missing_ok=True)
        if created:
            try:
                partial.rmdir()
            except OSError:
                pass  # not empty: something else wrote there meanwhile; leave it
