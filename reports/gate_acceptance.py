"""python -m reports.gate_acceptance --machine LABEL [--trials 10] [--baseline-runs 5]
                                   [--rounds 5] [--bin PATH] [--factor 1.3]

Checks the nightly gate on this machine the way issue 24 asks: TRIALS unchanged
reruns (A/A) of the suite against the machine's baseline, and TRIALS runs with an
injected slowdown of one implementation, taken alternately so that a change in the
machine's load falls on both kinds alike. With --baseline-runs K the baseline is
first made afresh from K runs of the suite (promoted; replaces the machine's
baseline, or with --add joins it).

The slowdown comes from the test-only implementation `test_slowed` (a build
configured with -DSPLINEBENCH_TEST_IMPLS=ON): it runs a product implementation
(SPLINEBENCH_TEST_SLOWED_IMPL, default cpu_scalar) FACTOR times slower
(SPLINEBENCH_TEST_SLOWED_FACTOR; 1 in the baseline and A/A runs). Suites' selectors
skip test-only implementations, so the trials run the suite with `test_slowed`
added beside the CPU implementations of each sweep (same suite name). The compare
treats test-only implementations a product build lacks as no loss of coverage, so
the baseline also serves the product build's nightly runs.

Each trial is a normal gate run: its run folder (results/<machine>/<run-id>/)
holds the verdict in report/verdict.{md,json}. The summary lists every trial and
the totals: SLOWER verdicts in the A/A runs (each a false alarm), and slowed runs
caught (exit 1 with SLOWER rows, all in IMPL). --summary writes it as Markdown,
with a JSON twin beside it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path

from .baseline import DEFAULT_RESULTS_ROOT, REPO_ROOT, promote
from .errors import ReportError
from .gate import DEFAULT_ROUNDS, VERDICT_JSON, judge, run_rounds

TEST_IMPL = "test_slowed"
FACTOR_VAR = "SPLINEBENCH_TEST_SLOWED_FACTOR"
WRAPPED_VAR = "SPLINEBENCH_TEST_SLOWED_IMPL"
# The scattered system's test-only solver (systems/scattered/solver_registry.hpp): a CPU
# solver (SPLINEBENCH_TEST_SLOWED_SOLVER, default cg) made FACTOR times slower.
TEST_SOLVER = "test_slowed_solver"
WRAPPED_SOLVER_VAR = "SPLINEBENCH_TEST_SLOWED_SOLVER"
# What --slow picks: (system whose sweeps get the test entry, the entry, its sweep key,
# the wrapped entry's variable, its default).
TARGETS = {"implementation": ("grid", TEST_IMPL, "impls", WRAPPED_VAR, "cpu_scalar"),
           "solver": ("scattered", TEST_SOLVER, "solvers", WRAPPED_SOLVER_VAR, "cg")}
CPU_SOLVERS = {"cg", "mg_pcg", "eigen_cg", "jacobi_damped", "jacobi", "gs8x", "gs_mc", "sgs_mc", "gs_lex", "mg_seed"}


def _with_test_entry(doc: dict, system: str, test_entry: str, key: str) -> dict:
    """A suite of `system` with `test_entry` named in every sweep that selects CPU
    entries (a selector never picks a test-only one); other systems' suites unchanged."""
    if doc.get("system", "grid") != system:
        return doc
    default = doc.get("defaults", {}).get(key)
    for sweep in doc["sweeps"]:
        entries = sweep.get(key, default)
        entries = [entries] if isinstance(entries, str) else list(entries or [])
        cpu = any(e in ("all", "cpu") for e in entries) or (system == "scattered" and CPU_SOLVERS & set(entries))
        if cpu and test_entry not in entries:
            sweep[key] = entries + [test_entry]
    return doc


def suite_with_test_impl(suite: str, test_impl: str, out: Path, slow: str = "implementation") -> Path:
    """The suite's definition with the test-only entry of `slow` (an implementation or a
    scattered solver) beside the CPU entries of its sweeps; a suite of suites has its
    parts written inline, each treated so."""
    system, test_entry, key, _, _ = TARGETS[slow]
    doc = json.loads((REPO_ROOT / "harness" / "suites" / f"{suite}.json").read_text(encoding="utf-8"))
    if doc.get("system") == "suites":
        parts = []
        for part in doc["suites"]:
            if isinstance(part, str):
                part = json.loads((REPO_ROOT / "harness" / "suites" / f"{part}.json").read_text(encoding="utf-8"))
            parts.append(_with_test_entry(part, system, test_entry, key))
        doc["suites"] = parts
    else:
        doc = _with_test_entry(doc, system, test_entry, key)
    out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return out


