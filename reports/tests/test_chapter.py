"""chapter.pdf: compiled from the committed fixture runs, every table's short caption in
the PDF's text, no line overfull beyond the limit, a page that is not blank; the LaTeX of
one table (longtable, short caption, notes below, landscape when wide); the refusals (a
run cited but not given, runs whose implementation changed meaning)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from reports import provenance
from reports.build import build_report
from reports.chapter import OVERFULL_LIMIT_PT, log_problems
from reports.errors import ReportError
from reports.loader import load_runs
from reports.render_latex import render_latex
from reports.table_model import Column, Row, Table
from reports.tests.conftest import CPU_RUN, GPU_RUN

TOOLS = ("pdflatex", "pdftotext", "pdftoppm")


def _need_tools() -> None:
    absent = [t for t in TOOLS if shutil.which(t) is None]
    if absent:
        if os.environ.get("CI"):
            pytest.fail(f"{', '.join(absent)} missing under CI: ./run_all.sh test installs texlive-latex-base, "
                        "texlive-latex-recommended, lmodern and poppler-utils")
        pytest.skip(f"{', '.join(absent)} not installed (Debian: texlive-latex-base texlive-latex-recommended "
                    "lmodern poppler-utils); ./run_all.sh test installs them")


@pytest.fixture(scope="module")
def chapter(tmp_path_factory):
    _need_tools()
    out = tmp_path_factory.mktemp("chapter")
    build_report(load_runs([CPU_RUN, GPU_RUN]), out, chapter=True)
    return out


def _words(text: str) -> str:
    """Letters and digits only, accents dropped: what survives LaTeX's typesetting and pdftotext alike."""
    return re.sub(r"[^a-z0-9]", "", unicodedata.normalize("NFKD", text).lower())


def _table_titles(out: Path) -> list[str]:
    titles = []
    for tex in sorted((out / "tables").glob("*.tex")):
        if tex.stem == "all_tables":
            continue
        match = re.search(r"\\caption\[(.*?)\]\{", tex.read_text(encoding="utf-8"))
        assert match, f"{tex.name}: no short caption"
        titles.append(match.group(1))
    return titles


def test_chapter_holds_every_table_by_its_short_caption(chapter):
    pdf = chapter / "chapter.pdf"
    assert pdf.is_file() and (chapter / "chapter.tex").is_file()
    text = _words(subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True,
                                 text=True).stdout)
    titles = _table_titles(chapter)
    assert len(titles) >= 6
    source = (chapter / "chapter.tex").read_text(encoding="utf-8")
    for tex in (chapter / "tables").glob("*.tex"):
        if tex.stem != "all_tables":
            assert f"\\input{{tables/{tex.stem}}}" in source, tex.stem
    for title in titles:
        plain = re.sub(r"\$\^\{(-?\d+)\}\$", r"\1", title)
        plain = re.sub(r"\\[a-zA-Z]+\{\}|\$\\[a-zA-Z]+\$|\\.", "", plain)
        assert _words(plain) in text, title
        assert len(title) <= 160  # the short form (<= 120 characters before escaping)


def test_chapter_log_has_no_overfull_line_beyond_the_limit(chapter):
    log = (chapter / "chapter.log").read_text(encoding="utf-8", errors="replace")
    assert log_problems(log) == []
    widths = [float(w) for w in re.findall(r"Overfull \\hbox \((\d+(?:\.\d+)?)pt too wide", log)]
    assert all(w <= OVERFULL_LIMIT_PT for w in widths), widths


def _page_with(pdf: Path, words: str) -> int:
    """The first page whose text holds `words` (letters and digits compared)."""
    pages = subprocess.run(["pdftotext", str(pdf), "-"], check=True, capture_output=True, text=True).stdout
    for number, page in enumerate(pages.split("\f"), start=1):
        if _words(words) in _words(page):
            return number
    raise AssertionError(f"no page holds {words!r}")


def test_a_rendered_page_is_not_blank(chapter, tmp_path):
    # The page of the first table (the reproduction status), after the lists of tables and figures.
    page = _page_with(chapter / "chapter.pdf", "Each seed artefact with what this report shows")
    subprocess.run(["pdftoppm", "-f", str(page), "-l", str(page), "-r", "40", "-gray", str(chapter / "chapter.pdf"),
                    str(tmp_path / "page")], check=True)
    pgm = next(tmp_path.glob("page*.pgm")).read_bytes()
    # Binary PGM: "P5\n<w> <h>\n<max>\n" then one byte per pixel.
    header = re.match(rb"P5\s+(\d+)\s+(\d+)\s+(\d+)\s", pgm)
    pixels = pgm[header.end():]
    dark = sum(1 for b in pixels if b < 128)
    assert dark > 0.005 * len(pixels), f"{dark} dark pixels of {len(pixels)}"


