"""python -m reports.compare BASE NEW [--threshold 0.05] [--alpha 0.01] [--force]
python -m reports.compare NEW                      (BASE = results/<machine>/baseline)
python -m reports.compare --promote RUN_DIR        (make RUN_DIR its machine's baseline)

Matches the records of two runs by case, and for each timed phase reports
FASTER / SLOWER / SAME / NOISY with the ratio of medians (new / base) and a
Mann-Whitney U p-value over the raw repetition samples (see compare_stats).
Also checks accuracy: a verdict that turned from pass to fail, or an error that
grew beyond 2x, is a regression.

Exit status: 0 no regression; 1 a regression (a case significantly slower by more
than the threshold, an accuracy regression, or a case that was measured in BASE
and is skipped or failing in NEW); 2 refused (different machines without
--force) or bad input.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from .baseline import DEFAULT_RESULTS_ROOT, baseline_dir, promote
from .compare_stats import PhaseComparison, compare_samples, geometric_mean
from .errors import MachineMismatchError, ReportError
from .loader import Record, Run, load_run

DEFAULT_PHASES = ("prefilter", "evaluate")
ERROR_GROWTH_LIMIT = 2.0
# Errors below this are at the oracle's own precision (double epsilon): growth
# among them is rounding noise of the reference, not a regression.
ERROR_FLOOR = 2.0 ** -52
ACCURACY_METRICS = (("interp", "max_rel_to_maxf"), ("prefilter", "rel_l2"))


@dataclass
class TimingRow:
    case_id: str
    threads: int
    phase: str
    comparison: PhaseComparison


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
    only_in_base: list[str]
    only_in_new: list[str]
    threshold: float
    alpha: float

    @property
    def slower(self) -> list[TimingRow]:
        return [r for r in self.rows if r.comparison.verdict == "SLOWER"]

    @property
    def failed(self) -> bool:
        return bool(self.slower) or any(p.fatal for p in self.problems)


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


def compare_runs(base: Run, new: Run, threshold: float, alpha: float,
                 phases: tuple[str, ...] | None = DEFAULT_PHASES) -> CompareResult:
    base_by_key = _index(base)
    new_by_key = _index(new)
    rows: list[TimingRow] = []
    problems: list[Problem] = []
    for key in sorted(set(base_by_key) & set(new_by_key)):
        b, n = base_by_key[key], new_by_key[key]
        problems += _status_problems(b, n)
        if b.ok and n.ok:
            problems += _accuracy_problems(b, n)
            names = sorted(set(b.phases) & set(n.phases))
            for phase in names if phases is None else [p for p in phases if p in names]:
                comparison = compare_samples(list(b.phases[phase].samples), list(n.phases[phase].samples),
                                             threshold, alpha)
                rows.append(TimingRow(b.case_id, b.threads, phase, comparison))
    for key in sorted(set(new_by_key) - set(base_by_key)):
        record = new_by_key[key]
        if record.ok and record.verdict == "fail":
            problems.append(Problem(record.case_id, "accuracy",
                                    "new case (not in BASE) fails its accuracy check"))
    return CompareResult(rows, problems,
                         only_in_base=[_label(k) for k in sorted(set(base_by_key) - set(new_by_key))],
                         only_in_new=[_label(k) for k in sorted(set(new_by_key) - set(base_by_key))],
                         threshold=threshold, alpha=alpha)


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


def _status_problems(b: Record, n: Record) -> list[Problem]:
    if b.ok and not n.ok:
        return [Problem(n.case_id, "status", f"measured in BASE, {n.status} in NEW: {n.message or 'no message'}")]
    if not b.ok and n.status == "error":
        return [Problem(n.case_id, "status", f"error in NEW (was {b.status}): {n.message or 'no message'}")]
    return []


def _accuracy_problems(b: Record, n: Record) -> list[Problem]:
    problems = []
    if b.verdict == "pass" and n.verdict == "fail":
        problems.append(Problem(n.case_id, "accuracy", "verdict turned from pass to fail"))
    elif n.verdict == "fail":
        problems.append(Problem(n.case_id, "accuracy", f"fails its accuracy check (BASE: {b.verdict})"))
    for part, key in ACCURACY_METRICS:
        before, after = b.accuracy_value(part, key), n.accuracy_value(part, key)
        if before is None or after is None:
            continue
        if after > ERROR_FLOOR and after > ERROR_GROWTH_LIMIT * max(before, ERROR_FLOOR):
            problems.append(Problem(n.case_id, "accuracy",
                                    f"{part} {key} grew from {before:.3g} to {after:.3g} "
                                    f"(more than {ERROR_GROWTH_LIMIT:g}×)"))
    return problems


# --- output ---------------------------------------------------------------------------------

def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.4g} ms"


def format_report(result: CompareResult, base: Run, new: Run, forced: bool) -> str:
    lines = [f"BASE: {base.path} ({base.machine}, run {base.context.get('run_id')}, "
             f"commit {str(base.context.get('git_sha'))[:10]})",
             f"NEW:  {new.path} ({new.machine}, run {new.context.get('run_id')}, "
             f"commit {str(new.context.get('git_sha'))[:10]})"]
    if forced:
        lines.append("WARNING: --force: comparing runs from different machines; timings reflect hardware too.")
    lines.append(f"threshold {result.threshold:.1%}, alpha {result.alpha:g} (Mann-Whitney U, two-sided)")
    lines.append("")
    header = f"{'verdict':<7} {'new/base':>8} {'p':>9} {'base median':>12} {'new median':>12}  {'phase':<10} case"
    lines.append(header)
    order = {"SLOWER": 0, "NOISY": 1, "FASTER": 2, "SAME": 3}
    for row in sorted(result.rows, key=lambda r: (order[r.comparison.verdict], r.case_id, r.phase)):
        c = row.comparison
        p = "n/a" if math.isnan(c.p_value) else f"{c.p_value:.2g}"
        case = row.case_id if row.threads == 1 else f"{row.case_id} [threads {row.threads}]"
        lines.append(f"{c.verdict:<7} {c.ratio:>8.3f} {p:>9} {_ms(c.base_median):>12} {_ms(c.new_median):>12}  "
                     f"{row.phase:<10} {case}" + (f"  ({c.note})" if c.note else ""))
    lines.append("")
    counts = {v: sum(1 for r in result.rows if r.comparison.verdict == v) for v in order}
    lines.append(f"compared {len(result.rows)} case-phases: " + ", ".join(f"{counts[v]} {v}" for v in order))
    lines.extend(_geomean_lines(result))
    if result.only_in_base:
        lines.append(f"note: {len(result.only_in_base)} case(s) only in BASE (not run in NEW), e.g. "
                     f"{result.only_in_base[0]}")
    if result.only_in_new:
        lines.append(f"note: {len(result.only_in_new)} case(s) only in NEW (no baseline yet), e.g. "
                     f"{result.only_in_new[0]}")
    for problem in result.problems:
        lines.append(f"{'REGRESSION' if problem.fatal else 'warning'} [{problem.kind}] {problem.case_id}: "
                     f"{problem.detail}")
    if result.failed:
        reasons = []
        if result.slower:
            reasons.append(f"{len(result.slower)} case-phase(s) significantly slower by more than "
                           f"{result.threshold:.0%} (p < {result.alpha:g})")
        fatal = [p for p in result.problems if p.fatal]
        if fatal:
            reasons.append(f"{len(fatal)} accuracy/status regression(s)")
        lines.append("RESULT: FAIL — " + "; ".join(reasons))
    else:
        lines.append("RESULT: PASS — no significant slowdown beyond the threshold, no accuracy regression")
    return "\n".join(lines)


def _geomean_lines(result: CompareResult) -> list[str]:
    if not result.rows:
        return ["geometric mean: no case in common"]
    lines = []
    overall = geometric_mean([r.comparison.ratio for r in result.rows])
    lines.append(f"geometric mean of new/base median ratios: {overall:.3f} over {len(result.rows)} case-phases")
    for phase in sorted({r.phase for r in result.rows}):
        ratios = [r.comparison.ratio for r in result.rows if r.phase == phase]
        lines.append(f"  {phase:<16} {geometric_mean(ratios):.3f} ({len(ratios)})")
    impls = sorted({r.case_id.split("/")[0] for r in result.rows})
    for impl in impls:
        ratios = [r.comparison.ratio for r in result.rows if r.case_id.split("/")[0] == impl]
        lines.append(f"  {impl:<16} {geometric_mean(ratios):.3f} ({len(ratios)})")
    return lines


def result_json(result: CompareResult) -> dict:
    def clean(value):
        return None if isinstance(value, float) and (math.isnan(value) or math.isinf(value)) else value
    return {
        "threshold": result.threshold, "alpha": result.alpha, "failed": result.failed,
        "rows": [{"case_id": r.case_id, "threads": r.threads, "phase": r.phase,
                  **{k: clean(v) for k, v in asdict(r.comparison).items()}} for r in result.rows],
        "problems": [asdict(p) for p in result.problems],
        "only_in_base": result.only_in_base, "only_in_new": result.only_in_new,
        "geomean_ratio": geometric_mean([r.comparison.ratio for r in result.rows]),
    }


# --- command line ---------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m reports.compare",
        description="Regression verdict between two splinebench runs of the same machine.",
        epilog="Exit status: 0 pass, 1 regression, 2 refused or bad input.")
    parser.add_argument("runs", nargs="*", metavar="RUN",
                        help="BASE NEW (run directories or results.json files); with only NEW, BASE is "
                             "results/<machine>/baseline")
    parser.add_argument("--threshold", type=float, default=0.05,
                        help="relative slowdown that counts (default 0.05 = 5%%)")
    parser.add_argument("--alpha", type=float, default=0.01, help="significance level (default 0.01)")
    parser.add_argument("--force", action="store_true",
                        help="compare runs from different machines anyway / promote an unhealthy run")
    parser.add_argument("--phases", default=",".join(DEFAULT_PHASES),
                        help="comma-separated phases to compare, or 'all' (default: prefilter,evaluate)")
    parser.add_argument("--json", type=Path, default=None, help="also write the verdicts as JSON here")
    parser.add_argument("--promote", type=Path, default=None, metavar="RUN_DIR",
                        help="make RUN_DIR the baseline of its machine (results/<machine>/baseline) and exit")
    parser.add_argument("--results-root", type=Path, default=DEFAULT_RESULTS_ROOT,
                        help="where results/<machine>/baseline lives (default: the repository's results/)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if args.promote is not None:
            if args.runs:
                parser.error("--promote takes no BASE/NEW arguments")
            target = promote(args.promote, args.results_root, force=args.force)
            print(f"promoted {args.promote} to baseline {target}")
            return 0
        if not 0 < args.threshold < 1:
            raise ReportError(f"--threshold must be in (0, 1), got {args.threshold}")
        if not 0 < args.alpha < 1:
            raise ReportError(f"--alpha must be in (0, 1), got {args.alpha}")
        if len(args.runs) == 1:
            new = load_run(args.runs[0])
            base_path = baseline_dir(args.results_root, new.machine)
            if not base_path.exists():
                raise ReportError(f"no baseline for machine {new.machine!r} at {base_path}; create one with "
                                  f"`python -m reports.compare --promote {args.runs[0]}`")
            base = load_run(base_path)
        elif len(args.runs) == 2:
            base, new = load_run(args.runs[0]), load_run(args.runs[1])
        else:
            parser.error("give BASE NEW, or NEW alone to compare with its machine's baseline")
        forced = False
        try:
            check_same_machine(base, new)
        except MachineMismatchError:
            if not args.force:
                raise
            forced = True
        phases = None if args.phases.strip() == "all" else tuple(p for p in args.phases.split(",") if p)
        result = compare_runs(base, new, args.threshold, args.alpha, phases)
        print(format_report(result, base, new, forced))
        if args.json is not None:
            args.json.write_text(json.dumps(result_json(result), indent=1) + "\n", encoding="utf-8")
        return 1 if result.failed else 0
    except ReportError as exc:
        print(f"reports.compare: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
