"""The statistics of a regression compare, for one case-phase and then for all
of them together.

Samples taken back to back in one burst share the machine's state of that moment
(load on the other cores, clock, where the data landed in memory), so they are not
independent draws: a test over them reports a burst-to-burst difference as a
certainty. The unit of observation is therefore one *run* of the case: the median
of its samples, or, when the run was made in rounds (reports.gate runs the suite
several times, interleaving the cases in time), the median of its per-round
medians. Which units a comparison uses, best first:

  runs     BASE holds >= 2 runs (an A/A baseline): BASE's per-run times against
           NEW's run time. Their spread is the run-to-run noise of this machine.
  rounds   one run per side, each made in >= 2 rounds: per-round medians. Misses
           whatever differs between whole runs (placement, a busy hour).
  samples  one run per side, no rounds: the raw samples. Optimistic (see above);
           the report says so.

The machine's speed of the moment. Another job on a shared machine slows every
case measured while it runs, by a similar factor; the cases of one round run within
seconds of each other. So, with enough case-phases (MIN_CASES_FOR_MACHINE), each
round of each run gets a machine factor: the median over the case-phases of
log(time / BASE's time) (the median: a change of a minority of the cases does not
move it). Cases feel load to different degrees, so each case's sensitivity to the
factor is measured on BASE's rounds (load_sensitivity), and a case's log times lose
sensitivity x factor of the round they were measured in before they are compared.
The factors themselves are compared as one more test, the whole run (a change of
every case, or of most, shows there), and so is each implementation's interquartile
mean over its case-phases.

Per test: Student's t-test (scipy.stats.ttest_ind, equal variances: under the null
hypothesis NEW is one more draw of what BASE measured) on the logarithms of the
units, one-sided each way. Over all case-phases of one compare: the
Benjamini-Hochberg adjustment (scipy.stats.false_discovery_control) of each
direction's p-values. Verdicts (alpha, relative threshold t, absolute threshold a),
on the ratio new / base after the machine factor ("relative"):

  SLOWER  adjusted p < alpha, relative >= 1 + t and base x (relative - 1) >= a,
          and, for a NEW made in rounds, every round's relative >= 1 + t (but one
          of four to six rounds; rounds_may_miss): a change of the code shows in
          every round, a passing load burst in some (fails)
  FASTER  the same the other way
  NOISY   otherwise, when the change is beyond both thresholds but the noise
          cannot confirm it, or when a record's own samples are NOISY
          (timing.unreliable)
  SAME    otherwise
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace

import numpy as np
from scipy.stats import false_discovery_control, ttest_ind

VERDICTS = ("SLOWER", "NOISY", "FASTER", "SAME")
UNITS = ("runs", "rounds", "samples")
# Times of zero (below the clock's resolution) still need a logarithm.
TIME_FLOOR = 1e-9
# Below this many case-phases a median says too little about the machine: no factor.
MIN_CASES_FOR_MACHINE = 8
# load_sensitivity's pull toward 1, in units of squared log factor: as much as thirty
# BASE rounds whose factors swing by 5%.
SENSITIVITY_PRIOR = 30 * 0.05 ** 2
MAX_SENSITIVITY = 4.0


def rounds_may_miss(rounds: int) -> int:
    """How many of NEW's rounds a change may miss: none of three or fewer (two rounds
    hit by one load burst are then already most of them), one of four to six, two of
    seven to nine. A round hit by a burst the machine factor missed (it is one number
    for the seconds a round takes) should not hide a real change."""
    return max(0, rounds - math.ceil((2 * rounds + 1) / 3))


@dataclass(frozen=True)
class PhaseComparison:
    base_median: float    # median over BASE's per-run times (seconds)
    new_median: float     # NEW's run time
    ratio: float          # new / base as measured (> 1: slower)
    relative: float       # new / base after the machine factors: what the verdict judges
    unit: str             # "runs", "rounds" or "samples": what was tested
    n_base: int           # units on each side
    n_new: int
    noise: float          # BASE's spread in those units: standard deviation of log(time)
    p_slower: float       # one-sided t-test p, NEW slower; nan when it cannot be computed
    p_faster: float
    round_low: float      # `relative` of NEW's fastest and slowest round, after leaving out
    round_high: float     # rounds_may_miss() at either end (its only round's, for one)
    p_adjusted: float = math.nan  # Benjamini-Hochberg, the direction of the change
    verdict: str = "SAME"
    flags: str = ""       # why a record is NOISY, if one is
    note: str = ""


def split_rounds(samples, rounds: int) -> list[list[float]]:
    """The samples of each round, when `samples` is `rounds` equal blocks in round
    order (how reports.gate merges rounds); otherwise one block."""
    samples = list(samples)
    if rounds < 2 or len(samples) % rounds:
        return [samples]
    size = len(samples) // rounds
    return [samples[i * size:(i + 1) * size] for i in range(rounds)]


def round_medians(samples, rounds: int) -> list[float]:
    return [statistics.median(block) for block in split_rounds(samples, rounds)]


def run_time(samples, rounds: int) -> float:
    """One run's time for a case-phase: the median of its per-round medians (of its
    samples, for a run in one round). A round disturbed by a passing load is outvoted."""
    return statistics.median(round_medians(samples, rounds))


def log_times(values) -> np.ndarray:
    return np.log(np.maximum(np.asarray(values, dtype=float), TIME_FLOOR))


def machine_factors(logs: list[dict[object, np.ndarray]], centers: list[float]) -> dict[object, np.ndarray]:
    """The log machine factor of every round of every run: `logs[k][run]` holds case-phase
    k's log round times in that run, `centers[k]` BASE's log time of k. A run with
    fewer than MIN_CASES_FOR_MACHINE case-phases gets factors of 0 (none)."""
    by_run: dict[object, list[np.ndarray]] = {}
    for per_run, center in zip(logs, centers):
        for run, values in per_run.items():
            by_run.setdefault(run, []).append(values - center)
    factors = {}
    for run, rows in by_run.items():
        lengths = {len(r) for r in rows}
        if len(rows) < MIN_CASES_FOR_MACHINE or len(lengths) != 1:
            factors[run] = np.zeros(max(lengths))
        else:
            factors[run] = np.median(np.vstack(rows), axis=0)
    return factors


def load_sensitivity(per_run: dict[object, np.ndarray], center: float, factors: dict[object, np.ndarray],
                     base_runs: list[object]) -> float:
    """How strongly one case-phase follows the machine factor: the least-squares slope
    of its log ratios on the factors over BASE's rounds, drawn toward 1 (the plain
    factor) by SENSITIVITY_PRIOR, so that a baseline whose factors hardly varied
    leaves it at 1. Compute-bound cases slow down less than the median case when the
    machine is busy, memory-bound ones more."""
    runs = [b for b in base_runs if b in per_run and b in factors]
    if not runs:
        return 1.0
    z = np.concatenate([per_run[b] - center for b in runs])
    m = np.concatenate([factors[b] for b in runs])
    if len(z) != len(m) or len(z) < 3:
        return 1.0
    mc, zc = m - m.mean(), z - z.mean()
    slope = 1.0 + float(np.dot(zc - mc, mc) / (np.dot(mc, mc) + SENSITIVITY_PRIOR))
    return min(max(slope, 0.0), MAX_SENSITIVITY)


def compare_case(base_units, new_units, unit: str, base_median: float, new_median: float,
                 new_rounds=None, flags: str = "") -> PhaseComparison:
    """The unadjusted comparison of one case-phase; `decide` gives the verdict.
    `base_units`, `new_units`: log times of the units, machine factors removed;
    `new_rounds`: NEW's log round times likewise (its unit, for one round)."""
    if unit not in UNITS:
        raise ValueError(f"unit {unit!r} is not one of {UNITS}")
    base_log, new_log = np.asarray(base_units, dtype=float), np.asarray(new_units, dtype=float)
    if base_median <= 0:
        ratio = math.inf if new_median > 0 else 1.0
    else:
        ratio = new_median / base_median
    center = float(np.median(base_log))
    rounds = np.asarray(new_rounds if new_rounds is not None else new_log, dtype=float)
    relative = math.exp(float(np.median(new_log)) - center)
    noise = float(np.std(base_log, ddof=1)) if len(base_log) >= 2 else math.nan
    note = ""
    if len(base_log) + len(new_log) < 3 or max(len(base_log), len(new_log)) < 2:
        p_slower = p_faster = math.nan
        note = f"{len(base_log)} and {len(new_log)} {unit} cannot measure the noise"
    elif np.ptp(np.concatenate([base_log, new_log])) == 0:
        p_slower = p_faster = 1.0  # every unit identical: no evidence of any change
    else:
        p_slower = float(ttest_ind(new_log, base_log, equal_var=True, alternative="greater").pvalue)
        p_faster = float(ttest_ind(new_log, base_log, equal_var=True, alternative="less").pvalue)
    ordered = np.sort(rounds)
    skip = rounds_may_miss(len(ordered))
    return PhaseComparison(base_median, new_median, ratio, relative, unit, len(base_log), len(new_log), noise,
                           p_slower, p_faster, math.exp(float(ordered[skip]) - center),
                           math.exp(float(ordered[-1 - skip]) - center), flags=flags, note=note)


