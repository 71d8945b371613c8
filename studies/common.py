"""What every study shares: its run folder under results/<machine>/, the context that
says where the numbers came from, atomic writes, and the one place that prefilters,
interpolates and rotates: the `splinebench` Python module of the executable's build,
or the executable itself where that build has no module.

A study's run folder holds `results.json` (schema "splinebench-study", results/README.md)
and `report/` (the study's section: figures, a Markdown table and one paragraph).
"""
from __future__ import annotations

import datetime as _dt
import importlib
import json
import math
import os
import platform
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import cached_property
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


VIAS = ("module", "cli")
# What the module may raise for one implementation on one point (splinebench.Error is a
# ValueError): that point's error, as a non-zero exit of the executable is.
MODULE_FAILURES = (ValueError, TypeError, RuntimeError, MemoryError)


@dataclass
class Splinebench:
    """The `splinebench` executable and the Python module built beside it (<build>/python
    for <build>/bin/splinebench, python/README.md).

    prefilter, interpolate and rotate go through the module when that build has one: no
    process start and no .npy files per point, and the same implementation code, so the
    same numbers. Without it they run the executable's commands on .npy files; `via`
    says which ("module" or "cli") and `via_reason` why not the module. Calling the object
    runs any other command of the executable (analytic, run), which the module has not.
    A failure raises StudyError with the message the implementation gave."""
    binary: Path
    # None: the module where the build has one; "cli" or "module" insist on one path.
    prefer: str | None = None

    def __post_init__(self) -> None:
        self.binary = Path(self.binary)
        if not self.binary.is_file() or not os.access(self.binary, os.X_OK):
            raise StudyError(f"no splinebench executable at {self.binary} (build it first: ./run_all.sh builds it "
                             "into build/bin/splinebench)")
        if self.prefer not in (None, *VIAS):
            raise StudyError(f"prefer must be one of {', '.join(VIAS)}; got {self.prefer!r}")

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

    # -- which path: looked up on first use, so the suite-based studies never import it ------

    @cached_property
    def _module_or_reason(self) -> tuple[Any, str]:
        if self.prefer == "cli":
            return None, "asked for the executable"
        module, reason = module_beside(self.binary)
        if module is None and self.prefer == "module":
            raise StudyError(reason)
        if module is None:
            print(f"studies: {reason}; prefiltering and interpolating through {self.binary} instead",
                  file=sys.stderr)
        return module, reason

    @property
    def module(self) -> Any:
        return self._module_or_reason[0]

    @property
    def via(self) -> str:
        return "module" if self.module is not None else "cli"

    @property
    def via_reason(self) -> str:
        return self._module_or_reason[1] if self.module is None else ""

    # -- the per-point operations -----------------------------------------------------------

    def prefilter(self, samples: np.ndarray, impl: str, mode: str) -> np.ndarray:
        """The coefficients `splinebench prefilter --impl IMPL --mode MODE` writes."""
        if self.module is None:
            return self._cli("prefilter", ["--impl", impl, "--mode", mode], [samples])
        return _module_call(self.module.spline_filter, samples, mode=mode, impl=impl)

    def interpolate(self, field: np.ndarray, coords: np.ndarray, impl: str, mode: str,
                    prefilter: bool) -> np.ndarray:
        """What `splinebench interpolate --impl IMPL --mode MODE [--prefilter]` writes: the
        f64 paths compute in double (float32 out for float32 samples), the others in float32."""
        if self.module is None:
            flag = ["--prefilter"] if prefilter else []
            return self._cli("interpolate", ["--impl", impl, "--mode", mode, *flag], [field, coords])
        return _module_call(self.module.map_coordinates, field, coords, mode=mode, prefilter=prefilter, impl=impl)

    def rotate(self, image: np.ndarray, impl: str, mode: str, steps: int, angle: float,
               prefilter: bool) -> np.ndarray:
        """What `splinebench rotate` writes: the float32 image (H, W) or (H, W, C) turned
        `steps` times by `angle` degrees, each step resampling the last one's float32 result
        through the implementation's float32 interface, channel by channel."""
        if self.module is None:
            flag = ["--prefilter"] if prefilter else []
            return self._cli("rotate", ["--impl", impl, "--mode", mode, "--steps", steps, "--angle", angle, *flag],
                             [image])
        image = np.asarray(image, dtype=np.float32)
        if image.ndim not in (2, 3) or steps < 1:
            raise StudyError(f"rotate takes an image (H, W) or (H, W, C) and steps >= 1; got shape {image.shape}, "
                             f"steps {steps}")
        coords = rotation_coordinates(image.shape[0], image.shape[1], angle)
        planes = image[..., None] if image.ndim == 2 else image
        out = np.empty_like(planes)
        for ch in range(planes.shape[-1]):
            plane = np.ascontiguousarray(planes[..., ch])
            for _ in range(steps):
                plane = self._rotation_step(plane, coords, impl, mode, prefilter)
            out[..., ch] = plane
        return out[..., 0] if image.ndim == 2 else out

    def _rotation_step(self, plane: np.ndarray, coords: np.ndarray, impl: str, mode: str,
                       prefilter: bool) -> np.ndarray:
        """One step through the float32 interface, as `splinebench rotate` takes it. The
        package's map_coordinates would widen float32 to double for an implementation with
        an f64 path (reference, scipy), and scipy's float32 interface keeps float32
        coefficients, so only the native call gives the executable's numbers."""
        out = np.full(plane.shape, np.nan, dtype=np.float32)
        try:
            self.module._core.evaluate(impl, plane, coords, out, mode, prefilter, 1, False, 0, 0)
        except MODULE_FAILURES as exc:
            raise StudyError(f"splinebench rotate through {impl} failed: {exc}") from exc
        if np.isnan(out).any():  # the executable refuses unwritten pixels the same way
            raise StudyError(f"splinebench rotate through {impl}: {int(np.isnan(out).sum())} rotated pixels "
                             "left unwritten")
        return out

    def _cli(self, command: str, options: list[Any], inputs: list[np.ndarray]) -> np.ndarray:
        """`command` on the inputs saved as .npy files in a scratch folder; its output read back."""
        with tempfile.TemporaryDirectory(prefix="splinebench-study-") as scratch:
            paths = [Path(scratch) / f"in{i}.npy" for i in range(len(inputs))]
            for path, array in zip(paths, inputs):
                np.save(path, array)
            self(command, *options, *paths, Path(scratch) / "out.npy")
            return np.load(Path(scratch) / "out.npy")

    def analytic(self, function: str, shape: tuple[int, ...], mode: str,
                 at: np.ndarray | None = None) -> np.ndarray:
        """`splinebench analytic`: the function's float64 samples on a grid of `shape` under
        `mode`'s positions, or its exact values at the coordinates `at` (D, ...). The module
        has no analytic fields, so this stays a command of the executable."""
        options = [function, "--shape", "x".join(map(str, shape)), "--mode", mode]
        with tempfile.TemporaryDirectory(prefix="splinebench-study-") as scratch:
            out = Path(scratch) / "out.npy"
            if at is None:
                self("analytic", *options, out)
            else:
                np.save(Path(scratch) / "at.npy", at)
                self("analytic", *options, "--at", Path(scratch) / "at.npy", out)
            return np.load(out)


