"""Reading and writing lead tables for the CLI (CSV or Parquet, chosen by file extension)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

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
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {str(path)!r}: {exc}") from None


def write_table(df: pd.DataFrame, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() in (".parquet", ".pq"):
        df.to_parquet(path, index=False)
    else:
        df.to_csv(path, index=False)


def parse_map(items: list[str] | None) -> dict[str, str]:
    """`--map FIELD=COLUMN` options to a mapping."""
    out: dict[str, str] = {}
    for item in items or []:
        field, sep, column = item.partition("=")
        if not sep or not field.strip() or not column.strip():
            raise InputError(f"--map takes FIELD=COLUMN, not {item!r}")
        out[field.strip().upper()] = column.strip()
    return out
