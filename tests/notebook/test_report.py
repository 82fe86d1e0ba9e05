"""`dqkit report`: one self-contained HTML file, the same bytes for the same input except the line with the date."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pandas as pd
import pytest

from dqkit.cli import main
from dqkit.report import GENERATED_MARK, build_report
from tests.notebook.test_plots import LEADS


@pytest.fixture
def leads_csv(tmp_path: Path) -> Path:
    path = tmp_path / "leads.csv"
    LEADS.to_csv(path, index=False)
    return path


def differing_lines(a: str, b: str) -> list[tuple[str, str]]:
    la, lb = a.splitlines(), b.splitlines()
    assert len(la) == len(lb)
    return [(x, y) for x, y in zip(la, lb, strict=True) if x != y]


def test_the_report_is_one_offline_file(leads_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r" / "report.html"
    assert main(["report", str(leads_csv), "-o", str(out), "--quiet"]) == 0
    said = capsys.readouterr().out
    assert str(out.resolve()) in said and "8 leads" in said
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    # Offline: nothing is fetched. Plotly's bundle is inline; no script or stylesheet comes from elsewhere.
    assert not re.search(r"<script[^>]+src=", text) and not re.search(r"<link[^>]+href=", text)
    assert "cdn.plot.ly" not in text.replace("https://cdn.plot.ly", "")  # only mentioned inside the bundle
    assert text.count('class="dq-plot"') >= 3 and text.count('type="application/json"') >= 3
    for heading in ("Result codes", "Audit by lead source", "Figures"):
        assert f"<h2>{heading}</h2>" in text
    assert sum(1 for line in text.splitlines() if line.startswith(GENERATED_MARK)) == 1
    # Nothing that changes between runs (transaction IDs) is in it.
    assert "TRANSACTION" not in text and "transaction_id" not in text


def test_same_input_same_file_except_the_date_line(leads_csv: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    assert main(["report", str(leads_csv), "-o", str(a), "--quiet", "--no-cache"]) == 0
    assert main(["report", str(leads_csv), "-o", str(b), "--quiet"]) == 0
    diff = differing_lines(a.read_text(encoding="utf-8"), b.read_text(encoding="utf-8"))
    assert all(x.startswith(GENERATED_MARK) and y.startswith(GENERATED_MARK) for x, y in diff)
    assert len(diff) <= 1

    def without_date(path: Path) -> bytes:
        return b"".join(line for line in path.read_bytes().splitlines(keepends=True)
                        if not line.startswith(GENERATED_MARK.encode()))

    assert without_date(a) == without_date(b)  # byte for byte, the date line aside


def test_only_the_date_line_carries_the_date() -> None:
    results = LEADS.leads.verify(cache=False)
    first = build_report(results, generated=dt.datetime(2025, 1, 2, 3, 4, tzinfo=dt.UTC))
    later = build_report(results, generated=dt.datetime(2026, 7, 8, 9, 10, tzinfo=dt.UTC))
    assert differing_lines(first, later) == [
        (f"{GENERATED_MARK}Generated 2025-01-02 03:04 UTC.</p>", f"{GENERATED_MARK}Generated 2026-07-08 09:10 UTC.</p>")
    ]


def test_a_file_dqkit_verify_wrote_is_reported_as_it_is(leads_csv: Path, tmp_path: Path) -> None:
    verified = tmp_path / "verified.csv"
    assert main(["verify", str(leads_csv), "-o", str(verified)]) == 0
    out = tmp_path / "from_verified.html"
    assert main(["report", str(verified), "-o", str(out), "--quiet"]) == 0
    text = out.read_text(encoding="utf-8")
    assert "8 leads" in text and "verified by" not in text  # reported, not verified again
    rows = pd.read_csv(verified, dtype=str, keep_default_na=False)
    assert f"<td class=\"text\">{rows['result_code'].iloc[1]}</td>" in text


def test_bad_input_gets_a_clear_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path / "missing.csv"), "-o", str(tmp_path / "x.html")]) == 1
    assert "does not exist" in capsys.readouterr().err
    nothing = tmp_path / "nothing.csv"
    nothing.write_text("colour,shape\nred,round\n")
    assert main(["report", str(nothing), "-o", str(tmp_path / "y.html"), "--quiet"]) == 1
    assert "no lead columns" in capsys.readouterr().err


def test_rates_are_percentages_and_headers_can_wrap() -> None:
    from dqkit.backends.local import LocalBackend

    results = LEADS.leads.verify(backend=LocalBackend(), cache=False)
    text = build_report(results)
    section = text.split("<h2>Audit by lead source</h2>")[1].split("<h2>")[0]
    tables = section.split("</table>")[:-1]
    assert len(tables) == 2  # two tables that each fit the page, both keyed by source
    audit = "".join(tables)
    head = "".join(t.split("<thead>")[1].split("</thead>")[0] for t in tables)
    assert "caller fault %" in head and "success %" in head and "_" not in re.sub(r'title="[^"]*"', "", head)
    assert 'table class="dq wide"' in audit
    # LEADS' "fair" source: both leads are caller faults, a rate of 100 %.
    fair = "".join(row for row in audit.split("<tr>") if '<td class="text">fair</td>' in row)
    assert "<td class=\"num\">100.0%</td>" in fair
    assert re.search(r"<td class=\"num\">0\.\d+</td>", audit) is None  # no bare fractions
    assert "@media print" in text


def test_a_link_in_a_lead_source_is_shown_as_text() -> None:
    from dqkit.backends.local import LocalBackend

    results = LEADS.leads.verify(backend=LocalBackend(), cache=False)
    results["partner_id"] = '<a href="https://evil.example/x">click</a>'
    text = build_report(results)
    assert "https://evil.example/x" in text
    assert '<a href="https://evil.example/x">' not in text
    assert "\\u003ca href" not in text.replace("&lt;a href", "")  # not even JSON-escaped inside a figure


def test_valid_phone_reads_not_checked_when_no_phone_was_checked() -> None:
    """A score profile without records checks no PHONE_STATUS: the valid phone % says "not checked", never a
    number such as 0.0% for leads whose phones are good."""
    from dqkit.backends.local import LocalBackend
    from dqkit.engines.lead.engine import LeadProfile

    good = pd.DataFrame({"name": ["Maria Garcia", "Ann Lee"], "zip": ["20500", "94501"],
                         "phone": ["202-456-1111", "510-748-4000"], "source": ["web", "web"]})
    results = good.leads.verify(backend=LocalBackend(profile=LeadProfile(stage1="score")), cache=False)
    section = build_report(results).split("<h2>Audit by lead source</h2>")[1].split("<h2>")[0]
    first = section.split("</table>")[0]
    head = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th[^>]*>.*?</th>", first.split("</thead>")[0])]
    row = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>.*?</td>", first.split("<tbody>")[1])]
    cells = dict(zip(head, row, strict=True))
    assert cells["valid phone %"] == "not checked", cells


def test_a_small_file_makes_a_small_report(leads_csv: Path, tmp_path: Path) -> None:
    """The stumble: every report was about 4.8 MB, all of plotly.js inlined, even for 20 leads."""
    twenty = pd.concat([LEADS] * 3, ignore_index=True).head(20)
    src = tmp_path / "twenty.csv"
    twenty.to_csv(src, index=False)
    out = tmp_path / "twenty.html"
    assert main(["report", str(src), "-o", str(out), "--quiet"]) == 0
    size = out.stat().st_size
    assert size < 1_000_000, f"{size:,} bytes"
    text = out.read_text(encoding="utf-8")
    assert text.count('<script type="application/octet-stream" id="dq-plotly">') == 1  # the bundle once


def test_the_bundled_plotly_is_the_major_version_plotly_py_writes_for() -> None:
    """The report's figures are plotly.py's JSON drawn by the bundled plotly.js: one major version."""
    from plotly.offline import get_plotlyjs

    from dqkit.report.html import PLOTLY_BUNDLE

    head = PLOTLY_BUNDLE.read_text(encoding="utf-8")[:300]
    bundled = re.search(r"plotly\.js \(cartesian - minified\) v(\d+)\.(\d+)\.(\d+)", head)
    python_side = re.search(r"plotly\.js v(\d+)\.(\d+)\.(\d+)", get_plotlyjs()[:300])
    assert bundled and python_side and bundled.group(1) == python_side.group(1)
