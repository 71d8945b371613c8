#!/usr/bin/env python3
"""Ratio table of a bench_kernels run (Google Benchmark JSON with repetitions).

Usage: python3 bench/ratio_table.py RUN.json [--markdown]

Uses the median aggregate of each benchmark (run with --benchmark_repetitions=9 or
more). Prints, for the acceptance cases, each implementation's median and its ratio
to cpu_scalar, the prefilter's per-axis times, and cpu_simd's thread scaling when the
run has several thread counts. Only numbers present in the file are printed.
"""
import json
import re
import sys
from collections import defaultdict

NAME = re.compile(r"^(?P<case>[^/]+)/(?P<impl>[^/]+)/threads:(?P<threads>\d+)")


def load(path):
    with open(path) as f:
        doc = json.load(f)
    medians = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") != "aggregate" or b.get("aggregate_name") != "median":
            continue
        m = NAME.match(b["run_name"])
        if m:
            medians[(m["case"], m["impl"], int(m["threads"]))] = b
    if not medians:
        sys.exit(f"{path}: no median aggregates (run with --benchmark_repetitions=9)")
    return doc.get("context", {}), medians


def ms(b):
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
    return b["real_time"] * scale


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    context, med = load(sys.argv[1])
    print(f"# {sys.argv[1]}")
    for key in ("host_name", "num_cpus", "mhz_per_cpu", "loadavg_at_start", "facts_cpu_simd", "facts_cpu_sse"):
        if key in context:
            print(f"#   {key}: {context[key]}")
    cases = sorted({c for c, _, _ in med})
    impls = ["cpu_scalar", "cpu_sse", "cpu_simd"]
    print()
    print("| case | metric | " + " | ".join(impls) + " | sse/scalar | simd/scalar |")
    print("|---|---|" + "---|" * (len(impls) + 2))
    for case in cases:
        one = {i: med.get((case, i, 1)) for i in impls}
        if not all(one.values()):
            continue
        if "Mq_per_s" in one["cpu_scalar"]:
            vals = {i: one[i]["Mq_per_s"] for i in impls}
            metric, fmt = "Mq/s (1 thread)", "{:.2f}"
            ratio = lambda i: vals[i] / vals["cpu_scalar"]
        else:
            vals = {i: ms(one[i]) for i in impls}
            metric, fmt = "ms (1 thread)", "{:.1f}"
            ratio = lambda i: vals["cpu_scalar"] / vals[i]
        cells = " | ".join(fmt.format(vals[i]) for i in impls)
        print(f"| {case} | {metric} | {cells} | {ratio('cpu_sse'):.2f}x | {ratio('cpu_simd'):.2f}x |")
        if "Mq_per_s" in one["cpu_scalar"]:
            # The same from the benchmark thread's CPU time: on a shared machine, wall
            # time also counts the time other processes held the core.
            cpu = {i: vals[i] * one[i]["real_time"] / one[i]["cpu_time"] for i in impls}
            cells = " | ".join(f"{cpu[i]:.2f}" for i in impls)
            print(f"| {case} | Mq/s by CPU time | {cells} | {cpu['cpu_sse'] / cpu['cpu_scalar']:.2f}x | "
                  f"{cpu['cpu_simd'] / cpu['cpu_scalar']:.2f}x |")
    # Per-axis prefilter times (Ruijters' Table 1 columns).
    axis_rows = [(c, i, t, b) for (c, i, t), b in sorted(med.items()) if c.startswith("prefilter") and "axis0_s" in b]
    if axis_rows:
        print()
        print("| prefilter | impl | threads | axis0 ms | axis1 ms | axis2 ms | total ms |")
        print("|---|---|---|---|---|---|---|")
        for c, i, t, b in axis_rows:
            axes = " | ".join(f"{b[f'axis{d}_s'] * 1e3:.1f}" if f"axis{d}_s" in b else "-" for d in range(3))
            print(f"| {c} | {i} | {t} | {axes} | {ms(b):.1f} |")
    # Thread scaling of cpu_simd.
    by_case = defaultdict(dict)
    for (c, i, t), b in med.items():
        if i == "cpu_simd":
            by_case[c][t] = b
    scaling = {c: ts for c, ts in by_case.items() if len(ts) > 1 and 1 in ts}
    if scaling:
        print()
        print("| case (cpu_simd) | threads | value | speed-up vs 1 thread |")
        print("|---|---|---|---|")
        for c, ts in sorted(scaling.items()):
            base = ts[1]
            for t, b in sorted(ts.items()):
                if "Mq_per_s" in b:
                    print(f"| {c} | {t} | {b['Mq_per_s']:.2f} Mq/s | {b['Mq_per_s'] / base['Mq_per_s']:.2f}x |")
                else:
                    print(f"| {c} | {t} | {ms(b):.1f} ms | {ms(base) / ms(b):.2f}x |")


if __name__ == "__main__":
    main()
