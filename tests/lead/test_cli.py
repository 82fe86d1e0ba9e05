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


COMMANDS = ("demo", "verify", "report", "codes", "index", "serve")
JARGON = ("seed", "lives in its own module", "registers itself")


@pytest.mark.parametrize("command", ["", *COMMANDS, "index build", "index info", "index upgrade"])
def test_help_reads_as_user_documentation(command: str) -> None:
    proc = dqkit(*command.split(), "--help")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert not any(word in text.lower() for word in JARGON), text
    _usage, _, rest = text.partition("\n\n")
    description = rest.split("\n\n")[0]
    assert description and not description.startswith(("positional", "options")), f"no description:\n{text}"
    if not command:
        assert all(c in text for c in COMMANDS)


@pytest.mark.parametrize("table", ["result_code", "Result_Code", "phone-status"])
def test_codes_table_names_are_case_insensitive(table: str) -> None:
    proc = dqkit("codes", table)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] in ("RESULT_CODE", "PHONE_STATUS") and "E" in proc.stdout


def test_codes_into_a_closed_pipe_ends_quietly() -> None:
    """`dqkit codes | head`: the reader leaves early; no BrokenPipeError traceback, the usual SIGPIPE status."""
    import os

    read, write = os.pipe()
    os.close(read)  # the reader is already gone: the first write fails
    try:
        proc = subprocess.run([sys.executable, "-m", "dqkit.cli", "codes"], stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=60)
    finally:
        os.close(write)
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
    assert proc.returncode == 141


def test_demo_says_when_answers_came_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A cache of the test's own, whatever the caller's environment says (DQKIT_CACHE=0 switched it off)
    monkeypatch.delenv("DQKIT_CACHE", raising=False)
    monkeypatch.setenv("DQKIT_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "demo"
    first = dqkit("demo", "--out", str(out))
    assert first.returncode == 0, first.stderr
    assert "10,000 synthetic sample leads verified on the local engine" in first.stdout
    again = dqkit("demo", "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert "10,000 synthetic sample leads verified (10,000 from the result cache" in again.stdout
    assert (out / "report.html").is_file() and (out / "sample_leads_verified.csv").is_file()
    # The output folder ignores itself, so it never shows in `git status` of the checkout it was run in.
    assert (out / ".gitignore").read_text().splitlines()[-1] == "*"
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    proc = subprocess.run([sys.executable, "-m", "dqkit.cli", "demo"], cwd=repo, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True)
    assert status.stdout == ""
