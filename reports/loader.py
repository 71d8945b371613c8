"""Loads and validates `results.json` files (schema: results/README.md), plain or in
the compact form a committed run is stored in (`results.json.gz`, see reports/compact.py).

Every check names the file, the record and the field, so that a truncated file
or a writer bug reads as one clear sentence instead of a KeyError deep inside a
plot. Only the fields the reports use are required; documented optional parts
(accuracy, tolerance, throughput, per-axis phases) may be absent.
"""
from __future__ import annotations

import gzip
import json
import math
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ResultsFormatError

SCHEMA_NAME = "splinebench-results"
SCHEMA_VERSION = 1
RESULTS_FILE = "results.json"
COMPACT_RESULTS_FILE = "results.json.gz"
# A run directory holds one of them; the plain file wins if both are present, since
# it is what the run itself wrote.
RESULTS_FILES = (RESULTS_FILE, COMPACT_RESULTS_FILE)

STATUSES = ("ok", "skipped", "error")
VERDICTS = ("pass", "fail", "n/a")
DEVICES = ("cpu", "gpu")

# Context fields without which a report cannot say where numbers came from.
# A run id, `YYYYMMDD-HHMMSS-<suite>` (results/README.md), as a folder name or where a
# table, caption or README cites a run.
RUN_ID = re.compile(r"\d{8}-\d{6}(?:-[A-Za-z0-9_.+-]*[A-Za-z0-9_+])?")
REQUIRED_CONTEXT = ("machine", "run_id", "suite", "date", "git_sha")


@dataclass(frozen=True)
class PhaseStats:
    """Seconds per repetition of one phase, with the summary the writer stored."""

    samples: tuple[float, ...]
    median: float
    min: float
    max: float

    @property
    def n(self) -> int:
        return len(self.samples)


