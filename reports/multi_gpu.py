"""Past one GPU: the split prefilter over several GPUs, the out-of-core (streamed) prefilter
through one, and a suite sharded over GPUs, each from committed results.

- bench/gpu_slabs/bench_gpu_slabs's files (schema "splinebench-gpu-slabs",
  bench/gpu_slabs/README.md), any number per machine folder (one per set of visible GPUs,
  a streamed-only run): the `prefilter` benchmark's rows (edge x impl) and the `streamed`
  benchmark's rows (edge). A point that threw Unsupported carries "skipped": reason, one
  that failed "error": message (bench/gpu_bench_common/benchmark.hpp, ResultFile); keys
  this module does not know are ignored.
- Harness runs whose context has `shards` (`splinebench run --devices`, `splinebench
  merge`), each beside the unsharded run of the same suite and options on the same machine
  label: wall times (`context.wall_seconds`, results/README.md) and whether the two runs
  hold the same cases with the same verdicts.

Ratios between rows of different files are formed only within one machine folder; those
files come from separate processes (and possibly sessions), and the tables say so."""
from __future__ import annotations

import json
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ReportError
from .loader import Run
from .provenance import run_line
from .table_model import Column, Row, Table, fmt_ms, fmt_ratio, fmt_sci, shape_label

SCHEMA = "splinebench-gpu-slabs"
SECTION = "Past one GPU"
PREFILTER_KEY = "multi_gpu_prefilter"
STREAMED_KEY = "multi_gpu_streamed"
SHARDED_KEY = "multi_gpu_sharded_suite"
# Tables whose notes name their benchmark files themselves (reports/build.py leaves them
# out of the note naming harness runs: they read none).
FILE_TABLES = (PREFILTER_KEY, STREAMED_KEY)
BEST_ONE_GPU = "gpu_flex"
# Files of a run folder that are harness files, never a benchmark's.
_HARNESS_FILES = ("run.json", "results.json")


@dataclass
class SlabsFile:
    """One bench_gpu_slabs output file."""
    path: Path
    context: dict[str, Any]
    benchmarks: dict[str, Any]

    @property
    def machine_folder(self) -> str:
        return self.path.parent.parent.name

    @property
    def folder(self) -> str:
        return self.path.parent.name

    def as_run(self) -> Run:
        """The file as provenance.run_line names a run: its folder, commit, machine, date."""
        context = {**self.context, "machine": self.context.get("machine") or self.machine_folder,
                   "run_id": self.context.get("run_id") or self.folder}
        return Run(path=self.path.parent, context=context, records=[])

    @property
    def visible_devices(self) -> int | None:
        value = self.context.get("visible_devices")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def rows(self, benchmark: str) -> list[dict]:
        entry = self.benchmarks.get(benchmark)
        rows = entry.get("rows") if isinstance(entry, dict) else None
        return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []


def load_slabs_files(machine_folder: Path) -> list[SlabsFile]:
    """Every bench_gpu_slabs file directly inside a run folder of `machine_folder`, oldest
    folder first. Other JSON files are passed over; one that names the schema but cannot be
    read as such, or any unreadable JSON in a folder named for gpu_slabs, is refused."""
    found = []
    for path in sorted(Path(machine_folder).glob("*/*.json")):
        if path.name in _HARNESS_FILES or not path.is_file():
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            if "gpu_slabs" in path.parent.name:
                raise ReportError(f"{path}: unreadable bench_gpu_slabs file: {exc}") from exc
            continue
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
            continue
        if not isinstance(doc.get("context"), dict) or not isinstance(doc.get("benchmarks"), dict):
            raise ReportError(f"{path}: a {SCHEMA} file without its context or benchmarks objects")
        found.append(SlabsFile(path, doc["context"], doc["benchmarks"]))
    return found


def cited_ids(files: list[SlabsFile]) -> list[str]:
    """The run-id-like folder names the file tables cite (the report's citation check is
    told they were given)."""
    return list(dict.fromkeys(f.as_run().run_id for f in files))


# --- numbers out of a row -----------------------------------------------------------------

