"""Issue 30 part 7 and issue 29 part 5: CSV cells that a spreadsheet would run after leading blanks or invisible
characters are made inert; .xlsx text cells, which never run, are written as they are (no leading `'`)."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from dqkit._cell_escape import escape_cell

LEADS_FIRST = ("Maria", "John", "Ann", "Bob", "Eve", "Ted", "Kim", "Lou", "Sam", "Zoe")
INVISIBLE = {"space": " ", "nbsp": "\u00a0", "zwsp": "\u200b", "bom": "\ufeff", "vt": "\x0b", "ff": "\x0c",
             "line separator": "\u2028", "word joiner": "\u2060", "two of them": " \u200b"}


@pytest.mark.parametrize("name", sorted(INVISIBLE))
@pytest.mark.parametrize("formula", ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)"])
def test_a_formula_after_invisible_characters_is_made_inert(name: str, formula: str) -> None:
    value = INVISIBLE[name] + formula
    assert escape_cell(value) == "'" + value
    assert escape_cell("note\n" + value) == "note\n'" + value  # after a line break inside the cell too


def test_what_is_not_a_formula_is_left_alone() -> None:
    for value in (" -12.5", "\u00a0Maria", "\u200b", " ", "a =b", "\u00a0+3"):
        assert escape_cell(value) == value, value


def test_verify_csv_output_holds_no_live_formula_behind_invisible_characters(tmp_path: Path) -> None:
    leads = tmp_path / "leads.csv"
    notes = [lead + ("=cmd|' /C calc'!A0" if i % 2 else "@SUM(1)") for i, lead in enumerate(INVISIBLE.values())]
    frame = pd.DataFrame({"First Name": LEADS_FIRST[:len(notes)], "Last Name": "Garcia", "Zip": "20500",
                          "Lead Source": notes})
    frame.to_csv(leads, index=False)
    out = tmp_path / "out.csv"
    env = {**os.environ, "DQKIT_CACHE": "0", "DQKIT_REFERENCE_DIR": str(tmp_path / "refs"),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    r = subprocess.run([sys.executable, "-m", "dqkit.cli", "verify", str(leads), "-o", str(out), "--no-address",
                        "--quiet"], capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(notes)
    assert [row["Lead Source"] for row in rows] == ["'" + n for n in notes]


def test_xlsx_text_is_written_as_it_is_and_never_as_a_formula(tmp_path: Path) -> None:
    from dqkit.cli._leadio import read_table, write_table

    texts = ["+1 510 555 0100", '=HYPERLINK("http://example.com")', "-1-1", "@home", "\u00a0=1+1", "plain"]
    path = tmp_path / "out.xlsx"
    write_table(pd.DataFrame({"=col": texts, "n": range(len(texts))}), path)
    ws = openpyxl.load_workbook(path).active
    assert ws is not None
    cells = list(ws.iter_rows())
    assert [c.value for c in cells[0]] == ["=col", "n"]
    assert [row[0].value for row in cells[1:]] == texts  # no leading "'": a text cell never runs
    assert all(c.data_type != "f" for row in cells for c in row)
    assert read_table(path)["=col"].tolist() == texts
    csv_path = tmp_path / "out.csv"
    write_table(pd.DataFrame({"a": texts}), csv_path)  # CSV: still escaped, spreadsheets run its cells
    assert pd.read_csv(csv_path, dtype=str)["a"].tolist()[:2] == ["'+1 510 555 0100", "'" + texts[1]]
