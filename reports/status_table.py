"""Which implementations ran, were skipped or failed in each run, with the
messages that say why: the first thing to read when a table row is empty."""
from __future__ import annotations

from collections.abc import Sequence

from . import implementations, timing
from .loader import Run
from .table_model import Column, Row, Table


# Notes name this many NOISY records per implementation and run; a busy machine
# can make hundreds, and the count says the rest.
NOISY_LISTED = 5


def status_table(runs: Sequence[Run]) -> Table:
    table = Table(
        key="implementations",
        title="Implementations in the runs",
        caption=("Records per implementation by status; 'accuracy fail' counts ok records whose error "
                 "exceeded the implementation's tolerance; 'NOISY' counts ok records whose prefilter or "
                 "evaluate repetitions are bimodal or spread over more than a quarter of the median (their "
                 "medians may not be what a rerun gives; notes name them). Messages are the implementation's own."),
        columns=[Column("machine"), Column("implementation"), Column("device"), Column("ok", "records", True),
                 Column("skipped", "records", True), Column("error", "records", True), Column("accuracy fail", "records", True),
                 Column("NOISY", "records", True), Column("facts / message")])
    for run in runs:
        facts = run.context.get("implementations") or {}
        registry = implementations.for_runs([run])
        names = registry.ordered(list(r.impl for r in run.records))
        for impl in names:
            records = [r for r in run.records if r.impl == impl]
            count = {s: sum(1 for r in records if r.status == s) for s in ("ok", "skipped", "error")}
            fails = sum(1 for r in records if r.ok and r.verdict == "fail")
            noisy = [(r, why) for r in records if r.ok for why in [timing.record_noise(r)] if why]
            messages = sorted({f"{r.status}: {r.message}" for r in records if r.status != "ok" and r.message})
            info = ", ".join(facts.get(impl, []) if isinstance(facts.get(impl), list) else [])
            text = "; ".join(([info] if info else []) + messages[:3])
            if len(messages) > 3:
                text += f"; … ({len(messages) - 3} more)"
            table.add(Row([run.label, impl, records[0].device, str(count["ok"]), str(count["skipped"]),
                           str(count["error"]), f"FAIL {fails}" if fails else "0",
                           f"NOISY {len(noisy)}" if noisy else "0", text or "—"], "ours"))
            for record, why in noisy[:NOISY_LISTED]:
                table.notes.append(f"NOISY: {run.label}: {record.case_id}"
                                   + (f" [threads {record.threads}]" if record.threads > 1 else "") + f": {why}")
            if len(noisy) > NOISY_LISTED:
                table.notes.append(f"NOISY: {run.label}: {impl}: and {len(noisy) - NOISY_LISTED} more")
        missing = [n for n in registry.names if n not in names]
        if missing:
            said = [f"{n} ({registry.entry(n).reason})" if registry.entry(n).reason else n for n in missing]
            table.notes.append(f"{run.label}: no records at all for {', '.join(said)} "
                               "(not available on that machine, or not selected with --impl).")
    return table
