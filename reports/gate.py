"""python -m reports.gate [--suite nightly] [--rounds 5] [--bin PATH] [--machine LABEL]
python -m reports.gate --judge RUN_DIR

The nightly regression gate (`./run_all.sh nightly` calls it):
1. runs the suite ROUNDS times with `splinebench run` and merges the rounds into
   one run folder, results/<machine>/<run-id>/ (gate_rounds: each round is one
   burst per case, so the rounds interleave the cases in time and a load burst
   disturbs one round, not the run's time);
2. compares it with results/<machine>/baseline/ (reports.compare; the method is
   in compare_stats);
3. writes the report (index.html) with the verdict and a trend of every case over
   the machine's earlier runs of the suite first, and the verdict as
   report/verdict.md and report/verdict.json;
4. prints the verdict and how to promote a new baseline.

--judge does 2-4 for a run folder that exists (made by the gate, or any run).

Before any round, the machine label and the baseline are checked: a label that is
not one folder name, a baseline that does not load (or lost a run PROMOTED.json
lists) or holds another suite's runs end the gate at once.

Exit status: 0 pass; 1 regression (see reports.compare); 2 no baseline yet, the
suite could not run, or bad input; 128 + the signal (130 for Ctrl-C) when
interrupted, after removing the unfinished rounds.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

from .baseline import (DEFAULT_RESULTS_ROOT, RECOMMENDED_RUNS, REPO_ROOT, baseline_dir, check_same_suite,
                       load_baseline, validate_machine_label)
from .build import build_report
from .compare import (DEFAULT_ALPHA, DEFAULT_MIN_ABS, DEFAULT_PHASES, DEFAULT_THRESHOLD, CompareResult,
                      format_report, markdown_report, result_json, run_compare, verdict_table)
from .errors import MachineMismatchError, ReportError
from .gate_rounds import merge_round_dirs
from .loader import RESULTS_FILE, Run, load_run
from .plots.trend import plot_trend
from .table_model import Column, Row, Table
from .timing import rounds_of
from .trend import machine_history

DEFAULT_SUITE = "nightly"
DEFAULT_ROUNDS = 5
VERDICT_MD, VERDICT_JSON = "verdict.md", "verdict.json"


def _display(path: Path) -> str:
    """A path as a command line in the repository root would write it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived: unwinds like KeyboardInterrupt, so that every
    `finally` and cleanup runs, and carries the signal for the exit status."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_interrupted(signum, _frame):
    raise Interrupted(signum)


# --- 1. rounds ------------------------------------------------------------------------------

def _wait_or_stop(proc: subprocess.Popen) -> int:
    """Waits for a round; when the gate is interrupted meanwhile, hands the signal on
    (the round's own interrupt handling removes its temporaries), waits a little for
    it to end, then kills it."""
    try:
        return proc.wait()
    except BaseException as exc:
        if proc.poll() is None:
            signum = exc.signum if isinstance(exc, Interrupted) else signal.SIGINT
            try:
                proc.send_signal(signum)
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        raise

def run_rounds(binary: Path, suite_args: list[str], rounds: int, machine: str, results_root: Path,
               extra: list[str] = (), env: dict | None = None) -> Path:
    """Runs the suite `rounds` times and merges the rounds into one run folder under
    results_root/<machine>/, named by round 1's run id. The round folders live in a
    hidden folder beside it while the gate runs, and are removed once merged."""
    machine_dir = Path(results_root) / machine
    staging = machine_dir / f".gate-rounds-{os.getpid()}"
    staging.mkdir(parents=True, exist_ok=False)
    round_dirs, loads = [], []
    try:
        for index in range(rounds):
            run_dir_file = staging / f"round{index + 1}.path"
            command = [str(binary), "run", *suite_args, "--results-dir", str(staging / "runs"), "--machine",
                       machine, "--run-dir-file", str(run_dir_file), *extra]
            loads.append([round(v, 2) for v in os.getloadavg()])
            print(f"== round {index + 1} of {rounds}: {shlex.join(command)}", file=sys.stderr, flush=True)
            returncode = _wait_or_stop(subprocess.Popen(command, env=env))
            # A run with failed or errored cases exits non-zero but is complete; the
            # compare reports those cases. Without results.json the round did not run.
            run_dir = Path(run_dir_file.read_text().strip()) if run_dir_file.exists() else None
            if run_dir is None or not (run_dir / RESULTS_FILE).exists():
                raise ReportError(f"round {index + 1}: `splinebench run` exited with status {returncode} and "
                                  f"wrote no results (rounds so far are in {staging})")
            round_dirs.append(run_dir)
        run_id = json.loads((round_dirs[0] / RESULTS_FILE).read_text(encoding="utf-8"))["context"]["run_id"]
        target = machine_dir / run_id
        suffix = 2
        while target.exists():
            target = machine_dir / f"{run_id}-{suffix}"
            suffix += 1
        merge_round_dirs(round_dirs, target, loads)
    except ReportError:
        raise  # the rounds stay for a look: the message names their folder
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)  # interrupted: nothing half-made stays
        raise
    shutil.rmtree(staging)
    return target


