"""The seed documents' tables in their own layout, with the published numbers
(seed_numbers.json, labelled with the seed's hardware) beside ours (result files
only). A row we cannot fill says why.

Axis names: Ruijters' x is the contiguous axis, which in our C order is the LAST
axis. So for 3-D: x = axis 2, y = axis 1, z = axis 0; for 2-D: x = axis 1,
y = axis 0. Sizes are printed as the seed prints them (x-extent first) and the
C-order shape is given in the group heading.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from . import implementations, timing
from .loader import Record, Run
from .seeds import seed
from .selection import Predicate, best, impl_label, matching, pref, source_label, why_missing
from .table_model import Column, Row, Table, fmt_ms, fmt_range, fmt_rate, fmt_ratio, shape_label

MS = 1e3
# Every table states its spread the same way.
SPREAD_CAPTION = ("IQR: first to third quartile of the repetitions; NOISY: they are bimodal or spread over more "
                  "than a quarter of the median, so the median may not be what a rerun gives (notes say why).")


def _spread_cell(table: Table, run: Run, rec: Record, phases: str | tuple[str, ...], scale: float,
                 what: str, rate_of: float | None = None) -> str:
    """The interquartile range of `phases` (times `scale`; or, with `rate_of`, the
    rate `rate_of` / time), with NOISY and a note naming the reason when the
    repetitions cannot stand for one time."""
    spread = timing.phase_spread(rec, phases)
    if spread is None:
        return "—"
    if rate_of is not None:
        text = fmt_range(rate_of / spread.q3, rate_of / spread.q1, fmt_rate) if spread.q1 > 0 else "—"
    else:
        text = fmt_range(spread.q1 * scale, spread.q3 * scale)
    why = timing.phase_noise(rec, phases)
    if why:
        text += " NOISY"
        table.notes.append(f"NOISY: {impl_label(rec)}, {what} ({run.label}): {why}; its median may not be "
                           "what a rerun gives.")
    return text


def _seed_label(s: dict, device: str | None = None) -> str:
    """'published · R&T · <the device that row ran on>'."""
    hardware = s["hardware_by_device"].get(device, s["hardware"]) if device else s["hardware"]
    return f"published · {s['short']} · {hardware}"


def pub(value: float) -> str:
    """A published number as printed in the source (no added digits)."""
    return f"{value:g}"


def _impl_names(runs: Sequence[Run]) -> list[str]:
    """Every implementation of the runs' registry, run or not (an absent one gets a
    row saying so), in the registry's display order."""
    return implementations.for_runs(runs).names


def _add_impl_rows(table: Table, runs: Sequence[Run], impl: str, case: Predicate,
                   usable: Predicate, preference: Callable[[Record], tuple], suite_hint: str,
                   cells: Callable[[Run, Record], list[str]], missing_cells: list[str]) -> None:
    """Rows of one implementation for one case, from every run that has it; one
    'missing' row with the reasons when no run has a usable record."""
    added = False
    reasons: list[tuple[Run, str]] = []
    for run in runs:
        own = matching(run, impl, case)
        ok = [r for r in own if r.ok and usable(r)]
        for record in best(ok, preference):
            table.add(Row(cells(run, record), "ours"))
            added = True
        if not ok:
            errors = [r for r in own if r.status == "error"]
            if errors:
                table.add(Row(list(missing_cells), "missing",
                              note=f"{run.label}: error: {errors[0].message or 'no message recorded'}"))
                added = True
            else:
                reasons.append((run, why_missing(run, impl, case, suite_hint)))
    if not added:
        table.add(Row(list(missing_cells), "missing", note=merge_run_reasons(reasons, suite_hint)))


CASE_ABSENT = "case not in this run"


def merge_run_reasons(reasons: list[tuple[Run, str]], suite_hint: str) -> str:
    """One sentence for why no run filled a row. Runs that simply did not include
    the case say nothing when another run says something more specific; runs
    sharing a reason are named together."""
    if len(reasons) == 1:
        return reasons[0][1]
    specific = [(run, why) for run, why in reasons if not why.startswith(CASE_ABSENT)]
    if not specific:
        suites = ", ".join(f"`{run.context.get('suite', '?')}`" for run, _ in reasons)
        return f"case not in these runs (suites {suites}) — run suite `{suite_hint}`"
    by_reason: dict[str, list[str]] = {}
    for run, why in specific:
        by_reason.setdefault(why, []).append(run.label)
    if len(by_reason) == 1 and len(specific) == len(reasons):
        return next(iter(by_reason))
    return "; ".join(f"{', '.join(labels)}: {why}" for why, labels in by_reason.items())


