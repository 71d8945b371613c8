"""A renderer-neutral table: columns, rows and notes. Builders fill it from
result records; render_markdown / render_latex / render_html print it.

Cell text uses one piece of markup: `^` followed by digits is an exponent
("256^3"), which each renderer turns into its own superscript."""
from __future__ import annotations

from dataclasses import dataclass, field

ROW_KINDS = ("seed", "ours", "missing", "group")


@dataclass
class Column:
    title: str
    unit: str = ""
    numeric: bool = False

    @property
    def heading(self) -> str:
        return f"{self.title} ({self.unit})" if self.unit else self.title


@dataclass
class Row:
    """`seed`: published numbers; `ours`: measured; `missing`: the leading
    `cells` label the row and `note` says why it has no numbers (spanning the
    remaining columns); `group`: a heading row whose text is `note`."""

    cells: list[str]
    kind: str = "ours"
    note: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ROW_KINDS:
            raise ValueError(f"row kind {self.kind!r} is not one of {ROW_KINDS}")


@dataclass
class Table:
    key: str          # file stem: <key>.md, <key>.tex, <key>.html
    title: str
    caption: str
    columns: list[Column]
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, row: Row) -> None:
        width = len(self.columns)
        if row.kind in ("seed", "ours") and len(row.cells) != width:
            raise ValueError(f"table {self.key}: row has {len(row.cells)} cells, expected {width}")
        if row.kind == "missing" and len(row.cells) >= width:
            raise ValueError(f"table {self.key}: a missing row needs room for its reason")
        self.rows.append(row)

    def data_rows(self, kind: str) -> list[Row]:
        return [r for r in self.rows if r.kind == kind]


def fmt_ms(value: float | None) -> str:
    """Milliseconds with three significant digits, never in exponent form."""
    if value is None:
        return "—"
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}" if value >= 1e-3 else f"{value:.2e}"


def fmt_range(low: float | None, high: float | None, fmt=fmt_ms) -> str:
    """'low–high' in one number format, e.g. an interquartile range."""
    if low is None or high is None:
        return "—"
    return f"{fmt(low)}–{fmt(high)}"


def fmt_ratio(value: float | None) -> str:
    if value is None:
        return "—"
    if value >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def fmt_sci(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "—"
    if value == 0:
        return "0"
    return f"{value:.{digits}e}"


def fmt_rate(value: float | None) -> str:
    """Rates such as lookups/s as mantissa·10^exp, e.g. 3.56·10^8."""
    if value is None:
        return "—"
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{mantissa}·10^{int(exponent)}"


def shape_label(shape) -> str:
    """'256^3' for cubes, '300×512×512' otherwise (C order, last axis contiguous)."""
    shape = list(shape)
    if len(shape) > 1 and all(s == shape[0] for s in shape):
        return f"{shape[0]}^{len(shape)}"
    return "×".join(str(s) for s in shape)