# --- 2-4. verdict, report, advice -----------------------------------------------------------

def _same_commit_runs(history: list[Run], new: Run) -> list[Run]:
    key = (new.context.get("git_sha"), bool(new.context.get("git_dirty")))
    return [r for r in history if (r.context.get("git_sha"), bool(r.context.get("git_dirty"))) == key]


def promote_advice(new: Run, history: list[Run], base: list[Run] | None) -> list[str]:
    """How to make a baseline from this commit's runs (the command, or how many runs
    are still missing for one)."""
    mine = _same_commit_runs(history, new)
    folders = " ".join(_display(r.path) for r in mine[-RECOMMENDED_RUNS:])
    lines = []
    if new.context.get("git_dirty"):
        lines.append("Note: this run was made from a tree with uncommitted changes; a baseline should come from "
                     "a commit.")
    if len(mine) >= RECOMMENDED_RUNS:
        lines.append(f"To make this commit the baseline (its last {RECOMMENDED_RUNS} runs on this machine):")
        lines.append(f"  .venv/bin/python -m reports.compare --promote {folders}")
    else:
        lines.append(f"To make this commit the baseline, run `./run_all.sh nightly` "
                     f"{RECOMMENDED_RUNS - len(mine)} more time(s) on it (a baseline wants {RECOMMENDED_RUNS} runs "
                     "of one commit to measure the run-to-run noise), then:")
        lines.append(f"  .venv/bin/python -m reports.compare --promote {folders} <the other runs>")
    if base and {(r.context.get("git_sha"), bool(r.context.get("git_dirty"))) for r in base} == \
            {(new.context.get("git_sha"), bool(new.context.get("git_dirty")))}:
        lines.append("Or add this run to the current baseline (same commit):")
        lines.append(f"  .venv/bin/python -m reports.compare --promote {_display(new.path)} --add")
    return lines


def verdict_json_text(doc: dict) -> str:
    """The verdict as JSON with one row per line: readable in a diff, and a third
    of the size of one field per line (the gate keeps one per run)."""
    head = {k: v for k, v in doc.items() if k != "rows"}
    rows = ",\n  ".join(json.dumps(row, separators=(",", ":")) for row in doc.get("rows", []))
    text = json.dumps(head, indent=1)
    return text[:-1].rstrip() + ',\n "rows": [\n  ' + rows + "\n ]\n}\n"


def _load_note(run: Run) -> str:
    info = run.context.get("rounds")
    loads = [r.get("loadavg") for r in info.get("runs", [])] if isinstance(info, dict) else []
    if not loads or any(not isinstance(l, list) or not l for l in loads):
        return ""
    return ("Load average (1 min) when each round started: " + ", ".join(f"{l[0]:.2f}" for l in loads)
            + f" on {run.context.get('cpu_threads', '?')} hardware threads.")


