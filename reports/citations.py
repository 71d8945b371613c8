"""What a report cites must be among what it was given.

A table, a caption or the text drawn into a figure names runs (row labels such as
`h100/20261126-040108-gpu`, "run 20261126-012135-iir2d" under a plot). A reader looks
those ids up under results/<machine>/; an id that names no run the report was built from
(a context's run id that differs from the folder the run was saved under, a run deleted
since) sends them nowhere. `check_report_items` refuses such a report before any page
links it."""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from .errors import ReportError
from .loader import RUN_ID, Run
from .plots.style import Figure, Skipped
from .table_model import Table


def cited_run_ids(text: str) -> list[str]:
    """Every run id `text` names, in order (file names built on an id, such as
    `<id>.results.json.gz`, count as that id)."""
    return [m.group(0) for m in RUN_ID.finditer(text)]


def _names(token: str, run_id: str) -> bool:
    return token == run_id or token.startswith(run_id + ".")


def uncited(texts: Iterable[tuple[str, str]], given: Sequence[str]) -> list[tuple[str, str]]:
    """(where, id) for every id in the (where, text) pairs that names none of `given`."""
    found = []
    for where, text in texts:
        for token in cited_run_ids(text):
            if not any(_names(token, run_id) for run_id in given):
                found.append((where, token))
    return found


def _table_texts(table: Table) -> Iterable[tuple[str, str]]:
    where = f"table {table.key}"
    yield where, table.title
    yield where, table.caption
    for column in table.columns:
        yield where, column.title
    for row in table.rows:
        yield where, " ".join(row.cells)
        yield where, row.note
    for note in table.notes:
        yield where, note


def _figure_texts(figure: Figure | Skipped) -> Iterable[tuple[str, str]]:
    where = f"figure {figure.stem}"
    yield where, figure.title
    if isinstance(figure, Skipped):
        yield where, figure.reason
        return
    yield where, figure.caption
    # The SVG keeps its text as text (svg.fonttype "none", plots/style.py): the legend,
    # titles and the caption drawn into the image are read back from it.
    svg = Path(figure.svg)
    if svg.is_file():
        yield where + f" ({svg.name})", svg.read_text(encoding="utf-8", errors="replace")


def report_texts(items: Iterable[object]) -> Iterable[tuple[str, str]]:
    for item in items:
        if isinstance(item, str):
            yield "text", item
        elif isinstance(item, Table):
            yield from _table_texts(item)
        elif isinstance(item, (Figure, Skipped)):
            yield from _figure_texts(item)


def check_run_labels(runs: Sequence[Run], also: Sequence[str] = ()) -> None:
    """A run's label goes into every table and legend that shows the run, so a label that
    names a run not given is refused here, before anything is drawn (ReportError, as
    check_report_items)."""
    given = _given(runs, also)
    _refuse(uncited(((f"run label {run.label!r}", run.label) for run in runs), given), given)


def check_report_items(items: Iterable[object], runs: Sequence[Run], also: Sequence[str] = ()) -> None:
    """Raises ReportError naming each table or figure that cites a run not in `runs` (nor
    among `also`: the ids of the study runs whose sections the report links)."""
    given = _given(runs, also)
    _refuse(uncited(report_texts(items), given), given)


def _given(runs: Sequence[Run], also: Sequence[str]) -> list[str]:
    return [run.run_id for run in runs] + [i for i in also if i]


def _refuse(bad: list[tuple[str, str]], given: Sequence[str]) -> None:
    if bad:
        listed = "; ".join(f"{where} cites {run_id}" for where, run_id in dict.fromkeys(bad))
        raise ReportError(f"the report cites runs it was not given: {listed}. Runs given: "
                          f"{', '.join(given) or 'none'}. A run is cited by the name of its folder "
                          "(results/<machine>/<run-id>/); build the report from the runs it should cite")
