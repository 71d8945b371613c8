"""Reproduced tables: published numbers beside ours, ours computed from the
result files (checked here against the raw JSON, independently of the loader),
and every empty row saying why."""
from __future__ import annotations

import json
import re
import statistics
from html.parser import HTMLParser

import pytest

from reports.accuracy_table import accuracy_table
from reports.render_html import render_html_fragment
from reports.render_latex import render_latex
from reports.render_markdown import render_markdown
from reports.reproduced_tables import (reconstruction_speed_table, ruijters_table1, ruijters_table2,
                                       thesis_table1)
from reports.seeds import seed
from reports.table_model import fmt_ms, fmt_ratio
from reports.tests.conftest import CPU_RUN, GPU_RUN


def raw_records(run_dir):
    return json.loads((run_dir / "results.json").read_text())["records"]


def raw_find(run_dir, **want):
    found = [r for r in raw_records(run_dir) if all(r.get(k) == v for k, v in want.items())]
    assert len(found) == 1, (want, len(found))
    return found[0]


def rows_where(table, kind, **cells):
    index = {c.title: i for i, c in enumerate(table.columns)}
    return [r for r in table.rows if r.kind == kind
            and all(len(r.cells) > index[k] and r.cells[index[k]] == v for k, v in cells.items())]


def cell(table, row, title):
    return row.cells[[c.title for c in table.columns].index(title)]


def test_ruijters_table1_published_rows_match_seed_file(gpu_run):
    table = ruijters_table1([gpu_run])
    seeds = seed("ruijters_table1")["rows"]
    published = table.data_rows("seed")
    assert len(published) == len(seeds) == 9
    for row, s in zip(published, seeds):
        assert cell(table, row, "algorithm") == s["algorithm"]
        assert [cell(table, row, t) for t in ("x", "y", "z", "total")] == [f"{s[k]:g}" for k in ("x", "y", "z", "total")]
        hardware = "GeForce 9800 GTX" if s["device"] == "gpu" else "Xeon 3.6 GHz"
        assert hardware in cell(table, row, "source")


def test_ruijters_table1_ours_maps_x_to_last_axis(gpu_run):
    """x is Ruijters' contiguous axis = our last axis (axis 2 in 3-D)."""
    table = ruijters_table1([gpu_run])
    raw = raw_find(GPU_RUN, impl="gpu_naive", shape=[300, 512, 512], queries=0)
    row, = rows_where(table, "ours", algorithm="gpu_naive (step)", **{"size (x·y·z)": "512^2×300"})
    for title, axis in (("x", 2), ("y", 1), ("z", 0)):
        expected = statistics.median(raw["phases"][f"prefilter_axis{axis}"]["samples"]) * 1e3
        assert cell(table, row, title) == fmt_ms(expected)
    assert cell(table, row, "total") == fmt_ms(raw["phases"]["prefilter"]["median"] * 1e3)
    assert cell(table, row, "n") == str(raw["repetitions"])
    assert "NVIDIA H100" in cell(table, row, "source")


def test_ruijters_table1_empty_rows_say_why(cpu_run):
    table = ruijters_table1([cpu_run])
    missing = table.data_rows("missing")
    by_impl_size = {(r.cells[1], r.cells[2]): r.note for r in missing}
    # 512^2x300 is not in the quick fixture run: the row names the suite to run.
    assert by_impl_size[("cpu_scalar", "512^2×300")].startswith("case not in this run (suite `quick`)")
    assert "run suite `ruijters`" in by_impl_size[("cpu_scalar", "512^2×300")]
    # GPU implementations recorded a skip with their reason.
    assert by_impl_size[("gpu_naive", "32^3")] == "skipped: not built: no CUDA compiler"
    # cpu_sse has no record at all in that run.
    assert "not in this run" in by_impl_size[("cpu_sse", "32^3")]
    # cpu_scalar records no per-axis phases: dashes, and a note says so.
    row, = rows_where(table, "ours", algorithm="cpu_scalar", **{"size (x·y·z)": "32^3"})
    assert cell(table, row, "x") == "—" and cell(table, row, "total") != "—"
    assert any("per-axis" in n for n in table.notes)


