"""Throughput through the Python module against the harness's, beside CuPy's:
bench/module_throughput.py times, on the device and in one run, the module's and CuPy's
calls (in alternation) and has the harness run the same `gpu`-suite case, into
results/<machine>/<stamp>-module-throughput/module_throughput.json. This table shows every
such file of a machine, each row's median over the harness's (the target: the module within
1.05x); the cost of one call where the work is nothing is call_overhead.py's table."""
from __future__ import annotations

import statistics
from pathlib import Path

# The same rendering of a measurement's time: one that names no run (the citation check).
from .call_overhead import _when
from .bench_files import load_bench_docs
from .table_model import Column, Row, Table


def load_throughput_docs(machine_folder: Path) -> list[dict]:
    """Every module_throughput.json of a machine's results folder, oldest first."""
    return load_bench_docs(machine_folder, "module_throughput", "module-throughput")


def module_throughput_table(docs: list[dict]) -> Table:
    table = Table(
        key="module_throughput",
        title="Throughput through the module against the harness, beside CuPy",
        caption=("Device time of the 256^3 float32 prefilter (mode mirror) and of 2^24 uniform lookups into its "
                 "256^3 coefficients: CUDA events around one call of splinebench's Python module on CuPy arrays "
                 "and of cupyx.scipy.ndimage (order 3, float32 output), their calls alternating, one each per "
                 "round, after a warm-up; the harness's numbers are its own record of the same `gpu`-suite case "
                 "in the same run (CUDA events around the implementation's launches), its runs interleaved with "
                 "the rounds in blocks where the file says so. Medians over the samples, with their first and "
                 "third quartiles; the ratio is a row's median over the harness's for the same phase (target: "
                 "the module within 1.05x of the harness). bench/module_throughput.py."),
        columns=[Column("measured"), Column("library"), Column("phase"), Column("work"),
                 Column("median", "ms", True), Column("ratio to the harness", "x", True),
                 Column("quartiles", "ms")])
    for doc in docs:
        context = doc.get("context", {})
        when = f"{_when(str(doc.get('date', '')))}, {context.get('device') or doc.get('machine', '')}"
        for row in doc["rows"]:
            # The harness row is the reference: it has no ratio of its own.
            # Three decimals: the target is 1.05, which two would round onto.
            ratio = f"{row['over_harness']:.3f}" if "over_harness" in row else ""
            table.add(Row([when, row["library"], row["phase"], row["work"], f"{row['ms_median']:.4f}", ratio,
                           _quartiles(row)]))
        table.notes.append(f"{when}: commit {str(context.get('git_commit', ''))[:10]}, "
                           f"Python {context.get('python', '?')}, NumPy {context.get('numpy', '?')}, "
                           f"CuPy {context.get('cupy', '?')}; {_method(doc)}; harness case {doc.get('case_id', '?')}.")
    return table


def _quartiles(row: dict) -> str:
    """'q1-q3' of a row: the file's, or from its samples (files before schema 2)."""
    q1, q3 = row.get("ms_q1"), row.get("ms_q3")
    if q1 is None or q3 is None:
        samples = row.get("samples_ms") or []
        if len(samples) < 2:
            return ""
        q1, _, q3 = statistics.quantiles(samples, n=4)
    return f"{q1:.4f}-{q3:.4f}"


def _method(doc: dict) -> str:
    """How the file's samples were taken, in words."""
    method = doc.get("method")
    if not isinstance(method, dict):  # schema 1: one harness run, then the library rounds
        return f"{doc.get('repetitions', '?')} repetitions after {doc.get('warmups', '?')} warm-ups"
    warmups = method.get("warmups") or []
    rounds = [w.get("rounds", "?") for w in warmups]
    unsettled = sum(1 for w in warmups if not w.get("settled", False))
    rule = method.get("warmup_rule", {})
    work = rule.get("least_work_ms", float("nan"))
    return (f"{method.get('blocks', '?')} blocks of one harness run ({method.get('harness_repetitions', '?')} "
            f"repetitions after {method.get('harness_warmups', '?')} warm-ups) then "
            f"{method.get('rounds_per_block', '?')} library rounds after a warm-up of at least "
            f"{rule.get('least_rounds', '?')} rounds and {work:g} ms until settled within "
            f"{100 * rule.get('stable_within', 0):.0f} % (took {', '.join(map(str, rounds))} rounds"
            + (f"; {unsettled} did not settle" if unsettled else "") + ")")
