"""Verified leads straight to CSV lines (`dqkit.notebook.lead_lines`, issue 31): each `dqkit verify --workers N` chunk
is written from the engine's flat rows without the typed frame, and the text is the frame's, byte for byte: the
same columns left out, the same formula escaping (text columns only), number formatting, quoting, missing cells and
order, on awkward rows; what it cannot write the same way for certain is left to the frame."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from dqkit._cell_escape import CSV_LINE_END, escape_frame
from dqkit._csv_lines import joined_lines, quoted_cells
from dqkit.backends.local import LocalBackend
from dqkit.cli._verify_chunks import csv_text
from dqkit.contract.lead_flat import CORE_COLUMNS, SPOOF_COLUMNS, STAGE1_COLUMNS, STD_COLUMNS
from dqkit.notebook.lead_lines import result_cells, verified_lines
from dqkit.notebook.leads import lead_fields, typed_results, verify, without_empty_columns

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "data" / "sample_leads.csv"
_TXN = re.compile(r"[0-9A-F]{8}[0-9]{10}")
_AWKWARD = [",", '"', "\r", "\n", "\r\n", "'", "=", "+", "-", "@", " ", "\t", "\u00a0", "é", "日", "\U0001f600",
            "\u2028", "\ufeff", "a", "Z", "0", "9", ";", "|", "-12.5", "+1 (202) 456-1111", "=cmd|' /C calc'!A0"]
_NUMBERS = ["37.7749", "-122.4194", "", "", "abc", "1e5", " 2.50 ", "-0", "nan", "inf", "0x10", "1_000", "12", "+3"]


def _text(rnd: random.Random) -> str:
    return "".join(rnd.choice(_AWKWARD) if rnd.random() < 0.5 else rnd.choice("abc 12")
                   for _ in range(rnd.randint(0, 6)))


def _flat(rnd: random.Random) -> dict[str, Any]:
    """A flat result row of one of the shapes answers have, with awkward values in every kind of column."""
    row: dict[str, Any] = {c: "" for c in CORE_COLUMNS}
    row.update(result_code=rnd.choice(["S100", "E100", "S102", "", "X999", "=1+1", "E2,00"]),
               result_type=rnd.choice(["STATUS", "ERROR", "FAILED", ""]), result_value=_text(rnd),
               result_meaning=rnd.choice(["", "Transaction processed", _text(rnd)]),
               outcome=rnd.choice(["success", "not processed", "", "@odd"]), transaction_id=_text(rnd))
    groups = rnd.sample([STAGE1_COLUMNS, STD_COLUMNS, SPOOF_COLUMNS, {"sent": ""}], k=rnd.randint(0, 4))
    for group in groups:
        for name in group:
            if name in ("std_lat", "std_lng"):
                row[name] = rnd.choice(_NUMBERS)
            elif name.endswith("_meaning") and rnd.random() < 0.7:
                row[name] = ""  # a code without a meaning: its meaning column stays while the code is shown
            else:
                row[name] = rnd.choice(["", "", _text(rnd), "E801", "Y", "N"])
    if rnd.random() < 0.1:
        row["phone_status"] = None  # None is missing, as ""
    return row


def _frame_text(flats: list[dict[str, Any]], row_to_unique: list[int], escape: bool) -> tuple[str, list[str]]:
    """What the frame path writes: the typed frame, its empty columns dropped, spread over the rows, escaped,
    written by pandas."""
    typed = without_empty_columns(typed_results(flats))
    if len(row_to_unique) != len(flats) or row_to_unique != list(range(len(flats))):
        typed = typed.take(np.asarray(row_to_unique, dtype=np.intp)).reset_index(drop=True)
    out = escape_frame(typed) if escape else typed
    return out.to_csv(index=False, header=False, lineterminator=CSV_LINE_END), [str(c) for c in typed.columns]


def _cells_text(flats: list[dict[str, Any]], row_to_unique: list[int], escape: bool) -> tuple[str, list[str]]:
    made = result_cells(flats, row_to_unique, escape=escape)
    assert made is not None
    names, cells, codes = made
    quoted = [quoted_cells(c) for c in cells]
    assert all(q is not None for q in quoted)
    assert codes == [flats[u]["result_code"] or None for u in row_to_unique]
    return joined_lines(quoted, CSV_LINE_END), names


@pytest.mark.parametrize("seed", [31, 32, 33, 34])
def test_random_flat_rows_write_as_the_typed_frame(seed: int) -> None:
    rnd = random.Random(seed)
    flats = [_flat(rnd) for _ in range(rnd.choice([1, 7, 400]))]
    spread = [rnd.randrange(len(flats)) for _ in range(len(flats) + 50)]
    for row_to_unique in (list(range(len(flats))), spread):
        for escape in (True, False):
            assert _cells_text(flats, row_to_unique, escape) == _frame_text(flats, row_to_unique, escape)


def test_columns_no_row_filled_are_left_out_as_the_frame_leaves_them_out() -> None:
    core = {c: "" for c in CORE_COLUMNS} | {"result_code": "S100"}
    flats = [{**core, **dict.fromkeys(STD_COLUMNS, ""), "std_lat": "abc", "std_geomatch": "0"},
             {**core, "std_lng": "", "std_geomatch_meaning": ""}]
    text, names = _cells_text(flats, [0, 1], True)
    assert (text, names) == _frame_text(flats, [0, 1], True)
    assert "std_lat" not in names  # no number in it
    assert "std_geomatch_meaning" in names  # kept beside its code, though empty


@pytest.mark.parametrize("bad", [b"bytes", 12, 1.5, float("nan"), "\ud800"])
def test_a_value_that_is_not_text_is_left_to_the_frame(bad: object) -> None:
    row = {c: "" for c in CORE_COLUMNS} | {"result_code": "S100", "result_value": bad}
    assert result_cells([row], [0], escape=True) is None
    if not isinstance(bad, str):
        assert result_cells([{**row, "result_value": "x", "std_lat": bad}], [0], escape=True) is None


def _awkward_leads() -> pd.DataFrame:
    """Sample leads and rows a person or a CRM export writes: quotes, commas, line breaks, formulas, unicode,
    empty and missing cells, numbers, an extension after the phone, the same lead twice."""
    rows = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False, nrows=300)
    odd = rows.head(12).copy()
    odd.loc[odd.index[0], "FIRST_NAME"] = '=HYPERLINK("x")'
    odd.loc[odd.index[1], "LAST_NAME"] = 'O"Brien, Jr'
    odd.loc[odd.index[2], "STREET1"] = "12 Main St\r\nApt 4"
    odd.loc[odd.index[3], "CITY"] = "São Paulo 日本 \U0001f600"
    odd.loc[odd.index[4], "PHONE_NUMBER"] = "(217) 555-0142 x12"
    odd.loc[odd.index[5], "LEAD_SOURCE"] = "+1 (202) 456-1111"
    odd.loc[odd.index[6], "STREET2"] = "@home, \"back\""
    odd.loc[odd.index[7], "ZIP"] = ""
    odd.loc[odd.index[8], "FIRST_NAME"] = "Mickey"
    odd.loc[odd.index[8], "LAST_NAME"] = "Mouse"
    odd.loc[odd.index[9], "CUST_REF_NO"] = "-12.5"
    odd.loc[odd.index[10], "BUSINESS_NAME"] = "\u00a0=cmd|' /C calc'!A0"
    odd.loc[odd.index[11], "FIRST_NAME"] = "Ann\u2028Lee"
    out = pd.concat([odd, rows, odd.head(3)], ignore_index=True)
    out["PARTNER_ID"] = out["PARTNER_ID"].astype(object)
    out.loc[[3, 40, 41], "PARTNER_ID"] = np.nan  # missing cells in the input
    out["SCORE"] = np.linspace(-1.5, 1e16, len(out))  # a number column of the input
    return out


def _masked(text: str) -> str:
    return _TXN.sub("TXN", text)


@pytest.mark.parametrize("escape", [True, False])
@pytest.mark.parametrize("all_text", [True, False])  # every input column text (as dqkit verify reads a CSV)
def test_verified_lines_are_the_frames_lines_on_awkward_leads(escape: bool, all_text: bool) -> None:
    df = _awkward_leads()
    if all_text:
        df = df.drop(columns=["SCORE"])
        notes = ["", None, "=1+2", "a,b", 'say "hi"', "\r\nx", "\u00a0@x", "日本", "-12.5"]
        df["NOTE"] = pd.array([notes[i % len(notes)] for i in range(len(df))], dtype="str")
    backend = LocalBackend()
    fields = lead_fields(df.columns, None, "")
    shown = []
    for part in (df, df.iloc[5:200], df.iloc[290:]):
        made = verified_lines(part, backend, fields, "", cache=False, escape=escape, line_end=CSV_LINE_END)
        assert made is not None  # every cell of these leads is written here, not by the frame
        text, columns, codes = made
        frame = verify(part, backend=backend, mapping=fields, prefix="", cache=False, progress=False, workers=1)
        assert columns == [str(c) for c in frame.columns]
        assert _masked(text) == _masked(csv_text(frame, escape=escape, header=False))
        expected = frame["result_code"].astype(object)
        assert codes == expected.where(expected.notna(), None).tolist()
        shown.append(columns)
    assert {"phone_extension", "reference", "spoof_rule", "std_lat"} <= set(shown[0])
    assert "phone_extension" not in shown[2]  # no extension in those rows: no column, as the frame


def test_verified_lines_with_a_prefix_and_without_a_phone_column() -> None:
    df = _awkward_leads().drop(columns=["PHONE_NUMBER", "PHONE_TYPE"])
    backend = LocalBackend()
    fields = lead_fields(df.columns, None, "lead_")
    made = verified_lines(df, backend, fields, "lead_", cache=False, escape=True, line_end="\n")
    assert made is not None
    frame = verify(df, backend=backend, mapping=fields, prefix="lead_", cache=False, progress=False, workers=1)
    assert made[1] == [str(c) for c in frame.columns]
    assert _masked(made[0]) == _masked(escape_frame(frame).to_csv(index=False, header=False, lineterminator="\n"))


@pytest.mark.parametrize("change", ["nul", "int_column", "result_column", "extension_column"])
def test_what_it_cannot_write_the_same_way_is_left_to_the_frame(change: str) -> None:
    df = _awkward_leads().head(20)
    if change == "nul":
        df.loc[3, "LEAD_SOURCE"] = "a\x00b"
    elif change == "int_column":
        df["COUNT"] = np.arange(len(df))
    elif change == "result_column":
        df["result_code"] = "S100"
    else:
        df["phone_extension"] = "12"
    backend = LocalBackend()
    fields = lead_fields(df.columns, None, "")
    assert verified_lines(df, backend, fields, "", cache=False, escape=True, line_end=CSV_LINE_END) is None


def test_text_input_columns_take_the_one_pass_path_and_others_the_frames_steps() -> None:
    from dqkit.notebook.lead_lines import _text_input_cells

    df = _awkward_leads()
    assert _text_input_cells(df.drop(columns=["SCORE"]), True) is not None  # the CLI's case: every column text
    assert _text_input_cells(df, True) is None  # a number column: escape_frame and column_cells, as the frame