def test_ruijters_table2_reports_time_per_frame(gpu_run):
    table = ruijters_table2([gpu_run])
    raw = raw_find(GPU_RUN, impl="gpu_flex", shape=[1024, 1024])
    row, = rows_where(table, "ours", algorithm="gpu_flex", **{"size (x·y)": "1024^2"})
    fields = raw["fields"]
    assert cell(table, row, "F") == str(fields) == "100"
    assert cell(table, row, "total") == fmt_ms(raw["phases"]["prefilter"]["median"] * 1e3 / fields)
    assert cell(table, row, "x") == fmt_ms(raw["phases"]["prefilter_axis1"]["median"] * 1e3 / fields)
    assert len(table.data_rows("seed")) == 4


def test_thesis_table_speedup_from_medians_of_the_same_run(gpu_run):
    table = thesis_table1([gpu_run])
    cpu = raw_find(GPU_RUN, impl="cpu_sse", shape=[32] * 4, queries=32 ** 4)
    gpu = raw_find(GPU_RUN, impl="gpu_texture", shape=[32] * 4, queries=32 ** 4)
    # GPU lookup time: per-repetition sum of query upload + evaluate + download, then the median.
    sums = [sum(v) for v in zip(*(gpu["phases"][p]["samples"] for p in ("query_upload", "evaluate", "download")))]
    gpu_ms = statistics.median(sums) * 1e3
    cpu_ms = cpu["phases"]["evaluate"]["median"] * 1e3
    row, = rows_where(table, "ours", grid="32^4", GPU="gpu_texture")
    assert cell(table, row, "CPU") == "cpu_sse"
    assert cell(table, row, "CPU lookup").split(" [")[0] == fmt_ms(cpu_ms)
    assert cell(table, row, "GPU lookup").split(" [")[0] == fmt_ms(gpu_ms)
    assert cell(table, row, "speed-up") == fmt_ratio(cpu_ms / gpu_ms)
    # With setup: every prepare phase plus the lookup, per repetition, then the median.
    setup_phases = ("upload", "prefilter", "bind", "bound_stats", "query_upload", "evaluate", "download")
    gpu_phases = [p for p in setup_phases if p in gpu["phases"]]
    setup_ms = statistics.median(sum(v) for v in zip(*(gpu["phases"][p]["samples"] for p in gpu_phases))) * 1e3
    assert cell(table, row, "GPU with setup") == fmt_ms(setup_ms)
    cpu_phases = [p for p in setup_phases if p in cpu["phases"]]
    cpu_setup_ms = statistics.median(sum(v) for v in zip(*(cpu["phases"][p]["samples"] for p in cpu_phases))) * 1e3
    assert cell(table, row, "CPU with setup") == fmt_ms(cpu_setup_ms)
    assert cell(table, row, "speed-up with setup") == fmt_ratio(cpu_setup_ms / setup_ms)
    error = gpu["accuracy"]["interp"]["max_rel_to_maxf"]
    assert cell(table, row, "GPU error") == f"{error:.1e}"
    published = table.data_rows("seed")
    assert [cell(table, r, "speed-up") for r in published] == ["1.96", "4.72", "4.34", "3.06", "0.2"]


def test_thesis_table_never_pairs_machines(merged_runs):
    """In a merged report the CPU-only run gets no speed-up from the GPU run's numbers."""
    table = thesis_table1(merged_runs)
    cpu_rows = [r for r in table.rows if r.kind != "group" and r.cells and "ci-cpu" in r.cells[0]]
    assert cpu_rows and all(r.kind == "missing" for r in cpu_rows)
    assert any("no GPU result in this run" in r.note and "not built" in r.note for r in cpu_rows)
    # Seed rows the CPU run does not have are filled by the GPU run, without a
    # "case not in this run" line for the CPU run.
    assert not any("case not in this run" in r.note for r in cpu_rows)
    h100 = [r for r in table.rows if r.kind == "ours"]
    assert h100 and all("h100" in r.cells[0] for r in h100)


