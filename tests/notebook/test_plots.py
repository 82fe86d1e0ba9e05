"""The plots return plotly Figures whose numbers are the counts of the results; the audit table leaves caller and
configuration faults out of the rates and shows them apart."""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
import pytest

import dqkit.notebook  # noqa: F401
from dqkit import plots
from dqkit.backends.local import LocalBackend
from dqkit.contract import codes
from dqkit.contract.errors import InputError
from dqkit.engines.lead.engine import LeadEngine, LeadProfile
from dqkit.notebook.leads import AUDIT_COLUMNS

LEADS = pd.DataFrame(
    [
        ("Maria", "Garcia", "1600 Pennsylvania Ave NW", "Washington", "DC", "20500", "2024561111", "web"),
        ("Mickey", "Mouse", "1 Main St", "Springfield", "IL", "62701", "2175551234", "web"),
        ("J$ne", "Roe", "2 Elm St", "Springfield", "IL", "62701", "2175550000", "fair"),
        ("", "", "3 Oak St", "Springfield", "IL", "62701", "2175550001", "fair"),
        ("Ann", "Lee", "4 Pine St", "Boston", "MA", "", "6175550101", "partner"),
        ("Omar", "Haddad", "77 Massachusetts Ave", "Cambridge", "MA", "02139", "12", "partner"),
        ("Lucy", "Chen", "350 5th Ave", "New York", "NY", "10118", "2125551000", "partner"),
        ("Raj", "Patel", "1 Infinite Loop", "Cupertino", "CA", "95014", "4085550000", "web"),
    ],
    columns=["first_name", "last_name", "street", "city", "state", "zip", "phone", "partner_id"],
)


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    return LEADS.leads.verify(backend=LocalBackend(), cache=False)


def bar_total(fig: go.Figure) -> int:
    return int(sum(sum(t.x if t.orientation == "h" else t.y) for t in fig.data if t.type == "bar"))


def tick_labels(axis: object) -> dict[str, str]:
    return dict(zip(axis.tickvals, axis.ticktext, strict=True))  # type: ignore[attr-defined]


def test_result_codes_counts_every_lead_by_code(results: pd.DataFrame) -> None:
    fig = plots.result_codes(results)
    assert isinstance(fig, go.Figure)
    assert bar_total(fig) == len(results)
    shown = {y: x for t in fig.data for x, y in zip(t.x, t.y, strict=True)}
    for code, n in results["lead_result_code"].value_counts().items():
        assert shown[str(code)] == n
    assert set(codes.RESULT_CODES) <= set(shown)  # every code of the lead service, zeros included
    assert {t.name for t in fig.data} <= set(plots.OUTCOME_ORDER)
    # Each code is labelled with its meaning, whole, on as many lines as it needs.
    ticks = tick_labels(fig.layout.yaxis)
    assert ticks["E100"].replace("<br>", " ") == "<b>E100</b> " + codes.RESULT_CODES["E100"].condition
    assert fig.layout.xaxis.tickformat == ",d"


def test_phone_status_counts(results: pd.DataFrame) -> None:
    fig = plots.phone_status(results)
    assert list(fig.data[0].y)[:11] == list(codes.PHONE_STATUSES)
    assert "Invalid telephone format" in tick_labels(fig.layout.yaxis)["E808"]
    assert bar_total(fig) == int(results["lead_phone_status"].notna().sum())


def test_score_results_by_match_level_and_line_class() -> None:
    scored = LEADS.leads.verify(backend=LocalBackend(LeadEngine(LeadProfile(stage1="score"))), cache=False)
    fig = plots.score_results(scored)
    heat, bars = fig.data
    assert heat.type == "heatmap" and bars.type == "bar"
    assert sum(map(sum, heat.z)) + sum(bars.x) == int(scored["lead_score_result"].notna().sum())
    assert list(heat.y) == [m.value for m in codes.MatchLevel if m.value]
    # A frame verified with PHONE_STATUS has no scores: the figure says so instead of failing.
    assert isinstance(plots.score_results(LEADS.leads.verify(backend=LocalBackend(), cache=False)), go.Figure)


