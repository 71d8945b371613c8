"""The scattered solve_wall rows of every committed dev-2core acceptance run, judged
against the committed baseline: verdict, relative time, the lowest round, p adjusted.
Run from the repository root: PYTHONPATH=. .venv/bin/python lab/probes/gate_rows.py"""
import glob
from pathlib import Path

from reports.compare import compare_runs
from reports.loader import load_run

base_runs = [load_run(d) for d in sorted(Path("results/dev-2core/baseline").glob("2*"))]
for run_dir in sorted(glob.glob("results/dev-2core/20261129-0*-nightly")):
    print(Path(run_dir).name)
    for row in compare_runs(base_runs, load_run(run_dir)).rows:
        c = row.comparison
        if row.phase == "solve_wall":
            print(f"   {row.case_id.split('/')[-1]:18s} {c.verdict:6s} rel {c.relative:.2f} "
                  f"lowest round {c.round_low:.2f} p adj {c.p_adjusted:.2g}")
