"""Reading and writing lead tables for the CLI (delimited text, Excel .xlsx or Parquet, chosen by file extension;
any other extension is refused with the formats listed).

Files are read as analysts have them: delimited text (`.csv`, `.tsv`, `.txt`, `.csv.gz`) in any of `,` `;` tab
`|` and UTF-8, UTF-16 or Windows-1252 (`dqkit._delimited`), and CRM report exports with their header block,
footer and blank rows, which are left out and said (`dqkit._export_rows`; `read_table(...).attrs["dqkit_read"]`).
An output that is one of the inputs is refused before anything runs (`output_for`).

Outputs are written to a temporary file beside the destination and renamed (`dqkit._files`): a crash or a full
disk leaves the previous file whole. CSV cells a spreadsheet would run as a formula are made inert by
`dqkit._cell_escape` (OWASP's CSV-injection advice: a leading `'`, also after a line break inside a cell; only plain
numbers such as `-12.5` are left alone), and rows end in CRLF so that every cell holding a CR or LF is quoted. Pass
`escape_formulas=False` (`--no-escape-formulas`) to write cells exactly as they are (still quoted). Parquet holds
typed data no spreadsheet evaluates, so it is written as is. Excel text is written as text cells, which never run
as formulas, exactly as it is (no leading `'`: "+1 510 ..." stays so; openpyxl alone would store a text starting
with `=` as a formula), and characters an .xlsx file cannot hold (C0 controls) become U+FFFD. An Excel input is
checked by `dqkit._xlsx_bounds` before it is parsed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from dqkit._cell_escape import CSV_LINE_END, escape_frame, xlsx_text
from dqkit._delimited import read_rows
from dqkit._export_rows import READ_NOTE, Layout, layout
from dqkit._files import write_with
from dqkit._xlsx_bounds import check_workbook
from dqkit.contract.errors import InputError

if TYPE_CHECKING:
    import pandas as pd


READ_FORMATS: Final = {".csv": "CSV", ".tsv": "CSV", ".txt": "CSV", ".csv.gz": "CSV", ".xlsx": "Excel",
                       ".xlsm": "Excel", ".parquet": "Parquet", ".pq": "Parquet"}
WRITE_FORMATS: Final = {".csv": "CSV", ".xlsx": "Excel", ".parquet": "Parquet", ".pq": "Parquet"}
_READ: set[Path] = set()  # the inputs this process read: never written over (`write_table`)


def table_format(path: Path, formats: dict[str, str], what: str) -> str:
    """CSV, Excel or Parquet, from the file's extension; InputError listing the formats for any other."""
    name = path.name.lower()
    for ext in sorted(formats, key=len, reverse=True):
        if name.endswith(ext):
            return formats[ext]
    listed = ", ".join(sorted(formats))
    extra = " (save an old .xls workbook as .xlsx)" if name.endswith(".xls") else ""
    raise InputError(f"cannot {what} {str(path)!r}: unknown file type; use one of {listed}{extra}")


def output_for(output: Path, *inputs: Path | None) -> Path:
    """`output` when its extension can be written and it is none of `inputs` (writing there would destroy the
    input the run reads); else InputError, before any row is read."""
    table_format(output, WRITE_FORMATS, "write")
    for given in inputs:
        if given is not None and same_file(output, given):
            raise InputError(f"-o {str(output)!r} is the input file: writing the results there would replace "
                             "your data; give another output name")
    return output


