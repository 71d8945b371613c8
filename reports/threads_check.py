"""python -m reports.threads_check RUN_DIR [--limit 1.2] [--impl cpu_simd] [--neighbours-apart]

Every case a run timed at threads > 1 against the same case at threads = 1: the
ratio of medians and of means (so rare stalls count) of each timed phase, and of the
whole repetition (upload + prefilter + evaluate, summed repetition by repetition).
Reads `results.json` or the compact `results.json.gz` (reports/compact.py).

A ratio over the limit is a verdict of its own kind:
- SLOWER: the repetition as a whole, or a phase that ran on more threads than at
  threads = 1, or a phase of a case where every phase ran on one thread (then both
  runs did the same work on one thread: the rule of cpu_vector_base.hpp leaked).
- NEIGHBOUR: a phase that ran on one thread next to a phase of the same repetition that
  ran on several. The one thread then finds the data in the other cores' caches (the
  field written by a threaded prefilter, or read by a threaded evaluation before the
  next upload), which costs it cross-core transfers that the threads = 1 run never
  pays. Counted like SLOWER: the criterion is per phase. --neighbours-apart lists them
  without counting them, for the question whether the whole repetition is faster.
Exit status: 1 when any counted ratio exceeds the limit, else 0.
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from pathlib import Path

from .loader import read_results_text, results_file

PHASES = ("prefilter", "evaluate")
WHOLE = ("upload", "prefilter", "evaluate")


def _ratios(one: list[float], many: list[float]) -> tuple[float, float]:
    return statistics.median(many) / statistics.median(one), statistics.mean(many) / statistics.mean(one)


def _whole(record: dict) -> list[float] | None:
    """Seconds of each repetition, every timed phase summed; None when the phases'
    sample counts differ (then repetitions cannot be paired)."""
    lists = [record["phases"][p]["samples"] for p in WHOLE if p in record["phases"]]
    if not lists or len({len(s) for s in lists}) != 1:
        return None
    return [sum(v) for v in zip(*lists)]


def check(doc: dict, impl: str, limit: float, strict: bool = True) -> tuple[list[dict], int]:
    """One row per comparison (case, threads, phase or "repetition") and the number
    of rows that count against the limit."""
    cases: dict[str, dict[int, dict]] = {}
    for r in doc["records"]:
        if r["impl"] == impl and r["status"] == "ok":
            cases.setdefault(re.sub(r"/T\d+$", "", r["case_id"]), {})[r["threads"]] = r
    rows, counted = [], 0
    for case, by_t in sorted(cases.items()):
        if 1 not in by_t:
            continue
        one = by_t[1]
        for t, r in sorted(by_t.items()):
            if t == 1:
                continue
            used = r.get("threads_used") or {}
            comparisons = []
            for phase in PHASES:
                if phase in r["phases"] and phase in one["phases"]:
                    comparisons.append((phase, one["phases"][phase]["samples"], r["phases"][phase]["samples"]))
            whole_one, whole_many = _whole(one), _whole(r)
            if whole_one and whole_many:
                comparisons.append(("repetition", whole_one, whole_many))
            for phase, s1, sn in comparisons:
                med, mean = _ratios(s1, sn)
                over = med > limit or mean > limit
                kind = "ok"
                if over:
                    alone = phase != "repetition" and used.get(phase, 1) == 1
                    neighbour = alone and any(v > 1 for k, v in used.items() if k != phase)
                    kind = "NEIGHBOUR" if neighbour else "SLOWER"
                    if kind == "SLOWER" or strict:
                        counted += 1
                rows.append({"verdict": kind, "case": case, "threads": t, "phase": phase,
                             "used": used.get(phase, "-") if phase != "repetition" else "-",
                             "t1_median_ms": statistics.median(s1) * 1e3, "median": med, "mean": mean})
    return rows, counted


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reports.threads_check", description=__doc__.split("\n\n")[1])
    ap.add_argument("run_dir", type=Path, help="a run directory, results.json or results.json.gz")
    ap.add_argument("--limit", type=float, default=1.2, help="largest accepted ratio T>1 / T1 (default 1.2)")
    ap.add_argument("--impl", default="cpu_simd")
    ap.add_argument("--neighbours-apart", dest="strict", action="store_false",
                    help="list NEIGHBOUR ratios without counting them against the limit")
    a = ap.parse_args(argv)
    path = a.run_dir if a.run_dir.is_file() else results_file(a.run_dir)
    doc = json.loads(read_results_text(path))
    rows, counted = check(doc, a.impl, a.limit, a.strict)
    for w in rows:
        print(f"{w['verdict']:9s} {w['case']} T{w['threads']} (used {w['used']}) {w['phase']}: "
              f"T1 median {w['t1_median_ms']:.3f} ms, ratio median {w['median']:.2f}, mean {w['mean']:.2f}")
    neighbours = sum(w["verdict"] == "NEIGHBOUR" for w in rows)
    print(f"{len(rows)} comparisons, {counted} counted over {a.limit}x"
          f" ({neighbours} NEIGHBOUR{' counted' if a.strict else ', not counted'})")
    return 1 if counted else 0


if __name__ == "__main__":
    sys.exit(main())
