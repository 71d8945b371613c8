"""python -m reports.machine MACHINE|all [--results results] [--out-root report]

One report per machine, built from the runs committed under results/<MACHINE>/ into
<out-root>/<MACHINE>/ (git-ignored; results/ holds runs, not renderings). `all` builds
every machine folder of results/ that holds a run. `./run_all.sh report [MACHINE]` runs
this.

Which runs (results/README.md, "Reports"): every run folder directly under
results/<MACHINE>/ whose results file is a harness or system run (suites, the study
suites, the 2-D IIR and scattered drivers), merged into one page with every row
labelled by its run, except the nightly gate's runs: a gate run is judged against the
baseline, and its verdict and trend are rebuilt with `python -m reports.gate --judge
RUN_DIR`. The baseline (baseline/), the standalone benchmarks' JSON and the
microbenchmarks are not harness runs and are not read as runs (bench/module_overhead.py's,
bench/module_throughput.py's and bench_gpu_slabs' files have tables of their own:
call_overhead.py, module_throughput.py, multi_gpu.py). The
accuracy studies' sections (studies/README.md) are rewritten from their committed records into
<out-root>/<MACHINE>/studies/<run-id>/ and linked from the page.

Exit status: 0 built, 2 refused (no such machine folder, no run in it, a run the
loader rejects, or a report citing a run it was not given).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from .build import build_report
from .call_overhead import load_overhead_docs
from .module_throughput import load_throughput_docs
from .multi_gpu import load_slabs_files
from .errors import ReportError
from .index_page import StudySection
from .loader import RESULTS_FILES, RUN_ID, SCHEMA_NAME, load_runs, read_results_text

STUDY_SCHEMA = "splinebench-study"
# Suites whose runs are also an accuracy study with its own section (studies/README.md).
SUITE_STUDIES = ("roundoff", "texture_weights", "speed_accuracy")
GATE_SUITE = "nightly"


@dataclass
class MachineRuns:
    machine: str
    runs: list[Path]          # harness and system runs, by run id
    studies: list[Path]       # runs with a study section: study runs and the study suites' runs
    gate_runs: list[Path]     # nightly gate runs (not in the page; reports.gate --judge)


def _header(folder: Path) -> dict | None:
    """The schema and context of a run folder's results file, or None when it has none."""
    for name in RESULTS_FILES:
        path = folder / name
        if path.is_file():
            try:
                doc = json.loads(read_results_text(path))
            except (OSError, ValueError) as exc:
                raise ReportError(f"{path}: unreadable results file: {exc}") from exc
            if not isinstance(doc, dict):
                raise ReportError(f"{path}: not a results document")
            return {"schema": doc.get("schema"), "context": doc.get("context") or {}}
    return None


def select_runs(results_root: Path, machine: str) -> MachineRuns:
    folder = results_root / machine
    if not folder.is_dir():
        known = ", ".join(machine_labels(results_root)) or "none"
        raise ReportError(f"{folder}: no such machine folder (machines with runs: {known})")
    selected = MachineRuns(machine, [], [], [])
    for run_dir in sorted(p for p in folder.iterdir() if p.is_dir() and RUN_ID.fullmatch(p.name)):
        header = _header(run_dir)
        if header is None:
            continue  # a standalone benchmark's folder (its own JSON, results/README.md)
        suite = header["context"].get("suite")
        if header["schema"] == STUDY_SCHEMA:
            selected.studies.append(run_dir)
        elif header["schema"] != SCHEMA_NAME:
            raise ReportError(f"{run_dir}: results file of schema {header['schema']!r}, neither "
                              f"{SCHEMA_NAME!r} nor {STUDY_SCHEMA!r}")
        elif suite == GATE_SUITE:
            selected.gate_runs.append(run_dir)
        else:
            selected.runs.append(run_dir)
            if suite in SUITE_STUDIES:
                selected.studies.append(run_dir)
    if not selected.runs and not selected.studies:
        raise ReportError(f"{folder}: no harness, system or study run to report"
                          + (f" ({len(selected.gate_runs)} nightly gate run(s): "
                             "`python -m reports.gate --judge RUN_DIR` reports one)" if selected.gate_runs else ""))
    return selected


def machine_labels(results_root: Path) -> list[str]:
    """Machine folders of results/ holding at least one run."""
    labels = []
    for folder in sorted(p for p in results_root.iterdir() if p.is_dir()):
        if any(_header(run_dir) is not None for run_dir in folder.iterdir()
               if run_dir.is_dir() and RUN_ID.fullmatch(run_dir.name)):
            labels.append(folder.name)
    return labels


