"""Drift: each lead source's rates across recorded runs, and which changes are statistically real.

For every source and rate (`dqkit.notebook.history.RATES`), each run is compared with the source's previous run
by a two-proportion z-test (statsmodels' `proportions_ztest`, pooled variance). All p-values of the history are
then corrected together for the false discovery rate (Benjamini-Hochberg, statsmodels' `multipletests`), and a
change is flagged when its corrected q-value is below `alpha`. So a run of 200 leads whose spoof share moves from
4% to 5% is not flagged (that is noise at that size), one of 2,000 leads moving from 4% to 15% is, and over many
runs with no real change the share of histories with any flag stays near `alpha`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pandas as pd

from dqkit.contract.errors import InputError

MIN_TOTAL: Final = 20  # a rate over fewer leads than this in either run is shown, not tested
COLUMNS: Final = ("run", "at", "source", "metric", "count", "total", "rate", "previous_rate", "p_value", "q_value",
                  "flagged")


@dataclass(frozen=True)
class Drift:
    """The rates of every source over the runs (`table`), the changes flagged (`flagged`), and `figure()`."""

    table: pd.DataFrame
    alpha: float
    tests: int

    @property
    def flagged(self) -> pd.DataFrame:
        return self.table[self.table["flagged"]].reset_index(drop=True)

    def figure(self, metrics: tuple[str, ...] | None = None, *, source: str | None = None) -> Any:
        """Line charts, one per rate, a line per source; flagged changes ringed in red."""
        import plotly.graph_objects as go
        from plotly.subplots import make_subplots

        t = self.table if source is None else self.table[self.table["source"] == source]
        shown = list(metrics or dict.fromkeys(t["metric"]))
        fig = make_subplots(rows=max(len(shown), 1), cols=1, shared_xaxes=True, subplot_titles=shown,
                            vertical_spacing=0.08)
        for i, metric in enumerate(shown, 1):
            m = t[t["metric"] == metric]
            for src, g in m.groupby("source", sort=True):
                fig.add_trace(go.Scatter(x=g["run"], y=g["rate"] * 100, mode="lines+markers", name=str(src),
                                         legendgroup=str(src), showlegend=i == 1,
                                         hovertemplate=f"{src}<br>run %{{x}}<br>%{{y:.1f}}%<extra></extra>"),
                              row=i, col=1)
                hit = g[g["flagged"]]
                if len(hit):
                    fig.add_trace(go.Scatter(x=hit["run"], y=hit["rate"] * 100, mode="markers",
                                             marker={"size": 14, "color": "rgba(0,0,0,0)",
                                                     "line": {"color": "#d62728", "width": 2}},
                                             name="flagged change", legendgroup="flagged",
                                             showlegend=False, hoverinfo="skip"), row=i, col=1)
            fig.update_yaxes(title_text="%", row=i, col=1)
        fig.update_xaxes(title_text="run", row=max(len(shown), 1), col=1)
        fig.update_layout(template="plotly_white", height=220 * max(len(shown), 1) + 80,
                          title=f"Rates per lead source over runs (flagged: q < {self.alpha:g}, "
                                "Benjamini-Hochberg)")
        return fig

    def _repr_html_(self) -> str:
        shown = self.flagged[["run", "at", "source", "metric", "previous_rate", "rate", "q_value"]]
        return (f"<p>{self.tests} changes tested, {len(self.flagged)} flagged at FDR {self.alpha:g}.</p>"
                + shown.to_html(index=False, float_format=lambda v: f"{v:.4g}"))


def drift_of(counts: pd.DataFrame, *, alpha: float = 0.05, metrics: tuple[str, ...] | None = None,
             min_total: int = MIN_TOTAL) -> Drift:
    """Drift of a long table of counts (columns run, source, metric, count, total; `at` optional), as
    `dqkit.notebook.history.counts` returns. `metrics` defaults to the rates (not the per-code counts)."""
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportions_ztest

    from dqkit.notebook.history import RATES

    if not 0 < alpha < 1:
        raise InputError(f"alpha must be between 0 and 1, not {alpha!r}")
    wanted = tuple(metrics or RATES)
    t = counts[counts["metric"].isin(wanted)].copy()
    if "at" not in t.columns:
        t["at"] = ""
    t = t.sort_values(["source", "metric", "run"], kind="stable").reset_index(drop=True)
    total = t["total"].to_numpy(dtype=float)
    t["rate"] = np.divide(t["count"].to_numpy(dtype=float), total, out=np.full(len(t), np.nan), where=total > 0)
    prev_count = t.groupby(["source", "metric"])["count"].shift(1)
    prev_total = t.groupby(["source", "metric"])["total"].shift(1)
    t["previous_rate"] = t.groupby(["source", "metric"])["rate"].shift(1)
    p = np.full(len(t), np.nan)
    prev_n = prev_total.to_numpy(dtype=float)
    prev_c = prev_count.to_numpy(dtype=float)
    now_n = t["total"].to_numpy(dtype=float)
    now_c = t["count"].to_numpy(dtype=float)
    for i in range(len(t)):
        n0, n1 = prev_n[i], now_n[i]
        if np.isnan(n0) or n0 < min_total or n1 < min_total:
            continue
        c0, c1 = int(prev_c[i]), int(now_c[i])
        pooled = (c0 + c1) / (n0 + n1)
        if pooled in (0.0, 1.0):  # no variance: both runs all-or-nothing alike
            p[i] = 1.0
            continue
        _, p[i] = proportions_ztest([c1, c0], [n1, n0])
    t["p_value"] = p
    tested = ~np.isnan(p)
    q = np.full(len(t), np.nan)
    flagged = np.zeros(len(t), dtype=bool)
    if tested.any():
        reject, q_tested, _, _ = multipletests(p[tested], alpha=alpha, method="fdr_bh")
        q[tested] = q_tested
        flagged[tested] = reject
    t["q_value"] = q
    t["flagged"] = flagged
    t = t.sort_values(["run", "source", "metric"], kind="stable").reset_index(drop=True)
    return Drift(table=t[list(COLUMNS)], alpha=alpha, tests=int(tested.sum()))


def drift(history: str | os.PathLike[str] | bool | None = True, *, alpha: float = 0.05,
          source: str | None = None, metrics: tuple[str, ...] | None = None) -> Drift:
    """Drift of the runs recorded in `history` (a path, or True for the default store)."""
    from dqkit.notebook.history import counts

    long = counts(history)
    if source is not None:
        if source not in set(long["source"]):
            raise InputError(f"no recorded run has the lead source {source!r}")
        long = long[long["source"] == source]
    return drift_of(long, alpha=alpha, metrics=metrics)
