"""Where the Python benchmarks (module_overhead.py, module_throughput.py) put their one
JSON file: results/<machine>/<stamp>-<kind>/<file>, written atomically (a partial file
renamed into place, so a reader never sees half a result)."""
from __future__ import annotations

import json
import os
from pathlib import Path


def write_result(out_root: Path, machine: str, stamp: str, kind: str, doc: dict) -> Path:
    """doc as results/<machine>/<stamp>-<kind>/<kind with _>.json under out_root; its path."""
    folder = Path(out_root) / machine / f"{stamp}-{kind}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{kind.replace('-', '_')}.json"
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    os.replace(partial, path)
    return path
