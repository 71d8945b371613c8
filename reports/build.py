"""python -m reports.build RUN_DIR [RUN_DIR ...] [--out DIR]

Turns one or more run directories into tables (Markdown, LaTeX, HTML), figures
(PNG, SVG) and an index.html, written to <first RUN_DIR>/report/ unless --out
is given. Several runs (e.g. a CPU run and a GPU run) are merged into one report
with every row labelled by machine. Prints the path of index.html last.
"""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from .accuracy_table import accuracy_table
from .citations import check_report_items
from . import iir2d
from . import scattered
from .errors import ReportError
from .flex_allocation import flex_vs_fixed_table
from .index_page import StudySection, write_index
from .loader import Run, load_runs
from .plots.accuracy import plot_accuracy
from .plots.style import Figure
from .plots.prefilter_axes import plot_prefilter_axes
from .plots.speedup import plot_speedup
from .plots.throughput import plot_prefilter_throughput, plot_reconstruction_throughput
from .render_html import render_html_page
from .render_latex import render_latex
from .render_markdown import render_markdown
from .reproduced_tables import ALL_REPRODUCED
from .status_table import status_table
from .tables_peer_speedup import peer_speedup_table
from .table_model import Table


def write_tables(tables: list[Table], out_dir: Path) -> dict[str, dict[str, Path]]:
    """Each table as <key>.md/.tex/.html, plus all_tables.md/.tex for pasting whole."""
    table_dir = out_dir / "tables"
    table_dir.mkdir(parents=True, exist_ok=True)
    files: dict[str, dict[str, Path]] = {}
    renderers = {"Markdown": (".md", render_markdown), "LaTeX": (".tex", render_latex),
                 "HTML": (".html", render_html_page)}
    for table in tables:
        files[table.key] = {}
        for kind, (suffix, render) in renderers.items():
            path = table_dir / f"{table.key}{suffix}"
            path.write_text(render(table), encoding="utf-8")
            files[table.key][kind] = path
    (table_dir / "all_tables.md").write_text("\n".join(render_markdown(t) for t in tables), encoding="utf-8")
    (table_dir / "all_tables.tex").write_text(
        "% Needs \\usepackage{booktabs}.\n" + "\n".join(render_latex(t) for t in tables), encoding="utf-8")
    return files


def study_sections(folders: list[Path]) -> list[StudySection]:
    """The report sections the studies wrote (<run>/report/section.md and .html)."""
    found = []
    for folder in folders:
        md = Path(folder) / "report" / "section.md"
        page = md.with_name("section.html")
        if not md.is_file() or not page.is_file():
            raise ReportError(f"{folder}: no study report section (report/section.md and section.html); "
                              "run the study, or its --report-only")
        lines = md.read_text(encoding="utf-8").splitlines()
        title = lines[0].lstrip("# ").strip() if lines else Path(folder).name
        summary = next((line for line in lines[1:] if line.strip()), "")
        found.append(StudySection(f"{title} ({Path(folder).name})", page, summary))
    return found


def build_report(runs: list[Run], out_dir: Path, command: str = "python -m reports.build",
                 first_sections: list[tuple[str, list]] = (), studies: list[StudySection] = ()) -> Path:
    """`first_sections`: (heading, tables and figures) put before the usual ones
    (the nightly gate's verdict and trend). Refuses (ReportError, no table or page
    written) a report whose own tables or figures cite a run not in `runs` (reports/citations.py)."""
    out_dir = Path(out_dir)
    plot_dir = out_dir / "plots"
    reproduced = [make(runs) for make in ALL_REPRODUCED]
    accuracy = accuracy_table(runs)
    status = status_table(runs)
    sections = [
        *first_sections,
        ("Reproduced tables", reproduced),
        # "Versus size" plots come with a table of the cases too short for a line.
        ("Speed-up", [*plot_speedup(runs, plot_dir, "cpu_scalar"), *plot_speedup(runs, plot_dir, "cpu_simd"),
                      peer_speedup_table(runs)]),
        ("Throughput", [*plot_reconstruction_throughput(runs, plot_dir), *plot_prefilter_throughput(runs, plot_dir),
                        plot_prefilter_axes(runs, plot_dir)]),
        ("Accuracy", [accuracy, plot_accuracy(runs, plot_dir)]),
        ("Implementations", [status]),
    ]
    # Seed 004: its experiment (iir2d suite runs) and its idea in the prefilter.
    if items := iir2d.report_items(runs, plot_dir):
        sections.append(("Seed 004: 2-D IIR filter, fixed vs flexible allocation", items))
    if items := scattered.report_items(runs, plot_dir):
        sections.append(("Seed 003: reconstruction from scattered samples", items))
    if (flex := flex_vs_fixed_table(runs)).data_rows("ours"):
        sections.append(("Fixed vs flexible allocation in the prefilter", [flex]))
    if studies:
        sections.append(("Studies", list(studies)))
    own = [item for _, items in sections[len(first_sections):] for item in items]
    try:
        # Only what this call drew from `runs`: the caller's first sections name runs of their
        # own (the gate's verdict names the baseline's runs under results/<machine>/baseline/).
        check_report_items(own, runs)
    except ReportError:
        # Refused before any table or page is written; the figures this call drew go too.
        for item in own:
            if isinstance(item, Figure):
                for path in (item.png, item.svg):
                    Path(path).unlink(missing_ok=True)
        raise
    tables = [item for _, items in sections for item in items if isinstance(item, Table)]
    table_files = write_tables(tables, out_dir)
    return write_index(out_dir, runs, sections, table_files, command)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m reports.build",
        description="Build tables, plots and index.html from splinebench run directories.")
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR",
                        help="run directory (holding results.json or results.json.gz) or such a file; several are merged")
    parser.add_argument("--out", type=Path, default=None,
                        help="output directory (default: <first RUN_DIR>/report)")
    parser.add_argument("--studies", nargs="+", type=Path, default=[], metavar="STUDY_RUN",
                        help="study runs (studies/README.md) whose report sections the page links")
    args = parser.parse_args(argv)
    try:
        runs = load_runs(args.runs)
        out_dir = args.out if args.out is not None else runs[0].path / "report"
        command = "python -m reports.build " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
        index = build_report(runs, out_dir, command, studies=study_sections(args.studies))
    except ReportError as exc:
        print(f"reports.build: error: {exc}", file=sys.stderr)
        return 2
    print(index.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
