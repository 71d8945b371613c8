"""Times derived from a record's phases, always from one run's own samples, with
their spread and a verdict on whether the samples can stand for one time.

A time made of several phases (e.g. query upload + evaluate + download) is taken
from the per-repetition sums, not the sum of medians: samples[i] of every phase
belong to repetition i of the same case."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .compare_stats import split_rounds
from .loader import Record, Run

# The context entry of a run made in rounds (reports.gate): {"count": R, ...}; each
# phase's samples are then R equal blocks, one per round, in round order.
ROUNDS_KEY = "rounds"
# A batch of lookups as the caller sees it: coordinates in, values out.
LOOKUP_PHASES = ("query_upload", "evaluate", "download")
PREFILTER_AXIS = "prefilter_axis{}"

# When the repetitions of one record say too little about its time (NOISY):
# - the middle half of the samples spans more than this fraction of the median, so
#   the median itself may move by that much on a rerun;
NOISY_IQR = 0.25
# - or the sorted samples fall into two groups, the faster group's slowest at least
#   this factor below the slower group's fastest, with the smaller group holding at
#   least BIMODAL_MIN_SHARE of the samples (and at least two): the case runs in two
#   regimes (thread wake-up, frequency, placement) and the median picks one by chance.
#   One or two stragglers among many are not a second regime: the median ignores them.
BIMODAL_GAP = 1.5
BIMODAL_MIN_SHARE = 0.15


@dataclass(frozen=True)
class Spread:
    """Median, quartiles (linear interpolation, as NumPy) and range of some samples."""

    median: float
    q1: float
    q3: float
    low: float
    high: float
    n: int

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    def scaled(self, factor: float) -> "Spread":
        return Spread(self.median * factor, self.q1 * factor, self.q3 * factor, self.low * factor,
                      self.high * factor, self.n)


def spread_of(samples) -> Spread:
    values = np.asarray(samples, dtype=float)
    q1, median, q3 = (float(v) for v in np.percentile(values, [25, 50, 75]))
    return Spread(median, q1, q3, float(values.min()), float(values.max()), len(values))


def combined_samples(record: Record, phases: tuple[str, ...]) -> list[float] | None:
    """Per-repetition sums of `phases` present in the record (None when none is,
    or when their repetitions do not line up: no total is invented then)."""
    present = [record.phases[p] for p in phases if p in record.phases]
    if not present:
        return None
    if len({p.n for p in present}) != 1:
        return None
    return [sum(values) for values in zip(*(p.samples for p in present))]


def combined_median(record: Record, phases: tuple[str, ...]) -> float | None:
    """Median seconds of the sum of `phases` present in the record (None when none is)."""
    present = [record.phases[p] for p in phases if p in record.phases]
    if len(present) == 1:
        return present[0].median  # the writer's own median
    samples = combined_samples(record, phases)
    return None if samples is None else spread_of(samples).median


def phase_spread(record: Record, phases: str | tuple[str, ...]) -> Spread | None:
    """Spread of one phase, or of the per-repetition sum of several."""
    samples = combined_samples(record, (phases,) if isinstance(phases, str) else phases)
    return None if samples is None else spread_of(samples)


def lookup_seconds(record: Record) -> float | None:
    """Host-visible time of one batch of lookups (transfers included where the
    implementation has them; a CPU implementation has only `evaluate`)."""
    if "evaluate" not in record.phases:
        return None
    return combined_median(record, LOOKUP_PHASES)


# One whole prepare + evaluate cycle as a caller sees it: the caller's host arrays in
# (samples, coordinates), the coefficients in place and the values in the caller's memory.
# `host_staging` is here because the GPU pipelines record their copies between the
# caller's pageable buffers and their pinned ones (samples and coordinates in, values
# out) as one phase per cycle, which cannot be split between setup and lookup; a library
# that copies from pageable memory inside its transfer calls (CuPy) has that copy in its
# upload, query_upload and download instead. `prefilter_axis<k>` are parts of
# `prefilter`, not added; `readback` is no per-cycle phase.
END_TO_END_PHASES = ("host_staging", "upload", "prefilter", "bind", "bound_stats", "query_upload", "evaluate",
                     "download")
NOT_IN_A_CYCLE = ("readback",)


def phases_outside_cycle(record: Record) -> list[str]:
    """Phases of the record that END_TO_END_PHASES neither sums nor covers (sorted)."""
    return sorted(p for p in record.phases if p not in END_TO_END_PHASES and p not in NOT_IN_A_CYCLE
                  and not p.startswith(PREFILTER_AXIS.format("")))


def end_to_end_seconds(record: Record) -> float | None:
    """Median of the per-repetition sum of END_TO_END_PHASES present in the record: one
    cycle from host arrays to host results. None when the record has a phase this list
    does not know (no time is reported that might leave work out)."""
    if phases_outside_cycle(record):
        return None
    return combined_median(record, END_TO_END_PHASES)


def with_setup_seconds(record: Record) -> float | None:
    """A batch of lookups plus putting the grid in place, the time of a caller who looks
    up a new table once: the whole cycle (end_to_end_seconds, a GPU pipeline's
    host_staging included) of a record that has lookups."""
    if "evaluate" not in record.phases:
        return None
    return end_to_end_seconds(record)


def lookup_spread(record: Record) -> Spread | None:
    if "evaluate" not in record.phases:
        return None
    return phase_spread(record, LOOKUP_PHASES)


def evaluate_seconds(record: Record) -> float | None:
    return record.phase_median("evaluate")


def queries_per_second(record: Record) -> float | None:
    seconds = evaluate_seconds(record)
    if not seconds or record.queries == 0:
        return None
    return record.queries * record.fields / seconds


def prefilter_samples_per_second(record: Record) -> float | None:
    seconds = record.phase_median("prefilter")
    if not seconds:
        return None
    return record.points * record.fields / seconds


def axis_seconds(record: Record, axis: int) -> float | None:
    """Median of the per-axis prefilter phase `prefilter_axis<axis>` (C-order axis)."""
    return record.phase_median(PREFILTER_AXIS.format(axis))


def has_axis_phases(record: Record) -> bool:
    return any(axis_seconds(record, a) is not None for a in range(record.dims))


def rounds_of(run: Run | None) -> int:
    """How many rounds a run's samples are made of (1 for a plain run)."""
    info = run.context.get(ROUNDS_KEY) if run is not None else None
    count = info.get("count") if isinstance(info, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) and count >= 1 else 1