def _number(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _median(value: Any) -> float | None:
    """A stats object's median (seconds), or a plain number of seconds."""
    if isinstance(value, dict):
        return _number(value.get("median"))
    return _number(value)


def _ratio(num: float | None, den: float | None) -> float | None:
    return num / den if num is not None and den else None


def _edge_label(edge: int) -> str:
    return f"{shape_label((edge, edge, edge))} f32 ({4 * edge ** 3 / 2 ** 30:.3g} GiB)"


def _failure(row: dict) -> str | None:
    """Why a row has no numbers: the bench's own skip or error message."""
    if "skipped" in row:
        return f"skipped: {row['skipped']}"
    if "error" in row:
        return f"error: {row['error']}"
    return None


def _accuracy(row: dict) -> tuple[str, str]:
    accuracy = row.get("accuracy") if isinstance(row.get("accuracy"), dict) else {}
    rel = _number(accuracy.get("rel_l2"))
    verdict = accuracy.get("verdict")
    return (fmt_sci(rel) if rel is not None else "not recorded",
            str(verdict) if isinstance(verdict, str) and verdict else "not recorded")


def _file_labels(files: list[SlabsFile]) -> dict[int, str]:
    """Each file by its name, or folder/name where two folders hold the same name."""
    names = Counter(f.path.name for f in files)
    return {id(f): f.path.name if names[f.path.name] == 1 else f"{f.folder}/{f.path.name}" for f in files}


def _files_notes(files: list[SlabsFile], labels: dict[int, str]) -> list[str]:
    notes = []
    for f in files:
        gpu = f.context.get("gpu") if isinstance(f.context.get("gpu"), dict) else {}
        visible = f.visible_devices
        seen = (f"{visible} visible GPU{'s' if visible != 1 else ''}" if visible is not None
                else "visible GPUs not recorded")
        notes.append(f"{labels[id(f)]}: {seen} (device 0 {gpu.get('name') or 'not recorded'}); "
                     f"{run_line(f.as_run())}.")
    return notes


# --- the split prefilter --------------------------------------------------------------------

@dataclass
class _Point:
    file: SlabsFile
    row: dict
    edge: int
    impl: str
    gpus: int | None    # GPUs the implementation used (the row's `devices`)
    seconds: float | None  # median prefilter

    @property
    def ok(self) -> bool:
        return _failure(self.row) is None and self.seconds is not None


def _prefilter_points(files: list[SlabsFile]) -> list[_Point]:
    points = []
    for f in files:
        for row in f.rows("prefilter"):
            edge, impl = row.get("edge"), row.get("impl")
            if not isinstance(edge, int) or not isinstance(impl, str):
                continue
            devices = row.get("devices")
            gpus = devices if isinstance(devices, int) and not isinstance(devices, bool) else None
            points.append(_Point(f, row, edge, impl, gpus, _median(row.get("prefilter"))))
    return points


def _reference(point: _Point, group: list[_Point], impl: str) -> tuple[float | None, bool]:
    """`impl`'s one-GPU prefilter time beside `point`: from the same file (process) where it
    has one, else the median over the other files of the machine folder (marked)."""
    candidates = [p for p in group if p.ok and p.impl == impl and p.gpus == 1]
    same = [p.seconds for p in candidates if p.file is point.file]
    if same:
        return statistics.median(same), False
    if candidates:
        return statistics.median(p.seconds for p in candidates), True
    return None, False


def _ratio_cell(point: _Point, group: list[_Point], impl: str) -> str:
    if point.impl == impl and point.gpus == 1:
        return "ref."
    reference, other_file = _reference(point, group, impl)
    ratio = _ratio(point.seconds, reference)
    return "—" if ratio is None else fmt_ratio(ratio) + ("*" if other_file else "")


def _unmeasured(group: list[_Point], impl: str) -> str:
    """Where `impl` has a row at this edge without a time: said, since its row says why."""
    return f" ({impl}'s row here has no time: see it)" if any(p.impl == impl and not p.ok for p in group) else ""


def prefilter_table(files: list[SlabsFile]) -> Table | None:
    points = _prefilter_points(files)
    if not points:
        return None
    table = Table(
        key=PREFILTER_KEY,
        title="Split prefilter across GPUs: gpu_slabs against the one-GPU prefilters",
        caption=("bench_gpu_slabs' prefilter benchmark (bench/gpu_slabs/README.md): the median prefilter "
                 "phase of prepare() (upload excluded) of a separable random cube, f32, for gpu_slabs (one slab "
                 "of axis 0 per GPU it used) and the one-GPU gpu_naive (the same step recursion) and gpu_flex. "
                 "'/ 1 GPU': this time over the same implementation's on one GPU (the scaling: 0.5 is perfect "
                 "on two GPUs); '/ gpu_flex': over gpu_flex's on one GPU (the best one-GPU prefilter; below 1 "
                 "beats it); copy bound: a device-to-device copy of each GPU's share of the volume, all GPUs "
                 "at once (the row's copy_split), and the prefilter over it. Rel. L2 against the exact "
                 "separable coefficients on the planes around the slab boundaries and random voxels, with "
                 "the verdict against the f32 prefilter bound."),
        columns=[Column("implementation"), Column("GPUs", numeric=True), Column("file"),
                 Column("prefilter", "ms", True), Column("/ 1 GPU", "x", True),
                 Column(f"/ {BEST_ONE_GPU}", "x", True), Column("copy bound", "ms", True),
                 Column("/ bound", "x", True), Column("rel. L2", numeric=True), Column("verdict")])
    labels = _file_labels(files)
    machines = list(dict.fromkeys(f.machine_folder for f in files))
    impl_order = {impl: i for i, impl in enumerate(dict.fromkeys(p.impl for p in points))}
    file_order = {id(f): i for i, f in enumerate(files)}
    groups: dict[tuple[str, int], list[_Point]] = {}
    for p in points:
        groups.setdefault((p.file.machine_folder, p.edge), []).append(p)
    absent, crossed = [], False
    for (machine, edge), group in sorted(groups.items(), key=lambda kv: (machines.index(kv[0][0]), kv[0][1])):
        where = _edge_label(edge) + (f", {machine}" if len(machines) > 1 else "")
        table.add(Row([], "group", note=where))
        group.sort(key=lambda p: (impl_order[p.impl], p.gpus if p.gpus is not None else 1 << 30,
                                  file_order[id(p.file)]))
        for p in group:
            gpus = str(p.gpus) if p.gpus is not None else "not recorded"
            on = f"on {gpus} GPU{'' if p.gpus == 1 else 's'}" if p.gpus is not None else "(GPUs not recorded)"
            reason = _failure(p.row) or (None if p.seconds is not None else "no prefilter time recorded")
            if reason:
                table.add(Row([p.impl, gpus, labels[id(p.file)]], "missing", note=reason))
                continue
            scaling, versus = _ratio_cell(p, group, p.impl), _ratio_cell(p, group, BEST_ONE_GPU)
            crossed = crossed or scaling.endswith("*") or versus.endswith("*")
            if scaling == "—":
                absent.append(f"{where}: {p.impl} {on} has no one-GPU row of {p.impl} to scale against"
                              + _unmeasured(group, p.impl))
            if versus == "—":
                absent.append(f"{where}: no one-GPU {BEST_ONE_GPU} row to set {p.impl} {on} against"
                              + _unmeasured(group, BEST_ONE_GPU))
            copy = _median(p.row.get("copy_split"))
            rel, verdict = _accuracy(p.row)
            table.add(Row([p.impl, gpus, labels[id(p.file)], fmt_ms(p.seconds * 1e3), scaling, versus,
                           fmt_ms(copy * 1e3) if copy is not None else "—", fmt_ratio(_ratio(p.seconds, copy)),
                           rel, verdict]))
            if copy is None:
                absent.append(f"{where}: {p.impl} {on} ({labels[id(p.file)]}) recorded no copy bound")
    table.notes.append("Each file is one process; rows of different files come from separate processes, "
                       "possibly separate sessions, whose timings vary (clocks, placement, the host), so a ratio "
                       "across files carries that variation too. Ratios are only formed within one machine folder"
                       + (", against the same file's one-GPU row where it has one; * marks a ratio against "
                          "another file's (the median over them where several have one)." if crossed else "."))
    if not any(p.ok and p.impl == "gpu_slabs" and (p.gpus or 0) > 1 for p in points):
        table.notes.append("No file here has gpu_slabs on more than one GPU: the scaling across GPUs is not "
                           "measured on this machine.")
    if absent:
        table.notes.append("Not measured (—): " + "; ".join(dict.fromkeys(absent)) + ".")
    table.notes.extend(_files_notes([f for f in files if f.rows("prefilter")], labels))
    return table


# --- the streamed prefilter -----------------------------------------------------------------

def streamed_table(files: list[SlabsFile]) -> Table | None:
    entries = [(f, row) for f in files for row in f.rows("streamed") if isinstance(row.get("edge"), int)]
    if not entries:
        return None
    table = Table(
        key=STREAMED_KEY,
        title="Out-of-core (streamed) prefilter through one GPU against the host-link bound",
        caption=("bench_gpu_slabs' streamed benchmark (bench/gpu_slabs/README.md): gpu_slabs' streamed "
                 "prefilter of a cube in host memory through device 0, in at least 4 slabs as if the volume "
                 "were larger than the device. Link: host-to-device and device-to-host bandwidth measured in "
                 "the run (pinned 1 GiB copies); bound: bytes / h2d + bytes / d2h, each value crossing the "
                 "link once each way one direction at a time; sweep: the slabs' upload, filtering and "
                 "download; total adds page-locking the caller's array and releasing it (pin + unpin), the "
                 "pre-pass and the host corrections. Medians over the run's repetitions; rel. L2 against the "
                 "exact separable coefficients (sub-volume check) with its verdict."),
        columns=[Column("edge"), Column("file"), Column("link h2d / d2h", "GB/s"), Column("bound", "s", True),
                 Column("sweep", "s", True), Column("sweep / bound", "x", True), Column("total", "s", True),
                 Column("total / bound", "x", True), Column("pin + unpin", "s"), Column("rel. L2")])
    labels = _file_labels(files)
    machines = list(dict.fromkeys(f.machine_folder for f, _ in entries))
    details = []
    for f, row in sorted(entries, key=lambda e: (machines.index(e[0].machine_folder), e[1]["edge"])):
        edge = shape_label((row["edge"],) * 3) + (f", {f.machine_folder}" if len(machines) > 1 else "")
        if reason := _failure(row):
            table.add(Row([edge, labels[id(f)]], "missing", note=reason))
            continue
        h2d, d2h = _number(row.get("h2d_bytes_per_second")), _number(row.get("d2h_bytes_per_second"))
        link = " / ".join(f"{v / 1e9:.1f}" if v is not None else "not recorded" for v in (h2d, d2h))
        bound, duplex = _number(row.get("bound_seconds")), _number(row.get("duplex_bound_seconds"))
        sweep, total = _median(row.get("sweep")), _median(row.get("total"))
        pin, unpin = _median(row.get("pin")), _median(row.get("unpin"))
        rel, verdict = _accuracy(row)
        table.add(Row([edge, labels[id(f)], link, fmt_ms(bound), fmt_ms(sweep), fmt_ratio(_ratio(sweep, bound)),
                       fmt_ms(total), fmt_ratio(_ratio(total, bound)),
                       f"{fmt_ms(pin)} + {fmt_ms(unpin)}", f"{rel} ({verdict})"]))
        facts = []
        if duplex is not None:
            facts.append(f"full-duplex bound max(bytes / h2d, bytes / d2h) {fmt_ms(duplex)} s"
                         + (f", the sweep {fmt_ratio(sweep / duplex)}x it" if sweep is not None and duplex else ""))
        prepass, corrections = _median(row.get("prepass")), _median(row.get("host_corrections"))
        if prepass is not None or corrections is not None:
            facts.append(f"pre-pass {fmt_ms(prepass)} s, host corrections {fmt_ms(corrections)} s")
        layout = [f"{row[k]} {name}" for k, name in (("slabs", "slabs"), ("buffers", "buffers"))
                  if isinstance(row.get(k), int)]
        if isinstance(row.get("host_memory"), str):
            layout.append(f"host memory {row['host_memory']}")
        if layout:
            facts.append(", ".join(layout))
        if facts:
            details.append(f"{edge} ({labels[id(f)]}): " + "; ".join(facts))
        missing = [name for name, v in (("bound", bound), ("sweep", sweep), ("total", total), ("pin", pin),
                                        ("unpin", unpin), ("h2d", h2d), ("d2h", d2h)) if v is None]
        if missing:
            details.append(f"{edge} ({labels[id(f)]}): not recorded: {', '.join(missing)} (—)")
    if details:
        table.notes.append(". ".join(details) + ".")
    table.notes.extend(_files_notes([f for f in files if f.rows("streamed")], labels))
    return table


# --- a suite sharded over GPUs ----------------------------------------------------------------

def _shards(run: Run) -> list[dict]:
    shards = run.context.get("shards")
    return [s for s in shards if isinstance(s, dict)] if isinstance(shards, list) else []


def _options(run: Run) -> dict | None:
    """The run's options from its run.json, without the shard it was (None: not readable)."""
    try:
        doc = json.loads((Path(run.path) / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError):
        return None
    options = doc.get("options") if isinstance(doc, dict) else None
    return {k: v for k, v in options.items() if k != "shard"} if isinstance(options, dict) else None


def _wall(context: dict) -> float | None:
    value = _number(context.get("wall_seconds"))
    return value if value is not None and value > 0 else None


def _unsharded_partner(sharded: Run, runs: list[Run]) -> tuple[Run | None, str]:
    """The unsharded run of the same suite and options on the same machine label: of the
    same commit where there is one, then the latest. Also a note when options could not be
    compared."""
    suite, options = sharded.context.get("suite"), _options(sharded)
    candidates = []
    for run in runs:
        if run is sharded or _shards(run) or run.machine != sharded.machine or run.context.get("suite") != suite:
            continue
        theirs = _options(run)
        if options is not None and theirs is not None and theirs != options:
            continue
        candidates.append((run, theirs))
    if not candidates:
        return None, ""
    sha = sharded.context.get("git_sha")
    run, theirs = max(candidates, key=lambda c: (c[0].context.get("git_sha") == sha, str(c[0].context.get("date"))))
    note = "" if options is not None and theirs is not None else \
        f"{run.run_id} and {sharded.run_id}: options not compared (a run.json is missing)"
    return run, note


def _case_comparison(one: Run, sharded: Run) -> tuple[str, list[str]]:
    """('yes ...' or 'no: ...', detail notes): the two runs' case sets and each case's
    status and verdict."""
    a = {r.match_key: r for r in one.records}
    b = {r.match_key: r for r in sharded.records}
    only_one, only_sharded = sorted(a.keys() - b.keys()), sorted(b.keys() - a.keys())
    differ = sorted(k for k in a.keys() & b.keys() if (a[k].status, a[k].verdict) != (b[k].status, b[k].verdict))
    if not (only_one or only_sharded or differ):
        return f"yes: {len(a)} cases, statuses and verdicts alike", []

    def listed(keys, show):
        shown = "; ".join(show(k) for k in keys[:5])
        return shown + (f"; and {len(keys) - 5} more" if len(keys) > 5 else "")

    def case(key):
        return key[0] + (f" (T{key[1]})" if key[1] != 1 else "")

    parts, details = [], []
    if only_one:
        parts.append(f"{_count(only_one, 'case')} only in the one-GPU run")
        details.append(f"only in {one.run_id}: " + listed(only_one, case))
    if only_sharded:
        parts.append(f"{_count(only_sharded, 'case')} only in the sharded run")
        details.append(f"only in {sharded.run_id}: " + listed(only_sharded, case))
    if differ:
        parts.append(f"{_count(differ, 'case')} with another status or verdict")
        details.append(f"status/verdict {one.run_id} -> {sharded.run_id}: " + listed(
            differ, lambda k: f"{case(k)} {a[k].status}/{a[k].verdict} -> {b[k].status}/{b[k].verdict}"))
    return "no: " + ", ".join(parts), details


def _count(items, noun: str) -> str:
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def _shards_cell(shards: list[dict]) -> str:
    recorded = [s["gpu_uuid"] for s in shards if s.get("gpu_uuid")]
    names = Counter(str(s.get("gpu") or "GPU not recorded") for s in shards)
    gpus = ", ".join(f"{n}x {name}" for name, n in names.items())
    if not recorded:
        on = "GPU UUIDs not recorded"
    else:
        count = len(set(recorded))
        on = f"{count} GPU{'s' if count != 1 else ''} by UUID"
        if len(recorded) < len(shards):
            on += f" ({len(shards) - len(recorded)} not recorded)"
    return f"{len(shards)} shards on {on}: {gpus}"


def _wall_cell(seconds: float | None) -> str:
    return fmt_ms(seconds) if seconds is not None else "wall time not recorded"


def sharded_table(runs: list[Run]) -> Table | None:
    sharded_runs = [r for r in runs if _shards(r)]
    if not sharded_runs:
        return None
    table = Table(
        key=SHARDED_KEY,
        title="Suite sharded over GPUs: the same suite on one GPU and split across several",
        caption=("A suite run with `splinebench run --devices` (or shards joined by `splinebench merge`) beside "
                 "the unsharded run of the same suite and options on the same machine label. Wall: the run's "
                 "context.wall_seconds, start to finish of the invocation that wrote it (for --devices, from "
                 "starting the shards to the merge); speed-up: one-GPU wall over sharded wall. The last column "
                 "compares the two runs' case sets and each case's status and verdict."),
        columns=[Column("suite"), Column("one-GPU run"), Column("sharded run"), Column("cases", numeric=True),
                 Column("shards"), Column("wall, one GPU", "s", True), Column("wall, sharded", "s", True),
                 Column("speed-up", "x", True), Column("same cases and verdicts")])
    walls = []
    for sharded in sharded_runs:
        suite = str(sharded.context.get("suite", "?"))
        one, note = _unsharded_partner(sharded, runs)
        if note:
            table.notes.append(note + ".")
        shards = _shards(sharded)
        if one is None:
            table.add(Row([suite, "—", sharded.run_id], "missing",
                          note=f"no unsharded run of suite {suite} with the same options on {sharded.machine} in "
                               "this report: nothing to set the sharded run against"))
            continue
        counts = [s.get("cases") for s in shards]
        cases = str(len(sharded.records)) + (" (" + " + ".join(str(c) for c in counts) + ")"
                                             if all(isinstance(c, int) for c in counts) else "")
        wall_one, wall_sharded = _wall(one.context), _wall(sharded.context)
        same, details = _case_comparison(one, sharded)
        table.add(Row([suite, one.run_id, sharded.run_id, cases, _shards_cell(shards), _wall_cell(wall_one),
                       _wall_cell(wall_sharded), fmt_ratio(_ratio(wall_one, wall_sharded)), same]))
        table.notes.extend(d + "." for d in details)
        shard_walls = [f"{s.get('shard', '?')} {fmt_ms(_wall(s))} s" if _wall(s) is not None
                       else f"{s.get('shard', '?')} not recorded" for s in shards]
        walls.append(f"{sharded.run_id}: " + ", ".join(shard_walls))
        if one.context.get("git_sha") != sharded.context.get("git_sha"):
            table.notes.append(f"{one.run_id} and {sharded.run_id} were made at different commits "
                               f"({str(one.context.get('git_sha'))[:10]}, {str(sharded.context.get('git_sha'))[:10]}).")
    if walls:
        table.notes.append("Each shard's own wall: " + "; ".join(walls) + ".")
    table.notes.append("The two runs of a row were made at different times, each one invocation: their walls carry "
                       "the session's variation as well as the sharding. A wall time is absent after a --resume and "
                       "in runs made before it was recorded ('wall time not recorded', no speed-up).")
    return table


def report_items(runs: list[Run], files: list[SlabsFile]) -> list[Table]:
    """The section's tables, those with something to show (none: no section)."""
    return [t for t in (prefilter_table(files), streamed_table(files), sharded_table(runs)) if t is not None]
