"""What the reports know about implementations, taken from the runs themselves:
the registry list each run records in its context (`context.registry`, the same
list `splinebench list --json` prints), so that a newly registered implementation
appears in every table and plot with no edit here.

Runs written before the context carried the registry fall back to their records'
own `impl` and `device` fields, in the order the records appear (the runner plans
cases in registry order).

Order: CPU implementations first, then GPU, each in registry order, so rows and
legends read the same everywhere. Colour: by registry position, so one name keeps
its colour in every figure of a report, and across reports of runs made with the
same registry.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .loader import DEVICES, Run

# Colours in registry order. The first entries follow impls/registry.def as it was when
# the palette was chosen, so today's names keep the colours earlier reports used.
PALETTE = ("#7f7f7f", "#1f77b4", "#d62728", "#ff7f0e", "#17becf", "#2ca02c", "#9467bd", "#8c564b",
           "#e377c2", "#bcbd22", "#393b79", "#637939", "#843c39", "#7b4173")


@dataclass(frozen=True)
class Entry:
    """One registered implementation. `available` and `reason` are what the run's
    machine said (None and "" when the run predates the recorded registry)."""

    name: str
    device: str
    available: bool | None = None
    reason: str = ""
    evaluation: str = ""  # the evaluation arithmetic ("" when the run predates the field)


def run_entries(run: Run) -> list[Entry]:
    """The registry as `run` recorded it, or, for older runs, the implementations
    its records name, in the order they first appear."""
    recorded = run.context.get("registry")
    if recorded is not None:  # validated by the loader
        return [Entry(e["name"], e["device"], bool(e["available"]), str(e.get("reason", "")),
                      str(e.get("evaluation") or "")) for e in recorded]
    entries: dict[str, Entry] = {}
    for record in run.records:
        entries.setdefault(record.impl, Entry(record.impl, record.device))
    return list(entries.values())


def evaluation_of(run: Run, impl: str) -> str:
    """The evaluation arithmetic `run`'s registry names for `impl` ("" when it does not)."""
    return next((e.evaluation for e in run_entries(run) if e.name == impl), "")


def _merge(lists: Iterable[list[Entry]]) -> list[Entry]:
    """One list from several runs' lists, keeping each list's relative order: a name
    new to the merged list goes right after its predecessor in its own list (or,
    for a list's first names, before the first of its names already merged), so a
    GPU-only run and a full run together still give registry order."""
    merged: list[Entry] = []
    for entries in lists:
        names = [e.name for e in entries]
        for i, entry in enumerate(entries):
            known = [e.name for e in merged]
            if entry.name in known:
                continue
            if i > 0:
                at = known.index(names[i - 1]) + 1
            else:
                later = [known.index(n) for n in names[1:] if n in known]
                at = min(later) if later else len(merged)
            merged.insert(at, entry)
    return merged


class Registry:
    """Names, devices, order and colours of the implementations of some runs."""

    def __init__(self, entries: Sequence[Entry]):
        self.entries = tuple(entries)
        self._position = {e.name: i for i, e in enumerate(self.entries)}
        self._by_name = {e.name: e for e in self.entries}

    @classmethod
    def of_runs(cls, runs: Sequence[Run]) -> "Registry":
        return cls(_merge(run_entries(run) for run in runs))

    def __contains__(self, name: str) -> bool:
        return name in self._by_name

    def entry(self, name: str) -> Entry | None:
        return self._by_name.get(name)

    def device(self, name: str) -> str | None:
        entry = self._by_name.get(name)
        return entry.device if entry else None

    def order_key(self, name: str) -> tuple[int, int, str]:
        """CPU before GPU, then registry order; names outside the registry last, by name."""
        entry = self._by_name.get(name)
        if entry is None:
            return (len(DEVICES), len(self.entries), name)
        return (DEVICES.index(entry.device), self._position[name], name)

    def ordered(self, names: Iterable[str]) -> list[str]:
        return sorted(set(names), key=self.order_key)

    @property
    def names(self) -> list[str]:
        """Every registered name, in display order."""
        return self.ordered(self._by_name)

    def colour(self, name: str) -> str:
        position = self._position.get(name)
        if position is None:  # not registered in any run shown: a stable pick by name
            return PALETTE[sum(map(ord, name)) % len(PALETTE)]
        return PALETTE[position % len(PALETTE)]


def for_runs(runs: Sequence[Run]) -> Registry:
    """The registry of the runs a table or figure shows."""
    return Registry.of_runs(list(runs))
