"""The per-case statistics of a regression compare: ratio of medians and a
Mann-Whitney U test over the raw repetition samples.

Verdicts (threshold t, significance level alpha):
  SLOWER  p < alpha and new/base > 1 + t        (fails the compare)
  FASTER  p < alpha and new/base < 1 - t
  NOISY   |new/base - 1| > t but p >= alpha: a change this large that the
          repetitions cannot confirm (rerun with more repetitions)
  SAME    otherwise (no significant change, or one smaller than t)
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from scipy.stats import mannwhitneyu

VERDICTS = ("SLOWER", "FASTER", "NOISY", "SAME")


@dataclass(frozen=True)
class PhaseComparison:
    base_median: float
    new_median: float
    ratio: float          # new / base (> 1: slower)
    p_value: float        # two-sided Mann-Whitney U; nan when it cannot be computed
    verdict: str
    note: str = ""


def smallest_p(n_base: int, n_new: int) -> float:
    """Smallest two-sided p the exact U test can give for these sample counts
    (all of one sample below all of the other): 2 / C(n_base + n_new, n_base)."""
    return min(1.0, 2.0 / math.comb(n_base + n_new, n_base))


def compare_samples(base: list[float], new: list[float], threshold: float, alpha: float) -> PhaseComparison:
    base_median, new_median = statistics.median(base), statistics.median(new)
    if base_median <= 0:
        ratio = math.inf if new_median > 0 else 1.0
    else:
        ratio = new_median / base_median
    changed = ratio > 1 + threshold or ratio < 1 - threshold
    if len(base) < 2 or len(new) < 2 or smallest_p(len(base), len(new)) >= alpha:
        note = (f"{len(base)} and {len(new)} repetitions cannot reach p < {alpha:g}; "
                "rerun with more repetitions")
        return PhaseComparison(base_median, new_median, ratio, math.nan,
                               "NOISY" if changed else "SAME", note)
    if len(set(base) | set(new)) == 1:
        p_value = 1.0  # every sample identical: no evidence of any change
    else:
        p_value = float(mannwhitneyu(base, new, alternative="two-sided").pvalue)
    significant = p_value < alpha
    if significant and ratio > 1 + threshold:
        verdict = "SLOWER"
    elif significant and ratio < 1 - threshold:
        verdict = "FASTER"
    elif changed:
        verdict = "NOISY"
    else:
        verdict = "SAME"
    return PhaseComparison(base_median, new_median, ratio, p_value, verdict)


def geometric_mean(values: list[float]) -> float | None:
    finite = [v for v in values if v > 0 and math.isfinite(v)]
    if not finite:
        return None
    return math.exp(sum(math.log(v) for v in finite) / len(finite))
