"""python -m reports.compare BASE [BASE ...] NEW [options]
python -m reports.compare NEW                      (BASE = results/<machine>/baseline)
python -m reports.compare --promote RUN_DIR [RUN_DIR ...] [--add]

Matches the records of NEW with those of BASE (one run, several runs, or a
baseline folder holding several) by case and thread count, and for each timed
phase gives SLOWER / FASTER / NOISY / SAME with the ratio of medians (new / base):
a t-test of NEW against BASE's run-to-run noise, adjusted for the number of
case-phases compared, and a minimum effect both relative and absolute (the method
is in compare_stats). Also checks accuracy (a verdict turned from pass to fail, an
error grown beyond 2x) and coverage (everything BASE measured must be measured in
NEW again).

Exit status: 0 no regression; 1 a regression: a case-phase SLOWER, an accuracy
regression, an error in NEW, or a case, phase or implementation measured in BASE
and missing or skipped in NEW (unless --allow-missing), or nothing compared at
all; 2 refused (different machines without --force) or bad input.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import timing
from .baseline import (DEFAULT_RESULTS_ROOT, baseline_dir, baseline_run_dirs, has_results, load_baseline,
                       promote)
from .compare_stats import (PhaseComparison, compare_case, decide, geometric_mean, round_medians, run_time)
from .errors import MachineMismatchError, ReportError
from .loader import Record, Run, load_run
from .table_model import Column, Row, Table
from .timing import rounds_of

DEFAULT_PHASES = ("prefilter", "evaluate")
DEFAULT_THRESHOLD = 0.10
DEFAULT_MIN_ABS = 1e-5  # seconds
DEFAULT_ALPHA = 0.01
ERROR_GROWTH_LIMIT = 2.0
# Errors below this are at the oracle's own precision (double epsilon): growth
# among them is rounding noise of the reference, not a regression.
ERROR_FLOOR = 2.0 ** -52
ACCURACY_METRICS = (("interp", "max_rel_to_maxf"), ("prefilter", "rel_l2"))
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

    @property
    def slower(self) -> list[TimingRow]:
        return [r for r in self.rows if r.comparison.verdict == "SLOWER"]

    @property
    def fatal(self) -> list[Problem]:
        return [p for p in self.problems if p.fatal]

    @property
    def failed(self) -> bool:
        return bool(self.slower) or bool(self.fatal)

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


def _index(run: Run) -> dict[tuple, Record]:
    by_key: dict[tuple, Record] = {}
    for record in run.records:
        if record.match_key in by_key:
            raise ReportError(f"{run.path}: case {record.case_id} (threads {record.threads}) appears twice")
        by_key[record.match_key] = record
    return by_key


def _label(key: tuple) -> str:
    case_id, threads = key
    return case_id if threads == 1 else f"{case_id} [threads {threads}]"


def compare_runs(base: Run | list[Run], new: Run, threshold: float = DEFAULT_THRESHOLD,
                 alpha: float = DEFAULT_ALPHA, phases: tuple[str, ...] | None = DEFAULT_PHASES,
                 min_abs: float = DEFAULT_MIN_ABS, allow_missing: bool = False) -> CompareResult:
    base_runs = [base] if isinstance(base, Run) else list(base)
    base_indexes = [_index(run) for run in base_runs]
    new_by_key = _index(new)
    base_keys = sorted({key for index in base_indexes for key in index})
    problems: list[Problem] = []
    pending: list[TimingRow] = []
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
            pending.append(_prepare(measured, n, phase))

    for impl, cases in sorted(missing.items()):
        if not any(r.impl == impl for r in new.records):
            test_only = impl.startswith(TEST_ONLY_PREFIX)
            problems.append(Problem(impl, "coverage", f"implementation measured in BASE ({len(cases)} case(s)) "
                                                      "has no record in NEW"
                                    + (" (test-only: not in product builds)" if test_only else ""),
                                    not (allow_missing or test_only)))
        else:
            for case in cases:
                problems.append(Problem(case, "coverage", "measured in BASE, not run in NEW", not allow_missing))
    only_in_new = []
    only_in_base = sorted(case for cases in missing.values() for case in cases)
    for key in sorted(set(new_by_key) - set(base_keys)):
        record = new_by_key[key]
        only_in_new.append(_label(key))
        if record.status == "error":
            problems.append(Problem(record.case_id, "status", f"new case (not in BASE) errors: "
                                                              f"{record.message or 'no message'}"))
        elif record.ok and record.verdict == "fail":
            problems.append(Problem(record.case_id, "accuracy", "new case (not in BASE) fails its accuracy check"))
    if not pending:
        problems.append(Problem("-", "coverage", "nothing was compared: BASE and NEW share no measured "
                                                 "case-phase"))

    for row, comparison in zip(pending, decide([r.comparison for r in pending], alpha, threshold, min_abs)):
        row.comparison = comparison
    return CompareResult(pending, problems, threshold, alpha, min_abs, len(base_runs), only_in_base, only_in_new)


def _prepare(measured: list[Record], n: Record, phase: str) -> TimingRow:
    """The unadjusted comparison of one case-phase, in the best units the runs allow."""
    with_phase = [r for r in measured if phase in r.phases]
    base_times = [run_time(r.phases[phase].samples, rounds_of(r.run)) for r in with_phase]
    new_samples = n.phases[phase].samples
    new_time = run_time(new_samples, rounds_of(n.run))
    b0 = with_phase[0]
    if len(with_phase) >= 2:
        unit, base_units, new_units = "runs", base_times, [new_time]
    elif rounds_of(b0.run) >= 2 and rounds_of(n.run) >= 2:
        unit = "rounds"
        base_units = round_medians(b0.phases[phase].samples, rounds_of(b0.run))
        new_units = round_medians(new_samples, rounds_of(n.run))
    else:
        unit, base_units, new_units = "samples", list(b0.phases[phase].samples), list(new_samples)
    flags = []
    new_noise = timing.phase_noise(n, phase)
    if new_noise:
        flags.append(f"NEW {new_noise}")
    # Of several BASE runs, a NOISY one widens the measured run-to-run noise, which the
    # test already uses; BASE as a whole is NOISY when most of its runs are.
    noisy_base = [w for w in (timing.phase_noise(r, phase) for r in with_phase) if w]
    if len(with_phase) == 1 and noisy_base:
        flags.append(f"BASE {noisy_base[0]}")
    elif 2 * len(noisy_base) > len(with_phase):
        flags.append(f"BASE {len(noisy_base)} of {len(with_phase)} runs NOISY ({noisy_base[0]})")
    comparison = compare_case(base_units, new_units, unit, statistics.median(base_times), new_time,
                              "; ".join(flags), round_medians(new_samples, rounds_of(n.run)))
    return TimingRow(n.case_id, n.threads, phase, comparison, timing.phase_spread(n, phase))


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
    return (f"method: one-sided t-test on log times, Benjamini-Hochberg over {len(result.rows)} case-phases "
            f"at alpha {result.alpha:g}; a change counts from {result.threshold:.0%} and "
            f"{result.min_abs * 1e3:g} ms, in every round of NEW; units: {units}")


def summary_line(result: CompareResult) -> str:
    if result.failed:
        reasons = []
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
    lines.append("")
    lines.append(f"{'verdict':<7} {'new/base':>8} {'p adj':>8} {'noise':>6} {'base median':>12} "
                 f"{'new median':>12} {'new IQR':>8}  {'phase':<10} case")
    for row in sorted(result.rows, key=lambda r: (ORDER[r.comparison.verdict], r.case_id, r.phase)):
        c = row.comparison
        extra = "; ".join(x for x in (c.flags, c.note) if x)
        lines.append(f"{c.verdict:<7} {c.ratio:>8.3f} {_p(c.p_adjusted):>8} {_noise(c.noise):>6} "
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
    """The verdicts as a report table: what needs attention (everything but SAME),
    or every row."""
    table = Table(
        key="regression_verdict",
        title="Regression verdict against the baseline",
        caption=(summary_line(result) + ". " + method_line(result) + ". noise: BASE's run-to-run spread "
                 "(standard deviation of log time, as a percentage); IQR: NEW's samples."),
        columns=[Column("verdict"), Column("new/base", "×", True), Column("p adj", "", True),
                 Column("noise", "", True), Column("base", "ms", True), Column("new", "ms", True),
                 Column("new IQR", "ms", True), Column("phase"), Column("case"), Column("flags")])
    shown = [r for r in result.rows if every_row or r.comparison.verdict != "SAME"]
    for row in sorted(shown, key=lambda r: (ORDER[r.comparison.verdict], r.case_id, r.phase)):
        c = row.comparison
        spread = row.new_spread
        iqr = f"{spread.q1 * 1e3:.4g}–{spread.q3 * 1e3:.4g}" if spread else "—"
        table.add(Row([c.verdict, f"{c.ratio:.3f}", _p(c.p_adjusted), _noise(c.noise), f"{c.base_median * 1e3:.4g}",
                       f"{c.new_median * 1e3:.4g}", iqr, row.phase, row.label,
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
                allow_missing: bool = False, force: bool = False) -> tuple[CompareResult, bool]:
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
    return compare_runs(base, new, threshold, alpha, phases, min_abs, allow_missing), forced


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
            f"**{summary_line(result)}**", "", _run_line("BASE", base), "", _run_line("NEW", [new]), ""]
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
                                     args.allow_missing, args.force)
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
