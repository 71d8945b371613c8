"""reports.threads_check: verdict kinds and exit status on a small synthetic run."""
from __future__ import annotations

import gzip
import json

from reports.threads_check import check, main


def _rec(case, threads, used, **phases):
    return {"impl": "cpu_simd", "status": "ok", "case_id": f"{case}/T{threads}", "threads": threads,
            "threads_used": used,
            "phases": {k: {"samples": v, "median": sorted(v)[len(v) // 2]} for k, v in phases.items()}}


def _doc(eval_many):
    # Case a: the prefilter ran on 4 threads, the evaluation on one (a NEIGHBOUR when slower);
    # case b: every phase on one thread at both thread counts (identical work).
    return {"records": [
        _rec("a", 1, {"prefilter": 1, "evaluate": 1}, upload=[1.0] * 3, prefilter=[4.0] * 3, evaluate=[1.0] * 3),
        _rec("a", 16, {"prefilter": 4, "evaluate": 1}, upload=[1.0] * 3, prefilter=[1.0] * 3,
             evaluate=[eval_many] * 3),
        _rec("b", 1, {"prefilter": 1}, upload=[1.0] * 3, prefilter=[1.0] * 3),
        _rec("b", 16, {"prefilter": 1}, upload=[1.0] * 3, prefilter=[1.0] * 3),
    ]}


def test_neighbour_phase_counted_unless_asked_apart():
    rows, counted = check(_doc(1.5), "cpu_simd", 1.2, strict=False)
    verdicts = {(w["case"], w["phase"]): w["verdict"] for w in rows}
    assert verdicts[("a", "evaluate")] == "NEIGHBOUR"
    assert verdicts[("a", "repetition")] == "ok"  # 3.5 s against 6 s
    assert counted == 0
    assert check(_doc(1.5), "cpu_simd", 1.2)[1] == 1


def test_identical_work_slower_counts_and_exits_1(tmp_path):
    doc = _doc(1.0)
    doc["records"][3]["phases"]["prefilter"] = {"samples": [1.5] * 3, "median": 1.5}
    rows, counted = check(doc, "cpu_simd", 1.2)
    assert {(w["case"], w["phase"]): w["verdict"] for w in rows}[("b", "prefilter")] == "SLOWER"
    assert counted == 2  # the phase and the whole repetition
    with gzip.open(tmp_path / "results.json.gz", "wt") as f:
        json.dump(doc, f)
    assert main([str(tmp_path)]) == 1
    assert main([str(tmp_path), "--limit", "2"]) == 0
