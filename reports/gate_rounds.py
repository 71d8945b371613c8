"""One run made of several rounds: the nightly gate runs its suite R times
(`splinebench run` repeats a case's repetitions back to back, so the rounds are
what interleaves the cases in time) and merges the R round folders into one run
folder that follows results/README.md:

- every record's samples are the rounds' samples in round order (R equal blocks),
  `repetitions` their total, and median/quartiles/min/max and the throughputs are
  recomputed over all of them;
- a case that errored or was skipped in any round is recorded with that status and
  says in which rounds; accuracy is the worst of the rounds (a verdict fails if
  it failed in any round);
- the context is round 1's, plus `rounds`: {"count", "repetitions", "runs": [run
  id, date, commit and load average of each round]} (reports/timing.py reads it).
"""
from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

import numpy as np

from .errors import ReportError
from .loader import RESULTS_FILE, parse_results
from .timing import ROUNDS_KEY

RUN_MANIFEST = "run.json"


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportError(f"{path}: cannot read: {exc}") from exc


def _phase(samples: list[float]) -> dict:
    values = np.asarray(samples, dtype=float)
    q1, median, q3 = (float(v) for v in np.percentile(values, [25, 50, 75]))
    return {"samples": [float(v) for v in values], "median": median, "min": float(values.min()),
            "max": float(values.max()), "q1": q1, "q3": q3, "iqr": q3 - q1}


def _worst(values: list) -> object:
    """The worst of the rounds' values of one accuracy field: the largest number,
    a missing (non-finite) value over any number, False over True."""
    if any(isinstance(v, bool) for v in values):
        return all(v is True for v in values)
    if any(v is None for v in values):
        return None
    numbers = [v for v in values if isinstance(v, (int, float))]
    return max(numbers) if numbers else values[0]


def _merge_accuracy(records: list[dict]) -> dict:
    merged: dict = {}
    for part in records[0].get("accuracy", {}) or {}:
        merged[part] = {}
        for key in records[0]["accuracy"][part]:
            merged[part][key] = _worst([(r.get("accuracy", {}) or {}).get(part, {}).get(key) for r in records])
    return merged


def _rescale_throughput(first: dict, merged_phases: dict) -> dict:
    """Throughputs are work / median time: the same work over the merged median."""
    out = dict(first.get("throughput") or {})
    for keys, phase in ((("prefilter_samples_per_s", "prefilter_GBps"), "prefilter"),
                        (("queries_per_s", "evaluate_GBps"), "evaluate")):
        old = (first.get("phases") or {}).get(phase, {}).get("median")
        new = merged_phases.get(phase, {}).get("median")
        for key in keys:
            if out.get(key) is not None and old and new:
                out[key] = out[key] * old / new
    return out


def merge_records(records: list[dict]) -> dict:
    """One record from the same case's records of each round, in round order."""
    rounds = len(records)
    bad = [(i + 1, r) for i, r in enumerate(records) if r.get("status") != "ok"]
    if bad:
        status = "error" if any(r["status"] == "error" for _, r in bad) else "skipped"
        which = [i for i, r in bad if r["status"] == status]
        merged = copy.deepcopy(next(r for _, r in bad if r["status"] == status))
        merged["message"] = (f"{status} in round{'s' if len(which) > 1 else ''} "
                             f"{', '.join(map(str, which))} of {rounds}: {merged.get('message') or 'no message'}")
        return merged
    first = records[0]
    merged = copy.deepcopy(first)
    names = [n for n in first.get("phases", {}) if all(n in (r.get("phases") or {}) for r in records)]
    merged["phases"] = {n: _phase([v for r in records for v in r["phases"][n]["samples"]]) for n in names}
    merged["repetitions"] = sum(int(r.get("repetitions", 0)) for r in records)
    merged["throughput"] = _rescale_throughput(first, merged["phases"])
    merged["accuracy"] = _merge_accuracy(records)
    failed = [i + 1 for i, r in enumerate(records) if r.get("verdict") == "fail"]
    if failed:
        merged["verdict"] = "fail"
        messages = [r["message"] for r in records if r.get("verdict") == "fail" and r.get("message")]
        merged["message"] = (f"accuracy failed in round{'s' if len(failed) > 1 else ''} "
                             f"{', '.join(map(str, failed))} of {rounds}" + (f": {messages[0]}" if messages else ""))
    return merged


def merge_documents(docs: list[dict], round_facts: list[dict]) -> dict:
    """results.json of a run in rounds from the rounds' results.json documents."""
    ids = [[r["case_id"] + f"/T{r.get('threads', 1)}" for r in doc["records"]] for doc in docs]
    if any(i != ids[0] for i in ids[1:]):
        raise ReportError("the rounds did not run the same cases (did the suite or the build change between "
                          "rounds?)")
    repetitions = {r.get("repetitions") for doc in docs for r in doc["records"] if r.get("status") == "ok"}
    merged = copy.deepcopy(docs[0])
    merged["records"] = [merge_records([doc["records"][i] for doc in docs]) for i in range(len(ids[0]))]
    merged["context"][ROUNDS_KEY] = {"count": len(docs),
                                     "repetitions": repetitions.pop() if len(repetitions) == 1 else None,
                                     "runs": round_facts}
    parse_results(merged, where="merged rounds")  # the merge must still follow the schema
    return merged


def merge_round_dirs(round_dirs: list[Path], into: Path, loadavg: list[list[float]] | None = None) -> Path:
    """Writes the merged run of `round_dirs` as the run folder `into` (which must not
    exist): results.json and run.json (round 1's manifest, plus `rounds`). Written in
    a sibling temporary folder and renamed, so `into` is whole or absent."""
    if into.exists():
        raise ReportError(f"{into} exists; a run folder is never overwritten")
    docs = [_read_json(Path(d) / RESULTS_FILE) for d in round_dirs]
    facts = []
    for i, doc in enumerate(docs):
        ctx = doc.get("context", {})
        fact = {k: ctx.get(k) for k in ("run_id", "date", "git_sha", "git_dirty")}
        if loadavg is not None:
            fact["loadavg"] = loadavg[i]
        facts.append(fact)
    merged = merge_documents(docs, facts)
    manifest_path = Path(round_dirs[0]) / RUN_MANIFEST
    manifest = _read_json(manifest_path) if manifest_path.exists() else None
    staging = into.with_name(f".{into.name}.merging-{os.getpid()}")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    try:
        (staging / RESULTS_FILE).write_text(json.dumps(merged, indent=1) + "\n", encoding="utf-8")
        if manifest is not None:
            manifest[ROUNDS_KEY] = merged["context"][ROUNDS_KEY]
            (staging / RUN_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        staging.rename(into)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)  # a failed or interrupted merge leaves nothing
        raise
    return into
