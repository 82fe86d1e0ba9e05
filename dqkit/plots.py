"""Plots and the audit table of verified leads and validated addresses. Each plot returns a plotly Figure.

They read the frames the accessors return (`df.leads.verify()`, `df.addr.validate()`), by column prefix:

    result_codes(res)            result-code distribution, coloured by outcome class
    score_results(res)           SCORE_RESULT by match level and line class (and the codes that were not scored)
    phone_status(res)            PHONE_STATUS distribution
    address_error_status(res)    ADDRESS_ERROR_STATUS: each two-byte code of the 30-character field counted
    address_confidence(val)      confidence of validated addresses
    by_source(res)               outcome classes per lead source (PARTNER_ID), as shares
    audit_table(res)             per source: rates that leave caller and configuration faults out, faults apart
    drift_rates(drift)           each source's rates over the recorded runs of one group, flagged changes ringed

Every category of a code table is listed in the seed's order, so two quarters' figures line up.
"""

from __future__ import annotations

import html
import textwrap
from collections import Counter
from collections.abc import Sequence
from typing import Any, Final, Protocol

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from dqkit.contract import codes
from dqkit.contract.address import CONFIDENCE_MEANINGS, Confidence
from dqkit.contract.errors import InputError

LEAD_PREFIX: Final = "lead_"
ADDRESS_PREFIX: Final = "addr_"
NOT_PROCESSED: Final = "not processed"
TOTAL: Final = "(all)"
OUTCOME_ORDER: Final = (*(o.value for o in codes.Outcome), NOT_PROCESSED)
OUTCOME_COLORS: Final = {
    codes.Outcome.SUCCESS.value: "#2ca02c",
    codes.Outcome.VERIFIED_NEGATIVE.value: "#98df8a",
    codes.Outcome.LEAD_QUALITY.value: "#d62728",
    codes.Outcome.CALLER_FAULT.value: "#ff7f0e",
    codes.Outcome.ACCOUNT_CONFIGURATION.value: "#9467bd",
    codes.Outcome.SERVICE_FAULT.value: "#8c564b",
    NOT_PROCESSED: "#7f7f7f",
}
# Phone statuses that mean "a dialable number in the right place": the valid-area-code pair.
GOOD_PHONE_STATUSES: Final = frozenset({"E800", "E801"})
_LAYOUT: Final[dict[str, Any]] = {"template": "plotly_white", "margin": {"l": 60, "r": 20, "t": 60, "b": 60}}


def result_column(df: pd.DataFrame, prefix: str, name: str) -> pd.Series:
    column = f"{prefix}{name}"
    if column not in df.columns:
        raise InputError(f"column {column!r} is missing: pass the frame returned by df.leads.verify() "
                         f"(or df.addr.validate()), or the prefix it was made with")
    return df[column]


def stage_column(df: pd.DataFrame, prefix: str, name: str) -> pd.Series:
    """A result column a profile may leave out (SCORE_RESULT under the default profile, PHONE_STATUS under the
    score profile, the address status without standardization): blank when absent, so a plot has nothing to draw.
    A frame that is no result frame at all still gets the error naming what is missing."""
    if f"{prefix}{name}" not in df.columns:
        result_column(df, prefix, "result_code")
        return pd.Series("", index=df.index, dtype=object)
    return df[f"{prefix}{name}"]


def as_text(s: pd.Series) -> pd.Series:
    """As plain strings, missing values as ""."""
    return s.astype(object).where(s.notna(), "").astype(str)


def result_prefix(df: pd.DataFrame) -> str:
    """The prefix of a frame's lead result columns: "lead_" (the accessor's) or "" (`dqkit verify`'s default)."""
    for prefix in (LEAD_PREFIX, ""):
        if f"{prefix}result_code" in df.columns and f"{prefix}outcome" in df.columns:
            return prefix
    raise InputError("no lead result columns (lead_result_code, lead_outcome): pass the frame returned by "
                     "df.leads.verify() or the output of dqkit verify")


def source_column(df: pd.DataFrame, by: str | None = None, prefix: str = LEAD_PREFIX) -> str | None:
    """The column of lead sources: `by`, else the column the lead columns map to PARTNER_ID (None if none)."""
    from dqkit.notebook.leads import source_column as lead_source_column

    return lead_source_column(df, by, prefix)  # result columns told apart by name: works for prefix "" too


def _sources(df: pd.DataFrame, by: str | None, prefix: str) -> pd.Series:
    col = source_column(df, by, prefix)
    if col is None:
        return pd.Series(TOTAL, index=df.index, dtype=object)
    return as_text(df[col]).replace("", "(none)")


