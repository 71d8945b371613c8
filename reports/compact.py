"""python -m reports.compact RUN_DIR [RUN_DIR ...]

Stores a finished run directory the way runs are committed: its `results.json`
becomes `results.json.gz` (the same bytes, gzipped). Every reader in `reports`
takes either name. The per-case files a resume needs (`cases/`) and `results.csv`
stay where they are; they are git-ignored under `results/`.

Refuses anything that is not a finished `splinebench run` directory (run.json with
the run schema, and a valid results.json), and touches no other file. The gzip file
is written to `.partial/` (the run directory's temporary folder), flushed, renamed
into place and read back before results.json is removed, so an interruption at any
point leaves a readable run. Running it again on a compact run checks it and changes
nothing. Exit status: 0 done, 2 refused.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from pathlib import Path

from .atomic_file import fsync_dir, write_atomically
from .errors import ReportError
from .loader import COMPACT_RESULTS_FILE, RESULTS_FILE, load_run, parse_results, read_results_text

RUN_MANIFEST = "run.json"
RUN_SCHEMA = "splinebench-run"


def _gzip_bytes(data: bytes) -> bytes:
    # mtime 0 and no file name in the header: the same results give the same bytes,
    # so recompacting never shows up as a change in git.
    return gzip.compress(data, compresslevel=9, mtime=0)


def _check_run_dir(run_dir: Path) -> None:
    if not run_dir.is_dir():
        raise ReportError(f"{run_dir}: not a directory")
    manifest = run_dir / RUN_MANIFEST
    try:
        schema = json.loads(manifest.read_text(encoding="utf-8")).get("schema")
    except FileNotFoundError:
        raise ReportError(f"{run_dir}: no {RUN_MANIFEST}; not a splinebench run directory") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError) as exc:
        raise ReportError(f"{manifest}: unreadable run manifest: {exc}") from exc
    if schema != RUN_SCHEMA:
        raise ReportError(f"{manifest}: schema {schema!r} is not {RUN_SCHEMA!r}; not a splinebench run directory")


def compact(run_dir: str | Path) -> str:
    """Compacts one run directory; returns a one-line account of what it did."""
    run_dir = Path(run_dir)
    _check_run_dir(run_dir)
    plain, packed = run_dir / RESULTS_FILE, run_dir / COMPACT_RESULTS_FILE
    if not plain.exists():
        if not packed.exists():
            raise ReportError(f"{run_dir}: no {RESULTS_FILE}: the run has not finished "
                              f"(`splinebench run --resume {run_dir}` completes it)")
        load_run(run_dir)  # validates the compact file
        return f"{run_dir}: already compact ({COMPACT_RESULTS_FILE}, {packed.stat().st_size} bytes)"
    data = plain.read_bytes()
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportError(f"{plain}: not valid JSON ({exc}); refusing to compact it") from exc
    parse_results(doc, where=str(plain))  # a file the reports cannot read is not worth keeping compactly
    if packed.exists():
        # Left by an earlier compact interrupted before it removed results.json.
        if read_results_text(packed).encode("utf-8") != data:
            raise ReportError(f"{run_dir}: both {RESULTS_FILE} and {COMPACT_RESULTS_FILE} exist and differ; "
                              "refusing to choose")
    else:
        write_atomically(packed, _gzip_bytes(data))
        if read_results_text(packed).encode("utf-8") != data:
            packed.unlink()
            raise ReportError(f"{packed}: read back differs from {RESULTS_FILE}; removed it, nothing changed")
    plain.unlink()
    fsync_dir(run_dir)
    return f"{run_dir}: {RESULTS_FILE} {len(data)} bytes -> {COMPACT_RESULTS_FILE} {packed.stat().st_size} bytes"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m reports.compact",
        description="Store finished run directories compactly: results.json -> results.json.gz.")
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR", help="a finished `splinebench run` directory")
    args = parser.parse_args(argv)
    status = 0
    for run_dir in args.runs:
        try:
            print(compact(run_dir))
        except ReportError as exc:
            print(f"reports.compact: error: {exc}", file=sys.stderr)
            status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
