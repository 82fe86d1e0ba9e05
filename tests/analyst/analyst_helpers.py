"""Shared values of the analyst tests (a module of its own: pytest's importlib mode keeps conftests apart)."""

from __future__ import annotations

import os
import subprocess
import sys
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


LAUNCH = "import sys; from dqkit.cli import main; sys.exit(main(sys.argv[1:]))"


def dqkit(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run `dqkit ARGS` as a user does (a new process), without the caller's tokens or account ids, no cache."""
    full = {k: v for k, v in os.environ.items()
            if k not in ("DQKIT_LEAD_TOKEN", "DQKIT_ADDRESS_TOKEN", "DQKIT_PARTNER_ID", "DQKIT_CLIENT_ID")}
    full.update({"DQKIT_CACHE": "0", "DQKIT_PROGRESS": "0", **(env or {})})
    return subprocess.run([sys.executable, "-c", LAUNCH, *args], capture_output=True, text=True, env=full,
                          stdin=subprocess.DEVNULL, timeout=timeout)