# Seed 002's two GPU prefilters and ours: a line copied to a local array, or walked in place.
SEED_ALGORITHM = {"gpu_naive_temp": "temp array", "gpu_naive": "step"}
SEED_VARIANTS = "ours gpu_naive_temp (temp array) and gpu_naive (step), one thread per line on one card"


def _algorithm_label(rec: Record, preferred_mode: str) -> str:
    """The implementation, with the seed's name for the variant it reproduces."""
    label = impl_label(rec, preferred_mode)
    return f"{label} ({SEED_ALGORITHM[rec.impl]})" if rec.impl in SEED_ALGORITHM else label


# --- Ruijters & Thévenaz Table 1: 3-D prefilter, x/y/z/total --------------------------------

def ruijters_table1(runs: Sequence[Run]) -> Table:
    s = seed("ruijters_table1")
    table = Table(
        key="ruijters_table1",
        title="Ruijters & Thévenaz Table 1 — 3-D prefilter time per direction (ms)",
        caption=("One scalar volume (C = 1, one field), prefilter only. x is the contiguous direction = our "
                 "LAST axis (C order): x = axis 2, y = axis 1, z = axis 0. Ours: medians over n repetitions; "
                 "'total' is the median of the whole prefilter (not the sum of the per-axis medians), with its "
                 f"IQR. Temp array and step: the seed's two GPU variants, {SEED_VARIANTS}. "
                 f"Published rows: {s['hardware']}."),
        columns=[Column("source"), Column("algorithm"), Column("size (x·y·z)"),
                 Column("x", "ms", True), Column("y", "ms", True), Column("z", "ms", True),
                 Column("total", "ms", True), Column("IQR", "ms", True), Column("n", "repetitions", True)])
    table.notes += [SPREAD_CAPTION, "Boundary mode `half` (Ruijters' clamp) where recorded, otherwise the mode shown."]
    axis_note_needed = False
    sizes: list[tuple[int, ...]] = []
    for row in s["rows"]:
        if tuple(row["shape"]) not in sizes:
            sizes.append(tuple(row["shape"]))
    for shape in sizes:
        seed_rows = [r for r in s["rows"] if tuple(r["shape"]) == shape]
        label = seed_rows[0]["size_label"]
        table.add(Row([], "group", note=f"{label} (our C-order shape {'×'.join(map(str, shape))})"))
        for r in seed_rows:
            table.add(Row([_seed_label(s, r["device"]), r["algorithm"], label, pub(r["x"]), pub(r["y"]),
                           pub(r["z"]), pub(r["total"]), "—", "—"], "seed"))

        def case(rec: Record, shape=shape) -> bool:
            return rec.dims == 3 and rec.shape == shape and rec.channels == 1 and rec.fields == 1

        def cells(run: Run, rec: Record, label=label) -> list[str]:
            nonlocal axis_note_needed
            axes = [timing.axis_seconds(rec, a) for a in (2, 1, 0)]
            if any(a is None for a in axes):
                axis_note_needed = True
            return [source_label(run, rec), _algorithm_label(rec, "half"), label,
                    *(fmt_ms(a * MS) if a is not None else "—" for a in axes),
                    fmt_ms(rec.phase_median("prefilter") * MS),
                    _spread_cell(table, run, rec, "prefilter", MS, f"{label} total"), str(rec.repetitions)]

        for impl in _impl_names(runs):
            _add_impl_rows(table, runs, impl, case, lambda r: "prefilter" in r.phases,
                           pref(("mode", "half"), ("queries", 0), ("data", "noise")), "ruijters",
                           cells, ["ours", impl, label])
    if axis_note_needed:
        table.notes.append("— in x/y/z: the implementation records only the whole prefilter, "
                           "not per-axis phases (prefilter_axis0..2).")
    table.notes.append("Published CPU row: single-threaded; published x/y/z/total as printed in the source.")
    return table


# --- Ruijters & Thévenaz Table 2: RGB frame prefilter, x/y/total ----------------------------

