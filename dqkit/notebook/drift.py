"""Drift: each lead source's rates across recorded runs, and which changes are statistically real.

Runs are compared only with runs that measured the same thing: the same group (`dqkit.notebook.history` groups
runs by the input's columns and the backend that answered, so a Salesforce export is never tested against the
bundled sample). Within a group, every new run is tested, per lead source and rate (`history.RATES`), twice:

- **change**: the run against a baseline, the pooled counts of the source's previous `window` runs (Fisher's exact
  test; a z-test with the variance scaled up when the baseline's runs already vary more than sampling explains,
  Pearson chi-square significant at `OVERDISPERSION_P`);
- **trend**: a linear trend over those runs and this one (Cochran-Armitage, scaled the same way by the scatter
  about the line), for drift too slow for any one run to stand out.

The false discovery rate is controlled across **that run's tests only** (weighted Benjamini-Hochberg at `alpha`,
`CHANGE_SHARE` of the weight to the change tests). A test reads nothing recorded after its run, so a flag, once
shown, never changes as history grows, and the power to see a change does not fall with the number of runs recorded
(the correction over the whole history that this replaces did both). A flag starts the series' baseline afresh:
later runs are compared with the new level.

Measured on simulated histories by `benchmarks/bench_drift.py` (figures in its docstring) and checked, seeded and
bounded, by `tests/analyst/test_drift_simulation.py`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pandas as pd

from dqkit.contract.errors import InputError

MIN_TOTAL: Final = 20  # a rate over fewer leads than this (in the run, or in its whole baseline) is shown, not tested
WINDOW: Final = 20  # runs in the baseline
MIN_TREND_RUNS: Final = 4  # runs (the new one included) a trend is tested over
TREND_MIN_EXPECTED: Final = 5  # events (and non-events) per run, on average, for a trend to be tested
# How the run's alpha is shared between the two kinds of test (weighted Benjamini-Hochberg): most to the change,
# since a slow drift builds up evidence run after run while a step has one run to be seen in.
CHANGE_SHARE: Final = 0.9
ALPHA: Final = 0.008  # false discovery rate per run: fewer than 1 false flag per 100 runs without a real change
OVERDISPERSION_P: Final = 0.05
COLUMNS: Final = ("run", "at", "group", "source", "metric", "count", "total", "rate", "baseline_rate",
                  "baseline_runs", "change_p", "change_q", "trend_runs", "slope", "trend_p", "trend_q", "q_value",
                  "flagged", "flag")



@dataclass(frozen=True)
class Drift:
    """The rates of every source over the runs (`table`), the changes flagged (`flagged`), the groups of runs
    (`groups`: what each group measured), and `figure()`."""

    table: pd.DataFrame
    alpha: float
    tests: int
    window: int = WINDOW
    groups: pd.DataFrame | None = None

    @property
    def flagged(self) -> pd.DataFrame:
        return self.table[self.table["flagged"]].reset_index(drop=True)

    def group_label(self, group: str) -> str:
        g = self.groups
        if g is None or g.empty or group not in set(g["group"]):
            return group
        return str(g.loc[g["group"] == group, "label"].iat[0])

    def figure(self, metrics: tuple[str, ...] | None = None, *, source: str | None = None,
               group: str | None = None) -> Any:
        """Line charts of one group of runs (default: the group of the latest run), one panel per rate, a line per
        source in the same colour in every panel; flagged runs ringed in red. The x axis is the run (its id in
        `dqkit history`), with its date."""
        from dqkit.plots import drift_rates

        return drift_rates(self, metrics, source=source, group=group)

    def _repr_html_(self) -> str:
        shown = self.flagged[["run", "at", "group", "source", "metric", "baseline_rate", "rate", "flag", "q_value"]]
        shown = shown.assign(group=shown["group"].map(self.group_label))
        return (f"<p>{self.tests} tests, {len(self.flagged)} flagged at a false discovery rate of {self.alpha:g} "
                "per run.</p>" + shown.to_html(index=False, float_format=lambda v: f"{v:.4g}"))


def _chi2_upper(stat: float, df: int) -> float:
    from scipy.special import chdtrc

    return float(chdtrc(df, stat)) if df > 0 and math.isfinite(stat) else 1.0


def _two_sided(z: float) -> float:
    return math.erfc(abs(z) / math.sqrt(2.0))


def _exact_change(c: int, n: int, bc: int, bn: int) -> float:
    """Two-sided p of `c` events in `n` against `bc` in `bn` given all `c + bc` events (Fisher's exact test: the
    outcomes no likelier than the one seen): exact where events are rare (a source of 150 leads, service faults at
    1%), where a z-test's tail would be too thin and flag noise."""
    from scipy.special import gammaln

    total, events = n + bn, c + bc
    lo, hi = max(0, n + events - total), min(events, n)
    # Outcomes further than 12 sd from the mean weigh nothing (below 1e-30): left out, so a big run costs no more.
    mean = n * events / total
    reach = 12 * math.sqrt(max(mean * (1 - events / total) * bn / max(total - 1, 1), 1.0)) + abs(c - mean)
    lo, hi = max(lo, math.floor(mean - reach)), min(hi, math.ceil(mean + reach))
    k = np.arange(lo, hi + 1, dtype=float)
    logp = (gammaln(events + 1) - gammaln(k + 1) - gammaln(events - k + 1) + gammaln(total - events + 1)
            - gammaln(n - k + 1) - gammaln(total - events - n + k + 1))
    pmf = np.exp(logp - logp.max())
    pmf /= pmf.sum()
    # Not mid-p: it caught 1 in 100 more of the simulated shifts but let small sources (150 leads) raise false flags.
    return min(1.0, float(pmf[pmf <= pmf[c - lo] * (1 + 1e-7)].sum()))