def study_section_writers() -> dict:
    """{study: writer(run_dir, context, records, out)}: the study runs (schema
    splinebench-study) whose section a report rebuilds from their records."""
    # studies/ builds on reports/; imported here so that reports stays usable without it.
    from studies import f64_path
    from studies.convergence_report import write_convergence_report
    from studies.rotation_report import write_rotation_report

    return {
        "convergence": lambda run_dir, ctx, records, out: write_convergence_report(run_dir, ctx, records, out=out),
        "rotation": lambda run_dir, ctx, records, out: write_rotation_report(run_dir, ctx, records, None, out=out),
        "f64_path": lambda run_dir, ctx, records, out: f64_path.write_report(ctx, records, out),
    }


def write_study_section(run_dir: Path, out: Path) -> Path:
    """Rewrites the study section of `run_dir` into `out` (section.md, section.html, plots/)."""
    from studies import roundoff, speed_accuracy, texture_weights
    from studies.common import load_study

    header = _header(run_dir) or {}
    if header.get("schema") == STUDY_SCHEMA:
        body = load_study(run_dir)
        study = body["context"].get("study")
        writer = study_section_writers().get(study)
        if writer is None:
            raise ReportError(f"{run_dir}: study {study!r} has no section that can be rebuilt from its records")
        return writer(run_dir, body["context"], body["records"], out)
    suite = header.get("context", {}).get("suite")
    if suite == "roundoff":
        return roundoff.write_report(run_dir, out=out)
    if suite == "texture_weights":
        return texture_weights.write_report(run_dir, out=out)
    if suite == "speed_accuracy":
        points = run_dir / speed_accuracy.SCIPY_FILE
        scipy = json.loads(points.read_text(encoding="utf-8")) if points.is_file() else []
        return speed_accuracy.write_report(run_dir, scipy, out=out)
    raise ReportError(f"{run_dir}: suite {suite!r} has no study section")


def build_machine_report(results_root: Path, machine: str, out_root: Path, chapter: bool = True,
                         figures: bool = True) -> Path:
    """Builds <out_root>/<machine>/ afresh (with chapter.pdf unless `chapter` is False;
    tables only when `figures` is False); returns its index.html."""
    selected = select_runs(results_root, machine)
    out = out_root / machine
    # Built beside the old report and swapped in: a refusal leaves the previous one whole.
    staging = out_root / f".{machine}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        studies = []
        for run_dir in selected.studies:
            section_dir = staging / "studies" / run_dir.name
            md = write_study_section(run_dir, section_dir)
            lines = Path(md).read_text(encoding="utf-8").splitlines()
            title = lines[0].lstrip("# ").strip() if lines else run_dir.name
            summary = next((line for line in lines[1:] if line.strip()), "")
            context = (_header(run_dir) or {}).get("context", {})
            studies.append(StudySection(f"{title} ({run_dir.name})", section_dir / "section.html", summary,
                                        str(context.get("study") or context.get("suite") or ""), run_dir.name))
        command = f"python -m reports.machine {machine}"
        if selected.runs:
            runs = load_runs([str(p) for p in selected.runs])
            build_report(runs, staging, command, studies=studies, chapter=chapter, figures=figures,
                         call_overhead=load_overhead_docs(results_root / machine),
                         gpu_slabs=load_slabs_files(results_root / machine),
                         module_throughput=load_throughput_docs(results_root / machine))
        else:
            _studies_only_page(staging, machine, studies)
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out / "index.html"


def _studies_only_page(out: Path, machine: str, studies: list[StudySection]) -> None:
    """A machine with study runs only: a page linking their sections."""
    import html
    items = "".join(f'<li><a href="{html.escape(str(s.page.relative_to(out)))}">{html.escape(s.title)}</a>'
                    f"<p>{html.escape(s.summary)}</p></li>" for s in studies)
    (out / "index.html").write_text(
        f"<!doctype html><meta charset=\"utf-8\"><title>splinebench report — {html.escape(machine)}</title>"
        f"<h1>splinebench report — {html.escape(machine)}</h1><h2>Studies</h2><ul>{items}</ul>\n",
        encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reports.machine",
                                     description="Build one report per machine from its committed runs.")
    parser.add_argument("machine", metavar="MACHINE", help="a folder of results/, or `all`")
    parser.add_argument("--results", type=Path, default=Path("results"), help="results root (default: results)")
    parser.add_argument("--out-root", type=Path, default=Path("report"),
                        help="reports go to OUT_ROOT/<machine>/ (default: report)")
    parser.add_argument("--no-chapter", action="store_true", help="no chapter.tex/chapter.pdf")
    parser.add_argument("--no-figures", action="store_true",
                        help="tables only: no figure is drawn (each is listed as not drawn)")
    args = parser.parse_args(argv)
    try:
        if not args.results.is_dir():
            raise ReportError(f"{args.results}: no results folder")
        machines = machine_labels(args.results) if args.machine == "all" else [args.machine]
        if not machines:
            raise ReportError(f"{args.results}: no machine folder holds a run")
        for machine in machines:
            print(build_machine_report(args.results, machine, args.out_root, chapter=not args.no_chapter,
                                       figures=not args.no_figures).resolve())
    except ReportError as exc:
        print(f"reports.machine: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
