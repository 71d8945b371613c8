"""The nightly baseline of a machine: results/<machine>/baseline/, several runs of
the same code on that machine (A/A reruns). Their run-to-run spread is the noise
a later run is judged against (reports/compare_stats.py), so one run is a weak
baseline and five or more a good one.

    baseline/PROMOTED.json        where each run came from and when it was promoted
    baseline/<run-id>/            one folder per run: its results file (plain or
                                  compact), and run.json when the run had one

It changes only through `python -m reports.compare --promote RUN_DIR [RUN_DIR ...]`
(`--add` keeps the runs already there), which copies the runs in and swaps the
folder in one rename, so a reader never sees a half-made baseline."""
from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

from .errors import ReportError
from .loader import RESULTS_FILE, Run, load_run

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_RESULTS_ROOT = REPO_ROOT / "results"
BASELINE_DIR = "baseline"
PROVENANCE_FILE = "PROMOTED.json"
# What a baseline keeps of each run: the records (plain or gzipped) and the manifest.
RUN_FILES = (RESULTS_FILE, RESULTS_FILE + ".gz", "run.json")
# Below this many runs the baseline cannot say much about run-to-run noise.
RECOMMENDED_RUNS = 5


def validate_machine_label(label: str) -> None:
    """The rule of the C++ side (runner::validate_machine_label): a label names one
    folder under results/, so it cannot be empty, '.', '..' or hold a '/' (or a NUL)."""
    if not label or label in (".", "..") or "/" in label or "\0" in label:
        raise ReportError(f"machine label {label!r} cannot be a folder name (no '/', not empty, not '.' or '..')")


def baseline_dir(results_root: Path, machine: str) -> Path:
    validate_machine_label(machine)
    return Path(results_root) / machine / BASELINE_DIR


def has_results(path: Path) -> bool:
    return any((Path(path) / name).is_file() for name in RUN_FILES[:2])


def is_baseline(path: Path) -> bool:
    """A promoted baseline folder (as opposed to one run directory)."""
    return (Path(path) / PROVENANCE_FILE).is_file()


def baseline_run_dirs(path: Path) -> list[Path]:
    """The run folders of a baseline, oldest run id first."""
    path = Path(path)
    if has_results(path):
        return [path]  # a baseline promoted as one run, before baselines held several
    return sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".") and has_results(p))


def _promoted_run_ids(path: Path) -> list[str]:
    """The run ids PROMOTED.json lists; ReportError when it cannot be read."""
    provenance = Path(path) / PROVENANCE_FILE
    try:
        doc = json.loads(provenance.read_text(encoding="utf-8"))
        return [str(entry["run_id"]) for entry in doc["runs"]]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as exc:
        raise ReportError(f"{provenance}: cannot read the baseline's list of runs ({type(exc).__name__}: {exc}); "
                          "promote the baseline again") from exc


def load_baseline(path: Path) -> list[Run]:
    """The baseline's runs, each checked: a run PROMOTED.json lists must be there with
    its results (a baseline that silently lost a run would judge against less noise
    data than it claims), and every run must load."""
    path = Path(path)
    dirs = baseline_run_dirs(path)
    if is_baseline(path) and not has_results(path):
        listed = _promoted_run_ids(path)
        present = {d.name for d in dirs}
        missing = [run_id for run_id in listed if run_id not in present]
        if missing:
            raise ReportError(f"{path}: run(s) {', '.join(missing)} listed in {PROVENANCE_FILE} have no results file "
                              f"in the baseline (expected {path}/<run-id>/{RESULTS_FILE}[.gz]); restore them, or "
                              "promote the baseline again")
        unlisted = sorted(present - set(listed))
        if unlisted:
            raise ReportError(f"{path}: run(s) {', '.join(unlisted)} are not listed in {PROVENANCE_FILE}; a baseline "
                              "changes only through `python -m reports.compare --promote`")
    if not dirs:
        raise ReportError(f"{path}: baseline holds no run (promote some with `python -m reports.compare "
                          "--promote RUN_DIR ...`)")
    runs = []
    for d in dirs:
        try:
            runs.append(load_run(d))
        except ReportError as exc:
            raise ReportError(f"baseline run {d.name} cannot be loaded: {exc}") from exc
    return runs


def baseline_suite(runs: list[Run]) -> str:
    """The one suite a baseline's runs measured; ReportError when they mix suites."""
    suites = sorted({str(r.context.get("suite")) for r in runs})
    if len(suites) != 1:
        raise ReportError(f"the baseline's runs come from several suites ({', '.join(suites)}); a baseline holds "
                          "runs of one suite: promote it again from runs of one suite")
    return suites[0]


def check_same_suite(base: list[Run], suite: str, where: str) -> None:
    """A suite is judged only against a baseline of the same suite: other cases, other
    repetitions, nothing comparable."""
    base_suite = baseline_suite(base)
    if base_suite != suite:
        raise ReportError(f"{where} is of suite {suite!r}, but the baseline holds runs of suite {base_suite!r}: a "
                          "run is judged only against a baseline of its own suite (run the gate with that suite, or "
                          "judge against runs of the same suite with `python -m reports.compare BASE ... NEW`)")


