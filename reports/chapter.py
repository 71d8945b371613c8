"""chapter.pdf: the report as a LaTeX chapter a thesis can take as it is.

`write_chapter` writes chapter.tex beside index.html: a `report`-class document whose
one chapter \\input s each table from tables/<key>.tex (render_latex: longtable,
short and long caption, notes below) and includes each figure from plots/<stem>.pdf,
in the report's section order (reproduction status, the seeds, then the suite's own
studies and peer comparisons). `compile_chapter` runs pdflatex twice and refuses
(ReportError) a LaTeX error or an overfull line wider than OVERFULL_LIMIT_PT, with the
log's words; the log stays beside the PDF (chapter.log)."""
from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import provenance
from .errors import ReportError
from .loader import Run
from .index_page import StudySection
from .plots.style import Figure, Skipped
from .render_latex import PACKAGES, breakable, latex_escape
from .table_model import Table

OVERFULL_LIMIT_PT = 10.0
AUX_SUFFIXES = (".aux", ".lot", ".lof", ".out", ".toc")
TEX_PACKAGES = ("Debian: texlive-latex-base texlive-latex-recommended lmodern "
                "(./run_all.sh report installs them)")
PREAMBLE = r"""\documentclass[a4paper,11pt]{report}
\usepackage[T1]{fontenc}
\usepackage{lmodern}
\usepackage[a4paper,margin=25mm]{geometry}
\usepackage{%s}
\usepackage{graphicx}
\usepackage{float}
\usepackage{caption}
\captionsetup{singlelinecheck=false}
\usepackage[hidelinks]{hyperref}
\setlength{\emergencystretch}{3em}
""" % ",".join(PACKAGES)
# singlelinecheck=false: LaTeX's own \caption first sets the whole caption on one line to
# see whether it fits, and a figure's provenance (every run and commit it draws from) can
# make that line longer than TeX's largest dimension (about 5.8 m), a fatal error; the
# caption package (texlive-latex-recommended) without that check sets it as a paragraph.


@dataclass
class Part:
    """One section of the chapter: its heading and the report's items in order (Tables,
    Figures, Skipped figures, StudySections, and paragraphs of text as str)."""
    heading: str
    items: list = field(default_factory=list)


def chapter_intro(runs: Sequence[Run]) -> list[str]:
    """What the chapter is made from, said once at its top."""
    return ["Every number in this chapter is recomputed from the committed runs named below; published numbers "
            "of the seed documents are set in italics beside ours, each with the hardware it was measured on. "
            "Each table and figure names the runs it is drawn from.",
            provenance.runs_sentence(runs)]


def _figure(figure: Figure, out_dir: Path, provenance: str) -> list[str]:
    pdf = figure.pdf
    if pdf is None or not Path(pdf).is_file():
        raise ReportError(f"figure {figure.stem}: no PDF written ({pdf}); the chapter includes vector figures")
    rel = Path(pdf).resolve().relative_to(out_dir.resolve()).as_posix()
    long = " ".join(t for t in (figure.title + ".", figure.caption, provenance) if t)
    return ["\\begin{figure}[H]", "\\centering",
            f"\\includegraphics[width=\\linewidth,height=0.72\\textheight,keepaspectratio]{{{rel}}}",
            f"\\caption[{breakable(latex_escape(figure.short_caption))}]{{{breakable(latex_escape(long))}}}"
            f"\\label{{fig:{figure.stem}}}",
            "\\end{figure}"]


def chapter_source(out_dir: Path, title: str, intro: Sequence[str], parts: Sequence[Part],
                   figure_runs: dict[str, str]) -> str:
    """The text of chapter.tex. `figure_runs`: figure stem -> its provenance sentence."""
    lines = [PREAMBLE, "\\begin{document}", f"\\chapter{{{latex_escape(title)}}}"]
    lines += [latex_escape(p) + "\n" for p in intro]
    lines += ["\\listoftables", "\\listoffigures", "\\clearpage"]
    for part in parts:
        lines.append(f"\\section{{{latex_escape(part.heading)}}}")
        for item in part.items:
            if isinstance(item, str):
                lines.append(breakable(latex_escape(item)) + "\n")
            elif isinstance(item, Table):
                lines.append(f"\\input{{tables/{item.key}}}")
            elif isinstance(item, Figure):
                lines += _figure(item, out_dir, figure_runs.get(item.stem, ""))
            elif isinstance(item, Skipped):
                lines.append(f"\\paragraph{{{latex_escape(item.title)}}} Not drawn: {breakable(latex_escape(item.reason))}\n")
            elif isinstance(item, StudySection):
                page = Path(item.page)
                where = page.parent.resolve().relative_to(out_dir.resolve()).as_posix() \
                    if page.is_absolute() or page.exists() else str(page.parent)
                lines.append(f"\\paragraph{{{latex_escape(item.title)}}} {breakable(latex_escape(item.summary))} "
                             f"(Its own section, with figures and tables: "
                             f"\\texttt{{{breakable(latex_escape(where))}}}.)\n")
        lines.append("\\clearpage")
    lines.append("\\end{document}")
    return "\n".join(lines) + "\n"


_OVERFULL = re.compile(r"^Overfull \\hbox \((\d+(?:\.\d+)?)pt too wide\)(.*)$")


def log_problems(log: str, limit_pt: float = OVERFULL_LIMIT_PT) -> list[str]:
    """LaTeX errors and overfull lines wider than `limit_pt`, each with the log's words
    (the file being read when it happened, where the log says)."""
    problems = []
    current_file = ""
    lines = log.splitlines()
    for n, line in enumerate(lines):
        for name in re.findall(r"\(\./([^\s()]+\.(?:tex|lof|lot|toc))", line):
            current_file = name
        if line.startswith("! "):
            problems.append(f"LaTeX error: {line[2:]} " + " ".join(l.strip() for l in lines[n + 1:n + 3]))
        match = _OVERFULL.match(line)
        if match and float(match.group(1)) > limit_pt:
            problems.append(f"overfull line {match.group(1)} pt too wide (limit {limit_pt:g} pt){match.group(2)}"
                            + (f" in {current_file}" if current_file else ""))
    return problems


def compile_chapter(tex: Path, limit_pt: float = OVERFULL_LIMIT_PT) -> Path:
    """pdflatex twice (the second pass fills the lists of tables and figures); returns the PDF."""
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        raise ReportError(f"pdflatex not found: the chapter needs {TEX_PACKAGES}")
    tex = Path(tex)
    log = tex.with_suffix(".log")
    # A failed build's lists would be read back by the first pass: start from none.
    for suffix in AUX_SUFFIXES:
        tex.with_suffix(suffix).unlink(missing_ok=True)
    for _ in range(2):
        done = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", tex.name],
                              cwd=tex.parent, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace", timeout=600)
        text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else done.stdout
        problems = log_problems(text, limit_pt)
        if done.returncode != 0 or problems:
            said = "; ".join(problems[:8]) or done.stdout[-1500:]
            raise ReportError(f"{tex}: pdflatex failed (exit {done.returncode}): {said} (log: {log})")
    for suffix in AUX_SUFFIXES:
        tex.with_suffix(suffix).unlink(missing_ok=True)
    return tex.with_suffix(".pdf")
