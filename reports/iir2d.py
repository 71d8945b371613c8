"""The seed-004 experiment (2-D IIR filter, fixed vs flexible allocation) in the report:
Fig. 3 redrawn from a `splinebench run --suite iir2d` (time against the window size M at
2048^2, one line per scheme, the seed's claims as text), a table of the ratio at
M = 31 and the crossover M* with the seed's beside ours, the launch-chain table
that says how much of the fixed scheme is launch overhead, and a table of the cases
outside Fig. 3 (sizes, shapes, coefficient families).

Records are those with "operation": "iir2d" (systems/iir2d/README.md). `section` reads
them from a run folder directly; `report_items` takes them from loaded runs
(`Run.system_records`), for reports.build.
The seed's Fig. 3 curve values are illegible in our copy: only its stated claims
(crossover M = 5, 2.4x at M = 31, GeForce GT 540M) appear, never invented points."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from .table_model import Column, Row, Table, fmt_ms

OPERATION = "iir2d"
FIG3_SHAPE = (2048, 2048)
FIXED = "fixed"
FLEXIBLE = ("flex_locks", "flex_tiles", "flex_tiles16")
SCHEME_ORDER = ("fixed", "fixed_graph", "flex_locks", "flex_tiles", "flex_tiles16")
SEED = {"hardware": "GeForce GT 540M", "crossover_M": 5, "ratio_at_31": 2.4, "shape": FIG3_SHAPE}


def load_run(run_dir: str | Path) -> dict:
    """results.json, or the compact results.json.gz, of one run folder."""
    run_dir = Path(run_dir)
    plain, compact = run_dir / "results.json", run_dir / "results.json.gz"
    if plain.is_file():
        return json.loads(plain.read_text(encoding="utf-8"))
    if compact.is_file():
        return json.loads(gzip.decompress(compact.read_bytes()).decode("utf-8"))
    raise FileNotFoundError(f"{run_dir}: no results.json or results.json.gz")


def records(run: dict) -> list[dict]:
    """The finished iir2d records of a run."""
    return [r for r in run.get("records", [])
            if r.get("operation") == OPERATION and r.get("status") == "ok" and "phases" in r]


def median_s(record: dict) -> float:
    return float(record["phases"]["filter"]["median"])


def curves(run: dict, shape: tuple[int, int] = FIG3_SHAPE, family: str = "gauss") -> dict[str, dict[int, float]]:
    """scheme -> {M: median seconds} at one shape and coefficient family."""
    out: dict[str, dict[int, float]] = {}
    for r in records(run):
        if tuple(r["shape"]) == tuple(shape) and r.get("family") == family and r.get("M", 0) >= 1:
            out.setdefault(r["scheme"], {})[int(r["M"])] = median_s(r)
    return out


def crossover(fixed: dict[int, float], flexible: dict[int, float]) -> int | None:
    """The seed's crossover: the largest M at which the fixed scheme is not slower than
    the flexible one (the flexible wins at every larger M measured); 0 when the flexible
    scheme is faster at every M; None without common M."""
    common = sorted(set(fixed) & set(flexible))
    if not common:
        return None
    not_slower = [m for m in common if fixed[m] <= flexible[m]]
    return max(not_slower) if not_slower else 0


def ratio(fixed: dict[int, float], flexible: dict[int, float], M: int = 31) -> float | None:
    """t_fixed / t_flexible at M (how many times faster the flexible scheme is)."""
    if M in fixed and M in flexible and flexible[M] > 0:
        return fixed[M] / flexible[M]
    return None


def _x(value: float | None, digits: int = 2) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _run_name(run: dict) -> str:
    """The run a table is drawn from, as its caption names it (each run's tables apart)."""
    return str(run.get("run_id") or (run.get("context") or {}).get("run_id") or "?")


# The seed's own flexible scheme: blocks claim columns with a lock (its Listing 3).
SEED_LOCK_SCHEME = "flex_locks"


def lock_against_fixed(c: dict[str, dict[int, float]]) -> str:
    """Whether the seed's lock scheme is slower than the fixed one at every M measured, in words."""
    fixed, locks = c.get(FIXED, {}), c.get(SEED_LOCK_SCHEME, {})
    common = sorted(set(fixed) & set(locks))
    if not common:
        return ""
    slower = [m for m in common if locks[m] > fixed[m]]
    listed = ", ".join(map(str, common))
    if len(slower) == len(common):
        return (f"The seed's lock scheme ({SEED_LOCK_SCHEME}) is slower than the fixed scheme at every M measured "
                f"(M = {listed}): the seed's crossover does not reproduce for it on this card.")
    if not slower:
        return f"The seed's lock scheme ({SEED_LOCK_SCHEME}) is faster than the fixed scheme at every M measured (M = {listed})."
    return (f"The seed's lock scheme ({SEED_LOCK_SCHEME}) is slower than the fixed scheme at M = "
            f"{', '.join(map(str, slower))} and not slower at the other M measured ({listed}).")


def fig3_table(run: dict, suffix: str = "") -> Table:
    c = curves(run)
    table = Table(
        key=f"iir2d_fig3{suffix}",
        title="Seed 004, Fig. 3: fixed vs flexible allocation at 2048^2",
        caption=("Crossover M*: the largest window size at which the fixed scheme is not slower "
                 "(the flexible one wins above it). Ratio: t(fixed) / t(scheme) at M = 31. "
                 "Flatness: t(M = 31) / t(M = 3) of the scheme. Medians of the run's repetitions, GPU time. "
                 f"Run {_run_name(run)}."),
        columns=[Column("scheme"), Column("device"), Column("crossover M*", "pixels", numeric=True),
                 Column("fixed / scheme at M = 31", "×", numeric=True),
                 Column("t(31) / t(3)", "×", numeric=True), Column("t at M = 31", "ms", numeric=True)])
    table.add(Row(["flexible (seed, Listing 3)", SEED["hardware"], str(SEED["crossover_M"]),
                   _x(SEED["ratio_at_31"], 1), "≈ 1 (\"nearly constant\")", "—"], kind="seed"))
    fixed = c.get(FIXED, {})
    device = (run.get("context", {}).get("gpu") or {}).get("name", "?")
    if not fixed:
        table.add(Row(["ours"], kind="missing", note="the run has no fixed-scheme records at 2048^2"))
        return table
    # The fixed scheme's own row: the reference every ratio is taken against.
    table.add(Row([FIXED, device, "—", _x(1.0), _x(fixed[31] / fixed[3] if 31 in fixed and 3 in fixed and fixed[3] > 0
                                                 else None),
                   fmt_ms(fixed[31] * 1e3) if 31 in fixed else "—"]))
    for scheme in SCHEME_ORDER:
        if scheme == FIXED or scheme not in c:
            continue
        flex = c[scheme]
        m_star = crossover(fixed, flex)
        flat = flex[31] / flex[3] if 31 in flex and 3 in flex and flex[3] > 0 else None
        table.add(Row([scheme, device, "—" if m_star is None else str(m_star), _x(ratio(fixed, flex)),
                       _x(flat), fmt_ms(flex[31] * 1e3) if 31 in flex else "—"]))
    table.notes.append("Targets: each flexible scheme >= 2.4x at M = 31 with M* <= 5; flex_tiles: "
                       "t(31)/t(3) <= 4 and <= 2 ms at M = 31. fixed_graph is the fixed scheme's "
                       "launches as one CUDA Graph: its row separates launch overhead from re-reads.")
    if words := lock_against_fixed(c):
        table.notes.append(words)
    return table


def launch_chain_table(run: dict, suffix: str = "") -> Table:
    """Per square shape: the fixed scheme at M = 3 and 31, as launches and as a graph,
    beside the same chain of H + W - 1 empty launches."""
    table = Table(
        key=f"iir2d_launch_chain{suffix}",
        title="Seed 004: what the fixed scheme's time is made of",
        caption=("The fixed scheme launches H + W - 1 kernels. The empty chain is the same launches "
                 "doing nothing: the floor set by launch overhead alone; a graph lowers it. "
                 f"Run {_run_name(run)}."),
        columns=[Column("shape"), Column("launches", "kernels", numeric=True),
                 Column("empty chain", "ms", numeric=True),
                 Column("empty graph", "ms", numeric=True), Column("fixed M = 3", "ms", numeric=True),
                 Column("fixed M = 31", "ms", numeric=True), Column("graph M = 3", "ms", numeric=True),
                 Column("graph M = 31", "ms", numeric=True)])
    by: dict[tuple, float] = {}
    launches: dict[tuple, int] = {}
    for r in records(run):
        shape = tuple(r["shape"])
        by[(shape, r["scheme"], int(r.get("M", 0)))] = median_s(r)
        if "launches" in r:
            launches[shape] = int(r["launches"])
    shapes = sorted({s for (s, scheme, _) in by if scheme == "empty_chain"}, key=lambda s: s[0] * s[1])

    def ms(key: tuple) -> str:
        return fmt_ms(by[key] * 1e3) if key in by else "—"

    for s in shapes:
        table.add(Row([f"{s[0]}x{s[1]}", str(launches.get(s, s[0] + s[1] - 1)), ms((s, "empty_chain", 0)),
                       ms((s, "empty_chain_graph", 0)), ms((s, FIXED, 3)), ms((s, FIXED, 31)),
                       ms((s, "fixed_graph", 3)), ms((s, "fixed_graph", 31))]))
    if not shapes:
        table.add(Row(["—"], kind="missing", note="the run has no empty launch chain records"))
    return table


def shapes_table(run: dict, suffix: str = "") -> Table | None:
    """Every case outside Fig. 3 (other sizes, non-square and degenerate shapes, other
    coefficient families): one row per (shape, M, family), each scheme's median and the
    largest error over the schemes. None when the run has no such case."""
    cases: dict[tuple, dict[str, dict]] = {}
    for r in records(run):
        in_fig3 = tuple(r["shape"]) == FIG3_SHAPE and r.get("family") == "gauss"
        if in_fig3 or r["scheme"].startswith("empty_chain"):
            continue
        key = (tuple(r["shape"]), int(r["M"]), r.get("family", "?"))
        cases.setdefault(key, {})[r["scheme"]] = r
    if not cases:
        return None
    table = Table(
        key=f"iir2d_shapes{suffix}",
        title="Seed 004 beyond Fig. 3: sizes, shapes and coefficient families",
        caption=("Median GPU time per filtering, each scheme; error: the largest max|y - y_ref| / max|y_ref| "
                 "over the schemes against the f64 oracle (target 1e-5 for sum|b| <= 0.9, M <= 31). "
                 f"Run {_run_name(run)}."),
        columns=[Column("shape"), Column("M", "pixels", numeric=True), Column("family")]
        + [Column(s, "ms", numeric=True) for s in SCHEME_ORDER]
        + [Column("fixed / flex_tiles16", "×", numeric=True), Column("max error", "rel.", numeric=True),
           Column("verdicts")])
    for (shape, M, family) in sorted(cases, key=lambda k: (k[0][0] * k[0][1], k[0], k[1], k[2])):
        by = cases[(shape, M, family)]
        cells = [fmt_ms(median_s(by[s]) * 1e3) if s in by else "—" for s in SCHEME_ORDER]
        speedup = (median_s(by[FIXED]) / median_s(by["flex_tiles16"])
                   if FIXED in by and "flex_tiles16" in by and median_s(by["flex_tiles16"]) > 0 else None)
        errors = [((r.get("accuracy") or {}).get("iir2d") or {}).get("max_rel") for r in by.values()]
        errors = [e for e in errors if e is not None]
        verdicts = sorted({r.get("verdict", "?") for r in by.values()})
        table.add(Row([f"{shape[0]}x{shape[1]}", str(M), family] + cells
                      + [_x(speedup), f"{max(errors):.1e}" if errors else "—", ", ".join(verdicts)]))
    return table


def run_items(run: dict, plot_dir: str | Path, suffix: str = "") -> list:
    """What one run has data for: Fig. 3 and its table (2048^2 gauss records), the launch
    chain table (empty-chain records), the shapes table (cases outside Fig. 3)."""
    # Imported here: the figure's module reads this module's record accessors.
    from .plots.iir2d import plot_fig3
    items: list = []
    if curves(run):
        items += [plot_fig3(run, plot_dir, suffix), fig3_table(run, suffix)]
    if any(r["scheme"] == "empty_chain" for r in records(run)):
        items.append(launch_chain_table(run, suffix))
    if (shapes := shapes_table(run, suffix)) is not None:
        items.append(shapes)
    return items


def section(run_dir: str | Path, plot_dir: str | Path) -> list:
    """The report section of one iir2d run: what run_items finds in it."""
    return run_items(load_run(run_dir), plot_dir)


def run_doc(run) -> dict:
    """The iir2d records of a loaded run (reports.loader.Run) in the form this module reads."""
    return {"context": run.context, "records": run.system_records.get(OPERATION, []), "run_id": run.run_id}


def report_items(runs: list, plot_dir: str | Path) -> list:
    """Fig. 3 and both tables for each loaded run that has iir2d records (none: []).
    With several such runs the files are numbered in the order the runs were given."""
    with_iir2d = [run for run in runs if run.system_records.get(OPERATION)]
    items: list = []
    for n, run in enumerate(with_iir2d, start=1):
        items += run_items(run_doc(run), plot_dir, "" if len(with_iir2d) == 1 else f"_{n}")
    return items
