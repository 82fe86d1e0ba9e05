"""A lead matched against a real reference of address points: the store the address engine built, shared."""

from __future__ import annotations

import csv
from pathlib import Path

from dqkit.contract.lead import LeadRequest
from dqkit.engines.address import AddressEngine
from dqkit.engines.lead.engine import LeadEngine, LeadProfile


def test_lead_matches_reference_point(shared_dir: Path, tmp_path: Path) -> None:
    src = shared_dir / "data" / "openaddresses" / "santa_clara.csv"
    with src.open() as fh:
        row = next(r for r in csv.DictReader(fh) if r["NUMBER"] and r["CITY"] and r["POSTCODE"] and not r["UNIT"])
    engine = AddressEngine.from_files([src], out=tmp_path / "sc.idx", complete=True)  # vouched: S102 may be said
    leads = LeadEngine(LeadProfile(points=engine.points()))
    msg = leads.verify(LeadRequest(full_name="Ann Lee", street1=f"{row['NUMBER']} {row['STREET']}".lower(),
                                   city=row["CITY"].lower(), state="CA", zip=row["POSTCODE"]))
    sa = msg.standardized_address
    assert msg.message.result_code == "S100" and sa is not None
    assert (sa.address_code, sa.geomatch) == ("", "0")  # matched; no ZIP+4 in the reference, so not code 1
    assert abs(float(sa.geo_lat) - float(row["LAT"])) < 1e-4 and abs(float(sa.geo_lng) - float(row["LON"])) < 1e-4
    assert "points=" in leads.profile.identity() and engine.index.build_id[:8] in leads.profile.identity()
    missing = leads.verify(LeadRequest(full_name="Ann Lee", street1=f"99999 {row['STREET']}", city=row["CITY"],
                                       state="CA", zip=row["POSTCODE"]))
    assert missing.message.result_code == "S102" and "61" in missing.message.value
