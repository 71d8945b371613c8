"""What the reports know about implementations: the registry's names in a fixed
order (so rows and legends read the same everywhere), the device of each, and a
colour per name that every plot uses."""
from __future__ import annotations

# Order: CPU from simplest to fastest, then GPU likewise (registry.def).
KNOWN = {
    "reference": "cpu",
    "cpu_scalar": "cpu",
    "cpu_sse": "cpu",
    "cpu_simd": "cpu",
    "gpu_naive": "gpu",
    "gpu_texture": "gpu",
    "gpu_flex": "gpu",
    "gpu_flex_fixed": "gpu",
}

_COLOURS = {
    "reference": "#7f7f7f",
    "cpu_scalar": "#1f77b4",
    "cpu_sse": "#17becf",
    "cpu_simd": "#2ca02c",
    "gpu_naive": "#d62728",
    "gpu_texture": "#ff7f0e",
    "gpu_flex": "#9467bd",
    "gpu_flex_fixed": "#8c564b",
}
_EXTRA = ["#e377c2", "#bcbd22", "#393b79", "#637939", "#843c39", "#7b4173"]


def order_key(name: str) -> tuple[int, str]:
    names = list(KNOWN)
    return (names.index(name), name) if name in KNOWN else (len(names), name)


def ordered(names) -> list[str]:
    return sorted(set(names), key=order_key)


def colour(name: str) -> str:
    if name in _COLOURS:
        return _COLOURS[name]
    return _EXTRA[sum(map(ord, name)) % len(_EXTRA)]
