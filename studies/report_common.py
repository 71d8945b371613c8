"""Pieces every study's report section uses: a Markdown table, figures saved as PNG,
PDF and SVG in the report's look (reports/plots/style.py), and the section page (section.md + section.html) with where the numbers came
from."""
from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Sequence

from reports.plots import style

from .common import write_atomic


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ")
    lines = ["| " + " | ".join(map(cell, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(cell, row)) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def figure(fig, out: Path, stem: str, caption: str, svg: bool = True) -> str:
    """Saves `fig` as out/plots/<stem>.png and .pdf (the chapter's vector form), and .svg
    for plots (not pictures: an image's pixels as SVG only grow the file); returns a
    Markdown image line with its caption."""
    plots = out / "plots"
    plots.mkdir(parents=True, exist_ok=True)
    fig.savefig(plots / f"{stem}.png", dpi=style.PNG_DPI)
    fig.savefig(plots / f"{stem}.pdf")
    if svg:
        fig.savefig(plots / f"{stem}.svg")
    style.release(fig, stem)
    return f"![{stem}](plots/{stem}.png)\n\n*{caption}*\n"


def _source_line(context: dict[str, Any]) -> str:
    dirty = {True: " (uncommitted changes)", False: "", None: ""}[context.get("git_dirty")]
    gpu = context.get("gpu") or "no GPU"
    return (f"Run `{context.get('run_id')}` on {context.get('machine')} ({context.get('cpu_model')}, {gpu}), "
            f"{context.get('date')}, commit {str(context.get('git_sha'))[:12]}{dirty}.")


def write_section(out: Path, title: str, context: dict[str, Any], paragraph: str, table: str,
                  figures: Sequence[str], command: str | None = None) -> Path:
    """out/section.md (Markdown) and out/section.html (the same, readable in a browser; not
    index.html, which reports.build writes into a harness run's report/ folder)."""
    out.mkdir(parents=True, exist_ok=True)
    command = command or f"python -m studies.{context.get('study')} (arguments: {context.get('arguments')})"
    body = [f"## {title}", "", paragraph, "", _source_line(context), f"Command: `{command}`", "", table, "",
            *figures]
    text = "\n".join(body) + "\n"
    write_atomic(out / "section.md", text.encode())
    write_atomic(out / "section.html", _html(title, text).encode())
    return out / "section.md"


def _html(title: str, markdown_text: str) -> str:
    """A minimal rendering: tables and images become HTML, the rest paragraphs."""
    lines = markdown_text.splitlines()
    parts, table = [], []

    def flush_table() -> None:
        if not table:
            return
        rows = [[c.strip().replace("\\|", "|") for c in line.strip().strip("|").split(" | ")] for line in table
                if not line.startswith("|---")]
        head, *rest = rows
        parts.append("<table><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in head) + "</tr>" +
                     "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in rest) +
                     "</table>")
        table.clear()

    for line in lines:
        if line.startswith("|"):
            table.append(line)
            continue
        flush_table()
        if line.startswith("## "):
            parts.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("!["):
            src = line[line.index("(") + 1:line.rindex(")")]
            parts.append(f'<img src="{html.escape(src)}" style="max-width:100%">')
        elif line.strip():
            parts.append(f"<p>{html.escape(line.strip('*'))}</p>")
    flush_table()
    style = "body{font-family:sans-serif;max-width:70em;margin:auto}table{border-collapse:collapse}" \
            "td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%}"
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>{''.join(parts)}</body></html>\n")