def problems_in(run: Run) -> list[str]:
    """Why a run should not become a baseline: failed accuracy or errored cases."""
    problems = [f"{r.case_id}: accuracy verdict fail" for r in run.records if r.ok and r.verdict == "fail"]
    problems += [f"{r.case_id}: status error ({r.message})" for r in run.records if r.status == "error"]
    return problems


def _source_name(source: Path) -> str:
    """Where a promoted run came from: relative to the repository when inside it, so
    that the record reads the same on every checkout."""
    try:
        return source.resolve().relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(source.resolve())


def _provenance(run: Run, source: Path, promoted_at: str, forced: bool) -> dict:
    return {"run_id": run.context.get("run_id"), "source": _source_name(source),
            "git_sha": run.context.get("git_sha"), "git_dirty": run.context.get("git_dirty"),
            "date": run.context.get("date"), "suite": run.context.get("suite"),
            "promoted_at": promoted_at, "forced": forced}


def promote(run_dirs: list[Path] | Path, results_root: Path = DEFAULT_RESULTS_ROOT, force: bool = False,
            add: bool = False) -> tuple[Path, list[str]]:
    """Makes `run_dirs` the baseline of their machine (with `add`: adds them to the
    runs already there). Returns the baseline folder and warnings worth printing."""
    if isinstance(run_dirs, (str, Path)):
        run_dirs = [run_dirs]
    runs = [load_run(d) for d in run_dirs]
    machines = sorted({r.machine for r in runs})
    if len(machines) != 1:
        raise ReportError(f"refusing to promote runs of several machines together: {', '.join(machines)}")
    machine = machines[0]
    target = baseline_dir(results_root, machine)
    suites = {str(r.context.get("suite")) for r in runs}
    unhealthy = {str(d): problems_in(r) for d, r in zip(run_dirs, runs) if problems_in(r)}
    if unhealthy and not force:
        lines = []
        for where, problems in unhealthy.items():
            shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
            lines.append(f"{where}: {len(problems)} unhealthy record(s): {shown}")
        raise ReportError("refusing to promote: " + " | ".join(lines) + " (use --force to promote anyway)")
    for d, run in zip(run_dirs, runs):
        if target.resolve() in Path(run.path).resolve().parents or Path(run.path).resolve() == target.resolve():
            raise ReportError(f"{d} already is part of the baseline of machine {machine!r}")

    promoted_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    entries: dict[str, dict] = {}
    sources: dict[str, Path] = {}
    if add and target.exists():
        previous = json.loads((target / PROVENANCE_FILE).read_text(encoding="utf-8")) if is_baseline(target) else {}
        for entry in previous.get("runs", []):
            entries[entry["run_id"]] = entry
        for kept in load_baseline(target):
            run_id = kept.context.get("run_id")
            folder = Path(kept.path)
            suites.add(str(kept.context.get("suite")))
            sources[run_id] = folder
            entries.setdefault(run_id, {"run_id": run_id, "source": _source_name(folder)})
    if len(suites) > 1:
        raise ReportError(f"refusing to promote runs of several suites into one baseline ({', '.join(sorted(suites))}"
                          "): a baseline measures the noise of one suite, and the gate judges a run only against "
                          "a baseline of its own suite")
    for d, run in zip(run_dirs, runs):
        run_id = str(run.context.get("run_id"))
        if run_id in sources and add:
            raise ReportError(f"{d}: run {run_id} is already in the baseline")
        if run_id in {str(r.context.get("run_id")) for r in runs if r is not run}:
            raise ReportError(f"run id {run_id} given twice")
        sources[run_id] = Path(run.path)
        entries[run_id] = _provenance(run, Path(run.path), promoted_at, bool(problems_in(run)))

    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{BASELINE_DIR}.staging")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    for run_id, source in sources.items():
        folder = staging / run_id
        folder.mkdir()
        for name in RUN_FILES:
            if (source / name).is_file():
                shutil.copy2(source / name, folder / name)
    ordered = [entries[k] for k in sorted(entries)]
    (staging / PROVENANCE_FILE).write_text(json.dumps({"machine": machine, "runs": ordered}, indent=2) + "\n",
                                           encoding="utf-8")
    # Swap in one rename so a reader never sees a half-copied baseline.
    old = target.with_name(f".{BASELINE_DIR}.previous")
    if old.exists():
        shutil.rmtree(old)
    if target.exists():
        target.rename(old)
    staging.rename(target)
    if old.exists():
        shutil.rmtree(old)

    warnings = []
    shas = sorted({str(e.get("git_sha")) for e in ordered if e.get("git_sha")})
    if len(shas) > 1:
        warnings.append(f"the baseline's runs come from {len(shas)} commits: their spread then includes "
                        "any change between those commits, not only noise")
    if len(ordered) < RECOMMENDED_RUNS:
        warnings.append(f"the baseline holds {len(ordered)} run(s); with fewer than {RECOMMENDED_RUNS} the "
                        "run-to-run noise is poorly known and only large changes are confirmed")
    return target, warnings
