"""Studies whose measurements are ordinary harness records: they run a suite of
harness/suites/ with `splinebench run` (so every number is a standard record, checked
against the oracle like any other) and then write their report section into the run's
report/ folder."""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from .common import ROOT, Splinebench, StudyError


def run_suite(tool: Splinebench, suite: str, machine: str, results_root: Path | None = None,
              impls: list[str] | None = None, extra: list[str] | None = None) -> Path:
    """Runs `suite` and returns its run folder."""
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch) / "run_dir"
        args = [str(tool.binary), "run", "--suite", suite, "--machine", machine, "--run-dir-file", str(where),
                "--results-dir", str(results_root or ROOT / "results")]
        if impls:
            args += ["--impl", ",".join(impls)]
        args += extra or []
        proc = subprocess.run(args, cwd=ROOT)
        if proc.returncode != 0:
            raise StudyError(f"splinebench run --suite {suite} failed with exit code {proc.returncode}")
        return Path(where.read_text().strip())


def load_harness_run(folder: Path):
    """The run's records through the reports' loader (validated)."""
    from reports.loader import load_runs
    return load_runs([str(folder)])[0]


def section_context(run, study: str) -> dict:
    """The context a report section states (report_common.write_section) for a harness
    run: the run's own, named as `study`, with the GPU as its name."""
    gpu = run.context.get("gpu")
    return {**run.context, "study": study, "gpu": gpu.get("name") if isinstance(gpu, dict) else None}
