"""Picks, for one panel, the slice of a sweep to draw: all records that differ
only in the x variable. With several candidate slices the one with the most x
values wins, ties broken toward the suite defaults (mirror, uniform, C = 1, one
field), so that a panel never mixes workloads silently."""
from __future__ import annotations

from collections.abc import Callable, Iterable

from ..loader import Record

DEFAULTS = {"mode": "mirror", "pattern": "uniform", "channels": 1, "fields": 1, "data": "noise"}


def choose_slice(records: Iterable[Record], x: Callable[[Record], object], fixed: tuple[str, ...],
                 tiebreak: Callable[[Record], float] | None = None) -> tuple[dict, list[Record]]:
    """Returns ({attribute: value} held fixed, records of that slice). `tiebreak`
    ranks otherwise equal slices by their first record (lower wins)."""
    groups: dict[tuple, list[Record]] = {}
    for record in records:
        groups.setdefault(tuple(getattr(record, a) for a in fixed), []).append(record)
    if not groups:
        return {}, []

    def rank(item):
        key, members = item
        values = dict(zip(fixed, key))
        defaults_missed = sum(1 for a, v in DEFAULTS.items() if a in values and values[a] != v)
        size = max((m.points for m in members), default=0)
        extra = tiebreak(members[0]) if tiebreak else 0
        return (-len({x(m) for m in members}), defaults_missed, extra, -size)

    key, members = min(groups.items(), key=rank)
    return dict(zip(fixed, key)), members


def describe(fixed: dict) -> str:
    parts = []
    for attr, value in fixed.items():
        if attr == "shape":
            parts.append("grid " + "×".join(map(str, value)))
        elif attr == "queries":
            parts.append(f"{value} queries")
        elif attr == "channels":
            parts.append(f"C={value}")
        elif attr == "fields":
            parts.append(f"F={value}")
        elif attr == "dims":
            continue
        else:
            parts.append(str(value))
    return ", ".join(parts)
