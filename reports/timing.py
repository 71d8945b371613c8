"""Times derived from a record's phases, always from one run's own samples.

A time made of several phases (e.g. query upload + evaluate + download) is the
median of the per-repetition sums, not the sum of medians: samples[i] of every
phase belong to repetition i of the same case."""
from __future__ import annotations

import statistics

from .loader import Record

# A batch of lookups as the caller sees it: coordinates in, values out.
LOOKUP_PHASES = ("query_upload", "evaluate", "download")
PREFILTER_AXIS = "prefilter_axis{}"


def combined_median(record: Record, phases: tuple[str, ...]) -> float | None:
    """Median seconds of the sum of `phases` present in the record (None when none is)."""
    present = [record.phases[p] for p in phases if p in record.phases]
    if not present:
        return None
    if len(present) == 1:
        return present[0].median
    lengths = {p.n for p in present}
    if len(lengths) != 1:
        return None  # repetitions do not line up; refuse to invent a total
    sums = [sum(values) for values in zip(*(p.samples for p in present))]
    return statistics.median(sums)


def lookup_seconds(record: Record) -> float | None:
    """Host-visible time of one batch of lookups (transfers included where the
    implementation has them; a CPU implementation has only `evaluate`)."""
    if "evaluate" not in record.phases:
        return None
    return combined_median(record, LOOKUP_PHASES)


def evaluate_seconds(record: Record) -> float | None:
    return record.phase_median("evaluate")


def queries_per_second(record: Record) -> float | None:
    seconds = evaluate_seconds(record)
    if not seconds or record.queries == 0:
        return None
    return record.queries * record.fields / seconds


def prefilter_samples_per_second(record: Record) -> float | None:
    seconds = record.phase_median("prefilter")
    if not seconds:
        return None
    return record.points * record.fields / seconds


def axis_seconds(record: Record, axis: int) -> float | None:
    """Median of the per-axis prefilter phase `prefilter_axis<axis>` (C-order axis)."""
    return record.phase_median(PREFILTER_AXIS.format(axis))


def has_axis_phases(record: Record) -> bool:
    return any(axis_seconds(record, a) is not None for a in range(record.dims))
