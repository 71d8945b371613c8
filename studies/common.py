"""What every study shares: its run folder under results/<machine>/, the context that
says where the numbers came from, atomic writes, and calls of the `splinebench`
executable.

A study's run folder holds `results.json` (schema "splinebench-study", results/README.md)
and `report/` (the study's section: figures, a Markdown table and one paragraph).
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from reports.atomic_file import write_atomically
from reports.errors import ReportError

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = "splinebench-study"
SCHEMA_VERSION = 1


class StudyError(Exception):
    """A study cannot run as asked; the message says why."""


def write_atomic(path: Path, data: bytes) -> None:
    """Writes `path` whole or not at all (reports/atomic_file.py), making its folder first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        write_atomically(path, data)
    except ReportError as exc:  # a read-only file in the way: the study's own error
        raise StudyError(str(exc)) from exc


def save_npy_atomic(path: Path, array: np.ndarray) -> None:
    import io
    buffer = io.BytesIO()
    np.save(buffer, array)
    write_atomic(path, buffer.getvalue())


@dataclass
class Splinebench:
    """The `splinebench` executable, called with its arguments; a failure raises
    StudyError with what it printed."""
    binary: Path

    def __post_init__(self) -> None:
        self.binary = Path(self.binary)
        if not self.binary.is_file() or not os.access(self.binary, os.X_OK):
            raise StudyError(f"no splinebench executable at {self.binary} (build it first: ./run_all.sh builds it "
                             "into build/bin/splinebench)")

    def __call__(self, *args: str) -> str:
        proc = subprocess.run([str(self.binary), *map(str, args)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise StudyError(f"splinebench {' '.join(map(str, args))} failed ({proc.returncode}): "
                             f"{proc.stderr.strip()}")
        return proc.stderr

    def registry(self) -> list[dict[str, Any]]:
        proc = subprocess.run([str(self.binary), "list", "--json"], capture_output=True, text=True, check=True)
        return json.loads(proc.stdout)

    def available(self, include_test: bool = False) -> list[dict[str, Any]]:
        return [e for e in self.registry() if e["available"] and (include_test or not e["name"].startswith("test_"))]


def _git(*args: str) -> str | None:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def _gpu_name() -> str | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def context(study: str, machine: str, run_id: str, tool: Splinebench, arguments: dict[str, Any]) -> dict[str, Any]:
    stated = os.environ.get("SPLINEBENCH_GIT_SHA")
    if stated:
        sha, dirty = stated.strip(), {"0": False, "1": True}.get(os.environ.get("SPLINEBENCH_GIT_DIRTY", ""))
    else:
        sha = _git("rev-parse", "HEAD") or "unknown"
        status = _git("status", "--porcelain", "--untracked-files=no")
        dirty = None if status is None else bool(status)
    return {
        "study": study, "machine": machine, "run_id": run_id,
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "git_sha": sha, "git_dirty": dirty, "hostname": socket.gethostname(),
        "cpu_model": _cpu_model(), "cpu_threads": os.cpu_count(), "gpu": _gpu_name(),
        "numpy": np.__version__, "scipy": _scipy_version(), "arguments": arguments,
        "registry": tool.registry(),
    }


def _scipy_version() -> str | None:
    try:
        import scipy
        return scipy.__version__
    except ImportError:
        return None


@dataclass
class StudyRun:
    """A study's run folder: results/<machine>/<UTC date-time>-<study>/."""
    folder: Path
    context: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def create(cls, study: str, machine: str, tool: Splinebench, arguments: dict[str, Any],
               results_root: Path | None = None) -> "StudyRun":
        if not machine or "/" in machine or machine.startswith("."):
            raise StudyError(f"--machine must be a plain label (no '/', not empty); got {machine!r}")
        root = Path(results_root) if results_root else ROOT / "results"
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
        base = f"{stamp}-{study}"
        folder = root / machine / base
        suffix = 2
        while True:
            try:
                folder.mkdir(parents=True)
                break
            except FileExistsError:
                folder = root / machine / f"{base}-{suffix}"
                suffix += 1
        return cls(folder, context(study, machine, folder.name, tool, arguments))

    @property
    def report_dir(self) -> Path:
        return self.folder / "report"

    def add(self, record: dict[str, Any]) -> None:
        self.records.append(record)

    def write(self) -> Path:
        body = {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "context": self.context,
                "records": self.records}
        path = self.folder / "results.json"
        write_atomic(path, (json.dumps(body, indent=1, allow_nan=False) + "\n").encode())
        return path


def load_study(path: Path) -> dict[str, Any]:
    """A study's results.json (or its folder); refuses other files with a clear error."""
    path = Path(path)
    if path.is_dir():
        path = path / "results.json"
    try:
        body = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise StudyError(f"{path}: cannot read a study's results: {exc}") from exc
    if body.get("schema") != SCHEMA:
        raise StudyError(f"{path}: not a study's results (schema {body.get('schema')!r}, want {SCHEMA!r})")
    return body


def finite_or_none(value: float) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None
