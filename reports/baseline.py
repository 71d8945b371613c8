"""The nightly baseline of a machine: results/<machine>/baseline/. It changes only
through `python -m reports.compare --promote RUN_DIR`, which copies that run's
results in atomically and records where they came from (PROMOTED.json)."""
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


def baseline_dir(results_root: Path, machine: str) -> Path:
    return Path(results_root) / machine / BASELINE_DIR


def problems_in(run: Run) -> list[str]:
    """Why a run should not become a baseline: failed accuracy or errored cases."""
    problems = [f"{r.case_id}: accuracy verdict fail" for r in run.records if r.ok and r.verdict == "fail"]
    problems += [f"{r.case_id}: status error ({r.message})" for r in run.records if r.status == "error"]
    return problems


def promote(run_dir: Path, results_root: Path = DEFAULT_RESULTS_ROOT, force: bool = False) -> Path:
    """Makes `run_dir` the baseline of its machine; returns the baseline directory."""
    run = load_run(run_dir)
    problems = problems_in(run)
    if problems and not force:
        shown = "; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
        raise ReportError(f"refusing to promote {run_dir}: {len(problems)} unhealthy record(s): {shown} "
                          "(use --force to promote anyway)")
    target = baseline_dir(results_root, run.machine)
    if target.resolve() == Path(run.path).resolve():
        raise ReportError(f"{run_dir} already is the baseline of machine {run.machine!r}")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{BASELINE_DIR}.staging")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir()
    source = Path(run.path)
    for name in (RESULTS_FILE, "results.csv"):
        if (source / name).exists():
            shutil.copy2(source / name, staging / name)
    provenance = {
        "source": str(source.resolve()), "run_id": run.context.get("run_id"),
        "git_sha": run.context.get("git_sha"), "date": run.context.get("date"),
        "promoted_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "forced": bool(problems),
    }
    (staging / PROVENANCE_FILE).write_text(json.dumps(provenance, indent=2) + "\n", encoding="utf-8")
    # Swap in one rename so a reader never sees a half-copied baseline.
    previous = target.with_name(f".{BASELINE_DIR}.previous")
    if previous.exists():
        shutil.rmtree(previous)
    if target.exists():
        target.rename(previous)
    staging.rename(target)
    if previous.exists():
        shutil.rmtree(previous)
    return target
