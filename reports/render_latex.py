"""Table -> LaTeX a thesis can \\input as it is: a booktabs `longtable` (breaks across
pages, its header repeated), `\\caption[short]{long}` (the short form for the list of
tables), notes as a paragraph below the table (never in cells), and a landscape page
(pdflscape) when the table is too wide for A4 portrait. Needs
\\usepackage{booktabs,longtable,array,pdflscape}; non-ASCII characters are written as
LaTeX commands so the output compiles with plain pdflatex.

Rows that carry no numbers ("missing" rows: a case or implementation not measured)
become notes below the table, so that every row of a printed table is data."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .table_model import Row, Table

PACKAGES = ("booktabs", "longtable", "array", "pdflscape")

_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
    "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}",
    "×": r"$\times$", "·": r"$\cdot$", "—": "---", "–": "--", "é": r"\'{e}", "ç": r"\c{c}",
    "≤": r"$\leq$", "≥": r"$\geq$", "±": r"$\pm$", "µ": r"$\mu$", "→": r"$\rightarrow$",
    "²": r"$^{2}$", "³": r"$^{3}$", "⁴": r"$^{4}$", "≈": r"$\approx$", "|": r"\textbar{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "\"": "''", "−": "-", "‖": r"$\|$",
    "₂": r"$_2$", "⁰": r"$^{0}$", "¹": r"$^{1}$", "⁵": r"$^{5}$", "⁶": r"$^{6}$", "⁻": r"$^{-}$",
    "λ": r"$\lambda$", "ω": r"$\omega$", "†": r"\textdagger{}", "…": r"\ldots{}", "∞": r"$\infty$",
    "Δ": r"$\Delta$", "σ": r"$\sigma$", "≠": r"$\neq$", "°": r"\textdegree{}", "’": "'",
}


def latex_escape(text: str) -> str:
    out = []
    pos = 0
    for match in re.finditer(r"\^(-?\d+)", text):
        out.append(_escape_plain(text[pos:match.start()]))
        out.append(f"$^{{{match.group(1)}}}$")
        pos = match.end()
    out.append(_escape_plain(text[pos:]))
    return "".join(out)


def _escape_plain(text: str) -> str:
    result = []
    for ch in text:
        if ch in _SPECIAL:
            result.append(_SPECIAL[ch])
        elif ord(ch) < 128:
            result.append(ch)
        else:
            result.append("?")  # keep the output compilable; report strings are ASCII otherwise
    return "".join(result)


# A first-column label longer than this (e.g. "ours · h100 · <CPU model> / <GPU name>") is
# printed as its first word with a mark, the full text going to the notes, so that a
# table fits a page.
SHORT_LABEL_CHARS = 16


def short_labels(table: Table) -> tuple[dict[str, str], list[str]]:
    """{full label: short label} for the long first-column labels, and the notes that
    spell them out (a, b, c, ... in order of appearance)."""
    mapping: dict[str, str] = {}
    notes: list[str] = []
    for row in table.rows:
        if row.kind in ("group", "missing") or not row.cells:
            continue
        label = row.cells[0]
        if len(label) <= SHORT_LABEL_CHARS or label in mapping:
            continue
        mark = chr(ord("a") + len(mapping)) if len(mapping) < 26 else str(len(mapping))
        head = label.split(" · ")[0].strip()
        if len(head) > SHORT_LABEL_CHARS:
            # A run label (machine/run-id): the run id's last word (its suite) stands for it.
            head = re.split(r"[/-]", head)[-1] or head[:SHORT_LABEL_CHARS]
        mapping[label] = f"{head} ({mark})"
        notes.append(f"({mark}) {label}")
    return mapping, notes


# Page geometry in em of the table's \\footnotesize type (9 pt in the chapter's 11 pt
# class): the A4 text block is 160 mm wide (about 50 em) portrait and 247 mm (about
# 78 em) landscape. A character is taken as 0.5 em, a column's padding as 12 pt; the
# budgets keep a margin for the estimate's error (the build checks the real widths:
# overfull lines fail it).
PORTRAIT_EM, LANDSCAPE_EM = 49.0, 76.0
PORTRAIT_MAX_COLUMNS = 8
CHAR_EM, PAD_EM = 0.5, 12 / 9
MIN_WRAP_EM = 7.0


@dataclass
class Layout:
    landscape: bool
    size: str                  # the type size: \\footnotesize, or \\scriptsize for the widest tables
    colsep_pt: float           # \\tabcolsep: 6 pt, 3 or 1.5 pt for the widest tables
    spec: str                  # the longtable column specification
    headings: list[str]        # LaTeX of each heading cell (may stack two lines)


# \scriptsize (8 pt) against \footnotesize (9 pt): the same page holds 9/8 as many em;
# with \tabcolsep 3 pt a column's padding is 6 pt, 3/4 em.
SCRIPT_SCALE = 9 / 8
TIGHT_PAD_EM = 6 / 8
# The last resort for a table of many numeric columns whose text columns are already
# wrapped as narrow as they go: \tabcolsep 1.5 pt, a column's padding 3/8 em.
CLOSEST_PAD_EM = 3 / 8


def _plain_len(text: str) -> float:
    """Width in characters of 0.5 em: a capital letter counts 1.5 (about 0.75 em in
    Latin Modern), so a cell such as "[0.302–0.406 NOISY]" is not underestimated."""
    plain = re.sub(r"\^(-?\d+)", r"\1", text)
    return len(plain) + 0.5 * sum(1 for ch in plain if ch.isupper())


def _split_heading(text: str) -> list[str]:
    """A heading longer than 12 characters on two lines, split at the space nearest its middle."""
    if len(text) <= 12 or " " not in text:
        return [text]
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    cut = min(spaces, key=lambda i: abs(i - len(text) / 2))
    return [text[:cut], text[cut + 1:]]


def layout(table: Table, rows: list[Row], labels: dict[str, str]) -> Layout:
    heads = [_split_heading(c.heading) for c in table.columns]
    natural = []
    for i, column in enumerate(table.columns):
        cells = [labels.get(r.cells[i], r.cells[i]) if i == 0 else r.cells[i]
                 for r in rows if r.kind in ("seed", "ours") and i < len(r.cells)]
        natural.append(max([_plain_len(line) for line in heads[i]] + [_plain_len(c) for c in cells]) * CHAR_EM)
    # Portrait when the columns allow and wrapping text columns makes it fit; else a
    # landscape page; else a landscape page in a smaller size with closer columns, then
    # closer still.
    tries = [(False, "\\footnotesize", 6.0, PORTRAIT_EM, PAD_EM)] if len(table.columns) <= PORTRAIT_MAX_COLUMNS else []
    tries += [(True, "\\footnotesize", 6.0, LANDSCAPE_EM, PAD_EM),
              (True, "\\scriptsize", 3.0, LANDSCAPE_EM * SCRIPT_SCALE, TIGHT_PAD_EM),
              (True, "\\scriptsize", 1.5, LANDSCAPE_EM * SCRIPT_SCALE, CLOSEST_PAD_EM)]
    for landscape, size, colsep, budget, pad in tries:
        widths, total = _wrap(table, natural, sum(natural) + pad * len(natural), budget)
        if total <= budget:
            break
    spec = []
    for i, column in enumerate(table.columns):
        if widths[i] is not None:
            spec.append(f">{{\\raggedright\\arraybackslash}}p{{{widths[i]:.1f}em}}")
        else:
            spec.append("r" if column.numeric else "l")
    headings = []
    for i, lines in enumerate(heads):
        escaped = [latex_escape(line) for line in lines]
        if len(escaped) == 1:
            headings.append(escaped[0])
        else:
            align = "r" if table.columns[i].numeric else "l"
            headings.append(f"\\begin{{tabular}}[b]{{@{{}}{align}@{{}}}}{escaped[0]}\\\\{escaped[1]}\\end{{tabular}}")
    return Layout(landscape, size, colsep, "@{}" + "".join(spec) + "@{}", headings)


def _wrap(table: Table, natural: list[float], total: float, budget: float) -> tuple[list[float | None], float]:
    """Widths (None: natural) that wrap text columns to fit `budget`: every text column
    wider than a common cap gets the cap (the largest that fits, at least MIN_WRAP_EM),
    so that long columns share the room; and the estimated total."""
    widths: list[float | None] = [None] * len(natural)
    if total <= budget:
        return widths, total
    text_cols = [i for i, c in enumerate(table.columns) if not c.numeric]
    fixed = total - sum(natural[i] for i in text_cols)   # numeric columns and every padding
    room = budget - fixed
    caps = sorted(natural[i] for i in text_cols)
    cap = MIN_WRAP_EM
    # The largest cap C with sum(min(natural, C)) <= room.
    for n, width in enumerate(caps):
        below = sum(caps[:n])
        candidate = (room - below) / (len(caps) - n)
        if candidate <= width:
            cap = max(MIN_WRAP_EM, candidate)
            break
    else:
        return widths, total
    for i in text_cols:
        if natural[i] > cap:
            widths[i] = cap
    return widths, fixed + sum(widths[i] or natural[i] for i in text_cols)


def breakable(latex: str) -> str:
    """Lets a long name (map_coordinates, scipy.ndimage, a/b) break after its `_`, `.`
    or `/` when its column wraps."""
    latex = latex.replace("\\_", "\\_\\allowbreak{}")
    return re.sub(r"(?<=[A-Za-z0-9])([./])(?=[A-Za-z])", r"\1\\allowbreak{}", latex)


def missing_note(row: Row) -> str:
    """A row without numbers, said in words below the table."""
    label = " · ".join(c for c in row.cells if c)
    return f"Not measured: {label}: {row.note}" if label else f"Not measured: {row.note}"


def long_caption(table: Table) -> str:
    return f"{table.title}. {table.caption}".strip()


def render_latex(table: Table) -> str:
    width = len(table.columns)
    labels, label_notes = short_labels(table)
    printed = [r for r in table.rows if r.kind != "missing"]
    # A heading row whose rows all went to the notes heads nothing.
    kept: list[Row] = []
    for n, row in enumerate(printed):
        following = printed[n + 1] if n + 1 < len(printed) else None
        if row.kind == "group" and (following is None or following.kind == "group"):
            continue
        kept.append(row)
    notes = [*label_notes, *(missing_note(r) for r in table.rows if r.kind == "missing"), *table.notes]
    shape = layout(table, kept, labels)
    head = " & ".join(shape.headings) + " \\\\"
    lines = [
        "% Generated by reports.build from result files; do not edit by hand.",
        "% Needs \\usepackage{" + ",".join(PACKAGES) + "}.",
    ]
    if shape.landscape:
        lines.append("\\begin{landscape}")
    lines += [
        f"\\begingroup{shape.size}\\setlength{{\\LTcapwidth}}{{\\linewidth}}"
        f"\\setlength{{\\tabcolsep}}{{{shape.colsep_pt:g}pt}}",
        f"\\begin{{longtable}}{{{shape.spec}}}",
        f"\\caption[{latex_escape(table.title)}]{{{latex_escape(long_caption(table))}}}"
        f"\\label{{tab:{table.key}}}\\\\",
        "\\toprule", head, "\\midrule", "\\endfirsthead",
        f"\\multicolumn{{{width}}}{{@{{}}l}}{{\\emph{{\\tablename~\\thetable{{}} (continued)}}}}\\\\",
        "\\toprule", head, "\\midrule", "\\endhead",
        "\\bottomrule", "\\endlastfoot",
        "\\midrule", "\\endfoot",
    ]
    first = True
    for row in kept:
        if row.cells and row.kind != "group" and row.cells[0] in labels:
            row = type(row)([labels[row.cells[0]], *row.cells[1:]], row.kind, row.note)
        if row.kind == "group":
            if not first:
                lines.append("\\midrule")
            lines.append(f"\\multicolumn{{{width}}}{{@{{}}l}}{{\\textbf{{{latex_escape(row.note)}}}}} \\\\")
        elif row.kind == "seed":
            lines.append(" & ".join(f"\\textit{{{latex_escape(c)}}}" if c else "" for c in row.cells) + " \\\\")
        else:
            lines.append(" & ".join(latex_escape(c) if column.numeric else breakable(latex_escape(c))
                                    for c, column in zip(row.cells, table.columns)) + " \\\\")
        first = False
    lines.append("\\end{longtable}")
    if notes:
        lines.append("\\vspace{-0.5\\baselineskip}")
        lines.append("{\\sloppy\\setlength{\\parindent}{0pt}\\setlength{\\parskip}{1pt}")
        lines.extend(latex_escape(n) + "\\par" for n in notes)
        lines.append("}")
    lines.append("\\endgroup")
    if shape.landscape:
        lines.append("\\end{landscape}")
    return "\n".join(lines) + "\n"
