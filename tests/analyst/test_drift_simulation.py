"""The drift goals of issue 29, on simulated histories (seeded, bounded): a 4% -> 6% spoof shift on 2,000 leads is
caught as well after 150 runs as after 20, a slow 4% -> 9% over 20 runs is caught, quiet runs are seldom flagged,
and no flag changes when runs are added. The histories are `benchmarks/bench_drift.py`'s (its docstring has the
figures over more trials and fresh seeds); the seeds here are not the ones the defaults were chosen on (7 and 3).

On the start commit (one correction over the whole history, consecutive runs compared) the shift was caught 8 times
in 40 after 150 runs, the slow drift once in 40, and 9 of 12 flags went away after 45 more runs.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_drift.py"
pytestmark = [pytest.mark.slow]
# Floors below the measured figures (bench_drift, seed 29 and fresh seeds: power 68-82% from 20 runs on, 0.55-0.98
# false flags per 100 quiet runs), with room for the noise of the few trials made here. The 80% power is not
# reachable with seven rates tested per run and false flags near 1 per 100 runs: see the bench's docstring.
POWER_FLOOR = 0.65
FALSE_CEILING = 0.015


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_drift", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_drift"] = mod  # dataclasses resolve their module by name
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return _bench()


def test_power_does_not_fall_as_history_grows(bench: ModuleType) -> None:
    rng = np.random.default_rng(2901)
    power = {n: bench.power_at(rng, n, 60) for n in (2, 20, 150)}
    print(f"\npower, 4% -> 6% on 2,000 leads: {power}")
    assert power[150] >= POWER_FLOOR and power[20] >= POWER_FLOOR
    assert power[150] >= power[20] - 0.1  # no fall with length (60 trials: 0.1 is noise)
    assert power[2] >= 0.2  # one earlier run is all the baseline there is


def test_a_slow_drift_is_caught(bench: ModuleType) -> None:
    rng = np.random.default_rng(2902)
    caught, delay = bench.ramp(rng, 40)
    print(f"\nslow 4% -> 9% over 20 runs: caught {caught:.0%}, median {delay} runs into the ramp")
    assert caught >= 0.8


def test_quiet_runs_are_seldom_flagged(bench: ModuleType) -> None:
    rng = np.random.default_rng(2903)
    per_run, any_flag = bench.false_flags(rng, 12, 150)
    print(f"\nquiet: {per_run:.4f} false flags per new run, {any_flag:.2%} of runs flagged")
    assert per_run <= FALSE_CEILING


def test_no_flag_changes_once_shown(bench: ModuleType) -> None:
    rng = np.random.default_rng(2904)
    changed, shown = bench.stability(rng, 4)
    assert shown > 0 and changed == 0
