"""Splits profile.sh's CSV (run with SOLVE=1: durations and grid sizes, caches kept warm)
into preparations and solves and sums the solves' kernels by name and grid size, per
solve. A preparation begins at a radix sort (the samples' sort); its solve begins at its
first chebyshev_first (no setup part launches that kernel) and runs to the next sort. The
default variant's first timed run and its second solve on the same hierarchy are
segment 2 (the warm-up is segment 1).
    python3 solve_split.py ncu-mg.csv [SEGMENT] [SOLVES_IN_SEGMENT]"""
import csv
import sys
from collections import defaultdict

path = sys.argv[1]
segment_wanted = int(sys.argv[2]) if len(sys.argv) > 2 else 2
solves = int(sys.argv[3]) if len(sys.argv) > 3 else 2
with open(path, newline="") as f:
    rows = [line for line in f if line.startswith('"')]
kernels = {}  # ID -> [name, duration_ns, grid]
for row in csv.DictReader(rows):
    k = kernels.setdefault(int(row["ID"]), [row["Kernel Name"].split("(")[0][:60], 0.0, 0])
    value = float(row["Metric Value"].replace(",", ""))
    if row["Metric Name"] == "gpu__time_duration.sum":
        k[1] = value
    elif row["Metric Name"] == "launch__grid_size":
        k[2] = int(value)
seq = [kernels[i] for i in sorted(kernels)]
segment, in_solve, prev_sort = 0, False, False
total, count = defaultdict(float), defaultdict(int)
setup_ns = solve_ns = 0.0
solve_launches = 0
for name, ns, grid in seq:
    is_sort = "RadixSort" in name
    if is_sort and not prev_sort:
        segment += 1
        in_solve = False
    prev_sort = is_sort
    if segment != segment_wanted:
        continue
    if "chebyshev_first" in name:
        in_solve = True
    if not in_solve:
        setup_ns += ns
        continue
    solve_ns += ns
    solve_launches += 1
    total[(name, grid)] += ns / 1e3
    count[(name, grid)] += 1
print(f"segment {segment_wanted} of {segment}: preparation kernels {setup_ns / 1e3:.1f} us; "
      f"{solve_launches} solve launches, {solve_ns / 1e3:.1f} us of kernels ({solves} solves: "
      f"{solve_ns / 1e3 / solves:.1f} us and {solve_launches / solves:.0f} launches per solve)")
for key in sorted(total, key=total.get, reverse=True):
    name, grid = key
    print(f"{total[key] / solves:9.1f} us/solve {count[key] / solves:6.1f} x {total[key] / count[key]:7.2f} us  "
          f"grid {grid:6d}  {name}")
