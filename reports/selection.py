"""Finds the records a table row needs and, when there are none, says why.

Reasons are what a reader can act on: the implementation's own skip/error
message, "not run in this run", or which suite produces the case."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .loader import Record, Run

Predicate = Callable[[Record], bool]


@dataclass
class Found:
    run: Run
    record: Record


def matching(run: Run, impl: str, case: Predicate) -> list[Record]:
    return [r for r in run.records if r.impl == impl and case(r)]


def best(records: Sequence[Record], preference: Callable[[Record], tuple]) -> list[Record]:
    """One record per thread count: the ok record that `preference` ranks lowest
    (ties: the first in the file). Rows for several thread counts are kept apart."""
    by_threads: dict[int, Record] = {}
    for record in sorted(records, key=preference):
        by_threads.setdefault(record.threads, record)
    return [by_threads[t] for t in sorted(by_threads)]


def why_missing(run: Run, impl: str, case: Predicate, suite_hint: str) -> str:
    """Why `run` has no usable record of `impl` for the case."""
    own = matching(run, impl, case)
    for status in ("error", "skipped"):
        failed = [r for r in own if r.status == status]
        if failed:
            return f"{status}: {failed[0].message or 'no message recorded'}"
    if own:
        return "recorded without the phases this table needs"
    suite = run.context.get("suite", "?")
    if not any(case(r) for r in run.records):
        return f"case not in this run (suite `{suite}`) — run suite `{suite_hint}`"
    impl_records = [r for r in run.records if r.impl == impl]
    skipped = [r for r in impl_records if r.status == "skipped"]
    if impl_records and len(skipped) == len(impl_records):
        return f"skipped: {skipped[0].message or 'no message recorded'}"
    if not impl_records:
        return "implementation not in this run (not built, or not selected with --impl)"
    return "not run for this case"


def pref(*keys: tuple[str, object]) -> Callable[[Record], tuple]:
    """Preference order over record attributes: records whose attribute equals the
    wanted value sort first, e.g. pref(("mode", "half"), ("fields", 1))."""
    def key(record: Record) -> tuple:
        return tuple(0 if getattr(record, name) == wanted else 1 for name, wanted in keys)
    return key


def impl_label(record: Record, preferred_mode: str | None = None) -> str:
    """Implementation name plus what sets this row apart from the default case."""
    label = record.impl
    extras = []
    if record.threads > 1:
        extras.append(f"{record.threads} threads")
    if preferred_mode and record.mode != preferred_mode:
        extras.append(f"mode {record.mode}")
    if extras:
        label += " (" + ", ".join(extras) + ")"
    if record.verdict == "fail":
        label += " — accuracy FAIL"
    return label


def source_label(run: Run, record: Record) -> str:
    """'ours · <machine> · <CPU or GPU name>': the hardware each number came from."""
    return f"ours · {run.label} · {run.device_name(record.device)}"
