"""The last lines `standardize` reads once for each distinct city, state and ZIP (issue 31) are shared between
addresses, so nothing may change them: after the bundled leads, hand-made hard cases and a point reference went
through `standardize`, every cached last line and reconciliation still equals one read afresh."""

from __future__ import annotations

import csv
from pathlib import Path

from dqkit.engines.usaddr import AddressInput, InMemoryPoints, standardize
from dqkit.engines.usaddr import last_line_memo as memo
from dqkit.engines.usaddr.lastline import parse_last_line
from dqkit.engines.usaddr.points import point_from_row
from dqkit.engines.usaddr.reconcile import reconcile

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "sample_leads.csv"
HARD = [  # corrected city, wrong state, unique ZIP, unknown ZIP, military, foreign, ZIP from the city, ZIP+4
    AddressInput("2653 Meridian Ave", city="San Jsoe", state="CA", zip="95124"),
    AddressInput("2653 Meridian Ave", city="San Jose", state="NV", zip="95124"),
    AddressInput("1 Infinite Loop", city="Cupertino", state="CA", zip="95014"),
    AddressInput("100 Main St", city="Springfield", state="IL", zip="00000"),
    AddressInput("PSC 1234 Box 5678", city="APO", state="AE", zip="09001"),
    AddressInput("10 Downing St", city="London", country="UK"),
    AddressInput("PO Box 12", city="Sacramento", state="California"),
    AddressInput("55 Almaden Expy", city="San Jose", state="CA", zip="95125", zipplus="1234"),
    AddressInput("12 Rose Ct", city="Los Gatos", state="CA", zip="95126"),
]


def test_shared_last_lines_are_left_unchanged() -> None:
    row = {"LON": "-121.93", "LAT": "37.30", "NUMBER": "12", "STREET": "ROSE CT", "UNIT": "", "CITY": "SAN JOSE",
           "POSTCODE": "95126", "ID": "p0"}
    point = point_from_row(row, state="CA")
    assert point is not None
    with SAMPLE.open(encoding="utf-8") as fh:
        inputs = [AddressInput(r["STREET1"], r["STREET2"], r["CITY"], r["STATE"], r["ZIP"], r["ZIPPLUS"])
                  for r in csv.DictReader(fh)]
    inputs += HARD
    for points in (None, InMemoryPoints([point])):
        for inp in inputs:
            standardize(inp, points=points)
            standardize(inp, points=points)  # the second time from the cache
    for inp in inputs:
        ll = memo.last_line(inp.city, inp.state, inp.zip, inp.zipplus, inp.country)
        fresh = parse_last_line(inp.city, inp.state, inp.zip, inp.country)
        if inp.zipplus.strip() and not fresh.zip4:
            fresh.zip4 = "".join(c for c in inp.zipplus if c.isdigit())[:4]
        assert ll == fresh, inp
        for box in (False, True):
            assert memo.reconciled(ll, box=box) == reconcile(fresh, box=box), inp


def test_the_caches_are_bounded() -> None:
    for cached in (memo.last_line, memo._reconciled):
        maxsize = cached.cache_info().maxsize
        assert maxsize is not None and maxsize <= 65536