def test_reconstruction_speed_table_shows_seed_rate(gpu_run):
    table = reconstruction_speed_table([gpu_run])
    rates = [cell(table, r, "rate") for r in table.data_rows("seed")]
    assert rates == ["3.56·10^8", "4.86·10^8"]
    raw = [r for r in raw_records(GPU_RUN) if r["impl"] == "gpu_texture" and r["shape"] == [256] * 3
           and r["queries"] > 0]
    biggest = max(raw, key=lambda r: r["queries"])
    row, = rows_where(table, "ours", method="gpu_texture")
    expected = biggest["queries"] / biggest["phases"]["evaluate"]["median"]
    mantissa, exponent = f"{expected:.2e}".split("e")
    assert cell(table, row, "rate") == f"{mantissa}·10^{int(exponent)}"


def test_accuracy_table_flags_failures_and_headroom(gpu_run):
    record = next(r for r in gpu_run.records if r.impl == "gpu_texture" and r.dims == 2 and r.ok)
    saved = (record.verdict, dict(record.accuracy))
    try:
        record.verdict = "fail"
        table = accuracy_table([gpu_run])
    finally:
        record.verdict = saved[0]
    row, = rows_where(table, "ours", implementation="gpu_texture", D="2")
    assert cell(table, row, "verdict").startswith("FAIL 1 of")
    assert any(record.case_id in n for n in table.notes)
    ok_row, = rows_where(table, "ours", implementation="cpu_scalar", D="3")
    group = [r for r in gpu_run.records if r.impl == "cpu_scalar" and r.dims == 3 and r.ok]
    worst = max([r.accuracy_value("interp", "max_rel_to_maxf") / r.tolerance["interp_max_rel_to_maxf"]
                 for r in group if r.queries]
                + [r.accuracy_value("prefilter", "rel_l2") / r.tolerance["prefilter_rel_l2"] for r in group])
    assert cell(table, ok_row, "worst / tol") == f"{worst:.2g}"


class _TagBalance(HTMLParser):
    VOID = {"br", "img", "meta", "hr", "link", "input"}

    def __init__(self):
        super().__init__()
        self.stack = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()


@pytest.mark.parametrize("make", [ruijters_table1, ruijters_table2, thesis_table1, reconstruction_speed_table,
                                  accuracy_table])
def test_renderers_agree_on_the_numbers(make, merged_runs):
    table = make(merged_runs)
    md, tex, html = render_markdown(table), render_latex(table), render_html_fragment(table)
    # Markdown: every line of the table has as many cells as columns.
    table_lines = [l for l in md.splitlines() if l.startswith("|")]
    assert len(table_lines) == len(table.rows) + 2
    widths = {len(re.split(r"(?<!\\)\|", l)) - 2 for l in table_lines}
    assert widths == {len(table.columns)}
    # LaTeX: booktabs rules, one line per row with numbers (rows without them go to the
    # notes below the table), only ASCII (compiles with pdflatex).
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    assert tex.isascii(), [c for c in tex if not c.isascii()][:5]
    body, notes = tex.split("\\endfoot", 1)[1].split("\\end{longtable}")
    data_rows = [r for r in table.rows if r.kind in ("seed", "ours")]
    assert body.count("\\\\") - body.count("\\multicolumn") == len(data_rows)
    assert notes.count("Not measured:") == len(table.data_rows("missing"))
    # HTML: balanced tags, one <tr> per row plus the header.
    parser = _TagBalance()
    parser.feed(html)
    assert parser.stack == []
    assert html.count("<tr") == len(table.rows) + 1
    # The same numbers in all three.
    for row in table.data_rows("ours")[:5]:
        for value in row.cells[3:]:
            if re.fullmatch(r"[0-9.]+", value):
                assert value in md and value in tex and value in html


def test_latex_escapes_specials():
    from reports.render_latex import latex_escape
    assert latex_escape("cpu_simd 50% & 256^3 × 2") == r"cpu\_simd 50\% \& $^{3}$ $\times$ 2".replace(
        r"\& $^{3}$", r"\& 256$^{3}$")