def ruijters_table2(runs: Sequence[Run]) -> Table:
    s = seed("ruijters_table2")
    table = Table(
        key="ruijters_table2",
        title="Ruijters & Thévenaz Table 2 — RGB video frame prefilter time per frame (ms)",
        caption=("2-D frames with colour channels prefiltered together (ours: C = 4, RGB padded to float4). x is "
                 "the contiguous direction = our LAST axis: x = axis 1, y = axis 0. Ours: a batch of F frames per "
                 "repetition; per-frame time = median over n repetitions of the batch time / F, with the IQR of the "
                 f"total. Temp array and step: {SEED_VARIANTS}. Published: mean over {s['frames']} frames on "
                 f"{s['hardware']}."),
        columns=[Column("source"), Column("algorithm"), Column("size (x·y)"),
                 Column("x", "ms/frame", True), Column("y", "ms/frame", True),
                 Column("total", "ms/frame", True), Column("IQR", "ms/frame", True), Column("F", "frames", True),
                 Column("n", "repetitions", True)])
    table.notes.append(SPREAD_CAPTION)
    axis_note_needed = False
    sizes: list[tuple[int, ...]] = []
    for row in s["rows"]:
        if tuple(row["shape"]) not in sizes:
            sizes.append(tuple(row["shape"]))
    for shape in sizes:
        seed_rows = [r for r in s["rows"] if tuple(r["shape"]) == shape]
        label = seed_rows[0]["size_label"]
        table.add(Row([], "group", note=f"{label} (our C-order shape {'×'.join(map(str, shape))})"))
        for r in seed_rows:
            table.add(Row([_seed_label(s, r["device"]), r["algorithm"], label, pub(r["x"]), pub(r["y"]),
                           pub(r["total"]), "—", str(s["frames"]), "mean"], "seed"))

        def case(rec: Record, shape=shape) -> bool:
            return rec.dims == 2 and rec.shape == shape and rec.channels >= 3

        def cells(run: Run, rec: Record, label=label) -> list[str]:
            nonlocal axis_note_needed
            per_frame = MS / rec.fields
            axes = [timing.axis_seconds(rec, a) for a in (1, 0)]
            if any(a is None for a in axes):
                axis_note_needed = True
            return [source_label(run, rec), _algorithm_label(rec, "half"), label,
                    *(fmt_ms(a * per_frame) if a is not None else "—" for a in axes),
                    fmt_ms(rec.phase_median("prefilter") * per_frame),
                    _spread_cell(table, run, rec, "prefilter", per_frame, f"{label} total"), str(rec.fields),
                    str(rec.repetitions)]

        for impl in _impl_names(runs):
            _add_impl_rows(table, runs, impl, case, lambda r: "prefilter" in r.phases,
                           pref(("mode", "half"), ("channels", 4), ("fields", s["frames"]), ("queries", 0)),
                           "ruijters", cells, ["ours", impl, label])
    if axis_note_needed:
        table.notes.append("— in x/y: the implementation records only the whole prefilter, "
                           "not per-axis phases (prefilter_axis0..1).")
    if s.get("note"):
        table.notes.append(s["note"])
    return table


# --- Thesis Table 1: 4-D lookups, CPU vs GPU ------------------------------------------------

# The thesis compares an SSE CPU code with its GPU code; our closest CPU analogue
# first, then the others if it is absent.
THESIS_CPU_ORDER = ("cpu_sse", "cpu_scalar", "cpu_simd")


