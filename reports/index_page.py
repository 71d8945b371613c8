"""index.html: one page with the run context at the top, every table inline and
every figure linked, using only relative links so it opens from disk."""
from __future__ import annotations

from dataclasses import dataclass

import html
import os
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from .loader import Run
from .plots.style import Figure, Skipped
from .render_html import TABLE_CSS, render_html_fragment
from .table_model import Table

PAGE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 1.2em 2em;
       color: #111; max-width: 1500px; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { border-bottom: 1px solid #ccc; margin-top: 1.6em; }
h3 { margin-bottom: 0.2em; }
table.ctx { border-collapse: collapse; font-size: 0.9em; }
table.ctx th, table.ctx td { padding: 0.15em 0.7em; border-bottom: 1px solid #e3e3e3; text-align: left; }
table.ctx th { background: #f3f3f3; }
nav ul { columns: 2; font-size: 0.92em; }
figure { margin: 0.8em 0 1.6em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 0.88em; color: #333; max-width: 75em; }
p.skipped { color: #8a4b00; background: #fff4e5; padding: 0.3em 0.6em; display: inline-block; }
span.links a { margin-right: 0.8em; font-size: 0.85em; }
footer { margin-top: 2em; font-size: 0.8em; color: #666; }
"""

CONTEXT_ROWS = (
    ("machine", lambda r: r.machine),
    ("GPU", lambda r: _gpu(r)),
    ("CPU", lambda r: f"{r.cpu_model or '?'} ({r.context.get('cpu_threads', '?')} threads)"),
    ("commit", lambda r: str(r.context.get("git_sha", "?")) + (" (dirty tree)" if r.context.get("git_dirty") else "")),
    ("date", lambda r: r.context.get("date", "?")),
    ("suite", lambda r: r.context.get("suite", "?")),
    ("run id", lambda r: r.run_id),
    ("compiler", lambda r: r.context.get("compiler") or "?"),
    ("CUDA compiler", lambda r: r.context.get("cuda_compiler") or "—"),
    ("build type", lambda r: r.context.get("build_type") or "?"),
    ("CUDA runtime / driver", lambda r: f"{r.context.get('cuda_runtime') or '—'} / {r.context.get('cuda_driver') or '—'}"),
    ("host", lambda r: r.context.get("hostname") or "?"),
    ("records", lambda r: f"{len(r.records)} ({sum(1 for x in r.records if x.ok)} ok)"),
)


def _gpu(run: Run) -> str:
    gpu = run.context.get("gpu")
    if not isinstance(gpu, dict):
        probe = run.context.get("gpu_probe_error")
        return f"none ({probe})" if probe else "none"
    extras = []
    if gpu.get("sm_count"):
        extras.append(f"{gpu['sm_count']} SMs")
    if gpu.get("sm_clock_mhz"):
        extras.append(f"{gpu['sm_clock_mhz']} MHz")
    if gpu.get("l2_bytes"):
        extras.append(f"L2 {gpu['l2_bytes'] / 2**20:.0f} MiB")
    return gpu.get("name", "?") + (f" ({', '.join(extras)})" if extras else "")


def _rel(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()


def _context_table(runs: Sequence[Run], out_dir: Path) -> str:
    head = "".join(f"<th>{html.escape(r.label)}</th>" for r in runs)
    rows = [f"<tr><th></th>{head}</tr>"]
    for name, getter in CONTEXT_ROWS:
        cells = "".join(f"<td>{html.escape(str(getter(r)))}</td>" for r in runs)
        rows.append(f"<tr><th>{html.escape(name)}</th>{cells}</tr>")
    files = [r.file or r.path / "results.json" for r in runs]
    links = "".join(f'<td><a href="{html.escape(_rel(f, out_dir))}">{html.escape(f.name)}</a></td>' for f in files)
    rows.append(f"<tr><th>raw data</th>{links}</tr>")
    return '<table class="ctx">' + "\n".join(rows) + "</table>"


def _table_section(table: Table, files: dict[str, Path], out_dir: Path) -> str:
    links = " ".join(f'<a href="{html.escape(_rel(path, out_dir))}">{kind}</a>' for kind, path in files.items())
    return (f'<section id="t-{html.escape(table.key)}"><h3>{html.escape(table.title)}</h3>'
            f'<span class="links">{links}</span>\n{render_html_fragment(table)}</section>')


@dataclass
class StudySection:
    """A study's own report section (studies/README.md), linked from the page with its
    first paragraph: the study writes its figures and table next to its records."""
    title: str
    page: Path       # the study's section.html
    summary: str     # its first paragraph
    study: str = ""  # which study (its context's `study`, or the suite of a study suite)
    run_id: str = ""  # the run folder the section was written from


def _study_section(study: StudySection, out_dir: Path) -> str:
    link = _rel(study.page, out_dir)
    return (f'<section><h3><a href="{html.escape(link)}">{html.escape(study.title)}</a></h3>'
            f'<p>{html.escape(study.summary)}</p></section>')


def _figure_section(figure: Figure | Skipped, out_dir: Path) -> str:
    anchor = f"f-{html.escape(figure.stem)}"
    if isinstance(figure, Skipped):
        return (f'<section id="{anchor}"><h3>{html.escape(figure.title)}</h3>'
                f'<p class="skipped">Not drawn: {html.escape(figure.reason)}</p></section>')
    png, svg = _rel(figure.png, out_dir), _rel(figure.svg, out_dir)
    links = [("PNG", png), ("SVG", svg)]
    if getattr(figure, "pdf", None):
        links.insert(1, ("PDF", _rel(figure.pdf, out_dir)))
    # The caption (what is shown, the runs and devices) is kept out of the image
    # (reports/plots/style.py), so the page prints it under the figure.
    return (f'<section id="{anchor}"><h3>{html.escape(figure.title)}</h3><figure>'
            f'<a href="{html.escape(png)}"><img src="{html.escape(png)}" '
            f'alt="{html.escape(figure.title)}"></a>'
            f'<figcaption>{html.escape(figure.caption)} <span class="links">'
            + "".join(f'<a href="{html.escape(href)}">{kind}</a>' for kind, href in links)
            + "</span></figcaption></figure></section>")


def write_index(out_dir: Path, runs: Sequence[Run], sections: list[tuple[str, list]],
                table_files: dict[str, dict[str, Path]], command: str) -> Path:
    """sections: (heading, items) where items are Tables and Figures/Skipped in order."""
    labels = ", ".join(r.label for r in runs)
    nav, body = [], []
    for heading, items in sections:
        anchor = "s-" + heading.lower().replace(" ", "-")
        nav.append(f'<li><a href="#{anchor}">{html.escape(heading)}</a></li>')
        body.append(f'<h2 id="{anchor}">{html.escape(heading)}</h2>')
        for item in items:
            if isinstance(item, Table):
                body.append(_table_section(item, table_files[item.key], out_dir))
            elif isinstance(item, StudySection):
                body.append(_study_section(item, out_dir))
            elif isinstance(item, str):
                body.append(f"<p>{html.escape(item)}</p>")
            else:
                body.append(_figure_section(item, out_dir))
    generated = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>splinebench report — {html.escape(labels)}</title>
<style>{PAGE_CSS}{TABLE_CSS}</style></head>
<body>
<h1>splinebench report — {html.escape(labels)}</h1>
{_context_table(runs, out_dir)}
<nav><ul>{''.join(nav)}</ul></nav>
{''.join(body)}
<footer>Generated {generated} by <code>{html.escape(command)}</code> from the result files above only.
Published (seed) rows are shaded and in italics.</footer>
</body></html>
"""
    out_dir.mkdir(parents=True, exist_ok=True)
    index = out_dir / "index.html"
    tmp = index.with_suffix(".html.tmp")
    tmp.write_text(page, encoding="utf-8")
    tmp.replace(index)
    return index