def test_missing_reasons_merge_across_runs(cpu_run, gpu_run):
    from reports.reproduced_tables import merge_run_reasons
    absent = "case not in this run (suite `quick`) — run suite `ruijters`"
    assert merge_run_reasons([(cpu_run, absent), (gpu_run, "skipped: no device")], "ruijters") == \
        "h100: skipped: no device"
    assert merge_run_reasons([(cpu_run, absent), (gpu_run, absent)], "ruijters") == \
        "case not in these runs (suites `quick`, `full`) — run suite `ruijters`"
    assert merge_run_reasons([(cpu_run, "error: x"), (gpu_run, "skipped: y")], "ruijters") == \
        "ci-cpu: error: x; h100: skipped: y"
    table = ruijters_table1([cpu_run, gpu_run])
    # 512^2x300 is only in the GPU run; cpu_scalar is there, so no empty row for it.
    assert not rows_where(table, "missing", algorithm="cpu_scalar", **{"size (x·y·z)": "512^2×300"})


# --- spread and NOISY ---------------------------------------------------------------------------

ISSUE_BIMODAL = [9.0e-3, 8.9e-3, 9.1e-3, 0.05e-3, 8.95e-3, 0.051e-3, 9.05e-3, 0.049e-3, 8.94e-3]


def _bimodal_run():
    """Issue 24: cpu_simd at 16 threads, 32^3 prefilter: six samples near 9 ms, three
    near 0.05 ms, published in a Ruijters table as 8.94 ms with nothing to say so."""
    from reports.loader import parse_results
    from reports.tests import synth
    steady = synth.noisy(1.2e-3, 9, 0.01, 3)
    records = [synth.record("cpu_simd", "cpu", [32, 32, 32], mode="half", threads=16,
                            phases={"prefilter": ISSUE_BIMODAL}),
               synth.record("cpu_scalar", "cpu", [32, 32, 32], mode="half", phases={"prefilter": steady})]
    return parse_results(synth.results(synth.context("box", "ruijters"), records))


def test_bimodal_record_is_flagged_noisy_in_tables():
    from reports.status_table import status_table
    run = _bimodal_run()
    table = ruijters_table1([run])
    row, = rows_where(table, "ours", algorithm="cpu_simd (16 threads)", **{"size (x·y·z)": "32^3"})
    assert cell(table, row, "total") == "8.94"
    assert cell(table, row, "IQR") == "0.051–9.00 NOISY"
    note, = [n for n in table.notes if n.startswith("NOISY")]
    assert "cpu_simd (16 threads), 32^3 total" in note and "bimodal: 3 samples near 0.05 ms, 6 near 8.97 ms" in note
    steady, = rows_where(table, "ours", algorithm="cpu_scalar", **{"size (x·y·z)": "32^3"})
    assert "NOISY" not in cell(table, steady, "IQR")
    html = render_html_fragment(table)
    assert '<td class="num noisy">0.051–9.00 NOISY</td>' in html
    status = status_table([run])
    simd, = rows_where(status, "ours", implementation="cpu_simd")
    assert cell(status, simd, "NOISY") == "NOISY 1" and cell(status, rows_where(status, "ours",
                                                                                 implementation="cpu_scalar")[0],
                                                             "NOISY") == "0"
    assert any("prefilter bimodal" in n for n in status.notes)


def test_iqr_columns_are_the_raw_quartiles(gpu_run):
    import numpy as np
    from reports.table_model import fmt_range
    table = ruijters_table1([gpu_run])
    raw = raw_find(GPU_RUN, impl="gpu_naive", shape=[300, 512, 512], queries=0)
    q1, q3 = np.percentile(raw["phases"]["prefilter"]["samples"], [25, 75]) * 1e3
    row, = rows_where(table, "ours", algorithm="gpu_naive (step)", **{"size (x·y·z)": "512^2×300"})
    assert cell(table, row, "IQR") == fmt_range(q1, q3)
    thesis = thesis_table1([gpu_run])
    gpu = raw_find(GPU_RUN, impl="gpu_texture", shape=[32] * 4, queries=32 ** 4)
    sums = [sum(v) for v in zip(*(gpu["phases"][p]["samples"] for p in ("query_upload", "evaluate", "download")))]
    row, = rows_where(thesis, "ours", grid="32^4", GPU="gpu_texture")
    assert cell(thesis, row, "GPU lookup").split(" [")[1].rstrip("]").removesuffix(" NOISY") == \
        fmt_range(*(np.percentile(sums, [25, 75]) * 1e3))
