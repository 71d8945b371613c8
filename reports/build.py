"""python -m reports.build RUN_DIR [RUN_DIR ...] [--out DIR]

Turns one or more run directories into tables (Markdown, LaTeX, HTML), figures
(PNG, PDF, SVG), an index.html and chapter.pdf (reports/chapter.py), written to
<first RUN_DIR>/report/ unless --out is given. Several runs (e.g. a CPU run and a GPU run) are merged into one report
with every row labelled by machine. Prints the path of index.html last.
"""
from __future__ import annotations

import argparse
import contextlib
import shlex
import sys
from pathlib import Path

from .accuracy_table import accuracy_table
from .call_overhead import call_overhead_table
from .module_throughput import module_throughput_table
from .chapter import Part, chapter_intro, chapter_source, compile_chapter
from .citations import check_report_items, check_run_labels
from . import provenance
from . import iir2d
from . import multi_gpu
from . import scattered
from .errors import ReportError
from .flex_allocation import flex_vs_fixed_table
from .index_page import StudySection, write_index
from .loader import Run, load_runs
from .plots.accuracy import plot_accuracy
from .plots.style import Figure, tables_only
from .plots.prefilter_axes import plot_prefilter_axes
from .plots.speedup import plot_speedup
from .plots.throughput import plot_prefilter_throughput, plot_reconstruction_throughput
from .render_html import render_html_page
from .render_latex import render_latex
from .render_markdown import render_markdown
from .reproduced_tables import ALL_REPRODUCED
from .reproduction_status import reproduction_status_table
from .seed001_conclusions import conclusions
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
    (table_dir / "all_tables.tex").write_text("\n".join(render_latex(t) for t in tables), encoding="utf-8")
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
        found.append(StudySection(f"{title} ({Path(folder).name})", page, summary, run_id=Path(folder).name))
    return found


def _kind_runs(table_key: str, runs: list[Run]) -> list[Run]:
    """The runs holding the kind of records a table reads, for a table that names no run."""
    if table_key == "reproduction_status":  # every seed artefact: every system's runs
        return list(runs)
    if table_key.startswith("scattered_"):
        return [r for r in runs if r.system_records.get(scattered.OPERATION)]
    if table_key.startswith("iir2d_"):
        return [r for r in runs if r.system_records.get(iir2d.OPERATION)]
    return [r for r in runs if r.records]


def _name_runs(items: list, runs: list[Run]) -> dict[str, str]:
    """Adds to each table a note naming its runs (id, commit, machine, date); returns the
    same sentence for each figure, by stem, for the chapter's captions."""
    figures = {}
    for item in items:
        if isinstance(item, Table) and item.key in multi_gpu.FILE_TABLES:
            continue  # they name their benchmark files themselves, and read no run
        if isinstance(item, Table):
            texts = [item.title, item.caption, *(" ".join(r.cells) for r in item.rows), *item.notes]
            seed_only = not item.data_rows("ours")
            named = [] if seed_only else provenance.item_runs(texts, runs, _kind_runs(item.key, runs))
            item.notes.append(provenance.runs_sentence(named))
        elif isinstance(item, Figure):
            named = provenance.item_runs([item.title, item.caption], runs, runs)
            figures[item.stem] = provenance.runs_sentence(named)
    return figures


def build_report(runs: list[Run], out_dir: Path, command: str = "python -m reports.build",
                 first_sections: list[tuple[str, list]] = (), studies: list[StudySection] = (),
                 chapter: bool = False, figures: bool = True, call_overhead: list[dict] = (),
                 gpu_slabs: list = (), module_throughput: list[dict] = ()) -> Path:
    """`first_sections`: (heading, tables and figures) put before the usual ones
    (the nightly gate's verdict and trend). Refuses (ReportError, no table or page
    written) a report whose own tables or figures cite a run not in `runs`
    (reports/citations.py), or that mixes runs whose implementations changed meaning
    without a declared note (reports/provenance.py). `chapter`: also chapter.tex and
    chapter.pdf (reports/chapter.py). `figures` False: tables only, each figure listed as
    not drawn (plots/style.py, tables_only). Test-only implementations are left out.
    `call_overhead`: bench/module_overhead.py's files (call_overhead.py), shown beside the
    peer table when there are any; `module_throughput`: bench/module_throughput.py's files
    (module_throughput.py), shown after them. `gpu_slabs`: bench_gpu_slabs' files
    (multi_gpu.py), which with any sharded suite run make the "Past one GPU" section."""
    with contextlib.nullcontext() if figures else tables_only():
        return _build_report(runs, out_dir, command, first_sections, studies, chapter, list(call_overhead),
                             list(gpu_slabs), list(module_throughput))


