"""Every lead answer names the address reference its street checks used: `lead_reference` / `lead_reference_date`
beside the results (and in `dqkit verify`'s output), `X-Dqkit-Reference` on `/search`, a line in the report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pandas as pd
import pytest

from dqkit.backends.local import LocalBackend
from dqkit.engines.address import AddressEngine
from dqkit.engines.lead.engine import LeadProfile
from dqkit.report import build_report
from dqkit.server.testing import serve_process

OA = ("LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE,ID,HASH\n"
      "-122.2637604,37.7727802,1216,SANTA CLARA AV,,ALAMEDA,,CA,94501,,\n"
      "-122.2585955,37.7729139,1543,SANTA CLARA AV,,ALAMEDA,,CA,94501,,\n")
LEADS = pd.DataFrame({"name": ["Ann Lee", "Bo Chan"], "street": ["1216 Santa Clara Ave", "9 Nowhere Rd"],
                      "zip": ["94501", "94501"], "state": ["CA", "CA"]})


@pytest.fixture
def alameda(tmp_path: Path) -> Path:
    path = tmp_path / "us_ca_alameda.csv"
    path.write_text(OA, encoding="utf-8")
    return path


def test_without_a_reference_every_row_says_none_was_used() -> None:
    out = LEADS.leads.verify(backend=LocalBackend(reference="demo"), cache=False, progress=False)
    assert list(out["lead_reference"]) == ["open-data-only"] * 2  # the demo is never the lead engine's
    assert "none installed (streets not checked" in build_report(out)


def test_a_reference_file_is_named_with_its_date(alameda: Path) -> None:
    engine = AddressEngine.from_files([alameda])
    backend = LocalBackend(profile=LeadProfile(points=engine.index), address_engine=engine)
    out = LEADS.leads.verify(backend=backend, cache=False, progress=False)
    assert list(out["lead_reference"]) == [engine.reference.id] * 2
    assert out["lead_reference_date"].iloc[0] == (engine.reference.source_date or engine.reference.built) != ""
    assert f"address reference: <code>{engine.reference.id}</code> of " in build_report(out)
    again = out.leads.verify(backend=backend, cache=False, progress=False)  # a verified frame verified again
    assert list(again.columns).count("lead_reference") == 1 and "CUST_REF_NO" not in again.attrs["lead_columns"]


def test_dqkit_verify_writes_the_reference_columns(tmp_path: Path, alameda: Path) -> None:
    src, out = tmp_path / "leads.csv", tmp_path / "out.csv"
    LEADS.to_csv(src, index=False)
    proc = subprocess.run([sys.executable, "-m", "dqkit.cli", "verify", str(src), "-o", str(out), "--quiet",
                           "--no-cache", "--reference", str(alameda)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    res = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(res["reference"]) == ["files:us_ca_alameda.csv"] * 2 and all(res["reference_date"])


def test_search_answers_carry_the_reference_header(alameda: Path) -> None:
    body = {"FIRST_NAME": "Ann", "LAST_NAME": "Lee", "STREET1": "1216 Santa Clara Ave", "ZIP": "94501"}
    with serve_process(tokens=["t"], references=[alameda]) as served, \
            httpx.Client(base_url=served.url, timeout=30, headers={"Auth-Token": "t"}) as http:
        got = http.post("/search", json=body)
        assert got.status_code == 200, got.text
        assert got.headers["x-dqkit-reference"].startswith("files:us_ca_alameda.csv; built=")
    with serve_process(tokens=["t"], demo=True) as served, \
            httpx.Client(base_url=served.url, timeout=30, headers={"Auth-Token": "t"}) as http:
        got = http.post("/search", json=body)  # the synthetic demo never serves the lead engine's street checks
        assert got.headers["x-dqkit-reference"].startswith("open-data-only;")
        assert got.headers["x-dqkit-reference"].endswith("street-not-checked")
