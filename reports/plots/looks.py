"""One colour and one marker per registry entry, the same in every figure and every report.

The entries are read from the registry files themselves, the lists `splinebench list`
prints: implementations from impls/registry.def, scattered solvers from
systems/scattered/solvers.def, 2-D IIR schemes from
systems/iir2d/include/splinebench/iir2d/schemes.def. An entry's look is fixed by its
position in its own file, so it does not depend on which runs a report holds (colour by
the position in a run's recorded registry gave one name a different colour in two
figures when their runs registered different lists).

The oracle and the peer libraries stand apart from the palette (black star; grey and
dark gold with their own markers) so a reader finds them first in any figure. A name
in no registry (a run of an implementation since removed) gets a stable pick by its
name from the same palette.
"""
from __future__ import annotations

import functools
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

REGISTRY_FILES = (
    ("implementation", "impls/registry.def"),
    ("solver", "systems/scattered/solvers.def"),
    ("scheme", "systems/iir2d/include/splinebench/iir2d/schemes.def"),
)

# 14 colours that stay apart on white and in print; no grey, black or gold (the anchors').
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf", "#8c564b", "#e377c2",
           "#bcbd22", "#393b79", "#843c39", "#637939", "#7b4173", "#008080")
# 10 markers; with 14 colours every (colour, marker) pair is unique over 70 entries.
MARKERS = ("o", "s", "^", "D", "v", "<", ">", "p", "h", "d")

# The oracle and the peers (reports/tables_peer_speedup.py compares against the same two).
ANCHORS = {
    "reference": ("#000000", "*"),
    "scipy": ("#7f7f7f", "X"),
    "cupy": ("#b8860b", "P"),
}

# An X-macro line of a registry file: MACRO(name, ...). Comments and #define lines do not match.
_ENTRY = re.compile(r"^\s*[A-Z][A-Z0-9_]*\(\s*([a-z][a-z0-9_]*)\s*[,)]", re.MULTILINE)


@dataclass(frozen=True)
class Look:
    colour: str
    marker: str


def registry_names(relative: str, root: Path = REPO_ROOT) -> list[str]:
    """The entries of one registry file, in file order."""
    path = root / relative
    if not path.is_file():
        raise FileNotFoundError(f"{path}: registry file not found (plot colours are taken from it)")
    return _ENTRY.findall(path.read_text(encoding="utf-8"))


@functools.cache
def _table() -> dict[str, Look]:
    looks: dict[str, Look] = {name: Look(*look) for name, look in ANCHORS.items()}
    for _, relative in REGISTRY_FILES:
        position = 0
        for name in registry_names(relative):
            if name in looks:
                continue
            looks[name] = Look(PALETTE[position % len(PALETTE)], MARKERS[position % len(MARKERS)])
            position += 1
    return looks


def look(name: str) -> Look:
    """The look of a registry entry (implementation, solver or scheme) by name."""
    found = _table().get(name)
    if found is not None:
        return found
    pick = zlib.crc32(name.encode())
    return Look(PALETTE[pick % len(PALETTE)], MARKERS[pick % len(MARKERS)])


def colour(name: str) -> str:
    return look(name).colour


def marker(name: str) -> str:
    return look(name).marker