@dataclass
class _Test:
    """One series' tests at one run (p-values nan when a test could not be made)."""

    baseline_rate: float = math.nan
    baseline_from: int = -1
    change_p: float = math.nan
    slope: float = math.nan
    trend_p: float = math.nan


def _tests(past: list[tuple[float, float, float, int]], c: float, n: float, x: float, min_total: int) -> _Test:
    """The change and trend tests of a run (`c` of `n`, at position `x`) against `past`: its series' baseline
    runs, oldest first, as (count, total, position, run id)."""
    out = _Test()
    if not past:
        return out
    bc = sum(r[0] for r in past)
    bn = sum(r[1] for r in past)
    if bn < min_total or n < min_total:
        return out
    out.baseline_from = past[0][3]
    p0 = bc / bn
    out.baseline_rate = p0
    pooled = (bc + c) / (bn + n)
    var = pooled * (1 - pooled) * (1 / n + 1 / bn)
    # Runs of the baseline that already vary beyond sampling: the variance is scaled by their excess.
    phi = 1.0
    if len(past) >= 3 and 0 < p0 < 1:
        chi = sum((r[0] - r[1] * p0) ** 2 / r[1] for r in past if r[1] > 0) / (p0 * (1 - p0))
        df = len(past) - 1
        if _chi2_upper(chi, df) < OVERDISPERSION_P:
            phi = chi / df
    if var <= 0:
        out.change_p = 1.0
    elif phi > 1:
        out.change_p = _two_sided((c / n - p0) / math.sqrt(var * phi))
    else:
        out.change_p = _exact_change(int(c), int(n), int(bc), int(bn))
    runs = [*past, (c, n, x, -1)]
    if len(runs) < MIN_TREND_RUNS:
        return out
    tn = bn + n
    tc = bc + c
    pt = tc / tn
    mx = sum(r[1] * r[2] for r in runs) / tn
    sxx = sum(r[1] * (r[2] - mx) ** 2 for r in runs)
    sxy = sum((r[0] - r[1] * pt) * (r[2] - mx) for r in runs)
    if tc < TREND_MIN_EXPECTED * len(runs) or tn - tc < TREND_MIN_EXPECTED * len(runs):
        return out  # too few events for the trend's normal approximation: not tested
    if sxx <= 0:
        out.trend_p = 1.0
        return out
    out.slope = sxy / sxx
    z = sxy / math.sqrt(pt * (1 - pt) * sxx)
    # Scatter about the trend line beyond sampling (a sudden step is one): the trend's variance is scaled by it.
    chi = sum((r[0] - r[1] * pt) ** 2 / r[1] for r in runs if r[1] > 0) / (pt * (1 - pt)) - z * z
    df = len(runs) - 2
    phi = chi / df if df >= 2 and _chi2_upper(chi, df) < OVERDISPERSION_P else 1.0
    out.trend_p = _two_sided(z / math.sqrt(max(phi, 1.0)))
    return out


def _bh(p: list[float], share: list[float]) -> list[float]:
    """Weighted Benjamini-Hochberg q-values (nan: no test, left out): test i gets the weight share[i], scaled so
    the weights of the tests made average 1, and its p is read as p / weight (Genovese, Roeder & Wasserman 2006:
    the false discovery rate stays at most alpha)."""
    made = [i for i, v in enumerate(p) if not math.isnan(v)]
    q = [math.nan] * len(p)
    m = len(made)
    if not m:
        return q
    scale = m / sum(share[i] for i in made)
    tested = sorted((min(p[i] / (share[i] * scale), 1.0), i) for i in made)
    low = 1.0
    for rank in range(m, 0, -1):
        v, i = tested[rank - 1]
        low = min(low, v * m / rank)
        q[i] = low
    return q


