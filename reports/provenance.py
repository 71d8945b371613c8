"""Which runs a table or figure is drawn from, said so a reader can find them (run id,
commit, machine, date), and the refusals that keep a report honest about them:

- runs whose implementation changed meaning between them (the registry's `evaluation`
  of one implementation differs between two runs of the report) are not mixed unless a
  note in ACCEPTED_MEANING_CHANGES says what changed, which the report then prints;
- test-only entries (names starting with `test_`: impls/registry.def, the scattered
  system's test solver) exist to test the regression gate, not to be reported; they are
  left out of a report's tables and figures.
"""
from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import implementations
from .citations import cited_run_ids
from .errors import ReportError
from .loader import Run

TEST_ONLY_PREFIX = "test_"


@dataclass(frozen=True)
class MeaningChange:
    """A declared change of what an implementation computes, accepted in one report:
    `impl` whose `evaluation` reads `before` in older runs and `after` in newer ones."""
    impl: str
    before: str
    after: str
    note: str


# The changes of meaning a report may mix runs across, each with the sentence it prints.
# Add one only with the reason a reader needs to read the two kinds of run side by side.
ACCEPTED_MEANING_CHANGES: tuple[MeaningChange, ...] = ()


def run_line(run: Run) -> str:
    """'<run id> (commit <sha>, <machine>, <date>)': how a caption names a run."""
    c = run.context
    sha = str(c.get("git_sha", "?"))[:10] + (", dirty tree" if c.get("git_dirty") else "")
    date = str(c.get("date", "?"))[:10]
    return f"{run.run_id} (commit {sha}, {run.machine}, {date})"


def runs_sentence(runs: Sequence[Run]) -> str:
    if not runs:
        return "Runs: none (published numbers only)."
    return "Runs: " + "; ".join(run_line(r) for r in runs) + "."


def _is_test_only(name: object) -> bool:
    return isinstance(name, str) and name.startswith(TEST_ONLY_PREFIX)


def without_test_entries(runs: Sequence[Run]) -> list[Run]:
    """The runs as a report shows them: no record, system record or registry entry of a
    test-only implementation or solver."""
    out = []
    for run in runs:
        context = dict(run.context)
        if isinstance(context.get("registry"), list):
            context["registry"] = [e for e in context["registry"]
                                   if not (isinstance(e, dict) and _is_test_only(e.get("name")))]
        system = {op: [r for r in recs if not (_is_test_only(r.get("impl")) or _is_test_only(r.get("solver")))]
                  for op, recs in run.system_records.items()}
        shown = dataclasses.replace(run, context=context,
                                    records=[copy.copy(r) for r in run.records if not _is_test_only(r.impl)],
                                    system_records=system)
        for record in shown.records:  # each record names the run it is shown in (plots look runs up by it)
            record.run = shown
        out.append(shown)
    return out


def meaning_changes(runs: Sequence[Run]) -> list[tuple[str, dict[str, list[str]]]]:
    """(implementation, {evaluation: [run ids]}) for each implementation with records in
    runs whose registries state different evaluations for it ("" — not stated — counts as
    no statement, not as a difference)."""
    seen: dict[str, dict[str, list[str]]] = {}
    for run in runs:
        measured = {r.impl for r in run.records}
        for entry in implementations.run_entries(run):
            if entry.name in measured and entry.evaluation:
                seen.setdefault(entry.name, {}).setdefault(entry.evaluation, []).append(run.run_id)
    return [(impl, by) for impl, by in seen.items() if len(by) > 1]


def check_meaning(runs: Sequence[Run], accepted: Iterable[MeaningChange] = ACCEPTED_MEANING_CHANGES) -> list[str]:
    """The notes of the accepted changes these runs mix; ReportError for any other change."""
    accepted = list(accepted)
    notes, refused = [], []
    for impl, by in meaning_changes(runs):
        pairs = [a for a in accepted if a.impl == impl and {a.before, a.after} == set(by)]
        if pairs:
            notes.append(f"{impl}: {pairs[0].note} (runs with '{pairs[0].before}': "
                         f"{', '.join(by[pairs[0].before])}; with '{pairs[0].after}': {', '.join(by[pairs[0].after])}).")
        else:
            said = "; ".join(f"'{ev}' in {', '.join(ids)}" for ev, ids in by.items())
            refused.append(f"{impl} ({said})")
    if refused:
        raise ReportError("the runs mix implementations whose meaning changed between them: "
                          + "; ".join(refused) + ". Build the report from runs of one meaning, or declare the "
                          "change with its note in reports/provenance.py ACCEPTED_MEANING_CHANGES")
    return notes


def item_runs(texts: Iterable[str], runs: Sequence[Run], fallback: Sequence[Run]) -> list[Run]:
    """The runs an item names in its text (row labels, captions), in the report's order;
    `fallback` (the runs holding the kind of records the item reads) when it names none."""
    named = set()
    for text in texts:
        for token in cited_run_ids(text):
            named.update(r.run_id for r in runs if token == r.run_id or token.startswith(r.run_id + "."))
    chosen = [r for r in runs if r.run_id in named]
    return chosen or list(fallback)
