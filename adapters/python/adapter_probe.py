"""Whether the adapter could drive each library under this Python, without importing any
of them: the packages a backend imports are looked up (importlib.util.find_spec on
top-level names reads the import path's directories, it runs no package code), so one
short interpreter start answers for every library. The harness runs this once per
process and interpreter to say whether `scipy` and `cupy` can run (impls/external/);
the import itself, the versions and CuPy's device come from the adapter's `hello` when
an implementation is used.

    python adapter_probe.py
    {"protocol": 1, "python": "3.11.2", "libraries": {"scipy": {"available": true},
     "cupy": {"available": false, "reason": "cupy is not installed"}}}
"""
from __future__ import annotations

import importlib.util
import json
import sys

PROTOCOL = 1
# The oldest Python the adapter's modules run on (PEP 604 annotations are postponed,
# dataclasses and f-strings are used at run time).
MIN_PYTHON = (3, 8)
# What each backend needs importable: its library, and numpy for adapter_arrays.
REQUIRES = {"scipy": ("numpy", "scipy"), "cupy": ("numpy", "cupy")}


def missing_packages(packages) -> list[str]:
    missing = []
    for name in packages:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError) as e:  # a broken entry on the path, a half-removed package
            found = False
            name = f"{name} ({type(e).__name__}: {e})"
        if not found:
            missing.append(name)
    return missing


def probe(library: str) -> dict:
    if sys.version_info < MIN_PYTHON:
        need = ".".join(map(str, MIN_PYTHON))
        return {"available": False, "reason": f"Python {sys.version.split()[0]} is older than the adapter's {need}"}
    missing = missing_packages(REQUIRES[library])
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        return {"available": False, "reason": f"{' and '.join(missing)} {verb} not installed"}
    return {"available": True}


def main() -> int:
    answer = {"protocol": PROTOCOL, "python": sys.version.split()[0],
              "libraries": {library: probe(library) for library in REQUIRES}}
    sys.stdout.write(json.dumps(answer) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
