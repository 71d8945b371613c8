"""The Python benchmarks' result files in a machine's results folder: bench/bench_json.py
writes each as results/<machine>/<stamp>-<kind>/<benchmark>.json (kind: the benchmark's
name with dashes), one per run of the benchmark; they are not harness runs."""
from __future__ import annotations

import json
from pathlib import Path

from .errors import ReportError


def load_bench_docs(machine_folder: Path, benchmark: str, what: str) -> list[dict]:
    """Every <benchmark>.json of a machine's results folder, oldest first; an unreadable
    file or one of another benchmark raises ReportError naming its path (`what` names the
    kind of file in the message)."""
    kind = benchmark.replace("_", "-")
    docs = []
    for path in sorted(Path(machine_folder).glob(f"*-{kind}/{benchmark}.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ReportError(f"{path}: unreadable {what} file: {exc}") from exc
        if not isinstance(doc, dict) or doc.get("benchmark") != benchmark or not isinstance(doc.get("rows"), list):
            raise ReportError(f"{path}: not a bench/{benchmark}.py file")
        docs.append(doc)
    return docs
