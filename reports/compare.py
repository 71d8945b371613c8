"""python -m reports.compare BASE [BASE ...] NEW [options]
python -m reports.compare NEW                      (BASE = results/<machine>/baseline)
python -m reports.compare --promote RUN_DIR [RUN_DIR ...] [--add]

Matches the records of NEW with those of BASE (one run, several runs, or a
baseline folder holding several) by case and thread count, and for each timed
phase gives SLOWER / FASTER / NOISY / SAME with the ratio of medians (new / base):
after the machine's speed of each round is taken out, a t-test of NEW against
BASE's run-to-run noise, adjusted for the number of case-phases compared, and a
minimum effect both relative and absolute; the same for the whole run and for each
implementation's case-phases together (the method is in compare_stats and
reports/README.md). Also checks accuracy (a verdict turned from pass to fail, an
error grown beyond 2x) and coverage (everything BASE measured must be measured in
NEW again).

Exit status: 0 no regression; 1 a regression: a case-phase, the whole run or an
implementation SLOWER, an accuracy regression, an error in NEW, or a case, phase
or implementation measured in BASE and missing or skipped in NEW (unless
--allow-missing), or nothing compared at all; 2 refused (different machines
without --force) or bad input.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from scipy.stats import trim_mean

from . import timing
from .baseline import (DEFAULT_RESULTS_ROOT, baseline_dir, baseline_run_dirs, has_results, load_baseline,
                       promote)
from .compare_stats import (TIME_FLOOR, PhaseComparison, compare_case, decide, geometric_mean, load_sensitivity,
                            log_times, machine_factors, round_medians, run_time)
from .errors import MachineMismatchError, ReportError
from .loader import Record, Run, _parse_record, load_run
from .table_model import Column, Row, Table
from .timing import rounds_of

# The phases judged, one system's each: grid implementations' prefilter and evaluate, a
# scattered solver's whole solve to the tolerance (solve_wall; the oracle's single solve
# is not judged), an IIR scheme's filter.
DEFAULT_PHASES = ("prefilter", "evaluate", "solve_wall", "filter")
DEFAULT_THRESHOLD = 0.10
DEFAULT_MIN_ABS = 1e-5  # seconds
DEFAULT_ALPHA = 0.01
ERROR_GROWTH_LIMIT = 2.0
# Errors below this are at the oracle's own precision (double epsilon): growth
# among them is rounding noise of the reference, not a regression.
ERROR_FLOOR = 2.0 ** -52
ACCURACY_METRICS = (("interp", "max_rel_to_maxf"), ("prefilter", "rel_l2"))
WHOLE_RUN = "whole run"
# An implementation's aggregate leaves out this share of its case-phases at each end.
AGGREGATE_TRIM = 0.25
# Implementations registered only in test builds (impls/registry.def) are named so; a
# product build's run lacks them by design, which is no loss of coverage.
TEST_ONLY_PREFIX = "test_"


@dataclass
class TimingRow:
    case_id: str
    threads: int
    phase: str
    comparison: PhaseComparison
    new_spread: timing.Spread | None = None  # NEW's samples, for the IQR columns

    @property
    def impl(self) -> str:
        return self.case_id.split("/")[0]

    @property
    def label(self) -> str:
        return self.case_id if self.threads == 1 else f"{self.case_id} [threads {self.threads}]"


@dataclass
class Problem:
    """A non-timing reason for the compare to fail (or to warn, when not fatal)."""
    case_id: str
    kind: str
    detail: str
    fatal: bool = True


@dataclass
class CompareResult:
    rows: list[TimingRow]
    problems: list[Problem]
    threshold: float
    alpha: float
    min_abs: float
    base_runs: int
    only_in_base: list[str] = field(default_factory=list)  # measured in BASE, absent from NEW
    only_in_new: list[str] = field(default_factory=list)
    # The whole run (its machine factors) and each implementation (its case-phases
    # together), when the runs allow: name -> comparison, the whole run first.
    aggregates: dict[str, PhaseComparison] = field(default_factory=dict)

    @property
    def machine(self) -> PhaseComparison | None:
        return self.aggregates.get(WHOLE_RUN)

    @property
    def slower_aggregates(self) -> list[str]:
        return [name for name, c in self.aggregates.items() if c.verdict == "SLOWER"]

    @property
    def slower(self) -> list[TimingRow]:
        return [r for r in self.rows if r.comparison.verdict == "SLOWER"]

    @property
    def fatal(self) -> list[Problem]:
        return [p for p in self.problems if p.fatal]

    @property
    def failed(self) -> bool:
        return bool(self.slower) or bool(self.slower_aggregates) or bool(self.fatal)

    @property
    def units(self) -> list[str]:
        return sorted({r.comparison.unit for r in self.rows})

    def count(self, verdict: str) -> int:
        return sum(1 for r in self.rows if r.comparison.verdict == verdict)


def check_same_machine(base: Run, new: Run) -> None:
    """Timings from different hardware say nothing about a regression."""
    differences = []
    if base.machine != new.machine:
        differences.append(f"machine {base.machine!r} vs {new.machine!r}")
    for what, a, b in (("GPU", base.gpu_name, new.gpu_name), ("CPU", base.cpu_model, new.cpu_model)):
        if a and b and a != b:
            differences.append(f"{what} {a!r} vs {b!r}")
    if differences:
        raise MachineMismatchError(
            "refusing to compare runs from different machines (" + "; ".join(differences) + "): timing "
            "differences would reflect the hardware, not the code. Compare against the baseline of the "
            "same machine (results/<machine>/baseline), or pass --force to compare anyway.")


def _system_record(item: dict, run: Run) -> Record | None:
    """A system's record (scattered reconstruction, the 2-D IIR: the common envelope, read
    apart by the loader) as a Record with its judged phases only, so the gate judges it
    like an implementation's; None when it has no judged phase (the scattered oracle's one
    solve, say)."""
    status = item.get("status")
    repetitions = item.get("repetitions")
    phases = {name: p for name, p in (item.get("phases") or {}).items()
              if name in DEFAULT_PHASES and isinstance(p, dict) and len(p.get("samples") or []) == repetitions}
    if status == "ok" and not phases:
        return None
    shape = item.get("shape") or [1]
    doc = {"case_id": item.get("case_id"), "impl": item.get("impl"), "device": item.get("device", "cpu"),
           "dims": len(shape), "shape": shape, "channels": 1, "fields": 1, "mode": item.get("mode", "none"),
           "data": str(item.get("data", "")), "queries": 0, "pattern": "none",
           "threads": max(1, int(item.get("threads", 1) or 1)), "status": status, "message": item.get("message", ""),
           "repetitions": repetitions if isinstance(repetitions, int) else 0, "phases": phases,
           # A verdict's tolerance is an object; a skipped scattered record carries the suite's
           # relres stop criterion (a number) under that name, which judges nothing here.
           "tolerance": item["tolerance"] if isinstance(item.get("tolerance"), dict) else {},
           "verdict": item.get("verdict", "n/a")}
    record = _parse_record(doc, f"{run.path}: {item.get('operation')} record")
    record.run = run
    return record


def _index(run: Run) -> dict[tuple, Record]:
    by_key: dict[tuple, Record] = {}
    system = [r for items in run.system_records.values() for item in items
              if (r := _system_record(item, run)) is not None]
    for record in [*run.records, *system]:
        if record.match_key in by_key:
            raise ReportError(f"{run.path}: case {record.case_id} (threads {record.threads}) appears twice")
        by_key[record.match_key] = record
    return by_key


def _label(key: tuple) -> str:
    case_id, threads = key
    return case_id if threads == 1 else f"{case_id} [threads {threads}]"


def compare_runs(base: Run | list[Run], new: Run, threshold: float = DEFAULT_THRESHOLD,
                 alpha: float = DEFAULT_ALPHA, phases: tuple[str, ...] | None = DEFAULT_PHASES,
                 min_abs: float = DEFAULT_MIN_ABS, allow_missing: bool = False,
                 machine_factor: bool = True) -> CompareResult:
    base_runs = [base] if isinstance(base, Run) else list(base)
    base_indexes = [_index(run) for run in base_runs]
    new_by_key = _index(new)
    base_keys = sorted({key for index in base_indexes for key in index})
    problems: list[Problem] = []
    cases: list[_Case] = []
    missing: dict[str, list[str]] = {}  # impl -> cases measured in BASE, absent from NEW

    for key in base_keys:
        records = [index[key] for index in base_indexes if key in index]
        measured = [r for r in records if r.ok]
        n = new_by_key.get(key)
        if n is None:
            if measured:
                missing.setdefault(measured[0].impl, []).append(_label(key))
            continue
        if not measured:
            if n.status == "error":
                problems.append(Problem(n.case_id, "status", f"error in NEW (BASE: {records[0].status}): "
                                                             f"{n.message or 'no message'}"))
            continue
        if not n.ok:
            fatal = n.status == "error" or not allow_missing
            problems.append(Problem(n.case_id, "status", f"measured in BASE, {n.status} in NEW: "
                                                         f"{n.message or 'no message'}", fatal))
            continue
        problems += _accuracy_problems(measured, n)
        names = sorted({p for r in measured for p in r.phases})
        for phase in names if phases is None else [p for p in phases if p in names]:
            if phase not in n.phases:
                problems.append(Problem(n.case_id, "coverage", f"phase {phase} measured in BASE, absent in NEW",
                                        not allow_missing))
                continue
            cases.append(_Case(phase, [r for r in measured if phase in r.phases], n))

    for impl, keys in sorted(missing.items()):
        if not any(r.impl == impl for r in new.records):
            test_only = impl.startswith(TEST_ONLY_PREFIX)
            problems.append(Problem(impl, "coverage", f"implementation measured in BASE ({len(keys)} case(s)) "
                                                      "has no record in NEW"
                                    + (" (test-only: not in product builds)" if test_only else ""),
                                    not (allow_missing or test_only)))
        else:
            for case in keys:
                problems.append(Problem(case, "coverage", "measured in BASE, not run in NEW", not allow_missing))
    only_in_new = []
    only_in_base = sorted(case for keys in missing.values() for case in keys)
    for key in sorted(set(new_by_key) - set(base_keys)):
        record = new_by_key[key]
        only_in_new.append(_label(key))
        if record.status == "error":
            problems.append(Problem(record.case_id, "status", f"new case (not in BASE) errors: "
                                                              f"{record.message or 'no message'}"))
        elif record.ok and record.verdict == "fail":
            problems.append(Problem(record.case_id, "accuracy", "new case (not in BASE) fails its accuracy check"))
    if not cases:
        problems.append(Problem("-", "coverage", "nothing was compared: BASE and NEW share no measured "
                                                 "case-phase"))

    rows, aggregates = _compare_cases(cases, machine_factor)
    for row, comparison in zip(rows, decide([r.comparison for r in rows], alpha, threshold, min_abs)):
        row.comparison = comparison
    # The aggregates are one more family of tests, adjusted together.
    aggregates = dict(zip(aggregates, decide(list(aggregates.values()), alpha, threshold, 0.0)))
    return CompareResult(rows, problems, threshold, alpha, min_abs, len(base_runs), only_in_base, only_in_new,
                         aggregates)


@dataclass
class _Case:
    phase: str
    base: list[Record]  # BASE's measured records with the phase, one per run
    new: Record


def _unit(case: _Case) -> str:
    if len(case.base) >= 2:
        return "runs"
    if rounds_of(case.base[0].run) >= 2 and rounds_of(case.new.run) >= 2:
        return "rounds"
    return "samples"


def _log_rounds(record: Record, phase: str) -> np.ndarray:
    return log_times(round_medians(record.phases[phase].samples, rounds_of(record.run)))


def _compare_cases(cases: list[_Case], machine_factor: bool) -> tuple[list[TimingRow], dict[str, PhaseComparison]]:
    """Every case-phase's unadjusted comparison after the machine factors (see
    compare_stats), and those of the aggregates: the whole run (the factors
    themselves; only where they were applied) and each implementation with several
    case-phases (the mean of its case-phases' log ratios, machine factors removed).
    Aggregates need run or round units."""
    units = [_unit(c) for c in cases]
    logs = [{id(r.run): _log_rounds(r, c.phase) for r in (*c.base, c.new)} if u != "samples" else {}
            for c, u in zip(cases, units)]
    centers = [math.log(max(statistics.median(run_time(r.phases[c.phase].samples, rounds_of(r.run)) for r in c.base),
                            TIME_FLOOR)) for c in cases]
    factors = machine_factors(logs, centers) if machine_factor else {}
    all_base = list(dict.fromkeys(id(r.run) for c in cases for r in c.base))
    betas = [load_sensitivity(per_run, center, factors, all_base) if factors and per_run else 1.0
             for per_run, center in zip(logs, centers)]

    rows = []
    for case, unit, per_run, beta in zip(cases, units, logs, betas):
        def corrected(record: Record, per_run=per_run, beta=beta) -> np.ndarray:
            return per_run[id(record.run)] - beta * factors.get(id(record.run), 0.0)

        n, phase = case.new, case.phase
        base_median = statistics.median(run_time(r.phases[phase].samples, rounds_of(r.run)) for r in case.base)
        new_median = run_time(n.phases[phase].samples, rounds_of(n.run))
        if unit == "samples":
            base_units = log_times(case.base[0].phases[phase].samples)
            new_units = log_times(n.phases[phase].samples)
            new_rounds = log_times([new_median])
        else:
            new_rounds = corrected(n)
            new_units = new_rounds if unit == "rounds" else [float(np.median(new_rounds))]
            base_units = (corrected(case.base[0]) if unit == "rounds" else
                          [float(np.median(corrected(r))) for r in case.base])
        comparison = compare_case(base_units, new_units, unit, base_median, new_median, new_rounds,
                                  _flags(case))
        rows.append(TimingRow(n.case_id, n.threads, phase, comparison, timing.phase_spread(n, phase)))

    aggregates: dict[str, PhaseComparison] = {}
    grouped = [i for i, u in enumerate(units) if u != "samples"]
    if not grouped:
        return rows, aggregates
    base_ids = list(dict.fromkeys(id(r.run) for i in grouped for r in cases[i].base))
    new_id = id(cases[grouped[0]].new.run)
    unit = "runs" if len(base_ids) >= 2 else "rounds"

    def aggregate(per_round: dict[int, np.ndarray], per_run: dict[int, float], raw: dict[int, float]
                  ) -> PhaseComparison:
        """An aggregate's log values per round and per run (its log values before the
        machine factors, per run) -> its comparison."""
        if unit == "runs":
            base_units, new_units = [per_run[b] for b in base_ids], [per_run[new_id]]
            raw_ratio = math.exp(raw[new_id] - float(np.median([raw[b] for b in base_ids])))
        else:
            base_units, new_units = per_round[base_ids[0]], per_round[new_id]
            raw_ratio = math.exp(raw[new_id] - raw[base_ids[0]])
        return compare_case(base_units, new_units, unit, 1.0, raw_ratio, per_round[new_id])

    if any(np.any(f != 0) for f in factors.values()):
        medians = {u: float(np.median(f)) for u, f in factors.items()}
        aggregates[WHOLE_RUN] = aggregate(factors, medians, medians)
    by_impl: dict[str, list[int]] = {}
    for i in grouped:
        # Only case-phases every BASE run measured, so that every run's mean is over the same ones.
        if {id(r.run) for r in cases[i].base} == set(base_ids):
            by_impl.setdefault(cases[i].new.impl, []).append(i)
    for impl, members in sorted(by_impl.items()):
        if len(members) < 2:
            continue  # its one case-phase is tested already
        runs = [*base_ids, new_id]
        # The interquartile mean of the case-phases' log ratios, per round and per run
        # (of their run values): one case-phase behind a load burst does not move it,
        # a change of most of them does.
        residuals = {u: [logs[i][u] - betas[i] * factors.get(u, 0.0) - centers[i] for i in members] for u in runs}
        per_round = {u: trim_mean(residuals[u], AGGREGATE_TRIM, axis=0) for u in runs}
        per_run = {u: float(trim_mean([np.median(r) for r in residuals[u]], AGGREGATE_TRIM)) for u in runs}
        raw = {u: float(trim_mean([np.median(logs[i][u]) - centers[i] for i in members], AGGREGATE_TRIM))
               for u in runs}
        aggregates[impl] = aggregate(per_round, per_run, raw)
    return rows, aggregates


def _flags(case: _Case) -> str:
    flags = []
    new_noise = timing.phase_noise(case.new, case.phase)
    if new_noise:
        flags.append(f"NEW {new_noise}")
    # Of several BASE runs, a NOISY one widens the measured run-to-run noise, which the
    # test already uses; BASE as a whole is NOISY when most of its runs are.
    noisy_base = [w for w in (timing.phase_noise(r, case.phase) for r in case.base) if w]
    if len(case.base) == 1 and noisy_base:
        flags.append(f"BASE {noisy_base[0]}")
    elif 2 * len(noisy_base) > len(case.base):
        flags.append(f"BASE {len(noisy_base)} of {len(case.base)} runs NOISY ({noisy_base[0]})")
    return "; ".join(flags)


def _accuracy_problems(measured: list[Record], n: Record) -> list[Problem]:
    problems = []
    base_verdicts = {r.verdict for r in measured}
    if "pass" in base_verdicts and n.verdict == "fail":
        problems.append(Problem(n.case_id, "accuracy", "verdict turned from pass to fail"))
    elif n.verdict == "fail":
        problems.append(Problem(n.case_id, "accuracy", f"fails its accuracy check (BASE: "
                                                       f"{'/'.join(sorted(base_verdicts))})"))
    for part, key in ACCURACY_METRICS:
        before = [v for v in (r.accuracy_value(part, key) for r in measured) if v is not None]
        after = n.accuracy_value(part, key)
        if not before or after is None:
            continue
        worst = max(before)
        if after > ERROR_FLOOR and after > ERROR_GROWTH_LIMIT * max(worst, ERROR_FLOOR):
            problems.append(Problem(n.case_id, "accuracy",
                                    f"{part} {key} grew from {worst:.3g} to {after:.3g} "
                                    f"(more than {ERROR_GROWTH_LIMIT:g}×)"))
    return problems


# --- output ---------------------------------------------------------------------------------

ORDER = {"SLOWER": 0, "NOISY": 1, "FASTER": 2, "SAME": 3}
UNIT_WORDS = {
    "runs": "BASE's per-run times (run-to-run noise of this machine)",
    "rounds": "per-round medians of one run per side (changes between whole runs are not measured)",
    "samples": "raw samples of one run per side: back-to-back samples are not independent, so these "
               "p-values are optimistic; compare against a baseline of several runs for a verdict to trust",
}


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.4g} ms"


def _p(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.2g}"


def _noise(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{math.expm1(value):.1%}"


def _run_line(what: str, runs: list[Run]) -> str:
    first = runs[0]
    if len(runs) == 1:
        return (f"{what}: {first.path} ({first.machine}, run {first.context.get('run_id')}, "
                f"commit {str(first.context.get('git_sha'))[:10]}"
                + (f", {rounds_of(first)} rounds" if rounds_of(first) > 1 else "") + ")")
    shas = sorted({str(r.context.get("git_sha"))[:10] for r in runs})
    return (f"{what}: {len(runs)} runs of {first.machine} ({', '.join(str(r.context.get('run_id')) for r in runs)}; "
            f"commit {', '.join(shas)})")


def method_line(result: CompareResult) -> str:
    units = "; ".join(f"{u}: {UNIT_WORDS[u]}" for u in result.units) or "none"
    machine = ("times divided by each round's machine factor (the median ratio over all case-phases), "
               if result.machine is not None else "")
    aggregates = (f" and, apart, over {len(result.aggregates)} aggregates (the whole run, each implementation)"
                  if result.aggregates else "")
    return (f"method: {machine}one-sided t-test on log times, Benjamini-Hochberg over {len(result.rows)} "
            f"case-phases{aggregates} at alpha {result.alpha:g}; a change counts from {result.threshold:.0%} (and "
            f"{result.min_abs * 1e3:g} ms for a case), in every round of NEW (one may miss of 4-6); units: {units}")


def aggregate_lines(result: CompareResult) -> list[str]:
    """The whole run (NEW's machine factor against BASE's) and each implementation."""
    lines = []
    if result.machine is None:
        lines.append("whole run: no machine factor (too few case-phases, or raw samples)")
    for name, c in result.aggregates.items():
        what = ("cases ran at" if name == WHOLE_RUN else "cases, machine factor removed, at")
        lines.append(f"{name + ':':<20} {c.verdict:<6} {what} {c.relative:.3f}× BASE's (rounds "
                     f"{c.round_low:.3f}–{c.round_high:.3f}; BASE's spread {_noise(c.noise)}; p adj {_p(c.p_adjusted)})")
    return lines


def summary_line(result: CompareResult) -> str:
    if result.failed:
        reasons = []
        if WHOLE_RUN in result.slower_aggregates:
            reasons.append("the whole run SLOWER (every case, or most)")
        impls = [name for name in result.slower_aggregates if name != WHOLE_RUN]
        if impls:
            reasons.append(f"implementation(s) SLOWER across their cases: {', '.join(impls)}")
        if result.slower:
            reasons.append(f"{len(result.slower)} case-phase(s) SLOWER")
        kinds: dict[str, int] = {}
        for p in result.fatal:
            kinds[p.kind] = kinds.get(p.kind, 0) + 1
        reasons += [f"{count} {kind} problem(s)" for kind, count in sorted(kinds.items())]
        return "RESULT: FAIL — " + "; ".join(reasons)
    return (f"RESULT: PASS — {len(result.rows)} case-phases compared, none slower beyond the noise and "
            "the thresholds; no accuracy or coverage regression")


def format_report(result: CompareResult, base: list[Run], new: Run, forced: bool) -> str:
    lines = [_run_line("BASE", base), _run_line("NEW ", [new])]
    if forced:
        lines.append("WARNING: --force: comparing runs from different machines; timings reflect hardware too.")
    lines.append(method_line(result))
    lines.extend(aggregate_lines(result))
    lines.append("")
    lines.append(f"{'verdict':<7} {'rel.':>6} {'new/base':>8} {'p adj':>8} {'noise':>6} {'base median':>12} "
                 f"{'new median':>12} {'new IQR':>8}  {'phase':<10} case")
    for row in sorted(result.rows, key=lambda r: (ORDER[r.comparison.verdict], r.case_id, r.phase)):
        c = row.comparison
        extra = "; ".join(x for x in (c.flags, c.note) if x)
        lines.append(f"{c.verdict:<7} {c.relative:>6.3f} {c.ratio:>8.3f} {_p(c.p_adjusted):>8} {_noise(c.noise):>6} "
                     f"{_ms(c.base_median):>12} {_ms(c.new_median):>12} {_new_iqr(row):>8}  "
                     f"{row.phase:<10} {row.label}" + (f"  ({extra})" if extra else ""))
    lines.append("")
    lines.append(f"compared {len(result.rows)} case-phases: "
                 + ", ".join(f"{result.count(v)} {v}" for v in ORDER))
    lines.extend(_geomean_lines(result))
    if result.only_in_new:
        lines.append(f"note: {len(result.only_in_new)} case(s) only in NEW (no baseline yet), e.g. "
                     f"{result.only_in_new[0]}")
    for problem in result.problems:
        lines.append(f"{'REGRESSION' if problem.fatal else 'warning'} [{problem.kind}] {problem.case_id}: "
                     f"{problem.detail}")
    lines.append(summary_line(result))
    return "\n".join(lines)


def _new_iqr(row: TimingRow) -> str:
    spread = row.new_spread
    if spread is None or spread.median <= 0:
        return "—"
    return f"{spread.iqr / spread.median:.0%}"


def _geomean_lines(result: CompareResult) -> list[str]:
    if not result.rows:
        return ["geometric mean: no case in common"]
    lines = [f"geometric mean of new/base median ratios: "
             f"{geometric_mean([r.comparison.ratio for r in result.rows]):.3f} over {len(result.rows)} case-phases"]
    for phase in sorted({r.phase for r in result.rows}):
        ratios = [r.comparison.ratio for r in result.rows if r.phase == phase]
        lines.append(f"  {phase:<16} {geometric_mean(ratios):.3f} ({len(ratios)})")
    for impl in sorted({r.impl for r in result.rows}):
        ratios = [r.comparison.ratio for r in result.rows if r.impl == impl]
        lines.append(f"  {impl:<16} {geometric_mean(ratios):.3f} ({len(ratios)})")
    return lines


def verdict_table(result: CompareResult, every_row: bool = False) -> Table:
    """The verdicts as a report table: the whole run, then what needs attention
    (everything but SAME), or every row."""
    table = Table(
        key="regression_verdict",
        title="Regression verdict against the baseline",
        caption=(summary_line(result) + ". " + method_line(result) + ". rel.: new/base after the machine factor, "
                 "what the verdict judges; noise: BASE's spread in the units tested (standard deviation of log "
                 "time, as a percentage); IQR: NEW's samples."),
        columns=[Column("verdict"), Column("rel.", "×", True), Column("new/base", "×", True),
                 Column("p adj", "", True), Column("noise", "", True), Column("base", "ms", True),
                 Column("new", "ms", True), Column("new IQR", "ms", True), Column("phase"), Column("case"),
                 Column("flags")])
    for name, m in result.aggregates.items():
        what = "the whole run (machine factor)" if name == WHOLE_RUN else f"{name}: all its case-phases"
        table.add(Row([m.verdict, f"{m.relative:.3f}", f"{m.new_median:.3f}", _p(m.p_adjusted), _noise(m.noise), "—",
                       "—", "—", "all", what, f"rounds {m.round_low:.3f}–{m.round_high:.3f}"]))
    shown = [r for r in result.rows if every_row or r.comparison.verdict != "SAME"]
    for row in sorted(shown, key=lambda r: (ORDER[r.comparison.verdict], r.case_id, r.phase)):
        c = row.comparison
        spread = row.new_spread
        iqr = f"{spread.q1 * 1e3:.4g}–{spread.q3 * 1e3:.4g}" if spread else "—"
        table.add(Row([c.verdict, f"{c.relative:.3f}", f"{c.ratio:.3f}", _p(c.p_adjusted), _noise(c.noise),
                       f"{c.base_median * 1e3:.4g}", f"{c.new_median * 1e3:.4g}", iqr, row.phase, row.label,
                       "; ".join(x for x in (c.flags, c.note) if x) or "—"]))
    same = result.count("SAME")
    if not every_row and same:
        table.notes.append(f"{same} case-phase(s) SAME are not listed (verdict.json has every row).")
    for problem in result.problems:
        table.notes.append(f"{'REGRESSION' if problem.fatal else 'warning'} [{problem.kind}] {problem.case_id}: "
                           f"{problem.detail}")
    return table


def result_json(result: CompareResult) -> dict:
    def clean(value):
        """Six significant digits (times are not known better); nan and inf as null."""
        if isinstance(value, float):
            return None if math.isnan(value) or math.isinf(value) else float(f"{value:.6g}")
        return value
    rows = []
    for r in result.rows:
        row = {"case_id": r.case_id, "threads": r.threads, "phase": r.phase,
               **{k: clean(v) for k, v in asdict(r.comparison).items()}}
        spread = r.new_spread
        if spread is not None:
            row["new_q1"], row["new_q3"] = clean(spread.q1), clean(spread.q3)
        rows.append(row)
    return {
        "failed": result.failed, "summary": summary_line(result),
        "method": {"test": "one-sided Student t-test on log times (scipy.stats.ttest_ind)",
                   "adjustment": "Benjamini-Hochberg (scipy.stats.false_discovery_control)",
                   "alpha": result.alpha, "threshold": result.threshold, "min_abs_seconds": result.min_abs,
                   "base_runs": result.base_runs, "units": result.units},
        "counts": {v: result.count(v) for v in ORDER},
        "rows": rows,
        "problems": [asdict(p) for p in result.problems],
        "aggregates": {name: {k: clean(v) for k, v in asdict(c).items()} for name, c in result.aggregates.items()},
        "only_in_base": result.only_in_base, "only_in_new": result.only_in_new,
        "geomean_ratio": geometric_mean([r.comparison.ratio for r in result.rows]),
    }


# --- loading --------------------------------------------------------------------------------

def load_base(paths: list[str | Path]) -> list[Run]:
    """BASE arguments: run directories, results files or baseline folders (several runs)."""
    runs: list[Run] = []
    for path in paths:
        path = Path(path)
        if path.is_dir() and not has_results(path) and baseline_run_dirs(path):
            runs += load_baseline(path)
        else:
            runs.append(load_run(path))
    return runs


def run_compare(base: list[Run], new: Run, threshold: float = DEFAULT_THRESHOLD, alpha: float = DEFAULT_ALPHA,
                phases: tuple[str, ...] | None = DEFAULT_PHASES, min_abs: float = DEFAULT_MIN_ABS,
                allow_missing: bool = False, force: bool = False,
                machine_factor: bool = True) -> tuple[CompareResult, bool]:
    """The machine check, then compare_runs. Returns the result and whether the
    machine check was overridden."""
    forced = False
    for run in base:
        try:
            check_same_machine(run, new)
        except MachineMismatchError:
            if not force:
                raise
            forced = True
    return compare_runs(base, new, threshold, alpha, phases, min_abs, allow_missing, machine_factor), forced


# --- command line ---------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m reports.compare",
        description="Regression verdict of a splinebench run against one or more runs (or the baseline) "
                    "of the same machine.",
        epilog="Exit status: 0 pass, 1 regression, 2 refused or bad input.")
    parser.add_argument("runs", nargs="*", metavar="RUN",
                        help="BASE [BASE ...] NEW (run directories, results files, or a baseline folder); with "
                             "only NEW, BASE is results/<machine>/baseline")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD,
                        help=f"smallest relative change that counts (default {DEFAULT_THRESHOLD:g})")
    parser.add_argument("--min-abs-ms", type=float, default=DEFAULT_MIN_ABS * 1e3,
                        help=f"smallest absolute change of the median that counts, in ms "
                             f"(default {DEFAULT_MIN_ABS * 1e3:g})")
    parser.add_argument("--alpha", type=float, default=DEFAULT_ALPHA,
                        help=f"false discovery rate over all case-phases (default {DEFAULT_ALPHA:g})")
    parser.add_argument("--no-machine-factor", action="store_true",
                        help="judge the times as measured, without dividing by each round's machine factor")
    parser.add_argument("--allow-missing", action="store_true",
                        help="cases, phases or implementations of BASE missing or skipped in NEW are warnings, "
                             "not failures (errors still fail)")
    parser.add_argument("--force", action="store_true",
                        help="compare runs from different machines anyway / promote an unhealthy run")
    parser.add_argument("--phases", default=",".join(DEFAULT_PHASES),
                        help="comma-separated phases to compare, or 'all' (default: prefilter,evaluate)")
    parser.add_argument("--json", type=Path, default=None, help="also write the verdicts as JSON here")
    parser.add_argument("--markdown", type=Path, default=None, help="also write the verdicts as Markdown here")
    parser.add_argument("--promote", type=Path, nargs="+", default=None, metavar="RUN_DIR",
                        help="make these runs the baseline of their machine (results/<machine>/baseline) and exit")
    parser.add_argument("--add", action="store_true",
                        help="with --promote: keep the baseline's runs and add these to them")
    parser.add_argument("--results-root", type=Path, default=DEFAULT_RESULTS_ROOT,
                        help="where results/<machine>/baseline lives (default: the repository's results/)")
    return parser


def markdown_report(result: CompareResult, base: list[Run], new: Run, forced: bool) -> str:
    from .render_markdown import render_markdown
    head = [f"# Regression verdict: {new.context.get('run_id')} ({new.machine})", "",
            f"**{summary_line(result)}**", "", _run_line("BASE", base), "", _run_line("NEW", [new]), "",
            "```", *aggregate_lines(result), "```", ""]
    if forced:
        head += ["WARNING: --force: runs from different machines; timings reflect hardware too.", ""]
    return "\n".join(head) + "\n" + render_markdown(verdict_table(result)) + "\n```\n" + \
        "\n".join(_geomean_lines(result)) + "\n```\n"


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.promote is not None:
            if args.runs:
                parser.error("--promote takes no BASE/NEW arguments")
            target, warnings = promote(args.promote, args.results_root, force=args.force, add=args.add)
            print(f"promoted {len(args.promote)} run(s) to baseline {target}")
            for warning in warnings:
                print(f"warning: {warning}")
            return 0
        if args.add:
            parser.error("--add goes with --promote")
        if not 0 < args.threshold < 1:
            raise ReportError(f"--threshold must be in (0, 1), got {args.threshold}")
        if not 0 < args.alpha < 1:
            raise ReportError(f"--alpha must be in (0, 1), got {args.alpha}")
        if not args.min_abs_ms >= 0:
            raise ReportError(f"--min-abs-ms must be >= 0, got {args.min_abs_ms}")
        if len(args.runs) == 1:
            new = load_run(args.runs[0])
            base_path = baseline_dir(args.results_root, new.machine)
            if not base_path.exists():
                raise ReportError(f"no baseline for machine {new.machine!r} at {base_path}; create one with "
                                  f"`python -m reports.compare --promote {args.runs[0]} [more runs of the same "
                                  "code ...]`")
            base = load_baseline(base_path)
        elif len(args.runs) >= 2:
            base, new = load_base(args.runs[:-1]), load_run(args.runs[-1])
        else:
            parser.error("give BASE [BASE ...] NEW, or NEW alone to compare with its machine's baseline")
        phases = None if args.phases.strip() == "all" else tuple(p for p in args.phases.split(",") if p)
        result, forced = run_compare(base, new, args.threshold, args.alpha, phases, args.min_abs_ms * 1e-3,
                                     args.allow_missing, args.force, not args.no_machine_factor)
        print(format_report(result, base, new, forced))
        if args.json is not None:
            args.json.write_text(json.dumps(result_json(result), indent=1) + "\n", encoding="utf-8")
        if args.markdown is not None:
            args.markdown.write_text(markdown_report(result, base, new, forced), encoding="utf-8")
        return 1 if result.failed else 0
    except ReportError as exc:
        print(f"reports.compare: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