def _module_call(function: Any, *args: Any, impl: str, **kwargs: Any) -> np.ndarray:
    try:
        return function(*args, impl=impl, **kwargs)
    except MODULE_FAILURES as exc:
        raise StudyError(f"splinebench.{function.__name__} through {impl} failed: {exc}") from exc


def module_beside(binary: Path) -> tuple[Any, str]:
    """The `splinebench` module of `binary`'s build (<build>/python), imported, or None and
    why not. A module of another build would not be the code the executable runs."""
    folder = Path(binary).resolve().parent.parent / "python"
    package = folder / "splinebench"
    if not (package / "__init__.py").is_file() or not list(package.glob("_core*")):
        return None, f"no splinebench Python module in {folder} (that build was made without nanobind)"
    if "splinebench" not in sys.modules and str(folder) not in sys.path[:1]:
        sys.path.insert(0, str(folder))
    try:
        module = importlib.import_module("splinebench")
    except ImportError as exc:
        return None, f"the splinebench Python module in {folder} does not import: {exc}"
    if Path(module.__file__).resolve().parent != package.resolve():
        return None, f"splinebench is already imported from {module.__file__}, not from {folder}"
    return module, ""


def rotation_coordinates(height: int, width: int, degrees: float) -> np.ndarray:
    """The source coordinates of `splinebench rotate` (harness/cli/cmd_rotate.cpp), (2, H, W):
    computed in double in the same order, rounded once to float32, so its results repeat
    bit for bit. Output pixel p samples the input at R(-angle) p: the image turns by +angle."""
    radians = degrees * math.pi / 180.0
    c, s = math.cos(radians), math.sin(radians)
    cy, cx = 0.5 * (height - 1), 0.5 * (width - 1)
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float64)
    dy, dx = yy - cy, xx - cx
    return np.stack([cy + c * dy + s * dx, cx - s * dy + c * dx]).astype(np.float32)


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
        "registry": tool.registry(), **_via(tool),
    }


def _via(tool: Splinebench) -> dict[str, str]:
    """Which path the study's prefilters and interpolations took, and why not the module."""
    return {"via": tool.via, **({"via_reason": tool.via_reason} if tool.via_reason else {})}


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
