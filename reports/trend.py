"""A machine's history of one suite: every finished run under results/<machine>/
(plain or compact) of that suite, oldest first, for the nightly gate's trend plot.
The baseline folder and hidden folders (a gate's rounds in progress) are not
history; unreadable runs are skipped and named."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .baseline import BASELINE_DIR, has_results
from .errors import ReportError
from .loader import Run, load_run


@dataclass
class History:
    runs: list[Run]                                   # oldest first
    skipped: list[str] = field(default_factory=list)  # "<folder>: why"


def machine_history(results_root: Path, machine: str, suite: str, limit: int | None = None) -> History:
    folder = Path(results_root) / machine
    history = History([])
    if not folder.is_dir():
        return history
    for run_dir in sorted(folder.iterdir()):
        if not run_dir.is_dir() or run_dir.name.startswith(".") or run_dir.name == BASELINE_DIR:
            continue
        if not has_results(run_dir):
            continue
        try:
            run = load_run(run_dir)
        except ReportError as exc:
            history.skipped.append(f"{run_dir.name}: {exc}")
            continue
        if run.context.get("suite") == suite and run.machine == machine:
            history.runs.append(run)
    history.runs.sort(key=lambda r: (str(r.context.get("date")), str(r.context.get("run_id"))))
    if limit is not None:
        history.runs = history.runs[-limit:]
    return history
