"""Shared values of the analyst tests (a module of its own: pytest's importlib mode keeps conftests apart)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[2]
TOKEN = "analyst-token"
SAMPLE = REPO / "data" / "sample_leads.csv"


def sample(n: int | None = None) -> pd.DataFrame:
    df = pd.read_csv(SAMPLE, dtype=str, keep_default_na=False)
    return df if n is None else df.head(n)


def dissenting_names(df: pd.DataFrame, k: int = 25) -> list[str]:
    """`k` whole names of plain leads (no code other than S100 expected) for the dissenter's spoof list."""
    plain = df[(df["FIRST_NAME"].str.fullmatch(r"[A-Za-z]{3,}")) & (df["LAST_NAME"].str.fullmatch(r"[A-Za-z]{3,}"))]
    return list(dict.fromkeys((plain["FIRST_NAME"] + " " + plain["LAST_NAME"]).head(400)))[:k]
