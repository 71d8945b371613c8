"""Median filter time per case of a strips-rate run folder: python3 summarise.py RUNS LABEL."""
import glob
import gzip
import json
import sys

for f in sorted(glob.glob(f"{sys.argv[1]}/**/results.json*", recursive=True)):
    opened = gzip.open(f) if f.endswith(".gz") else open(f)
    for r in json.load(opened)["records"]:
        t = r.get("phases", {}).get("filter", {}).get("median")
        if t is None:
            continue
        rel = r.get("accuracy", {}).get("iir2d", {}).get("max_rel")
        print(f"{sys.argv[2]:>10} {r['case_id']:<50} {t * 1e3:8.3f} ms  rel {rel:.2e}  {r['verdict']}")