def thesis_table1(runs: Sequence[Run]) -> Table:
    s = seed("thesis_table1")
    table = Table(
        key="thesis_table1",
        title="Thesis Table 1 — 4-D cubic B-spline lookups, CPU vs GPU (ms)",
        caption=("Lookup: one batch of lookups, median over n repetitions with the interquartile range in "
                 "brackets. With setup: the whole prepare + evaluate cycle as the caller sees it, from its host "
                 "arrays to its results. CPU column: cpu_sse (the thesis' CPU code is SSE, one core), else the first "
                 "of cpu_scalar, cpu_simd present. Speed-ups within one run. Error: max |s − s_ref| / max|f| of the "
                 f"GPU row against the f64 oracle. Published: {s['hardware']}."),
        columns=[Column("source"), Column("grid"), Column("queries"), Column("CPU"),
                 Column("CPU lookup", "ms", True), Column("CPU with setup", "ms", True), Column("GPU"),
                 Column("GPU lookup", "ms", True), Column("GPU with setup", "ms", True),
                 Column("speed-up", "×", True), Column("speed-up with setup", "×", True),
                 Column("GPU error", "rel. max|f|", True), Column("n", "repetitions", True)])
    table.notes += [
        "GPU lookup: the per-repetition sum of query upload + evaluate + download, from and to the pipeline's "
        "pinned buffers; CPU lookup: evaluate. With setup adds upload + prefilter + bind and, for the GPU, "
        "host_staging (the copies between the caller's pageable arrays and the pinned buffers, one phase per "
        "cycle): the time of a caller who looks up a new table once; the published small-batch rows (GPU slower "
        "at 64^4/64^2) depend on it.",
        "GPU rows whose evaluation is the same (same arithmetic, lookup medians within each other's interquartile "
        "range) are folded into one, named together.", SPREAD_CAPTION]
    names = _impl_names(runs)
    registry = implementations.for_runs(runs)
    gpu_impls = [n for n in names if registry.device(n) == "gpu"]
    cpu_order = [n for n in THESIS_CPU_ORDER] + [n for n in names if n not in THESIS_CPU_ORDER
                                                 and n not in gpu_impls and n != "reference"]
    preference = pref(("mode", "mirror"), ("pattern", "uniform"), ("data", "noise"), ("threads", 1))

    for row in s["rows"]:
        grid, queries = tuple(row["grid"]), int(row["queries"])
        grid_label, queries_label = row["grid_label"], row["queries_label"]
        table.add(Row([], "group", note=f"grid {grid_label}, {queries_label} = {queries} queries"))
        table.add(Row([_seed_label(s), grid_label, queries_label, "SSE (1 core)", pub(row["cpu_ms"]), "—",
                       "GPU", pub(row["gpu_ms"]), "—", pub(row["speedup"]), "—", "—", "—"], "seed"))

        def case(rec: Record, grid=grid, queries=queries) -> bool:
            return (rec.dims == 4 and rec.shape == grid and rec.queries == queries
                    and rec.channels == 1 and rec.fields == 1)

        def usable(rec: Record) -> bool:
            return timing.lookup_seconds(rec) is not None

        with_case = [run for run in runs if any(case(r) for r in run.records)]
        if not with_case:
            reasons = [(run, why_missing(run, THESIS_CPU_ORDER[0], case, "thesis")) for run in runs]
            table.add(Row(["ours", grid_label, queries_label], "missing",
                          note=merge_run_reasons(reasons, "thesis")))
            continue
        for run in with_case:
            cpu = None
            for name in cpu_order:
                found = best([r for r in matching(run, name, case) if r.ok and usable(r)], preference)
                if found:
                    cpu = found[0]
                    break
            cpu_cells = [grid_label, queries_label]
            if cpu is None:
                why = why_missing(run, THESIS_CPU_ORDER[0], case, "thesis")
                source = f"ours · {run.label}"
                table.add(Row([source, *cpu_cells], "missing", note=f"no CPU result: {why}"))
                continue
            what = f"{grid_label} grid, {queries_label} queries"
            cpu_ms = timing.lookup_seconds(cpu) * MS
            cpu_setup = timing.with_setup_seconds(cpu)
            cpu_time = f"{fmt_ms(cpu_ms)} [{_spread_cell(table, run, cpu, timing.LOOKUP_PHASES, MS, what)}]"
            source = f"ours · {run.label} · {run.device_name('cpu')} / {run.gpu_name or 'no GPU'}"
            gpu_found, gpu_reasons = [], []
            for name in gpu_impls:
                found = best([r for r in matching(run, name, case) if r.ok and usable(r)], preference)
                if not found:
                    gpu_reasons.append(f"{name}: {why_missing(run, name, case, 'thesis')}")
                gpu_found.extend(found)
            for group in fold_same_evaluation(run, gpu_found):
                gpu = group[0]
                gpu_ms = timing.lookup_seconds(gpu) * MS
                setups = [(timing.with_setup_seconds(g), g) for g in group if timing.with_setup_seconds(g)]
                best_setup = min(setups, key=lambda t: t[0]) if setups else None
                errors = [g.accuracy_value("interp", "max_rel_to_maxf") for g in group]
                errors = [e for e in errors if e is not None]
                label = " = ".join(impl_label(g) for g in group)
                if len(group) > 1:
                    medians = ", ".join(f"{g.impl} {fmt_ms(timing.lookup_seconds(g) * MS)}" for g in group)
                    setup_text = ", ".join(f"{g.impl} {fmt_ms(t * MS)}" for t, g in setups)
                    table.notes.append(f"{label} ({what}, {run.label}): one evaluation "
                                       f"({implementations.evaluation_of(run, gpu.impl)}); lookup medians {medians} ms; with "
                                       f"setup {setup_text} ms (the column shows the fastest).")
                table.add(Row([source, *cpu_cells, impl_label(cpu), cpu_time,
                               fmt_ms(cpu_setup * MS) if cpu_setup else "—", label,
                               f"{fmt_ms(gpu_ms)} [{_spread_cell(table, run, gpu, timing.LOOKUP_PHASES, MS, what)}]",
                               fmt_ms(best_setup[0] * MS) if best_setup else "—",
                               fmt_ratio(cpu_ms / gpu_ms),
                               fmt_ratio(cpu_setup / best_setup[0]) if cpu_setup and best_setup else "—",
                               f"{max(errors):.1e}" if errors else "—",
                               f"{cpu.repetitions}/{gpu.repetitions}"], "ours"))
            if not gpu_found:
                reasons = _merge_reasons(gpu_reasons)
                table.add(Row([source, *cpu_cells, impl_label(cpu), cpu_time], "missing",
                              note=f"no GPU result in this run (CPU n = {cpu.repetitions}) — {reasons}"))
    return table