def judge(run_dir: Path, results_root: Path = DEFAULT_RESULTS_ROOT, threshold: float = DEFAULT_THRESHOLD,
          alpha: float = DEFAULT_ALPHA, min_abs: float = DEFAULT_MIN_ABS, allow_missing: bool = False,
          phases: tuple[str, ...] = DEFAULT_PHASES, build: bool = True, force: bool = False) -> int:
    """Steps 2-4 for an existing run folder; returns the exit status. `force`
    compares with a baseline made on other hardware (the verdict says so)."""
    new = load_run(run_dir)
    suite = str(new.context.get("suite"))
    base_path = baseline_dir(results_root, new.machine)
    base = load_baseline(base_path) if base_path.exists() else None
    result: CompareResult | None = None
    forced = False
    if base is not None:
        check_same_suite(base, suite, f"run {new.context.get('run_id')}")
        try:
            result, forced = run_compare(base, new, threshold, alpha, phases, min_abs, allow_missing, force)
        except MachineMismatchError as exc:
            raise MachineMismatchError(
                f"{exc} The run is kept at {_display(new.path)}: judge it anyway with `python -m reports.gate "
                f"--judge {shlex.quote(_display(new.path))} --force`, or promote a baseline made on this "
                "machine.") from exc
    report_dir = Path(new.path) / "report"
    report_dir.mkdir(parents=True, exist_ok=True)
    history = machine_history(results_root, new.machine, suite).runs
    slower = {(r.case_id, r.threads, r.phase) for r in result.slower} if result else set()
    trend = plot_trend(history, new, base or [], report_dir / "plots", threshold, slower, phases) if build else None

    if result is not None:
        status = 1 if result.failed else 0
        table = verdict_table(result)
        text = format_report(result, base, new, forced=forced)
        markdown = markdown_report(result, base, new, forced=forced)
        doc = result_json(result)
    else:
        status = 2
        summary = (f"RESULT: NO BASELINE — machine {new.machine!r} has no baseline at {_display(base_path)}; "
                   "nothing was compared")
        table = Table("regression_verdict", "Regression verdict against the baseline", summary,
                      [Column("verdict")], [Row(["NO BASELINE"])])
        text = summary
        markdown = f"# Regression verdict: {new.context.get('run_id')} ({new.machine})\n\n**{summary}**\n"
        doc = {"failed": True, "summary": summary, "rows": [], "problems": []}
    advice = promote_advice(new, history, base)
    load = _load_note(new)
    if load:
        table.notes.append(load)
    table.notes.extend(advice)
    doc.update({"exit_status": status, "run": str(new.context.get("run_id")), "machine": new.machine,
                "suite": suite, "rounds": rounds_of(new),
                "baseline_runs": [str(r.context.get("run_id")) for r in base or []]})
    (report_dir / VERDICT_JSON).write_text(verdict_json_text(doc), encoding="utf-8")
    (report_dir / VERDICT_MD).write_text(markdown + ("\n" + load + "\n" if load else "")
                                         + "\n" + "\n".join(advice) + "\n", encoding="utf-8")
    index = None
    if build:
        command = "python -m reports.gate --judge " + shlex.quote(_display(new.path))
        index = build_report([new], report_dir, command, first_sections=[("Regression gate", [table, trend])])

    print(text)
    if load:
        print(load)
    print()
    for line in advice:
        print(line)
    print()
    print(f"verdict: {_display(report_dir / VERDICT_MD)} (and {VERDICT_JSON})")
    if index is not None:
        print(f"report:  {_display(index)}")
    return status


