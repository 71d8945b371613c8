"""Median phase times of the same cases across the runs of an A/B (lab/probes/ab_suite.sh),
one column per run in the order given: the prefilter for cases without queries, the
evaluation otherwise.

Usage: python3 lab/probes/ab_suite_table.py RUN_DIR [RUN_DIR ...]
"""
import gzip
import json
import os
import sys


def records(run_dir):
    path = os.path.join(run_dir, "results.json.gz")
    with (gzip.open(path, "rt") if os.path.exists(path) else open(os.path.join(run_dir, "results.json"))) as f:
        return {r["case_id"]: r for r in json.load(f)["records"]}


def main(dirs):
    runs = [(os.path.basename(os.path.normpath(d)), records(d)) for d in dirs]
    print("| case | phase | " + " | ".join(name for name, _ in runs) + " |")
    print("|---|---|" + "---|" * len(runs))
    for case_id in runs[0][1]:
        phase = "prefilter" if "/q0/" in case_id else "evaluate"
        cells = []
        for _, recs in runs:
            p = recs.get(case_id, {}).get("phases", {}).get(phase)
            cells.append("%.4g" % (p["median"] * 1e3) if p else "-")
        print(f"| {case_id} | {phase} ms | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
