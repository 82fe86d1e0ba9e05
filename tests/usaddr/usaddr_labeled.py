"""usaddress' labeled.xml as (text, expected Pub 28 parts) pairs, for the golden tests.

Labels are turned into our vocabulary with the same Pub 28 tables (suffix and directional abbreviations);
components the seed has no field for (Recipient, BuildingName, Landmark, ...) are not compared.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from dqkit.engines.usaddr.pub28 import DIRECTIONALS, STATE_NAMES, SUFFIXES
from dqkit.engines.usaddr.tokens import tokenize


@dataclass(slots=True)
class Labeled:
    text: str
    parts: dict[str, str] = field(default_factory=dict)  # number predir name suffix postdir unit po_box city state zip


def _clean(words: list[str]) -> str:
    return " ".join(t for w in words for t in tokenize(w) if t != ",")


def load(shared: Path) -> list[Labeled]:
    root = ET.parse(shared / "data" / "usaddress" / "labeled.xml").getroot()
    out: list[Labeled] = []
    for s in root.iter("AddressString"):
        by: dict[str, list[str]] = {}
        for t in s:
            by.setdefault(t.tag, []).append(t.text or "")
        text = " ".join(t.text or "" for t in s).strip()
        item = Labeled(text)
        p = item.parts
        if "AddressNumber" in by:
            p["number"] = _clean(by["AddressNumber"] + by.get("AddressNumberSuffix", []))
        if "StreetName" in by:
            p["name"] = _clean(by.get("StreetNamePreType", []) + by["StreetName"])
        if "StreetNamePostType" in by:
            suf = _clean(by["StreetNamePostType"])
            p["suffix"] = SUFFIXES.get(suf, suf)
        for tag, key in (("StreetNamePreDirectional", "predir"), ("StreetNamePostDirectional", "postdir")):
            if tag in by:
                d = _clean(by[tag]).replace(" ", "")
                p[key] = DIRECTIONALS.get(d, d)
        if "OccupancyIdentifier" in by:
            p["unit"] = _clean(by["OccupancyIdentifier"]).replace(" ", "").lstrip("#").strip()
        if "USPSBoxID" in by:
            p["po_box"] = _clean(by["USPSBoxID"]).lstrip("#").strip()
        if "PlaceName" in by:
            p["city"] = _clean(by["PlaceName"])
        if "StateName" in by:
            st = _clean(by["StateName"])
            p["state"] = STATE_NAMES.get(st, st)
        if "ZipCode" in by:
            z = _clean(by["ZipCode"])
            p["zip"] = z.zfill(5) if len(z) == 4 else z[:5]
        out.append(item)
    return out