# --- reliability -------------------------------------------------------------------------

def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def unreliable(samples) -> str | None:
    """Why these repetition samples cannot stand for one time (the record is
    NOISY), or None. See NOISY_IQR and BIMODAL_GAP."""
    values = sorted(float(v) for v in samples)
    n = len(values)
    if n < 4:
        return None  # too few to tell a second regime from chance
    smaller = max(2, math.ceil(BIMODAL_MIN_SHARE * n))
    # The widest relative gap between neighbours that leaves `smaller` samples on each side.
    best_gap, cut = 1.0, None
    for i in range(smaller - 1, n - smaller):
        low, high = values[i], values[i + 1]
        gap = math.inf if low <= 0 < high else (high / low if low > 0 else 1.0)
        if gap > best_gap:
            best_gap, cut = gap, i + 1
    if cut is not None and best_gap >= BIMODAL_GAP:
        fast, slow = values[:cut], values[cut:]
        return (f"bimodal: {len(fast)} samples near {_ms(float(np.median(fast)))}, "
                f"{len(slow)} near {_ms(float(np.median(slow)))}")
    spread = spread_of(values)
    if spread.median > 0 and spread.iqr > NOISY_IQR * spread.median:
        return f"spread: IQR {spread.iqr / spread.median:.0%} of the median"
    return None


def unreliable_in(samples, rounds: int) -> str | None:
    """`unreliable` for a run made in rounds: each round is one burst, judged on its
    own, and the run's time (the median of the round medians) is NOISY when most
    rounds are. A round disturbed on its own is outvoted, as in that time."""
    blocks = split_rounds(samples, rounds)
    if len(blocks) == 1:
        return unreliable(blocks[0])
    reasons = [why for why in (unreliable(b) for b in blocks) if why]
    if 2 * len(reasons) > len(blocks):
        return f"{len(reasons)} of {len(blocks)} rounds {reasons[0]}"
    return None


def phase_noise(record: Record, phases: str | tuple[str, ...]) -> str | None:
    """Why one phase (or the per-repetition sum of several) of the record is NOISY."""
    samples = combined_samples(record, (phases,) if isinstance(phases, str) else phases)
    return None if samples is None else unreliable_in(samples, rounds_of(record.run))


def record_noise(record: Record, phases: tuple[str, ...] = ("prefilter", "evaluate")) -> str | None:
    """The first reason any of `phases` of the record is NOISY, named by phase."""
    for name in phases:
        why = phase_noise(record, name)
        if why:
            return f"{name} {why}"
    return None