def same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file (the same path, a link, another spelling of it)."""
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and a.samefile(b))
    except OSError:
        return False


def read_table(path: str | Path) -> pd.DataFrame:
    """Every column as text, empty cells as "", so ZIP codes keep their leading zeros; a report's header block,
    footer and blank rows left out, and said in `attrs["dqkit_read"]` (see `read_summary`). Public as
    `dqkit.read_table`: a notebook reads a CRM export as `dqkit verify` does."""
    import pandas as pd

    path = Path(path)

    kind = table_format(path, READ_FORMATS, "read")
    if not path.exists():
        raise InputError(f"input file {str(path)!r} does not exist")
    if kind == "Excel":
        check_workbook(path)  # compression ratio, sizes, cells, time: before any parse
    name = repr(str(path))
    note = ""
    try:
        if kind == "Parquet":
            return pd.read_parquet(path).astype("string").fillna("").astype(object)
        if kind == "Excel":
            sheet = pd.read_excel(path, sheet_name=0, header=None, dtype=str, keep_default_na=False, na_values=[],
                                  engine="openpyxl")
            rows = sheet.fillna("").astype(str).to_numpy().tolist()
        else:
            rows, decoded, _ = read_rows(_file_bytes(path), name)
            note = decoded.note
    except InputError:
        raise
    except (OSError, ValueError, KeyError) as exc:  # openpyxl: a damaged or non-Excel file is a KeyError/zip error
        raise InputError(f"cannot read {name}: {exc}") from None
    except Exception as exc:  # zipfile.BadZipFile and openpyxl's own errors: a file that is not a workbook
        raise InputError(f"cannot read {name} as {kind}: {type(exc).__name__}: {exc}") from None
    if not any(any(str(c).strip() for c in r) for r in rows):
        raise InputError(f"{name} is empty: it has no header row and no data")
    found = layout(rows)
    frame = _frame(rows, found)
    _READ.add(path)
    frame.attrs[READ_NOTE] = {"summary": found.summary(), "counts": found.counts(), "note": note}
    return frame


def read_summary(df: pd.DataFrame) -> str:
    """What reading left out of a table and noticed, one line each ("" when nothing)."""
    said = df.attrs.get(READ_NOTE) or {}
    return "\n".join(x for x in (said.get("note", ""), said.get("summary", "")) if x)


def _file_bytes(path: Path) -> bytes:
    import gzip

    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def _frame(rows: list[list[str]], found: Layout) -> pd.DataFrame:
    """The records of `rows` under their header: names as pandas gives them (an empty one "Unnamed: i", a repeated
    one "Phone.1"), short rows padded with "", cells beyond the header kept under "Unnamed: i"."""
    import pandas as pd

    records = [rows[i] for i in found.records]
    width = max(len(rows[found.header]), max(map(len, records), default=0))
    head = [str(c).strip() for c in rows[found.header]] + [""] * (width - len(rows[found.header]))
    names: list[str] = []
    seen: dict[str, int] = {}
    for i, h in enumerate(head):
        h = h or f"Unnamed: {i}"
        if h in seen:
            seen[h] += 1
            h = f"{h}.{seen[h]}"
        else:
            seen[h] = 0
        names.append(h)
    data = [r if len(r) == width else [*r, *[""] * (width - len(r))] for r in records]
    frame = pd.DataFrame(data, columns=names, dtype=object)
    if width == len(rows[found.header]):
        return frame
    extra = [n for i, n in enumerate(names) if i >= len(rows[found.header]) and not frame[n].astype(bool).any()]
    return frame.drop(columns=extra) if extra else frame


def write_table(df: pd.DataFrame, path: Path, *, escape: bool = True) -> None:
    """CSV, Excel or Parquet by extension, written atomically; CSV and Excel cells formula-escaped unless
    `escape=False`."""
    kind = table_format(path, WRITE_FORMATS, "write")
    output_for(path, *_READ)
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "Parquet":
        write_with(path, lambda tmp: df.to_parquet(tmp, index=False))
        return
    if kind == "Excel":  # text cells never run: written as they are (dqkit._cell_escape), not with a leading '
        sheet = excel_safe(df)
        write_with(path, lambda tmp: write_xlsx(sheet, tmp, as_text=escape))
    else:
        frame = escape_frame(df) if escape else df
        write_with(path, lambda tmp: frame.to_csv(tmp, index=False, lineterminator=CSV_LINE_END))


def write_xlsx(df: pd.DataFrame, path: Path, sheet: str = "leads", *, as_text: bool = True) -> None:
    """One sheet, header row first, streamed row by row (openpyxl's write-only mode: 1.7 times faster than
    `DataFrame.to_excel`, measured on 3,000 verified leads of 78 columns); missing values as empty cells."""
    import pandas as pd
    from openpyxl import Workbook

    wb = Workbook(write_only=True)
    ws = wb.create_sheet(sheet)
    ws.append([xlsx_text(ws, str(c)) if as_text else str(c) for c in df.columns])
    for row in df.astype(object).itertuples(index=False, name=None):
        ws.append([xlsx_text(ws, _xlsx_value(v, pd)) if as_text else _xlsx_value(v, pd) for v in row])
    wb.save(path)


def _xlsx_value(v: Any, pd: Any) -> Any:
    """A cell as openpyxl takes it: text and numbers as they are, missing as None, anything else as its text."""
    if isinstance(v, str | int | float | bool) or v is None:
        return None if isinstance(v, float) and v != v else v
    if hasattr(v, "item") and not hasattr(v, "__len__"):  # a numpy scalar
        return _xlsx_value(v.item(), pd)
    if not isinstance(v, list | tuple | dict | set) and bool(pd.isna(v)):
        return None
    return v if hasattr(v, "isoformat") else str(v)  # dates stay dates; lists and the rest become text


def excel_safe(df: pd.DataFrame) -> pd.DataFrame:
    """`df` with the characters an .xlsx cell cannot hold (C0 controls but tab, LF, CR) replaced by U+FFFD:
    openpyxl refuses the whole file for one of them."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    def clean(value: Any) -> Any:
        return ILLEGAL_CHARACTERS_RE.sub("\ufffd", value) if isinstance(value, str) else value

    out = df.map(clean)
    out.columns = [clean(c) for c in df.columns]
    return out


def parse_map(items: list[str] | None) -> dict[str, str]:
    """`--map FIELD=COLUMN` options to a mapping."""
    out: dict[str, str] = {}
    for item in items or []:
        field, sep, column = item.partition("=")
        if not sep or not field.strip() or not column.strip():
            raise InputError(f"--map takes FIELD=COLUMN, not {item!r}")
        out[field.strip().upper()] = column.strip()
    return out
