"""A line "versus size" needs at least MIN_SIZES sizes to show a trend; with fewer, a
figure only suggests one. Panels below that become rows of a table instead (the same
numbers, no line between them)."""
from __future__ import annotations

from ..table_model import Column, Row, Table

MIN_SIZES = 3


def few_sizes_table(key: str, title: str, x_label: str, y_label: str, rows: list[list[str]]) -> Table:
    table = Table(key=key, title=title,
                  caption=(f"Cases with fewer than {MIN_SIZES} {x_label} values in their panel: a line through "
                           "one or two points would suggest a trend the runs do not measure, so they are listed "
                           "here instead of drawn."),
                  columns=[Column("D", "", True), Column("case"), Column("run"), Column("implementation"),
                           Column(x_label, "", True), Column(y_label, "", True)])
    for row in rows:
        table.add(Row(row, "ours"))
    return table