def test_overfull_lines_beyond_the_limit_are_problems():
    log = "(./tables/wide.tex\nOverfull \\hbox (12.5pt too wide) in alignment at lines 3--9\n" \
          "Overfull \\hbox (4.0pt too wide) in paragraph at lines 1--2\n! Undefined control sequence.\nl.5 \\foo\n"
    problems = log_problems(log)
    assert len(problems) == 2
    assert "12.5 pt" in problems[1] or "12.5 pt" in problems[0]
    assert any(p.startswith("LaTeX error: Undefined control sequence") for p in problems)


def test_a_chapter_citing_a_run_not_given_is_refused(tmp_path):
    runs = load_runs([CPU_RUN])
    runs[0].label = "ci/20261126-061712-gone"   # a row label naming a run that is not given
    with pytest.raises(ReportError, match="cites 20261126-061712-gone"):
        build_report(runs, tmp_path, chapter=True)
    assert not (tmp_path / "chapter.pdf").exists() and not (tmp_path / "index.html").exists()


def _with_evaluation(run, impl: str, evaluation: str):
    registry = [dict(e, evaluation=evaluation) if e.get("name") == impl else e
                for e in run.context.get("registry", [])]
    return provenance.dataclasses.replace(run, context=dict(run.context, registry=registry))


def test_runs_whose_implementation_changed_meaning_are_refused_unless_declared():
    cpu, gpu = load_runs([CPU_RUN, GPU_RUN])
    impl = next(r.impl for r in cpu.records if any(g.impl == r.impl for g in gpu.records))
    old, new = _with_evaluation(cpu, impl, "f32 taps"), _with_evaluation(gpu, impl, "f64 taps")
    with pytest.raises(ReportError, match=f"meaning changed.*{impl}"):
        provenance.check_meaning([old, new])
    accepted = [provenance.MeaningChange(impl, "f32 taps", "f64 taps", "evaluation moved to f64")]
    notes = provenance.check_meaning([old, new], accepted)
    assert len(notes) == 1 and "evaluation moved to f64" in notes[0] and old.run_id in notes[0]


def test_table_latex_is_a_longtable_with_notes_below_and_a_landscape_page_when_wide():
    narrow = Table("t", "A short title", "A one-paragraph caption.", [Column("a"), Column("b", "ms", True)])
    narrow.add(Row(["x", "1.0"]))
    narrow.add(Row(["y"], "missing", note="case not in this run"))
    narrow.notes.append("A note.")
    tex = render_latex(narrow)
    assert "\\begin{longtable}" in tex and "\\caption[A short title]{A short title. A one-paragraph caption.}" in tex
    assert "landscape" not in tex and "\\multicolumn{1}" not in tex
    body, after = tex.split("\\end{longtable}")
    assert "case not in this run" not in body and "Not measured: y: case not in this run" in after
    assert "A note." in after
    wide = Table("w", "Wide", "c", [Column(f"c{i}", "ms", True) for i in range(10)])
    wide.add(Row([str(i) for i in range(10)]))
    assert "\\begin{landscape}" in render_latex(wide)


def test_a_table_too_wide_for_the_script_size_gets_the_closest_columns():
    # Thesis Table 1's shape: 13 columns, 9 of them numeric cells that cannot wrap (at
    # \tabcolsep 3 pt its H100 version was 11.5 pt wider than the page). 17 characters
    # each: over the \scriptsize budget with 3 pt between columns, within it at 1.5 pt.
    table = Table("t1", "Thirteen", "c", [Column(c) for c in "abcd"] + [Column(f"n{i}", "ms", True) for i in range(9)])
    table.add(Row(list("abcd") + ["1234.5 [123–4567]"] * 9))
    tex = render_latex(table)
    assert "\\setlength{\\tabcolsep}{1.5pt}" in tex and "\\scriptsize" in tex and "\\begin{landscape}" in tex
    table.rows[-1].cells[4:] = ["1234.5 [12–4567]"] * 9  # one character less: 3 pt is enough
    assert "\\setlength{\\tabcolsep}{3pt}" in render_latex(table)


def test_captions_have_a_short_form_and_one_distinct_paragraph(chapter):
    captions = {}
    for md in sorted((chapter / "tables").glob("*.md")):
        if md.stem == "all_tables":
            continue
        title, _, caption = md.read_text(encoding="utf-8").split("\n")[:3]
        title = title.removeprefix("### ")
        assert len(title) <= 120, (md.stem, title)
        assert 0 < len(caption) <= 700 and "\n" not in caption, (md.stem, len(caption))
        captions[md.stem] = title + caption
    assert len(set(captions.values())) == len(captions), "two tables share a caption"


def test_shown_runs_own_their_records():
    """The runs a report shows (test-only entries left out) are new Run objects; each of
    their records names that shown run, so figures that look a record's run up among the
    shown runs find it (the H200 report failed on its per-axis figure without this)."""
    runs = load_runs([CPU_RUN, GPU_RUN])
    shown = provenance.without_test_entries(runs)
    assert len(shown) == len(runs)
    for run, original in zip(shown, runs):
        assert run.records, run.label
        assert all(record.run is run for record in run.records), run.label
        assert all(record.run is original for record in original.records), "the loaded runs are left as they were"
