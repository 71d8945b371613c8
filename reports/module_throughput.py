"""Throughput through the Python module against the harness's, beside CuPy's:
bench/module_throughput.py times, on the device and in one run, the module's and CuPy's
calls (in alternation) and has the harness run the same `gpu`-suite case, into
results/<machine>/<stamp>-module-throughput/module_throughput.json. This table shows every
such file of a machine, each row's median over the harness's (the target: the module within
1.05x); the cost of one call where the work is nothing is call_overhead.py's table."""
from __future__ import annotations

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
                 "round; the harness's numbers are its own record of the same `gpu`-suite case in the same run "
                 "(CUDA events around the implementation's launches). Medians over the repetitions; the ratio is "
                 "a row's median over the harness's for the same phase (target: the module within 1.05x of the "
                 "harness). bench/module_throughput.py."),
        columns=[Column("measured"), Column("library"), Column("phase"), Column("work"),
                 Column("median", "ms", True), Column("ratio to the harness", "x", True)])
    for doc in docs:
        context = doc.get("context", {})
        when = f"{_when(str(doc.get('date', '')))}, {context.get('device') or doc.get('machine', '')}"
        for row in doc["rows"]:
            # The harness row is the reference: it has no ratio of its own.
            # Three decimals: the target is 1.05, which two would round onto.
            ratio = f"{row['over_harness']:.3f}" if "over_harness" in row else ""
            table.add(Row([when, row["library"], row["phase"], row["work"], f"{row['ms_median']:.4f}", ratio]))
        table.notes.append(f"{when}: commit {str(context.get('git_commit', ''))[:10]}, "
                           f"Python {context.get('python', '?')}, NumPy {context.get('numpy', '?')}, "
                           f"CuPy {context.get('cupy', '?')}; {doc.get('repetitions', '?')} repetitions after "
                           f"{doc.get('warmups', '?')} warm-ups; harness case {doc.get('case_id', '?')}.")
    return table
