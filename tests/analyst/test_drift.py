"""Drift on synthetic runs with planted shifts: real changes flagged, noise not, false discoveries bounded."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dqkit.contract.errors import InputError
from dqkit.notebook.drift import drift_of


def history(rates: dict[str, list[float]], sizes: dict[str, int], rng: np.random.Generator | None = None,
            metric: str = "spoof") -> pd.DataFrame:
    """Runs of each source: counts drawn binomially (rng) or exact (rate x size)."""
    rows = []
    for source, series in rates.items():
        for run, p in enumerate(series, 1):
            n = sizes[source]
            k = int(rng.binomial(n, p)) if rng is not None else round(n * p)
            rows.append({"run": run, "source": source, "metric": metric, "count": k, "total": n})
    return pd.DataFrame(rows)


def test_a_small_move_on_few_leads_is_noise_a_big_move_on_many_is_flagged() -> None:
    d = drift_of(history({"small": [0.04, 0.05], "big": [0.04, 0.15]}, {"small": 200, "big": 2000}))
    flagged = d.flagged
    assert list(flagged["source"]) == ["big"]
    assert flagged["previous_rate"].iat[0] == pytest.approx(0.04) and flagged["rate"].iat[0] == pytest.approx(0.15)
    assert d.tests == 2


def test_every_planted_shift_is_flagged_among_many_quiet_series() -> None:
    rng = np.random.default_rng(7)
    rates = {f"s{i}": [0.05] * 12 for i in range(10)}
    planted = {("s2", 6): 0.15, ("s5", 9): 0.16, ("s8", 4): 0.14}
    for (src, run), p in planted.items():
        rates[src] = [0.05] * (run - 1) + [p] * (12 - run + 1)
    d = drift_of(history(rates, {s: 2000 for s in rates}, rng))
    hits = {(r.source, int(r.run)) for r in d.flagged.itertuples()}
    assert set(planted) <= hits
    assert len(hits - set(planted)) <= 1  # the FDR at 5% allows about one false discovery among these


def test_with_no_shift_the_share_of_histories_with_any_flag_stays_near_alpha() -> None:
    rng = np.random.default_rng(11)
    alpha = 0.05
    trials = 40
    with_flag = 0
    for _ in range(trials):
        d = drift_of(history({"web": [0.04] * 200}, {"web": 1500}, rng), alpha=alpha)
        with_flag += int(len(d.flagged) > 0)
    # Under no shift at all, Benjamini-Hochberg bounds P(any flag) by alpha: about 2 of 40; 7 would be p < 0.01.
    assert with_flag <= 6


def test_small_samples_are_shown_not_tested_and_alpha_is_checked() -> None:
    d = drift_of(history({"tiny": [0.1, 0.9]}, {"tiny": 10}))
    assert d.tests == 0 and d.flagged.empty and len(d.table) == 2
    with pytest.raises(InputError):
        drift_of(history({"x": [0.1, 0.2]}, {"x": 100}), alpha=1.5)


def test_figure_has_a_line_per_source_and_rings_flagged_points() -> None:
    d = drift_of(history({"a": [0.04, 0.04, 0.15], "b": [0.1, 0.1, 0.1]}, {"a": 3000, "b": 3000}))
    fig = d.figure()
    names = [t.name for t in fig.data]
    assert "a" in names and "b" in names and "flagged change" in names