# --- command line ---------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m reports.gate",
        description="The nightly regression gate: run the suite in rounds, compare with the machine's baseline, "
                    "write the verdict and the trend into the run's report.",
        epilog="Exit status: 0 pass, 1 regression, 2 no baseline, the suite did not run, or bad input.")
    parser.add_argument("--suite", default=DEFAULT_SUITE, help=f"suite name (default {DEFAULT_SUITE})")
    parser.add_argument("--suite-file", type=Path, default=None, help="suite definition file (instead of --suite)")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                        help=f"times the suite is run and merged into one run (default {DEFAULT_ROUNDS})")
    parser.add_argument("--bin", type=Path,
                        default=Path(os.environ.get("SPLINEBENCH_BIN", REPO_ROOT / "build" / "bin" / "splinebench")),
                        help="the splinebench binary (default $SPLINEBENCH_BIN, else build/bin/splinebench)")
    parser.add_argument("--machine", default=os.environ.get("SPLINEBENCH_MACHINE") or socket.gethostname().split(".")[0],
                        help="results label (default $SPLINEBENCH_MACHINE, else the short host name)")
    parser.add_argument("--impl", default=None, help="only these implementations (passed to splinebench run)")
    parser.add_argument("--results-root", type=Path, default=DEFAULT_RESULTS_ROOT,
                        help="results folder (default: the repository's results/)")
    parser.add_argument("--judge", type=Path, default=None, metavar="RUN_DIR",
                        help="do not run anything: judge this run folder and write its report")
    parser.add_argument("--run-dir-file", type=Path, default=None,
                        help="write the run folder's path to this file once it exists")
    parser.add_argument("--no-report", action="store_true", help="verdict files only, no index.html")
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD,
                        help=f"smallest relative change that counts (default {DEFAULT_THRESHOLD:g})")
    parser.add_argument("--min-abs-ms", type=float, default=DEFAULT_MIN_ABS * 1e3,
                        help=f"smallest absolute change that counts, ms (default {DEFAULT_MIN_ABS * 1e3:g})")
    parser.add_argument("--alpha", type=float, default=DEFAULT_ALPHA,
                        help=f"false discovery rate over all case-phases (default {DEFAULT_ALPHA:g})")
    parser.add_argument("--allow-missing", action="store_true",
                        help="cases of the baseline missing or skipped in this run are warnings, not failures")
    parser.add_argument("--force", action="store_true",
                        help="compare with a baseline made on other hardware anyway (the verdict says so)")
    return parser


def _suite_name(args) -> str | None:
    """The suite the rounds will run, as its runs will record it; None when the suite
    file cannot be read (`splinebench run` then says why)."""
    if args.suite_file is None:
        return args.suite
    try:
        name = json.loads(Path(args.suite_file).read_text(encoding="utf-8")).get("name")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        return None
    return name if isinstance(name, str) else None


def check_before_rounds(args) -> None:
    """What would make the rounds' hour worthless, found before the first: a baseline
    that does not load, or holds runs of another suite."""
    base_path = baseline_dir(args.results_root, args.machine)
    if not base_path.exists():
        return
    base = load_baseline(base_path)
    suite = _suite_name(args)
    if suite is not None:
        check_same_suite(base, suite, f"the gate's suite ({'--suite-file' if args.suite_file else '--suite'})")


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    handlers = {}
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            handlers[signum] = signal.signal(signum, _raise_interrupted)
    except ValueError:
        pass  # not the main thread (a caller's worker): its own handling applies
    try:
        return _main(args)
    except Interrupted as exc:
        print(f"reports.gate: interrupted by {exc}; the unfinished rounds were removed", file=sys.stderr)
        return 128 + exc.signum
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


def _main(args) -> int:
    try:
        if args.rounds < 1:
            raise ReportError(f"--rounds must be >= 1, got {args.rounds}")
        if args.judge is None:
            validate_machine_label(args.machine)
        if args.judge is not None:
            run_dir = args.judge
        else:
            if not args.bin.exists():
                raise ReportError(f"splinebench binary not found at {args.bin} (build it, or pass --bin)")
            suite_args = (["--suite-file", str(args.suite_file)] if args.suite_file is not None
                          else ["--suite", args.suite])
            extra = ["--impl", args.impl] if args.impl else []
            check_before_rounds(args)
            run_dir = run_rounds(args.bin, suite_args, args.rounds, args.machine, args.results_root, extra)
        if args.run_dir_file is not None:
            args.run_dir_file.write_text(f"{Path(run_dir).resolve()}\n", encoding="utf-8")
        return judge(run_dir, args.results_root, args.threshold, args.alpha, args.min_abs_ms * 1e-3,
                     args.allow_missing, build=not args.no_report, force=args.force)
    except ReportError as exc:
        print(f"reports.gate: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