def fold_same_evaluation(run: Run, records: list[Record]) -> list[list[Record]]:
    """Groups of records that run the same evaluation: the run's registry gives them the
    same evaluation arithmetic and their lookup medians lie within each other's
    interquartile range (one kernel measured twice). Records whose evaluation the run
    does not state stay alone. Order: the first record of each group, as given."""
    groups: list[list[Record]] = []
    for record in records:
        evaluation = implementations.evaluation_of(run, record.impl)
        spread = timing.lookup_spread(record)
        placed = False
        for group in groups:
            head = group[0]
            head_spread = timing.lookup_spread(head)
            if (evaluation and evaluation == implementations.evaluation_of(run, head.impl)
                    and record.threads == head.threads
                    and spread and head_spread and head_spread.q1 <= spread.median <= head_spread.q3
                    and spread.q1 <= head_spread.median <= spread.q3):
                group.append(record)
                placed = True
                break
        if not placed:
            groups.append([record])
    return groups


def _merge_reasons(reasons: list[str]) -> str:
    """'a: why; b: why' — or 'a, b: why' when they share the reason."""
    by_reason: dict[str, list[str]] = {}
    for entry in reasons:
        name, _, why = entry.partition(": ")
        by_reason.setdefault(why, []).append(name)
    return "; ".join(f"{', '.join(names)}: {why}" for why, names in by_reason.items())


# --- Ruijters & Thévenaz reconstruction speed on 256^3 --------------------------------------

def reconstruction_speed_table(runs: Sequence[Run]) -> Table:
    s = seed("ruijters_reconstruction")
    shape = tuple(s["rows"][0]["shape"])
    label = s["rows"][0]["size_label"]
    table = Table(
        key="reconstruction_256",
        title="Reconstruction speed on a 256^3 volume (lookups/s)",
        caption=("Cubic B-spline lookups per second in one 3-D scalar volume. Ours: queries / median "
                 "evaluate time (kernel only, transfers excluded), the largest batch recorded per "
                 "implementation; n repetitions; IQR: the rates at the quartiles of the evaluate times. "
                 f"Published: {s['hardware']}."),
        columns=[Column("source"), Column("method"), Column("size"), Column("queries", "count", True),
                 Column("rate", "lookups/s", True), Column("IQR", "lookups/s", True), Column("n", "repetitions", True)])
    table.notes.append(SPREAD_CAPTION)
    for r in s["rows"]:
        table.add(Row([_seed_label(s, r["device"]), r["method"], label, "—", fmt_rate(r["lookups_per_s"]), "—",
                       "—"], "seed"))

    def case(rec: Record) -> bool:
        return rec.dims == 3 and rec.shape == shape and rec.channels == 1 and rec.queries > 0

    def cells(run: Run, rec: Record) -> list[str]:
        return [source_label(run, rec), impl_label(rec), label, str(rec.queries),
                fmt_rate(timing.queries_per_second(rec)),
                _spread_cell(table, run, rec, "evaluate", 1.0, f"{label}, {rec.queries} queries",
                             rate_of=rec.queries * rec.fields),
                str(rec.repetitions)]

    def preference(rec: Record) -> tuple:
        return (-rec.queries, rec.fields != 1, rec.pattern != "uniform", rec.mode != "mirror")

    for impl in _impl_names(runs):
        if impl == "reference":
            continue  # the f64 oracle is a checker, not a contender for speed
        _add_impl_rows(table, runs, impl, case, lambda r: timing.queries_per_second(r) is not None,
                       preference, "ruijters", cells, ["ours", impl, label])
    return table


ALL_REPRODUCED = (ruijters_table1, ruijters_table2, thesis_table1, reconstruction_speed_table)
