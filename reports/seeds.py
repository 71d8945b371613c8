"""The published numbers of the seed documents, kept in seed_numbers.json so that
no table has a number typed into its code."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from .errors import ReportError

SEED_FILE = Path(__file__).with_name("seed_numbers.json")


@lru_cache(maxsize=1)
def _all_seeds() -> dict:
    try:
        return json.loads(SEED_FILE.read_text(encoding="utf-8"))["seeds"]
    except (OSError, ValueError, KeyError) as exc:
        raise ReportError(f"{SEED_FILE}: cannot read the seed numbers: {exc}") from exc


def seed(key: str) -> dict:
    """One seed table: source, hardware label, unit and rows."""
    seeds = _all_seeds()
    if key not in seeds:
        raise ReportError(f"{SEED_FILE}: no seed table {key!r} (have {sorted(seeds)})")
    return seeds[key]