def drift_of(counts: pd.DataFrame, *, alpha: float = ALPHA, metrics: tuple[str, ...] | None = None,
             min_total: int = MIN_TOTAL, window: int = WINDOW, groups: pd.DataFrame | None = None) -> Drift:
    """Drift of a long table of counts (columns run, source, metric, count, total; `at` and `group` optional), as
    `dqkit.notebook.history.counts` returns; runs are taken in the order of their ids. Every rate of
    `history.RATES` is tested; `metrics` only narrows the table returned (the tests, and so the flags, are the same
    whatever is shown). A flag starts the series' baseline afresh at that run: the runs after a real change are
    compared with the new level, not flagged again for the old one; the run right after a flag is not tested (the
    flagged run alone is no baseline: an outlier would flag the return to normal)."""
    from dqkit.notebook.history import RATES

    if not 0 < alpha < 1:
        raise InputError(f"alpha must be between 0 and 1, not {alpha!r}")
    if window < 1:
        raise InputError(f"window must be at least 1 run, not {window!r}")
    wanted = tuple(metrics or RATES)
    unknown = sorted(set(wanted) - set(RATES))
    if unknown:
        raise InputError(f"not a rate: {', '.join(unknown)} (rates: {', '.join(RATES)})")
    t = counts[counts["metric"].isin(tuple(RATES))].copy()
    if "at" not in t.columns:
        t["at"] = ""
    if "group" not in t.columns:
        t["group"] = ""
    t = t.sort_values(["run", "group", "source", "metric"], kind="stable").reset_index(drop=True)
    count = t["count"].to_numpy(dtype=float)
    total = t["total"].to_numpy(dtype=float)
    run_of = t["run"].to_numpy()
    sources = [str(v) for v in t["source"]]
    metric_of = [str(v) for v in t["metric"]]
    cols: dict[str, list[Any]] = {k: [None] * len(t) for k in
                                  ("baseline_rate", "baseline_runs", "change_p", "change_q", "trend_runs", "slope",
                                   "trend_p", "trend_q")}
    tests = 0
    for _, g in t.groupby("group", sort=False):
        past: dict[tuple[str, str], list[tuple[float, float, float, int]]] = {}
        restarted: set[tuple[str, str]] = set()
        rows_of_run = g.groupby("run", sort=True).indices
        for position, (run, where) in enumerate(rows_of_run.items()):
            idx = g.index.to_numpy()[where]
            made: list[tuple[int, tuple[str, str], _Test]] = []
            for i in idx:
                key = (sources[i], metric_of[i])
                base = past.get(key, [])[-window:]
                if key in restarted and len(base) < 2:
                    base = []  # a baseline restarted at a flagged run: that run alone is no baseline
                made.append((i, key, _tests(base, count[i], total[i], position, min_total)))
            ps = [m[2].change_p for m in made] + [m[2].trend_p for m in made]
            qs = _bh(ps, [CHANGE_SHARE] * len(made) + [1 - CHANGE_SHARE] * len(made))
            tests += sum(not math.isnan(v) for v in ps)
            for j, (i, key, r) in enumerate(made):
                cq, tq = qs[j], qs[len(made) + j]
                cols["baseline_rate"][i] = r.baseline_rate
                cols["baseline_runs"][i] = (f"{r.baseline_from}-{past[key][-1][3]}" if r.baseline_from >= 0 and
                                            r.baseline_from != past[key][-1][3] else
                                            str(r.baseline_from) if r.baseline_from >= 0 else "")
                cols["trend_runs"][i] = f"{r.baseline_from}-{run}" if not math.isnan(r.trend_p) else ""
                cols["change_p"][i], cols["change_q"][i] = r.change_p, cq
                cols["slope"][i], cols["trend_p"][i], cols["trend_q"][i] = r.slope, r.trend_p, tq
                point = (count[i], total[i], float(position), int(run_of[i]))
                if cq <= alpha or tq <= alpha:
                    past[key] = [point]  # a real change: later runs are compared with the new level
                    restarted.add(key)
                else:
                    past.setdefault(key, []).append(point)
                    del past[key][:-window]
    for k, v in cols.items():
        t[k] = v
    with np.errstate(divide="ignore", invalid="ignore"):
        t["rate"] = np.where(total > 0, count / np.where(total > 0, total, 1), np.nan)
    for k in ("baseline_rate", "change_p", "change_q", "slope", "trend_p", "trend_q"):
        t[k] = t[k].astype(float)
    change = (t["change_q"] <= alpha).to_numpy()
    trend = (t["trend_q"] <= alpha).to_numpy()
    t["flagged"] = change | trend
    t["flag"] = np.where(change & trend, "change and trend", np.where(change, "change", np.where(trend, "trend", "")))
    t["q_value"] = t[["change_q", "trend_q"]].min(axis=1, skipna=True)
    t = t[t["metric"].isin(wanted)].reset_index(drop=True)
    return Drift(table=t[list(COLUMNS)], alpha=alpha, tests=tests, window=window, groups=groups)


def drift(history: str | os.PathLike[str] | bool | None = True, *, alpha: float = ALPHA,
          source: str | None = None, metrics: tuple[str, ...] | None = None, window: int = WINDOW) -> Drift:
    """Drift of the runs recorded in `history` (a path, or True for the default store). `source` and `metrics`
    narrow what is shown, not what is tested: a flag is the same whichever you look at."""
    from dqkit.notebook.history import counts, run_groups

    long = counts(history)
    if source is not None and source not in set(long["source"]):
        raise InputError(f"no recorded run has the lead source {source!r}")
    d = drift_of(long, alpha=alpha, metrics=metrics, window=window, groups=run_groups(history))
    if source is None:
        return d
    kept = d.table[d.table["source"] == source].reset_index(drop=True)
    return Drift(table=kept, alpha=d.alpha, tests=d.tests, window=d.window, groups=d.groups)
