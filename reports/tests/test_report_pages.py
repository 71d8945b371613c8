"""Plots and index.html built from the fixture runs: every figure and table is
on the page, links are relative and resolve, the run context is at the top."""
from __future__ import annotations

import re
import struct
from html.parser import HTMLParser
from pathlib import Path

from reports.build import main as build_main

FIGURE_STEMS = ("speedup_vs_batch_over_cpu_scalar", "speedup_vs_batch_over_cpu_simd",
                "throughput_reconstruction_vs_grid", "throughput_prefilter_vs_grid",
                "prefilter_time_per_axis", "accuracy_vs_dims")
TABLE_KEYS = ("ruijters_table1", "ruijters_table2", "thesis_table1", "reconstruction_256", "accuracy",
              "implementations")


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        for key in ("href", "src"):
            if key in attrs:
                self.links.append(attrs[key])


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def _check_index(index: Path) -> str:
    text = index.read_text(encoding="utf-8")
    parser = _Links()
    parser.feed(text)
    for link in parser.links:
        if link.startswith("#"):
            assert link[1:] in parser.ids, f"dangling anchor {link}"
            continue
        assert not re.match(r"^[a-z]+:|^/", link), f"link is not relative: {link}"
        assert (index.parent / link).exists(), f"broken link {link}"
    for key in TABLE_KEYS:
        assert f'id="{key}"' in text, f"table {key} not inline"
    return text


def test_cpu_only_report_has_every_table_and_figure(cpu_report):
    text = _check_index(cpu_report)
    head = text.split("<nav>")[0]
    for expected in ("ci-cpu", "AMD EPYC 7B13", "0123456789abcdef", "2026-11-22T10:00:00Z", "quick"):
        assert expected in head
    plots = cpu_report.parent / "plots"
    for stem in FIGURE_STEMS:
        assert f'id="f-{stem}"' in text
        png = plots / f"{stem}.png"
        assert png.exists() and (plots / f"{stem}.svg").exists() and (plots / f"{stem}.pdf").exists(), stem
        # The caption is printed under the figure (it is not drawn into the image), with its PDF linked.
        section = text.split(f'id="f-{stem}"', 1)[1].split("</section>", 1)[0]
        caption = section.split("<figcaption>", 1)[1].split('<span class="links">', 1)[0].strip()
        assert len(caption) > 40 and f'href="plots/{stem}.pdf"' in section, (stem, caption[:80])
        width, height = _png_size(png)
        # One panel with its legend is 7.2 in wide at 110 dpi (style.panels).
        assert width >= 780 and height >= 400, (stem, width, height)
    for kind in ("md", "tex", "html"):
        assert (cpu_report.parent / "tables" / f"ruijters_table1.{kind}").exists()
    tables = cpu_report.parent / "tables"
    written = {p.stem for p in tables.glob("*.tex")} - {"all_tables"}
    assert set(TABLE_KEYS) <= written
    # all_tables.tex holds every table once (the fixed ones plus "too few sizes" tables), each
    # a longtable (whose head repeats its rule on continued pages).
    assert (tables / "all_tables.tex").read_text().count("\\begin{longtable}") == len(written)


def test_merged_report_labels_records_by_machine(merged_report):
    text = _check_index(merged_report)
    head = text.split("<nav>")[0]
    assert "ci-cpu" in head and "h100" in head and "NVIDIA H100 80GB HBM3" in head
    assert "ours · h100 · NVIDIA H100 80GB HBM3" in text
    assert "ours · ci-cpu · AMD EPYC 7B13" in text
    stem = "speedup_vs_batch_over_cpu_scalar"
    svg = (merged_report.parent / "plots" / f"{stem}.svg").read_text()
    # Titled, labelled with units, legend per implementation and machine in the image; the
    # devices in the caption printed under it (not drawn into the image).
    for expected in ("Reconstruction speed-up over cpu_scalar", "batch size (queries)", "speed-up over cpu_scalar",
                     "gpu_texture @ h100", "cpu_simd @ ci-cpu"):
        assert expected in svg, expected
    assert "NVIDIA H100 80GB HBM3" not in svg
    caption = text.split(f'id="f-{stem}"', 1)[1].split("<figcaption>", 1)[1].split("</figcaption>", 1)[0]
    assert "NVIDIA H100 80GB HBM3" in caption and "AMD EPYC 7B13" in caption, caption[:200]


def test_accuracy_plot_draws_tolerances(merged_report):
    svg = (merged_report.parent / "plots" / "accuracy_vs_dims.svg").read_text()
    assert "tolerance (same colour)" in svg and "dimensions D" in svg


def test_missing_figure_is_explained(tmp_path):
    """A run without per-axis phases and without cpu_simd still gets a page that says why."""
    from reports.tests import synth
    doc = synth.results(synth.context("tiny", "quick"),
                        [synth.modelled("cpu_scalar", [64], queries=q) for q in (100, 1000)])
    run_dir = synth.write_run(tmp_path / "run", doc)
    assert build_main([str(run_dir)]) == 0
    index = run_dir / "report" / "index.html"
    text = _check_index(index)
    assert "Not drawn: no record has per-axis prefilter phases" in text
    assert "Not drawn: no cpu_simd reconstruction records" in text


def test_build_prints_index_path_last(tmp_path, capsys):
    from reports.tests import synth
    doc = synth.results(synth.context("tiny", "quick"), [synth.modelled("cpu_scalar", [64], queries=100)])
    run_dir = synth.write_run(tmp_path / "run", doc)
    out = tmp_path / "out"
    assert build_main([str(run_dir), "--out", str(out)]) == 0
    printed = capsys.readouterr().out.strip().splitlines()[-1]
    assert Path(printed) == (out / "index.html").resolve()


def test_tables_only_report_draws_no_figure_and_says_so(tmp_path):
    """--no-figures: every table, no figure file, and each figure listed as not drawn."""
    from reports.plots.style import TABLES_ONLY
    from reports.tests.conftest import CPU_RUN
    out = tmp_path / "out"
    assert build_main([str(CPU_RUN), "--out", str(out), "--no-figures", "--no-chapter"]) == 0
    text = _check_index(out / "index.html")
    assert not [p for p in out.rglob("*") if p.suffix in (".png", ".pdf", ".svg")]
    for key in TABLE_KEYS:
        assert (out / "tables" / f"{key}.md").is_file(), key
    for stem in FIGURE_STEMS:
        assert stem in text, stem
    assert text.count(TABLES_ONLY) >= len(FIGURE_STEMS)