def entry_of(case_id: str) -> str:
    """The implementation, solver or scheme a case_id names: its first part for grid
    cases; scattered/<data>/<shape>/<mode>/<selection>/<lambda>[/mg..]/<solver>[/blocks..];
    iir2d/<scheme>/..."""
    parts = case_id.split("/")
    if parts[0] == "iir2d" and len(parts) > 1:
        return parts[1]
    if parts[0] == "scattered" and len(parts) > 6:
        rest = parts[6:]
        return rest[1] if rest[0].startswith("mg") and len(rest) > 1 else rest[0]
    return parts[0]


def trial_kind(run_dir: Path) -> str:
    """'slowed' when the run's test entry ran at a factor above 1, else 'A/A'."""
    from .loader import load_run
    implementations = load_run(run_dir).context.get("implementations", {})
    facts = implementations.get(TEST_IMPL) or implementations.get(TEST_SOLVER) or []
    factor = next((float(f.split("=", 1)[1]) for f in facts if f.startswith("slowdown_factor=")), 1.0)
    return "slowed" if factor > 1 else "A/A"


def _trial(kind: str, args, env: dict) -> dict:
    run_dir = run_rounds(args.bin, args.suite_args, args.rounds, args.machine, args.results_root, env=env)
    return _judged(kind, run_dir, args)


def _judged(kind: str, run_dir: Path, args) -> dict:
    status = judge(run_dir, args.results_root, build=False)
    verdict = json.loads((run_dir / "report" / VERDICT_JSON).read_text(encoding="utf-8"))
    slower = [r for r in verdict.get("rows", []) if r["verdict"] == "SLOWER"]
    aggregates = [n for n, a in verdict.get("aggregates", {}).items() if a["verdict"] == "SLOWER"]
    impls = sorted({entry_of(r["case_id"]) for r in slower} | {n for n in aggregates if n != "whole run"})
    return {"kind": kind, "run": run_dir.name, "exit_status": status, "slower": len(slower) + len(aggregates),
            "noisy": verdict.get("counts", {}).get("NOISY"), "slower_impls": impls,
            "slower_rows": [f"{r['case_id']} {r['phase']} rel. {r['relative']:.3f}" for r in slower]
                           + [f"{n} (all its case-phases) rel. {verdict['aggregates'][n]['relative']:.3f}"
                              for n in aggregates],
            "caught": kind == "slowed" and status == 1 and impls == [args.slow_impl],
            "loadavg": [f.get("loadavg", [None])[0] for f in verdict_rounds(run_dir)]}


def verdict_rounds(run_dir: Path) -> list[dict]:
    from .loader import load_run
    info = load_run(run_dir).context.get("rounds")
    return info.get("runs", []) if isinstance(info, dict) else []


