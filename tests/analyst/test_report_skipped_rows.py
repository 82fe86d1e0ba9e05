"""The HTML report says the rows of a CRM export that were not leads (issue 29, part 2): a Salesforce report's
footer is left out of the leads by every reader of dqkit, and the report of that file says how many rows went and
why, whether it verified the export itself, read the Parquet file `dqkit verify` wrote, or was written in a
notebook from a frame that `read_table` read. A file with no such rows gets no such line."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd
from analyst_helpers import REPO, dqkit

from dqkit.cli._leadio import read_table
from dqkit.notebook import leads
from dqkit.report import write_report

EXPORT = REPO / "tests" / "lead" / "crm_exports" / "reports" / "salesforce_classic_leads_report.csv"
SAID = "7 rows of the input file were not leads and left out: 7 report footer rows skipped (rows 22-28: 'Leads'"


def _skipped_line(report: Path) -> str:
    """The report's line on rows left out of the input ("" when it has none)."""
    found = re.search(r'<p class="note skipped">(.*?)</p>', report.read_text(encoding="utf-8"))
    return html.unescape(found.group(1)) if found else ""


def test_the_report_of_a_salesforce_export_says_its_footer_was_left_out(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    proc = dqkit("report", str(EXPORT), "-o", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "report of 20 leads" in proc.stdout
    assert _skipped_line(out).startswith(SAID), _skipped_line(out)
    assert "20 leads from <code>salesforce_classic_leads_report.csv</code>" in out.read_text(encoding="utf-8")


def test_verify_to_parquet_then_report_still_says_the_footer(tmp_path: Path) -> None:
    checked = tmp_path / "checked.parquet"
    proc = dqkit("verify", str(EXPORT), "-o", str(checked), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "7 report footer rows skipped" in proc.stdout
    assert len(pd.read_parquet(checked)) == 20
    out = tmp_path / "report.html"
    proc = dqkit("report", str(checked), "-o", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "report of 20 leads" in proc.stdout  # read as verified results: nothing verified again
    assert _skipped_line(out).startswith(SAID), _skipped_line(out)


def test_a_file_without_such_rows_gets_no_skipped_line(tmp_path: Path) -> None:
    src = tmp_path / "leads.csv"
    pd.read_csv(EXPORT, dtype=str, keep_default_na=False, nrows=20).to_csv(src, index=False)
    out = tmp_path / "report.html"
    proc = dqkit("report", str(src), "-o", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "report of 20 leads" in proc.stdout
    assert _skipped_line(out) == "" and "not leads" not in out.read_text(encoding="utf-8")


def test_a_notebook_report_of_a_frame_read_by_dqkit_says_the_footer(tmp_path: Path) -> None:
    df = read_table(EXPORT)
    results = leads.verify(df, progress=False, cache=False)
    out = write_report(results, tmp_path / "report.html")
    assert _skipped_line(out).startswith(SAID), _skipped_line(out)