@dataclass
class Record:
    """One benchmark case of one run. `run` points back to the run it came from."""

    case_id: str
    impl: str
    device: str
    dims: int
    shape: tuple[int, ...]
    channels: int
    fields: int
    mode: str
    data: str
    queries: int
    pattern: str
    threads: int
    status: str
    message: str
    repetitions: int
    phases: dict[str, PhaseStats]
    throughput: dict[str, float | None]
    accuracy: dict[str, dict[str, Any]]
    tolerance: dict[str, Any]
    verdict: str
    run: "Run | None" = field(default=None, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def points(self) -> int:
        return math.prod(self.shape)

    def phase_median(self, name: str) -> float | None:
        stats = self.phases.get(name)
        return stats.median if stats else None

    def accuracy_value(self, part: str, key: str) -> float | None:
        value = self.accuracy.get(part, {}).get(key)
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    @property
    def match_key(self) -> tuple:
        """Identifies the case across runs (compare). `threads` is part of it
        because the same case id may be run at several thread counts."""
        return (self.case_id, self.threads)

    def case_key_without_impl(self) -> tuple:
        """Everything that defines the workload except who computes it: two
        records with the same key did the same work (used for speed-ups)."""
        return (self.dims, self.shape, self.channels, self.fields, self.mode, self.data,
                self.queries, self.pattern)


@dataclass
class Run:
    """One run directory (or one results file)."""

    path: Path
    context: dict[str, Any]
    records: list[Record]
    label: str = ""  # how rows from this run are labelled in a merged report
    file: Path | None = None  # the results file read (results.json or results.json.gz)
    # Records of the systems (those with an "operation": "iir2d", "scattered_reconstruction"),
    # by operation, as written: their own report modules read them (results/README.md).
    system_records: dict[str, list[dict]] = field(default_factory=dict)

    @property
    def machine(self) -> str:
        return str(self.context["machine"])

    @property
    def run_id(self) -> str:
        """The id under which a reader finds the run: its folder's name when that has the
        run-id form (a system driver's run is saved under a folder named at `--out`, which
        may differ from the id its context recorded), else the context's run id."""
        folder = self.path.name if self.path is not None else ""
        return folder if RUN_ID.fullmatch(folder) else str(self.context["run_id"])

    @property
    def gpu_name(self) -> str | None:
        gpu = self.context.get("gpu")
        return gpu.get("name") if isinstance(gpu, dict) else None

    @property
    def cpu_model(self) -> str | None:
        return self.context.get("cpu_model")

    def device_name(self, device: str) -> str:
        """The hardware a record of `device` ran on, for table and plot labels."""
        if device == "gpu":
            return self.gpu_name or "GPU (name not recorded)"
        return self.cpu_model or "CPU (model not recorded)"


def results_file(path: Path) -> Path:
    """The results file of a run directory: results.json, else results.json.gz (the
    plain name when neither exists, for the error message). A file path is itself."""
    path = Path(path)
    if path.is_dir():
        for name in RESULTS_FILES:
            if (path / name).is_file():
                return path / name
        return path / RESULTS_FILE
    return path


def read_results_text(file: Path) -> str:
    """The JSON text of a results file, gunzipped when its name ends in .gz."""
    file = Path(file)
    try:
        if file.suffix == ".gz":
            with gzip.open(file, "rt", encoding="utf-8") as stream:
                return stream.read()
        return file.read_text(encoding="utf-8")
    except EOFError as exc:
        raise ResultsFormatError(f"{file}: truncated gzip stream (interrupted write?): {exc}") from exc
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise ResultsFormatError(f"{file}: not a valid gzip file: {exc}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultsFormatError(f"{file}: cannot read: {exc}") from exc


def load_run(path: str | Path) -> Run:
    """Reads a run directory (or its results.json / results.json.gz) and validates it."""
    path = Path(path)
    file = results_file(path)
    if not file.exists():
        hint = ""
        if path.is_dir() and (path / "cases").is_dir():
            hint = (" (cases/ exists: the run did not finish; `splinebench run --resume "
                    f"{path}` completes it and writes results.json)")
        elif path.is_dir():
            hint = f" (nor {COMPACT_RESULTS_FILE})"
        raise ResultsFormatError(f"{file}: no such results file{hint}")
    text = read_results_text(file)
    if not text.strip():
        raise ResultsFormatError(f"{file}: file is empty (interrupted write?)")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        # An error at the very end (or inside a string that never closes) is what
        # an interrupted write leaves; anything else may be plain corruption.
        truncated = exc.pos >= len(text.rstrip()) - 1 or exc.msg.startswith("Unterminated string")
        what = "truncated" if truncated else "not valid JSON (truncated or corrupt?)"
        raise ResultsFormatError(
            f"{file}: {what} at line {exc.lineno}, column {exc.colno}: {exc.msg}") from exc
    run = parse_results(doc, where=str(file))
    run.path = file.parent
    run.file = file
    return run


def parse_results(doc: Any, where: str = "results") -> Run:
    """Validates a parsed results document and turns it into a Run."""
    _expect(isinstance(doc, dict), where, "top level must be a JSON object")
    schema = doc.get("schema")
    _expect(schema == SCHEMA_NAME, where,
            f"'schema' must be {SCHEMA_NAME!r}, found {schema!r} (not a splinebench results file?)")
    version = doc.get("schema_version")
    _expect(version == SCHEMA_VERSION, where,
            f"schema_version {version!r} is not supported (this reader knows {SCHEMA_VERSION})")
    context = doc.get("context")
    _expect(isinstance(context, dict), where, "'context' must be an object")
    for key in REQUIRED_CONTEXT:
        _expect(isinstance(context.get(key), str) and context.get(key) != "",
                f"{where}: context", f"'{key}' must be a non-empty string, found {context.get(key)!r}")
    gpu = context.get("gpu")
    _expect(gpu is None or isinstance(gpu, dict), f"{where}: context", "'gpu' must be an object or null")
    _check_registry(context.get("registry"), f"{where}: context.registry")
    records_doc = doc.get("records")
    _expect(isinstance(records_doc, list), where, "'records' must be a list")
    run = Run(path=Path(where), context=context, records=[], label=str(context["machine"]))
    for index, item in enumerate(records_doc):
        if isinstance(item, dict) and isinstance(item.get("operation"), str):
            run.system_records.setdefault(item["operation"], []).append(item)
            continue
        record = _parse_record(item, f"{where}: record {index}")
        record.run = run
        run.records.append(record)
    return run


def _check_registry(registry: Any, where: str) -> None:
    """The registry list a run records (absent in runs written before it was):
    [{"name", "device", "available", "reason"}, ...] in registry order."""
    if registry is None:
        return
    _expect(isinstance(registry, list), where, f"must be a list, found {type(registry).__name__}")
    seen: set[str] = set()
    for index, entry in enumerate(registry):
        at = f"{where}[{index}]"
        _expect(isinstance(entry, dict), at, "must be an object")
        name = entry.get("name")
        _expect(isinstance(name, str) and name != "", at, f"'name' must be a non-empty string, found {name!r}")
        _expect(name not in seen, at, f"'{name}' is listed twice")
        seen.add(name)
        device = entry.get("device")
        _expect(device in DEVICES, at, f"'device' must be one of {DEVICES}, found {device!r}")
        _expect(isinstance(entry.get("available"), bool), at,
                f"'available' must be true or false, found {entry.get('available')!r}")
        _expect(isinstance(entry.get("reason", ""), str), at, "'reason' must be a string")


def _parse_record(item: Any, where: str) -> Record:
    _expect(isinstance(item, dict), where, "must be an object")
    case_id = item.get("case_id")
    _expect(isinstance(case_id, str) and case_id, where, "'case_id' must be a non-empty string")
    where = f"{where} ({case_id})"
    impl = _string(item, "impl", where)
    device = _string(item, "device", where)
    _expect(device in DEVICES, where, f"'device' must be one of {DEVICES}, found {device!r}")
    dims = _int(item, "dims", where, minimum=1)
    shape = item.get("shape")
    _expect(isinstance(shape, list) and all(_is_int(v) and v >= 1 for v in shape), where,
            f"'shape' must be a list of positive integers, found {shape!r}")
    _expect(len(shape) == dims, where, f"'shape' has {len(shape)} extents but dims is {dims}")
    status = _string(item, "status", where)
    _expect(status in STATUSES, where, f"'status' must be one of {STATUSES}, found {status!r}")
    verdict = item.get("verdict", "n/a")
    _expect(verdict in VERDICTS, where, f"'verdict' must be one of {VERDICTS}, found {verdict!r}")
    repetitions = _int(item, "repetitions", where, minimum=0)
    phases_doc = item.get("phases", {})
    _expect(isinstance(phases_doc, dict), where, "'phases' must be an object")
    if status == "ok":
        _expect(len(phases_doc) > 0, where, "status is 'ok' but no phase was recorded")
    phases = {name: _parse_phase(p, f"{where}: phases.{name}", repetitions)
              for name, p in phases_doc.items()}
    throughput = item.get("throughput", {}) or {}
    _expect(isinstance(throughput, dict), where, "'throughput' must be an object")
    accuracy = item.get("accuracy", {}) or {}
    _expect(isinstance(accuracy, dict) and all(isinstance(v, dict) for v in accuracy.values()),
            where, "'accuracy' must be an object of objects")
    tolerance = item.get("tolerance", {}) or {}
    _expect(isinstance(tolerance, dict), where, "'tolerance' must be an object")
    message = item.get("message", "")
    _expect(isinstance(message, str), where, "'message' must be a string")
    return Record(
        case_id=case_id, impl=impl, device=device, dims=dims, shape=tuple(shape),
        channels=_int(item, "channels", where, minimum=1),
        fields=_int(item, "fields", where, minimum=1),
        mode=_string(item, "mode", where),
        data=str(item.get("data", "")),
        queries=_int(item, "queries", where, minimum=0),
        pattern=str(item.get("pattern", "")),
        threads=_int(item, "threads", where, minimum=1) if "threads" in item else 1,
        status=status, message=message, repetitions=repetitions, phases=phases,
        throughput=throughput, accuracy=accuracy, tolerance=tolerance, verdict=verdict)


def _parse_phase(doc: Any, where: str, repetitions: int) -> PhaseStats:
    _expect(isinstance(doc, dict), where, "must be an object")
    samples = doc.get("samples")
    _expect(isinstance(samples, list) and len(samples) > 0, where,
            "'samples' must be a non-empty list (one time per repetition)")
    _expect(all(_is_number(v) and math.isfinite(v) and v >= 0 for v in samples), where,
            "'samples' must hold finite, non-negative numbers of seconds")
    _expect(len(samples) == repetitions, where,
            f"has {len(samples)} samples but the record says repetitions = {repetitions}")
    ordered = sorted(samples)
    median = doc.get("median")
    _expect(_is_number(median), where, f"'median' must be a number, found {median!r}")
    # Accept any median convention for an even count (mean or either middle value).
    low, high = ordered[(len(ordered) - 1) // 2], ordered[len(ordered) // 2]
    slack = 1e-9 * max(abs(high), 1e-30)
    _expect(low - slack <= median <= high + slack, where,
            f"'median' {median!r} disagrees with its samples (middle values {low!r}..{high!r})")
    return PhaseStats(samples=tuple(float(v) for v in samples), median=float(median),
                      min=ordered[0], max=ordered[-1])


def _expect(condition: bool, where: str, message: str) -> None:
    if not condition:
        raise ResultsFormatError(f"{where}: {message}")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _string(item: dict, key: str, where: str) -> str:
    value = item.get(key)
    _expect(isinstance(value, str) and value != "", where, f"'{key}' must be a non-empty string, found {value!r}")
    return value


def _int(item: dict, key: str, where: str, minimum: int) -> int:
    value = item.get(key)
    _expect(_is_int(value) and value >= minimum, where,
            f"'{key}' must be an integer >= {minimum}, found {value!r}")
    return value


def load_runs(paths: list[str | Path]) -> list[Run]:
    """Loads several runs and gives each a distinct label: the machine, plus the
    run id (`Run.run_id`, the folder a reader finds) where two runs share a machine."""
    runs = [load_run(p) for p in paths]
    machines = [r.machine for r in runs]
    for run in runs:
        run.label = run.machine if machines.count(run.machine) == 1 else f"{run.machine}/{run.run_id}"
    return runs
