"""Excel in and out of `dqkit verify`, `validate` and `report`, run as a user runs them; unknown types refused."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from tests.lead.test_cli import dqkit, private_cache  # the CLI as a user runs it, with a cache of its own

__all__ = ["private_cache"]  # an autouse fixture: imported to apply here too

ROWS = [
    {"First Name": "Maria", "Last Name": "Garcia", "Zip/Postal Code": "20500", "Phone": "202-456-1111",
     "Company / Account": "=HYPERLINK(\"http://example.invalid\",\"x\")"},
    {"First Name": "Ann", "Last Name": "Lee", "Zip/Postal Code": "02134", "Phone": "", "Company / Account": ""},
    {"First Name": "Bo\x07b", "Last Name": "Chan", "Zip/Postal Code": "10001", "Phone": "", "Company / Account": ""},
]


def workbook(path: Path) -> None:
    """A workbook as Excel users make one: the ZIP 02134 typed as a number (Excel drops the zero), the rest text."""
    wb = openpyxl.Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(list(ROWS[0]))
    for row in ROWS:
        values: list[object] = [v.replace("\x07", "") for v in row.values()]
        values[2] = int(row["Zip/Postal Code"])
        ws.append(values)
    ws.cell(row=2, column=5).data_type = "s"  # typed as text, as a CRM export holds it
    wb.save(path)


def test_verify_reads_and_writes_excel(tmp_path: Path) -> None:
    src, out = tmp_path / "leads.xlsx", tmp_path / "checked.xlsx"
    workbook(src)
    proc = dqkit("verify", str(src), "-o", str(out), "--no-address", "--quiet")
    assert proc.returncode == 0, proc.stderr
    with out.open("rb") as f:
        assert f.read(2) == b"PK", "an .xlsx file is a zip archive, not CSV text"
    res = pd.read_excel(out, dtype=str, keep_default_na=False)
    assert list(res["First Name"]) == ["Maria", "Ann", "Bob"]  # every row, in order
    assert list(res["result_code"]) == ["E200", "S100", "S100"]  # "=" is E200; 2134 is read as ZIP 02134
    cell = openpyxl.load_workbook(out).active["E2"]  # type: ignore[index]
    assert cell.data_type == "s" and str(cell.value).startswith("="), "a formula in a cell is written as text"
    # as it is: an .xlsx text cell never runs (issue 29), so it gets no leading "'"


def test_excel_output_cannot_run_formulas_nor_break_on_control_characters(tmp_path: Path) -> None:
    src, out = tmp_path / "leads.csv", tmp_path / "checked.xlsx"
    pd.DataFrame(ROWS).to_csv(src, index=False)
    proc = dqkit("verify", str(src), "-o", str(out), "--no-address", "--quiet")
    assert proc.returncode == 0, proc.stderr
    ws = openpyxl.load_workbook(out).active
    assert ws is not None
    values = [[c.value for c in row] for row in ws.iter_rows(min_row=2, max_col=5)]
    assert values[0][4].startswith("=HYPERLINK") and values[2][0] == "Bo\ufffdb"
    assert all(c.data_type != "f" for row in ws.iter_rows() for c in row)  # no formula anywhere


def test_report_reads_excel(tmp_path: Path) -> None:
    src, html = tmp_path / "leads.xlsx", tmp_path / "report.html"
    workbook(src)
    proc = dqkit("report", str(src), "-o", str(html), "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "report of 3 leads" in proc.stdout and html.stat().st_size > 10_000


@pytest.mark.parametrize(("name", "arg"), [("leads.json", "input"), ("out.json", "output"), ("old.xls", "input")])
def test_unknown_file_types_are_refused_with_the_formats_listed(tmp_path: Path, name: str, arg: str) -> None:
    good = tmp_path / "leads.csv"
    pd.DataFrame(ROWS).to_csv(good, index=False)
    path = tmp_path / name
    path.write_text("{}", encoding="utf-8")
    src, out = (path, tmp_path / "out.csv") if arg == "input" else (good, path)
    proc = dqkit("verify", str(src), "-o", str(out), "--quiet")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "unknown file type" in proc.stderr and ".xlsx" in proc.stderr and ".csv" in proc.stderr
    assert "columns read" not in proc.stderr, "refused before anything is read or run"
    if name.endswith(".xls"):
        assert "save" in proc.stderr


def test_a_file_named_xlsx_that_is_not_a_workbook_is_a_clear_error(tmp_path: Path) -> None:
    fake = tmp_path / "leads.xlsx"
    fake.write_text("First Name,Zip\nMaria,20500\n", encoding="utf-8")
    proc = dqkit("verify", str(fake), "-o", str(tmp_path / "out.csv"), "--quiet")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and "leads.xlsx" in proc.stderr, proc.stderr


def test_validate_reads_and_writes_excel_and_refuses_unknown_types(tmp_path: Path) -> None:
    src, out = tmp_path / "addresses.xlsx", tmp_path / "validated.xlsx"
    pd.DataFrame({"address": ["10 Hill St", "nowhere at all"], "zip": ["", ""]}).to_excel(src, index=False)
    proc = dqkit("validate", str(src), "-o", str(out), "--reference", "demo", "--quiet", "--no-cache")
    assert proc.returncode == 0, proc.stderr
    res = pd.read_excel(out, dtype=str, keep_default_na=False)
    assert list(res["address"]) == ["10 Hill St", "nowhere at all"] and "addr_confidence" in res.columns
    assert set(res["addr_reference"]) == {"us-demo-synthetic"}
    bad = dqkit("validate", str(src), "-o", str(tmp_path / "validated.json"), "--reference", "demo", "--quiet")
    assert bad.returncode == 1 and "unknown file type" in bad.stderr and ".xlsx" in bad.stderr


def test_report_prints_the_columns_it_read(tmp_path: Path) -> None:
    src, html = tmp_path / "leads.xlsx", tmp_path / "report.html"
    workbook(src)
    proc = dqkit("report", str(src), "-o", str(html), "--quiet", "--no-cache")
    assert proc.returncode == 0, proc.stderr
    assert "<- 'Zip/Postal Code'" in proc.stderr and "warning: no state or street column" in proc.stderr


def test_excel_takes_every_kind_of_cell_a_frame_holds(tmp_path: Path) -> None:
    """Typed result columns, missing values of every kind, numpy scalars, dates and stray lists: one workbook,
    read back as text, nothing lost or crashing."""
    import datetime as dt

    import numpy as np

    from dqkit.cli._leadio import read_table, write_table

    df = pd.DataFrame({"a": ["x", None, "=1+1"], "b": pd.array([1, None, 3], dtype="Int64"),
                       "c": [np.float64(1.5), np.nan, 2.0], "d": [[1, 2], {"k": 1}, pd.NaT],
                       "e": pd.Categorical(["E100", None, "S100"]),
                       "f": [dt.date(2026, 1, 1), pd.Timestamp("2026-01-02"), None]})
    path = tmp_path / "odd.xlsx"
    write_table(df, path)
    back = read_table(path)
    assert back["a"].tolist() == ["x", "", "=1+1"] and back["b"].tolist() == ["1", "", "3"]
    assert back["c"].tolist() == ["1.5", "", "2"] and back["d"].tolist() == ["[1, 2]", "{'k': 1}", ""]
    assert back["e"].tolist() == ["E100", "", "S100"] and back["f"].tolist()[0].startswith("2026-01-01")
