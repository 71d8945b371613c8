"""The cost of one call, beside the peers: bench/module_overhead.py times one call on a tiny
array (the work is nothing, the call everything) of the Python module `splinebench`, of
scipy.ndimage and, with a device and CuPy, of the module on CuPy arrays and of
cupyx.scipy.ndimage, into results/<machine>/<stamp>-module-overhead/module_overhead.json.
This table shows every such file of a machine; the harness's adapter cost per request
(the route by which the suite drives SciPy and CuPy) is in the peer table's notes."""
from __future__ import annotations

from pathlib import Path

from .bench_files import load_bench_docs
from .table_model import Column, Row, Table


def load_overhead_docs(machine_folder: Path) -> list[dict]:
    """Every module_overhead.json of a machine's results folder, oldest first."""
    return load_bench_docs(machine_folder, "module_overhead", "call-overhead")


def _when(stamp: str) -> str:
    """'20261129-111433' as '2026-11-29 11:14 UTC' (not a run id: it names no run folder)."""
    if len(stamp) >= 13 and stamp[8] == "-":
        return f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]} {stamp[9:11]}:{stamp[11:13]} UTC"
    return stamp


def call_overhead_table(docs: list[dict]) -> Table:
    table = Table(
        key="call_overhead",
        title="Call overhead: one call on a tiny array, the module beside SciPy and CuPy",
        caption=("Time of one call where the work is nothing (16 samples, one query): splinebench's Python module "
                 "(each implementation named), scipy.ndimage and, on a GPU, the module on CuPy arrays and "
                 "cupyx.scipy.ndimage (calls enqueued on the current stream, one synchronisation per loop: "
                 "launches included). Median and quartiles over loops of calls (bench/module_overhead.py)."),
        columns=[Column("measured"), Column("library"), Column("device"), Column("call"), Column("array"),
                 Column("median", "µs", True), Column("q1", "µs", True), Column("q3", "µs", True)])
    for doc in docs:
        context = doc.get("context", {})
        when = f"{_when(str(doc.get('date', '')))}, {context.get('cpu') or doc.get('machine', '')}"
        for row in doc["rows"]:
            table.add(Row([when, row["library"], row["device"], row["call"], row["array"],
                           f"{row['us_median']:.1f}", f"{row['us_q1']:.1f}", f"{row['us_q3']:.1f}"]))
        if not any(row["device"] == "gpu" for row in doc["rows"]):
            reason = "; ".join(doc.get("notes") or []) or "no GPU rows"
            table.add(Row([when, "GPU"], "missing", note=f"not measured: {reason}"))
        table.notes.append(f"{when}: Python {context.get('python', '?')}, NumPy {context.get('numpy', '?')}, "
                           f"commit {str(context.get('git_commit', ''))[:10]}"
                           + (" with local changes" if context.get("git_dirty") else "") + ".")
    return table