def summary_markdown(trials: list[dict], args) -> str:
    aa = [t for t in trials if t["kind"] == "A/A"]
    slowed = [t for t in trials if t["kind"] == "slowed"]
    lines = [f"# Nightly gate acceptance on `{args.machine}`", "",
             f"Suite `{args.suite}`, {args.rounds} rounds per run, baseline "
             f"`results/{args.machine}/baseline/`; slowed runs: {args.slow_impl} at "
             f"{FACTOR_VAR}={args.factor:g} (wrapping {args.wrapped}), 1 otherwise.", "",
             f"- A/A: {len(aa)} runs, **{sum(t['slower'] for t in aa)} SLOWER verdicts** (case-phases and "
             f"aggregates) in total, "
             f"{sum(t['exit_status'] != 0 for t in aa)} failing exits",
             f"- slowed: **{sum(t['caught'] for t in slowed)} of {len(slowed)} caught** (exit 1, SLOWER only in "
             f"{args.slow_impl})", "",
             "| # | kind | run | exit | SLOWER | NOISY | SLOWER in | load (1 min) per round |",
             "|---:|:---|:---|---:|---:|---:|:---|:---|"]
    for i, t in enumerate(trials, 1):
        loads = ", ".join(f"{v:.2f}" for v in t["loadavg"] if v is not None)
        lines.append(f"| {i} | {t['kind']} | {t['run']} | {t['exit_status']} | {t['slower']} | {t['noisy']} | "
                     f"{', '.join(t['slower_impls']) or '—'} | {loads} |")
    lines += ["", "SLOWER rows:", ""]
    lines += [f"- {t['kind']} {t['run']}: {row}" for t in trials for row in t["slower_rows"]] or ["- none"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reports.gate_acceptance",
                                     description="A/A and injected-slowdown trials of the nightly gate.")
    parser.add_argument("--suite", default="nightly")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    parser.add_argument("--trials", type=int, default=10, help="A/A runs, and as many slowed runs (default 10)")
    parser.add_argument("--baseline-runs", type=int, default=0,
                        help="first make the baseline afresh from this many runs (default: use the existing one)")
    parser.add_argument("--add", action="store_true",
                        help="with --baseline-runs: add the new runs to the baseline instead of replacing it")
    parser.add_argument("--factor", type=float, default=1.3, help="the injected slowdown (default 1.3)")
    parser.add_argument("--slow", choices=sorted(TARGETS), default="implementation",
                        help="what the slowed runs slow: a grid implementation (test_slowed) or a scattered solver "
                             "(test_slowed_solver); default implementation")
    parser.add_argument("--wrapped", default=None,
                        help="the product entry the test entry runs (default cpu_scalar, or cg for --slow solver)")
    parser.add_argument("--bin", type=Path,
                        default=Path(os.environ.get("SPLINEBENCH_BIN", REPO_ROOT / "build" / "bin" / "splinebench")))
    parser.add_argument("--machine", default=os.environ.get("SPLINEBENCH_MACHINE") or socket.gethostname().split(".")[0])
    parser.add_argument("--results-root", type=Path, default=DEFAULT_RESULTS_ROOT)
    parser.add_argument("--summary", type=Path, default=None, help="write the summary here (Markdown; .json beside)")
    parser.add_argument("--rejudge", type=Path, nargs="+", default=None, metavar="RUN_DIR",
                        help="run nothing: judge these trial runs again (A/A or slowed by their test_slowed "
                             "factor) against the machine's baseline and summarize")
    args = parser.parse_args(argv)
    if not args.factor > 1:
        parser.error("--factor must be > 1")
    _, args.slow_impl, _, wrapped_var, wrapped_default = TARGETS[args.slow]
    args.wrapped = args.wrapped or os.environ.get(wrapped_var, wrapped_default)
    plain = dict(os.environ, **{FACTOR_VAR: "1", wrapped_var: args.wrapped})
    slowed = dict(plain, **{FACTOR_VAR: f"{args.factor:g}"})
    work = Path(tempfile.mkdtemp(prefix="gate-acceptance-"))
    args.suite_args = ["--suite-file", str(suite_with_test_impl(args.suite, args.slow_impl, work / f"{args.suite}.json",
                                                                args.slow))]
    try:
        if args.rejudge is not None:
            trials = [_judged(trial_kind(d), d, args) for d in args.rejudge]
            args.trials = sum(t["kind"] == "slowed" for t in trials)
        elif args.baseline_runs:
            runs = [run_rounds(args.bin, args.suite_args, args.rounds, args.machine, args.results_root, env=plain)
                    for _ in range(args.baseline_runs)]
            target, warnings = promote(runs, args.results_root, add=args.add)
            print(f"baseline: {target} from {', '.join(r.name for r in runs)}", file=sys.stderr)
            for warning in warnings:
                print(f"warning: {warning}", file=sys.stderr)
        if args.rejudge is None:
            trials = []
            for _ in range(args.trials):
                trials.append(_trial("A/A", args, plain))
                trials.append(_trial("slowed", args, slowed))
    except ReportError as exc:
        print(f"reports.gate_acceptance: error: {exc}", file=sys.stderr)
        return 2
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = summary_markdown(trials, args)
    print(text)
    if args.summary is not None:
        args.summary.write_text(text, encoding="utf-8")
        args.summary.with_suffix(".json").write_text(json.dumps(trials, indent=1) + "\n", encoding="utf-8")
    aa_slower = sum(t["slower"] for t in trials if t["kind"] == "A/A")
    caught = sum(t["caught"] for t in trials if t["kind"] == "slowed")
    return 0 if aa_slower <= 1 and caught == args.trials else 1


if __name__ == "__main__":
    sys.exit(main())
