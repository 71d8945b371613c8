"""Whole-or-nothing file writes for the Python side, as harness/io does for the C++ side:
a temporary in the folder's `.partial/` (same file system), flushed, renamed over the
target, and the folder flushed. A reader sees the old file, the new one, or none.
A file the user cannot write, or made read-only, is refused: the rename would replace
it without a word (the folder being writable), as harness/io refuses it too."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import ReportError

PARTIAL_DIR = ".partial"


def check_writable(target: Path) -> None:
    """ReportError when `target` exists and is not to be replaced: the user may not
    write it, or its mode grants writing to nobody (root could, but a file made
    read-only is one its owner wants kept)."""
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return
    if not os.access(target, os.W_OK) or not mode & 0o222:
        raise ReportError(f"cannot write {str(target)!r}: it is read-only (mode {stat.S_IMODE(mode):04o}); "
                          "make it writable (chmod u+w) or write elsewhere")


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(target: Path, data: bytes) -> None:
    target = Path(target)
    check_writable(target)
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
