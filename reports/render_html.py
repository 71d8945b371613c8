"""Table -> HTML: a fragment for inlining into index.html, and a standalone page."""
from __future__ import annotations

import html
import re

from .table_model import Table

TABLE_CSS = """
table.sb { border-collapse: collapse; margin: 0.4em 0 0.2em 0; font-size: 0.92em; }
table.sb caption { caption-side: top; text-align: left; font-weight: bold; padding-bottom: 0.3em; }
table.sb th, table.sb td { padding: 0.18em 0.6em; border-bottom: 1px solid #ddd; }
table.sb thead th { border-top: 2px solid #333; border-bottom: 1.5px solid #333; text-align: left; }
table.sb tbody tr:last-child td { border-bottom: 2px solid #333; }
table.sb td.num, table.sb th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.sb tr.seed td { background: #fff7e0; font-style: italic; }
table.sb tr.missing td { color: #777; }
table.sb tr.group td { background: #eef2f7; font-weight: bold; }
table.sb td.fail { color: #b00020; font-weight: bold; }
table.sb td.noisy { color: #8a4b00; font-weight: bold; }
p.caption { max-width: 70em; margin: 0.2em 0; color: #333; }
ul.notes { font-size: 0.85em; color: #444; margin-top: 0.2em; }
"""


def _text(cell: str) -> str:
    return re.sub(r"\^(-?\d+)", r"<sup>\1</sup>", html.escape(cell))


def render_html_fragment(table: Table) -> str:
    width = len(table.columns)
    out = [f'<p class="caption">{_text(table.caption)}</p>',
           f'<table class="sb" id="{html.escape(table.key)}">',
           f"<caption>{_text(table.title)}</caption>", "<thead><tr>"]
    out += [f'<th class="{"num" if c.numeric else "txt"}">{_text(c.heading)}</th>' for c in table.columns]
    out.append("</tr></thead><tbody>")
    for row in table.rows:
        if row.kind == "group":
            out.append(f'<tr class="group"><td colspan="{width}">{_text(row.note)}</td></tr>')
            continue
        cells = []
        for column, cell in zip(table.columns, row.cells):
            classes = ["num" if column.numeric else "txt"]
            if "FAIL" in cell:
                classes.append("fail")
            if "NOISY" in cell:
                classes.append("noisy")
            cells.append(f'<td class="{" ".join(classes)}">{_text(cell)}</td>')
        if row.kind == "missing":
            span = width - len(row.cells)
            cells.append(f'<td colspan="{span}"><em>{_text(row.note)}</em></td>')
        out.append(f'<tr class="{row.kind}">' + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    if table.notes:
        out.append('<ul class="notes">' + "".join(f"<li>{_text(n)}</li>" for n in table.notes) + "</ul>")
    return "\n".join(out) + "\n"


def render_html_page(table: Table) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(table.title)}</title><style>{TABLE_CSS}</style></head>"
            f"<body>\n{render_html_fragment(table)}</body></html>\n")
