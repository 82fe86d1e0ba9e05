"""Drift on synthetic runs with planted shifts: real changes flagged, noise not; runs compared only within their group;
charts with one colour per source and a run axis of whole runs with their dates."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from analyst_helpers import sample

from dqkit.contract.errors import InputError
from dqkit.notebook.drift import drift, drift_of
from dqkit.notebook.history import record_run


def history(rates: dict[str, list[float]], sizes: dict[str, int], rng: np.random.Generator | None = None,
            metric: str = "spoof") -> pd.DataFrame:
    """Runs of each source: counts drawn binomially (rng) or exact (rate x size)."""
    rows = []
    for source, series in rates.items():
        for run, p in enumerate(series, 1):
            n = sizes[source]
            k = int(rng.binomial(n, p)) if rng is not None else round(n * p)
            rows.append({"run": run, "at": f"2026-03-{run:02d}T09:00:00+00:00", "source": source, "metric": metric,
                         "count": k, "total": n})
    return pd.DataFrame(rows)


def test_a_small_move_on_few_leads_is_noise_a_big_move_on_many_is_flagged() -> None:
    d = drift_of(history({"small": [0.04, 0.05], "big": [0.04, 0.15]}, {"small": 200, "big": 2000}))
    flagged = d.flagged
    assert list(flagged["source"]) == ["big"] and list(flagged["flag"]) == ["change"]
    assert flagged["baseline_rate"].iat[0] == pytest.approx(0.04) and flagged["rate"].iat[0] == pytest.approx(0.15)
    assert flagged["baseline_runs"].iat[0] == "1"
    assert d.tests == 2


def test_every_planted_shift_is_flagged_once_among_many_quiet_series() -> None:
    rng = np.random.default_rng(7)
    rates = {f"s{i}": [0.05] * 12 for i in range(10)}
    planted = {("s2", 6): 0.15, ("s5", 9): 0.16, ("s8", 4): 0.14}
    for (src, run), p in planted.items():
        rates[src] = [0.05] * (run - 1) + [p] * (12 - run + 1)
    d = drift_of(history(rates, {s: 2000 for s in rates}, rng))
    hits = {(r.source, int(r.run)) for r in d.flagged.itertuples()}
    # Each shift once: the runs after it are compared with the new level, not flagged again for the old one.
    assert hits == set(planted)


def test_power_does_not_fall_as_history_grows_and_flags_never_change() -> None:
    """The start commit corrected over the whole history: a 4% -> 15% step on 2,000 leads was flagged at run 3
    and lost among 150 runs; its flags changed as runs were added."""
    rng = np.random.default_rng(3)
    quiet = history({"web": [0.04] * 150}, {"web": 2000}, rng)
    step = history({"web": [0.08]}, {"web": 2000}, rng)
    for length in (3, 40, 150):
        runs = pd.concat([quiet[quiet["run"] < length], step.assign(run=length)], ignore_index=True)
        hit = drift_of(runs).flagged
        assert (hit["run"] == length).any(), f"a 4% -> 8% step at run {length} was not flagged"
    grown = pd.concat([quiet, step.assign(run=151), quiet.assign(run=quiet["run"] + 151)], ignore_index=True)
    before = drift_of(grown[grown["run"] <= 160]).table
    after = drift_of(grown).table
    after = after[after["run"] <= 160].reset_index(drop=True)
    pd.testing.assert_frame_equal(before, after)  # every test of every run, not only the flags


def test_a_slow_trend_is_flagged_while_it_builds() -> None:
    rng = np.random.default_rng(5)
    ramp = [0.04] * 10 + list(np.linspace(0.04, 0.09, 21)[1:])
    d = drift_of(history({"web": ramp}, {"web": 2000}, rng))
    hit = d.flagged
    assert len(hit) and int(hit["run"].min()) <= 25 and "trend" in " ".join(hit["flag"])
    assert (hit["slope"].dropna() > 0).all()


def test_small_samples_are_shown_not_tested_and_arguments_are_checked() -> None:
    d = drift_of(history({"tiny": [0.1, 0.9]}, {"tiny": 10}))
    assert d.tests == 0 and d.flagged.empty and len(d.table) == 2
    with pytest.raises(InputError):
        drift_of(history({"x": [0.1, 0.2]}, {"x": 100}), alpha=1.5)
    with pytest.raises(InputError):
        drift_of(history({"x": [0.1, 0.2]}, {"x": 100}), window=0)
    with pytest.raises(InputError, match="not a rate"):
        drift_of(history({"x": [0.1, 0.2]}, {"x": 100}), metrics=("spooof",))


def test_the_tests_do_not_depend_on_what_is_shown() -> None:
    rng = np.random.default_rng(9)
    frames = [history({"a": [0.04] * 6 + [0.07] * 3, "b": [0.1] * 9}, {"a": 2000, "b": 1500}, rng, metric=m)
              for m in ("spoof", "success", "no_match")]
    counts = pd.concat(frames, ignore_index=True)
    whole = drift_of(counts)
    only = drift_of(counts, metrics=("spoof",))
    pd.testing.assert_frame_equal(only.table, whole.table[whole.table["metric"] == "spoof"].reset_index(drop=True))
    assert only.tests == whole.tests


def test_figure_colours_each_source_alike_in_every_panel_and_counts_runs_in_whole_runs() -> None:
    """On the start commit only the first panel used the legend's colours (a source's drop was drawn in the colour
    of "(all)" below it), and the run axis had ticks at 1.5, 2.5."""
    rates = {"(all)": [0.05, 0.05, 0.05], "a": [0.04, 0.04, 0.15], "b": [0.1, 0.1, 0.1]}
    frames = [history(rates, {"(all)": 6000, "a": 3000, "b": 3000}, metric=m)
              for m in ("spoof", "success", "no_match")]
    counts = pd.concat(frames, ignore_index=True)
    counts = counts[~((counts["source"] == "a") & (counts["metric"] == "success"))]  # a panel without source a
    fig = drift_of(counts).figure()
    colours: dict[str, set[str]] = {}
    for trace in fig.data:
        if trace.name in ("flagged", "flagged change"):
            continue
        colours.setdefault(trace.name, set()).update({trace.line.color, trace.marker.color})
    assert set(colours) == {"(all)", "a", "b"}
    assert all(len(c) == 1 and None not in c for c in colours.values()), colours
    assert len({next(iter(c)) for c in colours.values()}) == 3
    names = [t.name for t in fig.data]
    assert "flagged change" in names
    for axis in (fig.layout.xaxis, fig.layout.xaxis2, fig.layout.xaxis3):
        assert list(axis.tickvals) == [1, 2, 3]
        assert all(isinstance(v, int) for v in axis.tickvals)
        assert [t.split("<br>")[1] for t in axis.ticktext] == ["2026-03-01", "2026-03-02", "2026-03-03"]


def _verified(n: int) -> pd.DataFrame:
    return sample(n).leads.verify(cache=False, progress=False)


def test_runs_are_compared_only_with_runs_of_the_same_file_family_and_backend(tmp_path: Path) -> None:
    """The stumble: a Salesforce export verified after the bundled sample was tested against it, and flagged."""
    from dqkit.notebook.history import run_groups

    store = tmp_path / "h.sqlite"
    ours = _verified(600)
    theirs = ours.rename(columns={"FIRST_NAME": "First Name", "LAST_NAME": "Last Name", "LEAD_SOURCE": "Lead Source",
                                  "PHONE_NUMBER": "Phone"})
    theirs = theirs.assign(lead_result_code=np.where(np.arange(len(theirs)) % 3 == 0, "E100",
                                                     theirs["lead_result_code"]))
    start = dt.datetime(2026, 3, 1, tzinfo=dt.UTC)
    record_run(ours, store, backend="local", label="sample_leads.csv", at=start)
    record_run(theirs, store, backend="local", label="salesforce_march.csv", at=start + dt.timedelta(days=1))
    record_run(ours, store, backend="local", label="sample_leads.csv", at=start + dt.timedelta(days=2))
    record_run(ours, store, backend="http://127.0.0.1:9/", label="sample_leads.csv", at=start + dt.timedelta(days=3))
    groups = run_groups(store)
    assert list(groups["runs"]) == [2, 1, 1]
    assert list(groups["label"]) == ["sample_leads.csv · local", "salesforce_march.csv · local",
                                     "sample_leads.csv · http://127.0.0.1:9/"]
    d = drift(store)
    assert d.flagged.empty, d.flagged
    table = d.table
    assert table.loc[table["run"] == 2, "baseline_rate"].isna().all()  # nothing of its family before it
    assert set(table.loc[(table["run"] == 3) & table["baseline_rate"].notna(), "baseline_runs"]) == {"1"}
    assert table.loc[table["run"] == 4, "baseline_rate"].isna().all()  # another backend: its own group
