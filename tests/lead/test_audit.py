"""Part 5: the analyst's view: percentages per lead source, the source column found in `dqkit verify` output,
and real S102 / ADDRESS_CODE rates once an address reference is installed."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from dqkit.backends.local import LocalBackend
from dqkit.engines.address import AddressEngine
from dqkit.engines.lead.engine import LeadProfile
from dqkit.notebook.leads import AUDIT_COLUMNS, audit_table, source_column


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def dqkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dqkit.cli", *args], capture_output=True, text=True, timeout=300)


def test_report_finds_the_source_column_in_verify_output(tmp_path: Path) -> None:
    src = tmp_path / "leads.csv"
    pd.read_csv(Path(__file__).resolve().parents[2] / "data" / "sample_leads.csv", dtype=str,
                keep_default_na=False).iloc[:300].to_csv(src, index=False)
    out, report = tmp_path / "verified.csv", tmp_path / "report.html"
    assert dqkit("verify", str(src), "-o", str(out), "--quiet").returncode == 0
    verified = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert source_column(verified, prefix="") == "LEAD_SOURCE"  # the analyst's column; PARTNER_ID is the account's
    proc = dqkit("report", str(out), "-o", str(report))
    assert proc.returncode == 0, proc.stderr
    assert "Lead source column: <code>LEAD_SOURCE</code>" in report.read_text()
    table = audit_table(verified, prefix="")
    assert list(table.columns) == list(AUDIT_COLUMNS) and "(all)" in table.index
    pct = [c for c in table.columns if c.endswith("_pct")]
    values = table[pct].to_numpy().ravel()
    values = values[~pd.isna(values)]
    assert ((values >= 0) & (values <= 100)).all() and (values > 1).any()  # percentages, not fractions
    assert table.loc["(all)", "street_unchecked_pct"] > 50  # no reference: said, not hidden


def test_sample_style_audit_with_a_reference_shows_real_address_rates(shared_dir: Path, tmp_path: Path) -> None:
    src = shared_dir / "data" / "openaddresses" / "alameda.csv"
    with src.open() as fh:
        points = [r for r in csv.DictReader(fh) if r["NUMBER"] and r["CITY"] and r["POSTCODE"] and not r["UNIT"]]
    rows = []
    for i, p in enumerate(points[:40]):
        street = f"{p['NUMBER']} {p['STREET']}" if i % 4 else f"{100 + i} Imaginary Unicorn Way"
        rows.append({"first_name": "Ann", "last_name": f"Lee{i % 7}", "street": street, "city": p["CITY"],
                     "state": "CA", "zip": p["POSTCODE"], "partner_id": "GOOD" if i % 2 else "MIXED"})
    frame = pd.DataFrame(rows)
    engine = AddressEngine.from_files([src], out=tmp_path / "alameda.idx", complete=True)  # vouched (--complete)
    out = frame.leads.verify(backend=LocalBackend(profile=LeadProfile(points=engine.points())), cache=False)
    table = out.leads.audit()
    assert table.loc["(all)", "address_invalid_pct"] > 0 and table.loc["(all)", "address_matched_pct"] > 0
    assert table.loc["MIXED", "address_invalid_pct"] > table.loc["GOOD", "address_invalid_pct"]
    assert table.loc["(all)", "street_unchecked_pct"] == 0
    cli_out = tmp_path / "verified.csv"
    frame.to_csv(tmp_path / "leads.csv", index=False)
    proc = dqkit("verify", str(tmp_path / "leads.csv"), "-o", str(cli_out), "--reference", str(src), "--complete",
                 "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "S102" in proc.stdout
    verified = pd.read_csv(cli_out, dtype=str, keep_default_na=False)
    assert (verified["std_geomatch"] == "0").any()  # matched to a point (ADDRESS_CODE 1 needs a ZIP+4)
