"""Table -> GitHub-flavoured Markdown."""
from __future__ import annotations

import re

from .table_model import Table

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _text(cell: str) -> str:
    cell = re.sub(r"\^(-?\d+)", lambda m: m.group(1).translate(_SUPERSCRIPT), cell)
    return cell.replace("|", "\\|").replace("\n", " ")


def render_markdown(table: Table) -> str:
    width = len(table.columns)
    lines = [f"### {_text(table.title)}", "", _text(table.caption), ""]
    lines.append("| " + " | ".join(_text(c.heading) for c in table.columns) + " |")
    lines.append("|" + "|".join("---:" if c.numeric else ":---" for c in table.columns) + "|")
    for row in table.rows:
        if row.kind == "group":
            cells = [f"**{_text(row.note)}**"] + [""] * (width - 1)
        elif row.kind == "missing":
            cells = [_text(c) for c in row.cells] + [f"*{_text(row.note)}*"]
            cells += [""] * (width - len(cells))
        else:
            cells = [_text(c) for c in row.cells]
        lines.append("| " + " | ".join(cells) + " |")
    if table.notes:
        lines.append("")
        lines.extend(f"- {_text(n)}" for n in table.notes)
    return "\n".join(lines) + "\n"