def label(text: object) -> str:
    """Text from the data (a lead source, a value) made safe for a plotly label: plotly reads `<a>`, `<b>`,
    `<br>` and entities in labels as markup, so a link typed into a PARTNER_ID would become clickable."""
    return html.escape(str(text), quote=False)


def wrapped(text: str, width: int = 44) -> str:
    """A long label broken into lines (plotly's `<br>`) instead of cut off; the text is escaped first."""
    lines = textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False)
    return "<br>".join(label(line) for line in lines) if text else ""


def code_label(code: str, meaning: str, width: int = 44) -> str:
    """An axis label that says what a code means: "E100  Lead matches a database of ...", wrapped."""
    return f"<b>{label(code)}</b> " + wrapped(meaning, width) if meaning else f"<b>{label(code)}</b>"


def _count_axis(top: int) -> dict[str, Any]:
    """An axis of counts: whole numbers only (no 0.5 steps when the counts are small), from zero."""
    axis: dict[str, Any] = {"rangemode": "tozero", "tickformat": ",d"}
    if top <= 8:
        axis.update(dtick=1, range=[0, max(top, 1) * 1.05])
    return axis


def _category_height(n: int, lines: int = 2) -> int:
    return max(300, 120 + n * 14 * (lines + 1))


def _empty(fig: go.Figure, message: str) -> go.Figure:
    fig.add_annotation(text=message, showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return fig


def result_codes(df: pd.DataFrame, *, prefix: str = LEAD_PREFIX, title: str = "Result codes") -> go.Figure:
    """Leads per RESULT_CODE, one bar per code of the lead service (zeros included), each labelled with its
    meaning and coloured by outcome class."""
    counts = as_text(result_column(df, prefix, "result_code")).value_counts()
    order = [*codes.RESULT_CODES, *sorted(set(counts.index) - set(codes.RESULT_CODES) - {""})]
    fig = go.Figure()
    for outcome in OUTCOME_ORDER:
        ys = [c for c in order if (codes.RESULT_CODES[c].outcome.value if c in codes.RESULT_CODES
                                   else NOT_PROCESSED) == outcome]
        if not ys:
            continue
        fig.add_bar(
            y=ys, x=[int(counts.get(c, 0)) for c in ys], name=outcome, orientation="h",
            marker_color=OUTCOME_COLORS[outcome],
            hovertext=[label(codes.RESULT_CODES[c].condition) if c in codes.RESULT_CODES else "" for c in ys],
            hovertemplate="%{y}: %{x} leads<br>%{hovertext}<extra>" + outcome + "</extra>",
        )
    failed = int((as_text(result_column(df, prefix, "result_type")) == "FAILED").sum())
    if failed:
        fig.add_bar(y=["no answer"], x=[failed], name=NOT_PROCESSED, orientation="h",
                    marker_color=OUTCOME_COLORS[NOT_PROCESSED])
    cats = [*order, *(["no answer"] if failed else [])]
    ticks = [code_label(c, codes.RESULT_CODES[c].condition if c in codes.RESULT_CODES
                        else "no answer (transport or service error)" if c == "no answer" else "unknown code")
             for c in cats]
    fig.update_layout(title=title, yaxis_title=None, xaxis_title="leads", barmode="stack",
                      height=_category_height(len(cats)), legend_title_text="outcome", **_LAYOUT)
    fig.update_yaxes(categoryorder="array", categoryarray=cats, tickmode="array", tickvals=cats, ticktext=ticks,
                     autorange="reversed", automargin=True)
    fig.update_xaxes(**_count_axis(int(counts.drop("", errors="ignore").max()) if len(counts) else 0))
    return fig


def score_results(df: pd.DataFrame, *, prefix: str = LEAD_PREFIX, title: str = "SCORE_RESULT") -> go.Figure:
    """Scored leads by match level (rows) and line class (columns), beside the codes that could not be scored."""
    score = as_text(stage_column(df, prefix, "score_result"))
    scored = score[score != ""]
    levels = [m.value for m in codes.MatchLevel if m.value]
    classes = [c.value for c in codes.LineClass if c.value]
    grid = {(lv, lc): 0 for lv in levels for lc in [*classes, "(none)"]}
    unscored: Counter[str] = Counter()
    for code, n in scored.value_counts().items():
        sc = codes.SCORE_RESULTS.get(str(code))
        if sc is None:
            unscored[f"{code} (unknown)"] += int(n)
        elif sc.match_level.value:
            grid[(sc.match_level.value, sc.line_class.value or "(none)")] += int(n)
        else:
            unscored[sc.validity.value] += int(n)
    fig = make_subplots(rows=1, cols=2, column_widths=[0.65, 0.35], horizontal_spacing=0.18,
                        subplot_titles=("matched: match level × line class", "not matched or not scored"))
    if scored.empty:
        return _empty(fig.update_layout(title=title, **_LAYOUT), "no SCORE_RESULT in these results "
                      "(the engine answered PHONE_STATUS; verify with a score profile)")
    cols = [*classes, "(none)"]
    z = [[grid[(lv, lc)] for lc in cols] for lv in levels]
    fig.add_trace(go.Heatmap(z=z, x=cols, y=levels, colorscale="Blues", text=z, texttemplate="%{text}",
                             showscale=False, hovertemplate="%{y}, %{x}: %{z} leads<extra></extra>"), row=1, col=1)
    validity = [v.value for v in codes.Validity if v is not codes.Validity.VALID]
    extra = sorted(set(unscored) - set(validity))
    ys = [*validity, *extra]
    fig.add_trace(go.Bar(x=[unscored.get(v, 0) for v in ys], y=ys, orientation="h", marker_color="#7f7f7f",
                         showlegend=False, hovertemplate="%{y}: %{x} leads<extra></extra>"), row=1, col=2)
    fig.update_yaxes(autorange="reversed", automargin=True)
    fig.update_xaxes(title_text="leads", row=1, col=2, **_count_axis(max(unscored.values(), default=0)))
    fig.update_layout(title=title, **_LAYOUT)
    return fig


def phone_status(df: pd.DataFrame, *, prefix: str = LEAD_PREFIX, title: str = "PHONE_STATUS") -> go.Figure:
    """Leads per PHONE_STATUS code (E800 to E810), each labelled with its meaning, the valid-area-code ones in
    green."""
    counts = as_text(stage_column(df, prefix, "phone_status")).value_counts()
    order = [*codes.PHONE_STATUSES, *sorted(set(counts.index) - set(codes.PHONE_STATUSES) - {""})]
    fig = go.Figure(go.Bar(
        y=order, x=[int(counts.get(c, 0)) for c in order], orientation="h",
        marker_color=["#2ca02c" if c in GOOD_PHONE_STATUSES else "#d62728" for c in order],
        hovertext=[label(codes.PHONE_STATUSES.get(c, "unknown code")) for c in order],
        hovertemplate="%{y}: %{x} leads<br>%{hovertext}<extra></extra>",
    ))
    fig.update_layout(title=title, xaxis_title="leads", height=_category_height(len(order)), **_LAYOUT)
    fig.update_yaxes(categoryorder="array", categoryarray=order, tickmode="array", tickvals=order,
                     ticktext=[code_label(c, codes.PHONE_STATUSES.get(c, "unknown code")) for c in order],
                     autorange="reversed", automargin=True)
    top = int(counts.drop("", errors="ignore").max()) if len(counts.drop("", errors="ignore")) else 0
    fig.update_xaxes(**_count_axis(top))
    if not top:
        return _empty(fig, "no PHONE_STATUS in these results")
    return fig


def error_status_counts(statuses: Sequence[str] | pd.Series) -> pd.Series:
    """How often each two-byte code occurs across ADDRESS_ERROR_STATUS values (a value holds several)."""
    counter: Counter[str] = Counter()
    for value in statuses:
        if isinstance(value, str) and value.strip():
            counter.update(codes.split_address_error_status(value))
    order = sorted(counter)
    return pd.Series([counter[c] for c in order], index=pd.Index(order, name="code"), name="count", dtype="int64")


def address_error_status(df: pd.DataFrame, *, prefix: str = LEAD_PREFIX,
                         title: str = "ADDRESS_ERROR_STATUS codes") -> go.Figure:
    """Each two-byte code of StandardizedAddress.ADDRESS_ERROR_STATUS counted over the leads, with its meaning."""
    counts = error_status_counts(list(as_text(stage_column(df, prefix, "std_error_status"))))
    found = [str(c) for c in counts.index]
    meanings = [codes.ADDRESS_ERROR_STATUSES.get(c, "unknown code") for c in found]
    fig = go.Figure(go.Bar(x=counts.to_list(), y=found, orientation="h", marker_color="#1f77b4",
                           customdata=[label(m) for m in meanings],
                           hovertemplate="%{y}: %{x} leads<br>%{customdata}<extra></extra>"))
    fig.update_layout(title=title, xaxis_title="leads carrying the code", height=_category_height(len(found)),
                      **_LAYOUT)
    fig.update_yaxes(autorange="reversed", tickmode="array", tickvals=found, automargin=True,
                     ticktext=[code_label(c, m) for c, m in zip(found, meanings, strict=True)])
    fig.update_xaxes(**_count_axis(int(counts.max()) if len(counts) else 0))
    if counts.empty:
        return _empty(fig, "no ADDRESS_ERROR_STATUS codes in these results")
    return fig


def address_confidence(df: pd.DataFrame, *, prefix: str = ADDRESS_PREFIX,
                       title: str = "Address confidence") -> go.Figure:
    """Validated addresses per confidence value (all 11, in the service's order)."""
    counts = as_text(result_column(df, prefix, "confidence")).value_counts()
    order = [c.value for c in Confidence]
    order += sorted(set(counts.index) - set(order) - {""})
    errors = int((as_text(result_column(df, prefix, "error")) != "").sum()) if f"{prefix}error" in df.columns else 0
    xs = [*order, *(["error"] if errors else [])]
    ys = [int(counts.get(c, 0)) for c in order] + ([errors] if errors else [])
    colors = ["#2ca02c" if c == Confidence.VERIFIED_MATCH else "#7f7f7f" if c == "error" else "#1f77b4" for c in xs]
    fig = go.Figure(go.Bar(x=xs, y=ys, marker_color=colors,
                           hovertext=[label(CONFIDENCE_MEANINGS.get(c, "no answer")) for c in xs],
                           hovertemplate="%{x}: %{y} addresses<br>%{hovertext}<extra></extra>"))
    fig.update_layout(title=title, xaxis_title="confidence", yaxis_title="addresses",
                      xaxis={"categoryorder": "array", "categoryarray": xs, "tickvals": xs,
                             "ticktext": [wrapped(x, 14) for x in xs], "automargin": True}, **_LAYOUT)
    fig.update_yaxes(**_count_axis(max(ys, default=0)))
    return fig


def by_source(df: pd.DataFrame, *, by: str | None = None, prefix: str = LEAD_PREFIX,
              title: str = "Outcome by lead source") -> go.Figure:
    """Share of each outcome class per lead source (PARTNER_ID, or the column `by`)."""
    outcome = as_text(result_column(df, prefix, "outcome")).replace("", NOT_PROCESSED)
    table = pd.crosstab(_sources(df, by, prefix), outcome)
    table = table.reindex(columns=[o for o in OUTCOME_ORDER if o in table.columns]).sort_index()
    shares = table.div(table.sum(axis=1), axis=0)
    fig = go.Figure()
    for o in shares.columns:
        fig.add_bar(x=[label(s) for s in shares.index], y=shares[o].to_list(), name=str(o),
                    marker_color=OUTCOME_COLORS.get(str(o), "#bcbd22"), customdata=table[o].to_list(),
                    hovertemplate="%{x}: %{y:.1%} (%{customdata} leads)<extra>" + str(o) + "</extra>")
    fig.update_layout(title=title, barmode="stack", xaxis_title="lead source", yaxis_title="share of leads",
                      yaxis_tickformat=".0%", **_LAYOUT)
    return fig


def audit_table(df: pd.DataFrame, *, by: str | None = None, prefix: str = LEAD_PREFIX) -> pd.DataFrame:
    """One row per lead source (and `(all)` when there are several): counts, and percentages (0-100) over the
    leads the service could judge, faults counted apart. The one computation is `dqkit.notebook.leads.audit_table`
    (its `AUDIT_COLUMNS` explains every column); this name keeps the plots' table beside the plots."""
    from dqkit.notebook.leads import audit_table as lead_audit_table

    return lead_audit_table(df, by=by, prefix=prefix)


def audit_view(table: pd.DataFrame) -> pd.DataFrame:
    """The audit table for reading: percentages with their sign ("93.2%", "–" when there is nothing to rate),
    counts as they are, headers in words ("success %", "caller faults"). A frame of text, so it prints the same
    everywhere; use `audit_table` for numbers to compute with."""
    out = pd.DataFrame(index=table.index)
    for column in table.columns:
        name = str(column)
        values = table[column]
        if name.endswith("_pct"):
            out[name.removesuffix("_pct").replace("_", " ") + " %"] = [
                "–" if pd.isna(v) else f"{float(v):.1f}%" for v in values]
        else:
            out[name.replace("_", " ")] = values
    return out


def _run_ticks(runs: Sequence[int], dates: Sequence[str], most: int = 12) -> dict[str, Any]:
    """Ticks of a run axis: at run ids only (never 1.5), each with its date, at most `most` of them."""
    step = max(1, -(-len(runs) // most))
    picked = list(range(0, len(runs), step))
    if picked and picked[-1] != len(runs) - 1:
        picked.append(len(runs) - 1)
    return {"tickmode": "array", "tickvals": [runs[i] for i in picked],
            "ticktext": [f"{runs[i]}<br>{label(dates[i][:10])}" for i in picked]}


# The colours of the sources in the drift charts (plotly's default ten, then more): one per source, the same in every
# panel.
SOURCE_COLORS: Final = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                        "#bcbd22", "#17becf", "#2e91e5", "#e15f99", "#1ca71c", "#fb0d0d", "#da16ff", "#222a2a",
                        "#b68100", "#750d86", "#eb663b", "#511cfb")


class DriftLike(Protocol):
    """What the drift chart reads of `dqkit.notebook.drift.Drift` (named here so plots need not import it)."""

    @property
    def table(self) -> pd.DataFrame: ...
    @property
    def alpha(self) -> float: ...
    @property
    def window(self) -> int: ...
    def group_label(self, group: str) -> str: ...


def drift_rates(drift: DriftLike, metrics: Sequence[str] | None = None, *, source: str | None = None,
                group: str | None = None) -> go.Figure:
    """One group of runs (default: the group of the latest run): a panel per rate, a line per lead source in one
    colour in every panel (the legend's), flagged runs ringed in red; the x axis is the run id with its date."""
    t = drift.table
    if group is None and len(t):
        group = str(t["group"].iat[-1])
    if group is not None:
        if group not in set(t["group"]):
            raise InputError(f"no recorded run is in the group {group!r}")
        t = t[t["group"] == group]
    if source is not None:
        t = t[t["source"] == source]
    shown = list(metrics or dict.fromkeys(t["metric"]))
    rows = max(len(shown), 1)
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, subplot_titles=shown, vertical_spacing=0.3 / rows)
    sources = sorted(set(t["source"]), key=lambda s: (s == TOTAL, s))
    colour = {s: SOURCE_COLORS[i % len(SOURCE_COLORS)] for i, s in enumerate(sources)}
    for i, metric in enumerate(shown, 1):
        m = t[t["metric"] == metric]
        for src in sources:
            g = m[m["source"] == src]
            if g.empty:
                continue
            name = label(src)
            dash = "dot" if src == TOTAL else "solid"
            fig.add_trace(go.Scatter(
                x=g["run"], y=g["rate"] * 100, mode="lines+markers", name=name, legendgroup=name, showlegend=i == 1,
                line={"color": colour[src], "dash": dash}, marker={"color": colour[src], "size": 6},
                customdata=np.column_stack([g["at"].astype(str).str[:16], g["total"], g["flag"]]),
                hovertemplate=(f"{name}<br>run %{{x}} (%{{customdata[0]}})<br>%{{y:.1f}}% of %{{customdata[1]}}"
                               "<br>%{customdata[2]}<extra></extra>")), row=i, col=1)
            hit = g[g["flagged"]]
            if len(hit):
                fig.add_trace(go.Scatter(x=hit["run"], y=hit["rate"] * 100, mode="markers",
                                         marker={"size": 14, "color": "rgba(0,0,0,0)",
                                                 "line": {"color": "#d62728", "width": 2}},
                                         name="flagged", legendgroup="flagged", showlegend=False,
                                         hoverinfo="skip"), row=i, col=1)
        fig.update_yaxes(title_text="%", rangemode="tozero", row=i, col=1)
    runs_dates = t.drop_duplicates("run").sort_values("run")
    ticks = _run_ticks([int(r) for r in runs_dates["run"]], [str(a) for a in runs_dates["at"]])
    fig.update_xaxes(**ticks)
    fig.update_xaxes(title_text="run (id in dqkit history) and date", row=rows, col=1)
    if any(t["flagged"]):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="flagged change",
                                 marker={"size": 14, "color": "rgba(0,0,0,0)",
                                         "line": {"color": "#d62728", "width": 2}}), row=1, col=1)
    what = drift.group_label(group) if group is not None else ""
    fig.update_layout(template="plotly_white", height=200 * rows + 120,
                      title={"text": f"Rates per lead source over runs: {label(what)}<br><sub>flagged: false "
                                     f"discovery rate {drift.alpha:g} per run (Benjamini-Hochberg over the run's "
                                     f"tests), against the previous {drift.window} runs and their trend</sub>"},
                      margin={"l": 60, "r": 20, "t": 120, "b": 70}, legend={"title": {"text": "lead source"}})
    return fig
