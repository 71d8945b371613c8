"""bench/module_throughput.py's method, without a device: the warm-up goes on until every
call's window medians have settled (and at least the least rounds and work), stops at its
cap when they never do, and each row's statistics (median, quartiles, drift) are those of
its samples. The timed calls are stand-ins whose "device time" follows a script."""
from __future__ import annotations

import importlib.util
import statistics
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("module_throughput", BENCH / "module_throughput.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(BENCH))


def scripted(times: dict):
    """timed(call) for calls that are keys of `times`: each call's next scripted time."""
    position = {key: 0 for key in times}

    def timed(key):
        series = times[key]
        ms = series[min(position[key], len(series) - 1)]
        position[key] += 1
        return ms, 1.0
    return timed


def test_warm_up_lasts_until_every_call_has_settled(bench):
    # One call ramps down for 120 rounds (a clock coming up), the other is flat from the start.
    ramp = [0.30 - 0.001 * i for i in range(120)] + [0.18] * 400
    flat = [1.0] * 520
    calls = {"ramp": "ramp", "flat": "flat"}
    took = bench.warm_up(calls, scripted({"ramp": ramp, "flat": flat}), min_rounds=50, min_ms=0.0, tolerance=0.03,
                         max_rounds=300)
    assert took["settled"]
    # The last three windows must lie past the ramp's steep part: the first window whose
    # median is within 3 % of the floor ends at round 120 or so.
    assert 130 <= took["rounds"] <= 160 and took["rounds"] % bench.WINDOW == 0


def test_warm_up_keeps_its_least_rounds_and_work(bench):
    flat = {"a": [0.2] * 1000}
    took = bench.warm_up({"a": "a"}, scripted(flat), min_rounds=50, min_ms=0.0, tolerance=0.03, max_rounds=300)
    assert took == {"rounds": 50, "work_ms": pytest.approx(10.0), "settled": True}
    # 200 ms of 0.2 ms calls: 1000 rounds, more than the cap allows: it stops there, unsettled.
    took = bench.warm_up({"a": "a"}, scripted(flat), min_rounds=50, min_ms=200.0, tolerance=0.03, max_rounds=300)
    assert took["rounds"] == 300 and not took["settled"]


def test_warm_up_stops_at_its_cap_when_nothing_settles(bench):
    # Window medians alternate by 10 %: never three within 3 %.
    noisy = [(0.20 if (i // bench.WINDOW) % 2 else 0.22) for i in range(1000)]
    took = bench.warm_up({"a": "a"}, scripted({"a": noisy}), min_rounds=50, min_ms=0.0, tolerance=0.03,
                         max_rounds=120)
    assert took["rounds"] == 120 and not took["settled"]


def test_rounds_alternate_the_calls_and_keep_their_samples(bench):
    order = []

    def timed(key):
        order.append(key)
        return float(len(order)), 2.0

    device, host = bench.timed_rounds({"m": "m", "c": "c"}, timed, 3)
    assert order == ["m", "c"] * 3
    assert device == {"m": [1.0, 3.0, 5.0], "c": [2.0, 4.0, 6.0]}
    assert host == {"m": [2.0] * 3, "c": [2.0] * 3}


def test_spread_of_a_row(bench):
    samples = [0.30, 0.25, 0.22, 0.21, 0.20, 0.20, 0.21, 0.20, 0.20]
    s = bench.spread(samples)
    assert s["ms_median"] == statistics.median(samples) and s["n"] == 9
    assert s["ms_min"] == 0.20 and s["ms_max"] == 0.30
    q1, _, q3 = statistics.quantiles(samples, n=4)
    assert (s["ms_q1"], s["ms_q3"]) == (q1, q3)
    # The last third's median (0.20) over the first third's (0.25): still falling.
    assert s["drift"] == pytest.approx(0.20 / 0.25)
    assert bench.spread([0.5])["drift"] == 1.0


class FakeCupy:
    """What event_timer touches of CuPy, recording the order of what goes on the stream."""

    def __init__(self):
        self.log = []
        fake = self

        class Event:
            def record(self, stream):
                fake.log.append(("record", id(self)))

            def synchronize(self):
                pass

        class RawKernel:
            def __init__(self, source, name):
                assert "clock64" in source and name == "spin"

            def __call__(self, grid, block, args, stream=None):
                fake.log.append(("spin", int(args[0])))

        class Runtime:
            @staticmethod
            def getDeviceProperties(device):
                return {"clockRate": 1_980_000}  # kHz

        class Device:
            id = 0

        class Cuda:
            pass

        cuda = Cuda()
        cuda.Event, cuda.runtime, cuda.Device = Event, Runtime, Device
        cuda.get_current_stream = lambda: "stream"
        cuda.get_elapsed_time = lambda start, stop: 0.5
        self.cuda, self.RawKernel, self.int64 = cuda, RawKernel, int


def test_hold_spins_before_the_opening_event_for_its_cycles(bench):
    fake = FakeCupy()
    timed = bench.event_timer(fake, hold_us=2000.0)
    ms, host_us = timed(lambda: fake.log.append(("call", 0)))
    assert ms == 0.5 and host_us >= 0
    kinds = [k for k, _ in fake.log]
    assert kinds == ["spin", "record", "call", "record"]
    assert fake.log[0][1] == 2000 * 1980  # 2000 us at 1980 MHz


def test_without_a_hold_the_events_open_on_the_call(bench):
    fake = FakeCupy()
    timed = bench.event_timer(fake, hold_us=0.0)
    timed(lambda: fake.log.append(("call", 0)))
    assert [k for k, _ in fake.log] == ["record", "call", "record"]
