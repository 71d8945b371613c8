"""Accuracy per implementation and dimension: the largest error seen against the
double-precision oracle, the implementation's own tolerance, and how close the
error came to it (a ratio near 1 deserves a look; a ratio of 1e-6 suggests the
tolerance is too loose to catch a bug)."""
from __future__ import annotations

from collections.abc import Sequence

from . import implementations
from .loader import Record, Run
from .table_model import Column, Row, Table, fmt_sci


def _max(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def _range(values: list[float | None]) -> str:
    present = sorted({v for v in values if v is not None})
    if not present:
        return "—"
    if len(present) == 1:
        return fmt_sci(present[0], 1)
    return f"{fmt_sci(present[0], 1)}–{fmt_sci(present[-1], 1)}"


def _headroom(errors: list[tuple[float | None, float | None]]) -> float | None:
    """Largest error / tolerance over records that have both."""
    ratios = [e / t for e, t in errors if e is not None and t]
    return max(ratios) if ratios else None


def accuracy_table(runs: Sequence[Run]) -> Table:
    table = Table(
        key="accuracy",
        title="Accuracy versus the double-precision oracle, per implementation and D",
        caption=("Interpolation: max |s − s_ref| / max |f| over the checked queries; prefilter: "
                 "‖c − c_ref‖₂ / ‖c_ref‖₂. Evaluation: the arithmetic the implementation evaluates with (the "
                 "hardware linear filter's 8-bit weights set the texture rows' error and bound). 'worst / tol' is the largest ratio of a record's error to its "
                 "own tolerance (pass ≤ 1). Tolerances come from each implementation's stated bound; a "
                 "range means the bound depends on the grid. Only records with status ok are counted."),
        columns=[Column("machine"), Column("implementation"), Column("evaluation"), Column("D", "", True),
                 Column("cases", "count", True),
                 Column("interp max err", "rel. max|f|", True), Column("interp tol", "rel. max|f|", True),
                 Column("prefilter err", "rel. L2", True), Column("prefilter tol", "rel. L2", True),
                 Column("worst / tol", "×", True), Column("verdict")])
    failing: list[str] = []
    not_ok: list[str] = []
    registry = implementations.for_runs(runs)
    for run in runs:
        names = registry.ordered(r.impl for r in run.records)
        for impl in names:
            records = [r for r in run.records if r.impl == impl]
            ok = [r for r in records if r.ok]
            if not ok:
                first = records[0]
                table.add(Row([run.label, impl], "missing",
                              note=f"no accuracy: {first.status}: {first.message or 'no message recorded'}"))
                continue
            for dims in sorted({r.dims for r in ok}):
                group = [r for r in ok if r.dims == dims]
                table.add(Row(_cells(run, impl, dims, group), "ours"))
                failing += [f"{run.label}: {r.case_id}" for r in group if r.verdict == "fail"]
            not_ok += [f"{run.label}: {r.case_id} ({r.status})" for r in records if r.status == "error"]
    if failing:
        shown = ", ".join(failing[:8]) + (f" and {len(failing) - 8} more" if len(failing) > 8 else "")
        table.notes.append(f"Failing records: {shown}.")
    if not_ok:
        shown = ", ".join(not_ok[:8]) + (f" and {len(not_ok) - 8} more" if len(not_ok) > 8 else "")
        table.notes.append(f"Records that ended in an error (no accuracy): {shown}.")
    return table


def _cells(run: Run, impl: str, dims: int, group: list[Record]) -> list[str]:
    interp = [r.accuracy_value("interp", "max_rel_to_maxf") for r in group]
    interp_tol = [_number(r.tolerance.get("interp_max_rel_to_maxf")) for r in group]
    prefilter = [r.accuracy_value("prefilter", "rel_l2") for r in group]
    prefilter_tol = [_number(r.tolerance.get("prefilter_rel_l2")) for r in group]
    headroom = _max([_headroom(list(zip(interp, interp_tol))), _headroom(list(zip(prefilter, prefilter_tol)))])
    verdicts = [r.verdict for r in group]
    fails = verdicts.count("fail")
    passes = verdicts.count("pass")
    if fails:
        verdict = f"FAIL {fails} of {len(group)}"
    elif passes:
        verdict = f"pass {passes}" + (f" ({len(group) - passes} n/a)" if passes < len(group) else "")
    else:
        verdict = "n/a"
    return [run.label, impl, implementations.evaluation_of(run, impl) or "—", str(dims), str(len(group)),
            fmt_sci(_max(interp)), _range(interp_tol),
            fmt_sci(_max(prefilter)), _range(prefilter_tol),
            f"{headroom:.2g}" if headroom is not None else "—", verdict]


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
