"""`dqkit verify` on CSV and Parquet files, run as a user runs it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

ROWS = [
    {"First Name": "Maria", "Last Name": "Garcia", "zipcode": "20500", "Phone": "202-456-1111", "source": "web"},
    {"First Name": "Mickey", "Last Name": "Mouse", "zipcode": "32830", "Phone": "", "source": "web"},
    {"First Name": "Ann", "Last Name": "", "zipcode": "02134", "Phone": "", "source": "fair"},
    {"First Name": "Bob", "Last Name": "Sm<ith", "zipcode": "10001", "Phone": "", "source": "fair"},
    {"First Name": "Lee", "Last Name": "Chan", "zipcode": "", "Phone": "", "source": "fair"},
]


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI caches results in the user cache dir: give each test its own (the subprocess inherits it)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def dqkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dqkit.cli", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("ext", ["csv", "parquet"])
def test_verify_keeps_every_row_in_order(tmp_path: Path, ext: str) -> None:
    src = tmp_path / f"leads.{ext}"
    df = pd.DataFrame(ROWS)
    df.to_csv(src, index=False) if ext == "csv" else df.to_parquet(src, index=False)
    out = tmp_path / f"out.{ext}"
    proc = dqkit("verify", str(src), "-o", str(out), "--no-address")
    assert proc.returncode == 0, proc.stderr
    res = pd.read_csv(out, dtype=str, keep_default_na=False) if ext == "csv" else pd.read_parquet(out)
    assert list(res["First Name"]) == [r["First Name"] for r in ROWS]
    assert list(res["zipcode"]) == ["20500", "32830", "02134", "10001", ""]  # leading zero kept
    assert list(res["result_code"]) == ["S100", "E100", "E600", "E200", "E601"]
    assert "E100" in proc.stdout and "total" in proc.stdout
    again = dqkit("verify", str(src), "-o", str(out), "--no-address")  # answered from the cache, same file
    assert again.returncode == 0 and again.stdout == proc.stdout


def test_verify_map_override_and_bad_input(tmp_path: Path) -> None:
    src = tmp_path / "leads.csv"
    pd.DataFrame([{"who": "Maria Garcia", "z": "20500"}]).to_csv(src, index=False)
    out = tmp_path / "out.csv"
    proc = dqkit("verify", str(src), "-o", str(out), "--map", "FULL_NAME=who", "--map", "ZIP=z", "--no-address")
    assert proc.returncode == 0, proc.stderr
    assert pd.read_csv(out, dtype=str)["result_code"].tolist() == ["S100"]
    bad = dqkit("verify", str(tmp_path / "missing.csv"), "-o", str(out))
    assert bad.returncode == 1 and "does not exist" in bad.stderr and "Traceback" not in bad.stderr
    badmap = dqkit("verify", str(src), "-o", str(out), "--map", "nonsense")
    assert badmap.returncode == 1 and "FIELD=COLUMN" in badmap.stderr