def _adjusted(p_values: list[float]) -> list[float]:
    """Benjamini-Hochberg over the p-values that exist (nan stays nan)."""
    index = [i for i, p in enumerate(p_values) if not math.isnan(p)]
    out = [math.nan] * len(p_values)
    if index:
        adjusted = false_discovery_control([p_values[i] for i in index], method="bh")
        for i, q in zip(index, adjusted):
            out[i] = float(q)
    return out


def decide(comparisons: list[PhaseComparison], alpha: float, threshold: float,
           min_abs: float) -> list[PhaseComparison]:
    """Verdicts for all case-phases of one compare (the adjustment needs them all)."""
    slower_q = _adjusted([c.p_slower for c in comparisons])
    faster_q = _adjusted([c.p_faster for c in comparisons])
    out = []
    for c, q_slow, q_fast in zip(comparisons, slower_q, faster_q):
        change = c.base_median * (c.relative - 1)
        grown = c.relative >= 1 + threshold and change >= min_abs
        shrunk = c.relative * (1 + threshold) <= 1 and -change >= min_abs
        # A change of the code shows in every round; a load burst does not.
        every_round = c.round_low >= 1 + threshold if grown else c.round_high * (1 + threshold) <= 1
        q = q_slow if c.relative >= 1 else q_fast
        note = c.note
        if grown and q_slow < alpha and every_round:
            verdict = "SLOWER"
        elif shrunk and q_fast < alpha and every_round:
            verdict = "FASTER"
        elif grown or shrunk or c.flags:
            verdict = "NOISY"
            if (grown or shrunk) and (q_slow if grown else q_fast) < alpha and not every_round:
                note = "; ".join(x for x in (note, "not in every round of NEW") if x)
        else:
            verdict = "SAME"
        out.append(replace(c, p_adjusted=q, verdict=verdict, note=note))
    return out


def geometric_mean(values: list[float]) -> float | None:
    finite = [v for v in values if v > 0 and math.isfinite(v)]
    if not finite:
        return None
    return math.exp(sum(math.log(v) for v in finite) / len(finite))
