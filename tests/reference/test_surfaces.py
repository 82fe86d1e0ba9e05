"""Every surface answers from the installed references and names them: a real `dqkit serve` (header
X-Dqkit-Reference), `--demo` only when asked, the open-data-only engine without any reference, a server of
non-US references only (it used to never become ready), and the lead engine's address checks."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest
from ref_layouts import oa_csv_text

import dqkit
from dqkit import reference
from dqkit.contract.address import Confidence
from dqkit.contract.lead import LeadRequest
from dqkit.server.testing import serve_process

BODY = {"country_iso": "USA", "components": {"unspecified": ["350 Fifth Avenue, New York, NY 10118"]}}


def _install_alameda(tmp_path: Path, alameda: list[dict[str, str]], *, complete: bool = False) -> None:
    src = tmp_path / "dl" / "us" / "ca" / "alameda.csv"
    src.parent.mkdir(parents=True)
    src.write_text(oa_csv_text(alameda), encoding="utf-8")
    reference.add(src, complete=complete)


def test_serve_answers_from_the_installed_reference_and_names_it(tmp_path: Path, refdir: Path,
                                                                  alameda: list[dict[str, str]]) -> None:
    _install_alameda(tmp_path, alameda)
    m = reference.info("openaddresses-us-ca-alameda")
    r = alameda[0]
    real = {"country_iso": "USA",
            "components": {"unspecified": [f"{r['NUMBER']} {r['STREET']}, {r['CITY']} CA {r['POSTCODE']}"]}}
    with serve_process(env={"DQKIT_REFERENCE_DIR": str(refdir)}) as served, \
            httpx.Client(base_url=served.url, timeout=30) as http:
        got = http.post("/address/validate/v1", json=real)
        assert got.status_code == 200 and got.json()["result"]["confidence"] == "Verified match"
        assert got.headers["x-dqkit-reference"] == (f"openaddresses-us-ca-alameda; built={m.built[:10]}; "
                                                    f"source-date={m.source_date}")
        ds = [d for c in http.get("/address/datasets/v1").json()["result"] for d in c["datasets"]]
        assert [d["id"] for d in ds] == ["us-address"] and "openaddresses-us-ca-alameda" in ds[0]["name"]
        assert "x-dqkit-reference" in http.post("/address/search/v1", json=BODY).headers
        # the lead service shares the reference, and names it on its answers too
        lead = http.post("/search", json={"FIRST_NAME": "Ann", "LAST_NAME": "Lee", "ZIP": "94501"})
        assert lead.status_code == 200 and lead.headers["x-dqkit-reference"] == got.headers["x-dqkit-reference"]


def test_serve_without_any_reference_never_claims_a_street(refdir: Path) -> None:
    with serve_process(env={"DQKIT_REFERENCE_DIR": str(refdir / "empty")}) as served, \
            httpx.Client(base_url=served.url, timeout=30) as http:
        got = http.post("/address/validate/v1", json=BODY)
        result = got.json()["result"]
        assert result["confidence"] == "Verified place" and result["match_type"] == "post_code_no_address"
        assert result["address"]["postal_code"] == "10118" and not result["address"]["address_line_1"]
        assert got.headers["x-dqkit-reference"].startswith("open-data-only;")
        assert got.headers["x-dqkit-reference"].endswith("street-not-checked")
        found = http.post("/address/search/v1", json=BODY).json()["result"]
        assert found["confidence"] == "No matches" and "dqkit reference add" in found["suggestions_prompt"]
        assert served.log_text().count("No address reference is installed") == 1  # told once, in its log


def test_serve_demo_only_when_asked_and_it_says_so(refdir: Path) -> None:
    with serve_process(demo=True) as served, httpx.Client(base_url=served.url, timeout=30) as http:
        got = http.post("/address/validate/v1", json=BODY)
        assert got.headers["x-dqkit-reference"].startswith("us-demo-synthetic; built=")
        assert got.headers["x-dqkit-reference"].endswith("; synthetic")
        held = http.get("/address/datasets/v1").json()["result"]
        assert [d["id"] for c in held for d in c["datasets"]] == ["us-demo-synthetic"]


def test_serve_a_reference_without_us_data_becomes_ready(tmp_path: Path, alameda: list[dict[str, str]]) -> None:
    """Issue 14: `--reference gb/points.csv --reference ca/points.csv` never became ready (warm-up searched the
    US)."""
    files = []
    for country, rows in (("gb", alameda[:300]), ("ca", alameda[300:600])):
        path = tmp_path / country / "points.csv"
        path.parent.mkdir(parents=True)
        path.write_text(oa_csv_text([{**r, "POSTCODE": ""} for r in rows]), encoding="utf-8")
        files.append(path)
    with serve_process(references=files, env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
                       startup_timeout=60) as served, httpx.Client(base_url=served.url, timeout=30) as http:
        ids = sorted(d["id"] for c in http.get("/address/datasets/v1").json()["result"] for d in c["datasets"])
        assert ids == ["ca-address", "gb-address"]
        r = alameda[0]
        got = http.post("/address/search/v1", json={"country_iso": "GBR", "components": {
            "unspecified": [f"{r['NUMBER']} {r['STREET']}"]}}).json()["result"]
        assert got["suggestions"]


def test_the_default_backend_checks_leads_against_the_installed_reference(tmp_path: Path,
                                                                         alameda: list[dict[str, str]]) -> None:
    assert dqkit.LocalBackend().lead_engine.profile.points is None  # nothing installed: ZIP data only
    _install_alameda(tmp_path, alameda, complete=True)  # vouched for: a street it lacks may be "not found"
    backend = dqkit.LocalBackend()
    points = backend.lead_engine.profile.points
    assert points is not None and "openaddresses-us-ca-alameda@" in backend.lead_engine.profile.identity()
    r = next(x for x in alameda if x["CITY"] and not x["UNIT"])
    real = backend.verify_lead(LeadRequest(first_name="Ann", last_name="Lee", street1=f"{r['NUMBER']} {r['STREET']}",
                                           city=r["CITY"], state="CA", zip=r["POSTCODE"]))
    made_up = backend.verify_lead(LeadRequest(first_name="Ann", last_name="Lee", street1="820 Talwrn Ct",
                                              city=r["CITY"], state="CA", zip=r["POSTCODE"]))
    assert real.result_code != "S102" and made_up.result_code == "S102"  # the street is not in that ZIP
    # and the demo never serves the lead engine's address checks
    assert dqkit.LocalBackend(reference="demo").lead_engine.profile.points is None
    assert os.environ["DQKIT_REFERENCE_DIR"]


def test_local_backend_reference_choices(tmp_path: Path, alameda: list[dict[str, str]]) -> None:
    _install_alameda(tmp_path, alameda)
    assert dqkit.LocalBackend(reference=["openaddresses-us-ca-alameda"]).reference.id == "openaddresses-us-ca-alameda"
    m = reference.info("openaddresses-us-ca-alameda")
    assert reference.describe() == (f"Reference: openaddresses-us-ca-alameda (openaddresses, US/CA, source date "
                                    f"{m.source_date}, built {m.built[:10]})")
    assert reference.describe("demo").startswith("Reference: us-demo-synthetic (demo, US, built ")
    assert reference.describe("demo").endswith("synthetic demo data: these addresses are invented; do not trust "
                                               "a match")
    index = reference.info("openaddresses-us-ca-alameda").index_path
    assert dqkit.LocalBackend(reference=str(index)).reference.id == "index:index.dqidx"
    with pytest.raises(dqkit.InputError, match="no installed reference 'nope'"):
        dqkit.LocalBackend(reference="nope")
    demo = dqkit.LocalBackend(reference="demo")
    got = demo.validate(dqkit.SearchRequest.of("350 Fifth Avenue, New York, NY 10118")).result
    assert demo.reference.synthetic and demo.reference.id == "us-demo-synthetic"
    assert got.confidence in set(Confidence)
    with pytest.raises(dqkit.InputError, match="reference= chooses the data of the local engine"):
        dqkit.address_backend("http://127.0.0.1:1", reference="demo")
