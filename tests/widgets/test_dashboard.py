"""LeadAuditDashboard: the picker filters the frame, and every plot and the audit row follow it."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import pytest

from dqkit.contract import codes
from dqkit.contract.errors import InputError
from dqkit.widgets import LeadAuditDashboard
from dqkit.widgets.dashboard import ALL, NONE, audit_html

# (source, RESULT_CODE, PHONE_STATUS): a small verified frame in the shape df.leads.verify() returns.
ROWS = [
    ("WEB01", "S100", "E801"), ("WEB01", "S100", "E800"), ("WEB01", "E100", ""), ("WEB01", "S101", "E801"),
    ("LIST9", "E600", ""), ("LIST9", "S100", "E801"), ("LIST9", "E300", ""),
    ("AFF22", "S100", "E801"),
    ("", "S100", "E801"),
]


def verified() -> pd.DataFrame:
    return pd.DataFrame({
        "FIRST_NAME": [f"n{i}" for i in range(len(ROWS))],
        "PARTNER_ID": [r[0] for r in ROWS],
        "lead_result_code": [r[1] for r in ROWS],
        "lead_result_type": ["STATUS" if r[1].startswith("S") else "ERROR" for r in ROWS],
        "lead_outcome": [codes.RESULT_CODES[r[1]].outcome.value for r in ROWS],
        "lead_phone_status": [r[2] for r in ROWS],
        "lead_score_result": ["" for _ in ROWS],
        "lead_std_error_status": ["" for _ in ROWS],
    })


def bar_total(fig: go.Figure) -> int:
    return int(sum(sum(t.x if t.orientation == "h" else t.y) for t in fig.data if t.type == "bar"))


def test_the_picker_lists_every_source_with_its_count() -> None:
    d = LeadAuditDashboard(verified())
    assert d.picker.options == (
        ("All sources (9 leads)", ALL), (f"{NONE} (1 leads)", NONE), ("AFF22 (1 leads)", "AFF22"),
        ("LIST9 (3 leads)", "LIST9"), ("WEB01 (4 leads)", "WEB01"))
    assert d.source == ALL
    assert len(d.frame()) == 9


def test_picking_a_source_filters_the_plots_and_the_audit_row() -> None:
    d = LeadAuditDashboard(verified())
    figs = d.figures_for(d.frame())
    assert bar_total(figs[0]) == 9, "result codes over all leads"
    assert "(all)" in d.summary.value
    d.picker.value = "LIST9"
    frame = d.frame()
    assert list(frame["lead_result_code"]) == ["E600", "S100", "E300"]
    figs = d.figures_for(frame)
    assert bar_total(figs[0]) == 3
    assert figs[0].layout.title.text.endswith("— LIST9")
    # Under the default profile no lead has a SCORE_RESULT, and this frame has no address codes: those panels
    # are left out rather than drawn empty.
    assert [f.layout.title.text for f in figs] == ["Result codes — LIST9", "PHONE_STATUS — LIST9"]
    assert len(d.plots.outputs) == 2
    assert "application/vnd.plotly.v1+json" in d.plots.outputs[0]["data"]
    # LIST9: two caller faults, one assessed lead, a success: 100 % success among assessed.
    assert "<th>LIST9</th><td>3</td><td>2</td>" in d.summary.value
    assert "100.0%" in d.summary.value
    assert "WEB01" not in d.summary.value


def test_the_comparison_across_sources_stays() -> None:
    d = LeadAuditDashboard(verified())
    before = d.compare.outputs
    assert before[0]["data"]["text/plain"] == "<plotly figure: Outcome by lead source>"
    d.picker.value = "WEB01"
    assert d.compare.outputs is before
    assert "— WEB01" in d.plots.outputs[0]["data"]["text/plain"]


def test_an_explicit_source_column_and_a_frame_without_one() -> None:
    df = verified().rename(columns={"PARTNER_ID": "channel"})
    d = LeadAuditDashboard(df, by="channel")
    assert "WEB01" in d.picker.options[-1][1]
    lone = LeadAuditDashboard(df.drop(columns=["channel"]))
    assert [v for _, v in lone.picker.options] == [ALL]


def test_a_frame_that_was_not_verified_is_refused_clearly() -> None:
    with pytest.raises(InputError, match="lead_outcome"):
        LeadAuditDashboard(pd.DataFrame({"PARTNER_ID": ["A"]}))
    with pytest.raises(InputError, match="pandas DataFrame"):
        LeadAuditDashboard([1, 2])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="not in the frame"):
        LeadAuditDashboard(verified(), by="nope")


def test_audit_html_formats_rates_and_escapes_names() -> None:
    table = pd.DataFrame({"leads": [3], "success_pct": [50.0], "spoof_pct": [float("nan")]},
                         index=pd.Index(["<b>x</b>"], name="source"))
    out = audit_html(table)
    assert "<td>3</td><td>50.0%</td><td>–</td>" in out
    assert "&lt;b&gt;x&lt;/b&gt;" in out


def test_a_scored_frame_shows_the_score_panel_and_not_the_phone_one() -> None:
    df = verified().assign(lead_score_result=["R1" for _ in ROWS], lead_phone_status=["" for _ in ROWS])
    titles = [f.layout.title.text for f in LeadAuditDashboard(df).figures_for(df)]
    assert titles == ["Result codes", "SCORE_RESULT"]


def test_a_source_name_is_shown_as_text() -> None:
    df = verified().assign(PARTNER_ID='<a href="https://evil.example">x</a>')
    d = LeadAuditDashboard(df)
    d.picker.value = '<a href="https://evil.example">x</a>'
    assert "<a " not in d.figures_for(d.frame())[0].layout.title.text
    assert "<a " not in d.summary.value.split("</style>")[1]


def test_plots_keep_the_height_their_labels_need() -> None:
    d = LeadAuditDashboard(verified())
    heights = [o["data"]["application/vnd.plotly.v1+json"]["layout"]["height"] for o in d.plots.outputs]
    assert heights[1] > 380, "PHONE_STATUS: eleven labelled rows need more than the default height"


def test_a_valid_phone_rate_nobody_was_checked_for_reads_not_checked() -> None:
    table = pd.DataFrame({"leads": [2], "phone_ok_pct": [float("nan")], "success_pct": [100.0]},
                         index=pd.Index(["web"], name="source"))
    out = audit_html(table)
    assert "<td>not checked</td>" in out and "<td>100.0%</td>" in out and "<td>0.0%</td>" not in out