def _build_report(runs: list[Run], out_dir: Path, command: str, first_sections: list[tuple[str, list]],
                  studies: list[StudySection], chapter: bool, call_overhead: list[dict],
                  gpu_slabs: list, module_throughput: list[dict]) -> Path:
    out_dir = Path(out_dir)
    plot_dir = out_dir / "plots"
    check_run_labels(runs, also=[getattr(s, "run_id", "") for s in studies])
    meaning_notes = provenance.check_meaning(runs)
    runs = provenance.without_test_entries(runs)
    accuracy = accuracy_table(runs)
    status = status_table(runs)
    ruijters1, ruijters2, thesis1, reconstruction = (make(runs) for make in ALL_REPRODUCED)
    seed_sections = [
        ("Seed 001: 4-D lookups, CPU against GPU (thesis Table 1)", [thesis1, *conclusions(runs)]),
        ("Seed 002: the GPU prefilter (Ruijters & Thévenaz)", [ruijters1, ruijters2, reconstruction]),
    ]
    # Seed 003: reconstruction from scattered samples; seed 004: its experiment (iir2d suite runs).
    if items := scattered.report_items(runs, plot_dir):
        seed_sections.append(("Seed 003: reconstruction from scattered samples", items))
    if items := iir2d.report_items(runs, plot_dir):
        seed_sections.append(("Seed 004: 2-D IIR filter, fixed against flexible allocation", items))
    seed_items = [item for _, items in seed_sections for item in items]
    reproduction = reproduction_status_table(runs, [*seed_items, *studies])
    own_sections = [
        # "Versus size" plots come with a table of the cases too short for a line.
        ("Speed-up and peer comparison", [*plot_speedup(runs, plot_dir, "cpu_scalar"),
                                          *plot_speedup(runs, plot_dir, "cpu_simd"), peer_speedup_table(runs),
                                          *([call_overhead_table(call_overhead)] if call_overhead else []),
                                          *([module_throughput_table(module_throughput)]
                                            if module_throughput else [])]),
        ("Throughput", [*plot_reconstruction_throughput(runs, plot_dir), *plot_prefilter_throughput(runs, plot_dir),
                        plot_prefilter_axes(runs, plot_dir)]),
        ("Accuracy", [accuracy, plot_accuracy(runs, plot_dir)]),
    ]
    if items := multi_gpu.report_items(runs, gpu_slabs):
        own_sections.insert(0, (multi_gpu.SECTION, items))  # right after the seed sections
    if (flex := flex_vs_fixed_table(runs)).data_rows("ours"):
        own_sections.append(("Fixed against flexible allocation in the prefilter", [flex]))
    own_sections.append(("Implementations", [status]))
    if studies:
        own_sections.append(("Studies", list(studies)))
    sections = [*first_sections, ("Reproduction status", [reproduction, *meaning_notes]),
                *seed_sections, *own_sections]
    own = [item for _, items in sections[len(first_sections):] for item in items]
    figure_runs = _name_runs(own, runs)
    try:
        # Only what this call drew from `runs`: the caller's first sections name runs of their
        # own (the gate's verdict names the baseline's runs under results/<machine>/baseline/).
        check_report_items(own, runs, also=[*(getattr(s, "run_id", "") for s in studies),
                                            *multi_gpu.cited_ids(gpu_slabs)])
    except ReportError:
        # Refused before any table or page is written; the figures this call drew go too.
        for item in own:
            if isinstance(item, Figure):
                for path in (item.png, item.svg, item.pdf):
                    if path is not None:
                        Path(path).unlink(missing_ok=True)
        raise
    tables = [item for _, items in sections for item in items if isinstance(item, Table)]
    table_files = write_tables(tables, out_dir)
    index = write_index(out_dir, runs, sections, table_files, command)
    if chapter:
        machines = ", ".join(dict.fromkeys(r.machine for r in runs))
        tex = out_dir / "chapter.tex"
        tex.write_text(chapter_source(out_dir, f"Results on {machines}", chapter_intro(runs),
                                      [Part(h, items) for h, items in sections], figure_runs), encoding="utf-8")
        compile_chapter(tex)
    return index


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
    parser.add_argument("--no-chapter", action="store_true",
                        help="no chapter.tex/chapter.pdf (they need pdflatex: reports/README.md)")
    parser.add_argument("--no-figures", action="store_true",
                        help="tables only: no figure is drawn (each is listed as not drawn); most of the time saved")
    args = parser.parse_args(argv)
    try:
        runs = load_runs(args.runs)
        out_dir = args.out if args.out is not None else runs[0].path / "report"
        command = "python -m reports.build " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
        index = build_report(runs, out_dir, command, studies=study_sections(args.studies),
                             chapter=not args.no_chapter, figures=not args.no_figures)
    except ReportError as exc:
        print(f"reports.build: error: {exc}", file=sys.stderr)
        return 2
    print(index.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