def test_address_error_status_counts_each_two_byte_code() -> None:
    counts = plots.error_status_counts(["0416", "04", "", "5716" + " " * 26, "  "])
    assert counts.to_dict() == {"04": 2, "16": 2, "57": 1}
    frame = pd.DataFrame({"lead_std_error_status": ["0416", "04", None]})
    fig = plots.address_error_status(frame)
    assert list(fig.data[0].x) == [2, 1] and list(fig.data[0].y) == ["04", "16"]
    assert tick_labels(fig.layout.yaxis)["04"].startswith("<b>04</b> City name corrected")
    # Small counts: whole-number ticks only, never 0.5.
    assert fig.layout.xaxis.dtick == 1 and fig.layout.xaxis.tickformat == ",d"


def test_long_meanings_are_wrapped_not_cut() -> None:
    long = [c for c, m in codes.ADDRESS_ERROR_STATUSES.items() if len(m) > 60]
    assert long, "a code with a long meaning"
    fig = plots.address_error_status(pd.DataFrame({"lead_std_error_status": ["".join(long)]}))
    for code, text in tick_labels(fig.layout.yaxis).items():
        assert "…" not in text
        assert text.replace("<br>", " ") == f"<b>{code}</b> {codes.ADDRESS_ERROR_STATUSES[code]}"


def test_labels_from_the_data_are_text_not_markup(results: pd.DataFrame) -> None:
    """A link typed into a PARTNER_ID shows as text in the charts, not as a clickable link."""
    evil = results.assign(partner_id='<a href="https://evil.example">click</a>')
    fig = plots.by_source(evil)
    for t in fig.data:
        assert all("<a" not in str(x) for x in t.x)
        assert list(t.x) == ['&lt;a href="https://evil.example"&gt;click&lt;/a&gt;']


def test_address_confidence_lists_all_values() -> None:
    frame = pd.DataFrame({"addr_confidence": ["Verified match", "Verified match", "No matches", None],
                          "addr_error": [None, None, None, "TransportError: down"]})
    fig = plots.address_confidence(frame)
    shown = dict(zip(fig.data[0].x, fig.data[0].y, strict=True))
    assert fig.layout.yaxis.dtick == 1
    assert shown["Verified match"] == 2 and shown["No matches"] == 1 and shown["error"] == 1
    assert len(shown) == 12


def test_by_source_shares_sum_to_one(results: pd.DataFrame) -> None:
    fig = plots.by_source(results)
    sources = sorted(LEADS["partner_id"].unique())
    assert list(fig.data[0].x) == sources
    for i in range(len(sources)):
        assert math.isclose(sum(t.y[i] for t in fig.data), 1.0)


def test_audit_table_leaves_faults_out_of_the_rates(results: pd.DataFrame) -> None:
    table = plots.audit_table(results)
    assert list(table.index) == ["fair", "partner", "web", "(all)"]
    fair = table.loc["fair"]
    # Both "fair" leads are caller faults (E200, E600): nothing is left to assess, so no rates.
    assert fair["caller_faults"] == 2 and fair["assessed"] == 0 and math.isnan(fair["success_pct"])
    assert fair["caller_fault_pct"] == 100.0
    web = table.loc["web"]
    outcomes = results.loc[results["partner_id"] == "web", "lead_outcome"].astype(str)
    assert web["spoof_pct"] == round(100 * (outcomes == "lead quality").sum() / web["assessed"], 1)
    total = table.loc["(all)"]
    assert total["leads"] == len(results)
    assert total["assessed"] + total["caller_faults"] + total["config_faults"] + total["service_faults"] \
        == len(results)
    assert set(table.columns) == set(AUDIT_COLUMNS)
    assert results.leads.audit().equals(table)  # the accessor's table is the same one


def test_audit_by_another_column_and_without_sources(results: pd.DataFrame) -> None:
    by_state = plots.audit_table(results, by="state")
    assert "MA" in by_state.index
    no_source = results.drop(columns=["partner_id"])
    assert list(plots.audit_table(no_source).index) == ["(all)"]
    with pytest.raises(InputError):
        plots.audit_table(results, by="nope")


def test_plots_say_which_column_is_missing() -> None:
    with pytest.raises(InputError, match="lead_result_code"):
        plots.result_codes(LEADS)


def test_audit_view_shows_rates_as_percentages(results: pd.DataFrame) -> None:
    view = plots.audit_view(plots.audit_table(results))
    assert list(view.index) == ["fair", "partner", "web", "(all)"]
    assert "success %" in view.columns and "caller faults" in view.columns and "success_pct" not in view.columns
    assert view.loc["fair", "caller fault %"] == "100.0%" and view.loc["fair", "success %"] == "–"
    assert all(str(v).endswith("%") or v == "–" for v in view["success %"])
