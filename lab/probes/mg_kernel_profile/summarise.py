"""Sums Nsight Compute's gpu__time_duration by kernel name (profile.sh's CSV): launches,
total and mean microseconds, largest total first."""
import csv
import sys
from collections import defaultdict

total, count = defaultdict(float), defaultdict(int)
with open(sys.argv[1], newline="") as f:
    rows = [line for line in f if line.startswith('"')]
for row in csv.DictReader(rows):
    if row.get("Metric Name") != "gpu__time_duration.sum":
        continue
    name = row["Kernel Name"].split("(")[0][:70]
    total[name] += float(row["Metric Value"].replace(",", "")) / 1e3  # ns -> us
    count[name] += 1
grand = sum(total.values())
print(f"{sum(count.values())} launches, {grand:.1f} us of kernels")
for name in sorted(total, key=total.get, reverse=True):
    print(f"{total[name]:10.1f} us {count[name]:6d} x {total[name] / count[name]:8.2f} us  {name}")
