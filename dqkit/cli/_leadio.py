"""Reading and writing lead tables for the CLI (CSV or Parquet, chosen by file extension).

Outputs are written to a temporary file beside the destination and renamed (`dqkit._files`): a crash or a full
disk leaves the previous file whole. CSV cells a spreadsheet would run as a formula are made inert by
`dqkit._cell_escape` (OWASP's CSV-injection advice: a leading `'`, also after a line break inside a cell; only plain
numbers such as `-12.5` are left alone), and rows end in CRLF so that every cell holding a CR or LF is quoted. Pass
`escape_formulas=False` (`--no-escape-formulas`) to write cells exactly as they are (still quoted). Parquet holds
typed data no spreadsheet evaluates, so it is written as is.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from dqkit._cell_escape import CSV_LINE_END, escape_frame
from dqkit._files import write_with
from dqkit.contract.errors import InputError

if TYPE_CHECKING:
    import pandas as pd


def read_table(path: Path) -> pd.DataFrame:
    """Every column as text, empty cells as "", so ZIP codes keep their leading zeros."""
    import pandas as pd

    if not path.exists():
        raise InputError(f"input file {str(path)!r} does not exist")
    suffix = "".join(path.suffixes[-2:]).lower()
    try:
        if suffix.endswith(".parquet") or suffix.endswith(".pq"):
            return pd.read_parquet(path).astype("string").fillna("").astype(object)
        return pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[], encoding_errors="replace",
                           comment=None)
    except pd.errors.EmptyDataError:
        raise InputError(f"{str(path)!r} is empty: it has no header row and no data") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {str(path)!r}: {exc}") from None


def write_table(df: pd.DataFrame, path: Path, *, escape: bool = True) -> None:
    """CSV or Parquet by extension, written atomically; CSV cells formula-escaped unless `escape=False`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() in (".parquet", ".pq"):
        write_with(path, lambda tmp: df.to_parquet(tmp, index=False))
    else:
        frame = escape_frame(df) if escape else df
        write_with(path, lambda tmp: frame.to_csv(tmp, index=False, lineterminator=CSV_LINE_END))


def parse_map(items: list[str] | None) -> dict[str, str]:
    """`--map FIELD=COLUMN` options to a mapping."""
    out: dict[str, str] = {}
    for item in items or []:
        field, sep, column = item.partition("=")
        if not sep or not field.strip() or not column.strip():
            raise InputError(f"--map takes FIELD=COLUMN, not {item!r}")
        out[field.strip().upper()] = column.strip()
    return out
