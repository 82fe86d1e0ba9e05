"""`dqkit.read_table` in a notebook reads a CRM report export as `dqkit verify` does: the report's footer rows are
not leads (issue 29 part 2; before, a notebook had only `pd.read_csv`, which kept them as leads)."""

from __future__ import annotations

from pathlib import Path

import dqkit

EXPORT = Path(__file__).resolve().parents[1] / "lead" / "crm_exports" / "reports"
EXPORT = EXPORT / "salesforce_classic_leads_report.csv"


def test_a_report_export_read_in_a_notebook_leaves_its_footer_out_and_says_so() -> None:
    assert "read_table" in dqkit.__all__
    df = dqkit.read_table(str(EXPORT))  # a str path, as typed in a notebook
    assert len(df) == 20
    said = df.attrs["dqkit_read"]
    assert "7 report footer rows skipped" in said["summary"]
    assert not df.apply(lambda col: col.str.contains("Copyright", regex=False)).any().any()
    checked = df.leads.verify(cache=False, progress=False)
    assert len(checked) == 20 and checked.attrs["dqkit_read"] == said  # the count travels to the report
