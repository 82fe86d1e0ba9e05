"""The opt-in blocks of an answer, built from one reference address: components, metadata and geocodes.

Only what the reference row holds is filled; everything else stays absent (the vendor's DPV, LACS, delivery type
and deliverability need USPS data that no open source has):
- components: country, postal code (ZIP+4 split when the file had it), building number, sub-building (a floor for
  "FL", a door otherwise), street (directionals, name, type), locality (state code and name, town);
- metadata: `address_classification.address_type.code` "H" (a unit in a building, USPS record type highrise) or
  "S" (a street address), `route_classification.carrier_route` and `barcode` only from a reference that carries
  a well-formed carrier route / ZIP+4 / delivery point (`dqkit.engines.usaddr.barcode`), and the ZIP+4 and barcode
  only for the delivery point itself, never for a unit typed at it that the reference does not list;
- enrichment: `geocodes` (latitude, longitude of the reference point; match_level "address").
"""

from __future__ import annotations

from typing import Final

from dqkit.contract.address import ISO_NUMERIC_BY_ISO3
from dqkit.contract.address_components import (
    AddOns,
    AddressClassification,
    AddressComponents,
    AddressInfo,
    AddressMetadata,
    AddressType,
    Barcode,
    BuildingComponent,
    Enrichment,
    EnrichmentResult,
    Geocodes,
    LocalityComponent,
    LocalityItem,
    PostalCodeComponent,
    RouteClassification,
    StreetComponent,
    SubBuildingComponent,
    SubBuildingItem,
)
from dqkit.engines.address.layout import country_name, mixed_case, us_zip4
from dqkit.engines.address_index.countries import country, iso3_of
from dqkit.engines.address_index.store import AddressRow
from dqkit.engines.usaddr.barcode import carrier_route, delivery_point

# The level a key names: one address, a building (number known, unit not), or a street (number not known).
ADDRESS_LEVEL: Final = "address"
BUILDING_LEVEL: Final = "building"
STREET_LEVEL: Final = "street"
_FLOOR_DESIGNATORS: Final = frozenset({"FL", "FLOOR", "FLR"})


def _s(text: str) -> str | None:
    return text or None


def region_name(iso2: str, code: str) -> str:
    name = country(iso2).regions.get(code, "")
    if not name and iso2 == "US":
        from dqkit.contract.us_states import STATES

        name = STATES.get(code, "")
    return mixed_case(name) if name else ""


def address_components(iso2: str, row: AddressRow, level: str = ADDRESS_LEVEL, *,
                       own: bool = True) -> AddressComponents:
    """The nested component breakdown of a reference address (as far as `level` is known). `own`: the answer is
    this delivery point itself (not a unit typed at it that the reference does not list), so its ZIP+4 is the
    answer's."""
    s = row.street
    iso3 = iso3_of(iso2)
    zip4 = us_zip4(row.zip4) if iso2 == "US" and level == ADDRESS_LEVEL and own else ""
    postal = PostalCodeComponent(full_name=f"{s.postcode}-{zip4}" if zip4 else s.postcode,
                                 primary=s.postcode, secondary=_s(zip4)) if s.postcode else None
    building = BuildingComponent(building_number=row.number) if row.number and level != STREET_LEVEL else None
    sub: SubBuildingComponent | None = None
    if level == ADDRESS_LEVEL and (row.unit or row.unit_desig):
        desig = mixed_case(row.unit_desig) if row.unit_desig else ""
        item = SubBuildingItem(full_name=" ".join(p for p in (desig, row.unit) if p), type=_s(desig),
                               value=_s(row.unit))
        sub = SubBuildingComponent(floor=item) if row.unit_desig.upper() in _FLOOR_DESIGNATORS else \
            SubBuildingComponent(door=item)
    street = StreetComponent(full_name=_s(mixed_case(s.text)), prefix=_s(s.predir), name=_s(mixed_case(s.name)),
                             type=_s(mixed_case(s.suffix)), suffix=_s(s.postdir)) if s.text else None
    region = LocalityItem(name=_s(region_name(iso2, s.region)), code=s.region) if s.region else None
    town = LocalityItem(name=mixed_case(s.city)) if s.city else None
    locality = LocalityComponent(region=region, town=town) if region or town else None
    return AddressComponents(
        country_name=country_name(iso2), country_iso_3=iso3, country_iso_2=iso2.upper(),
        country_iso_numeric=ISO_NUMERIC_BY_ISO3.get(iso3), postal_code=postal, sub_building=sub, building=building,
        street=street, locality=locality,
    )


def check_digit(digits: str) -> str:
    """USPS delivery point barcode check digit: makes the digit sum a multiple of 10."""
    return str((10 - sum(int(c) for c in digits) % 10) % 10)


def address_metadata(iso2: str, row: AddressRow, level: str = ADDRESS_LEVEL, *,
                     own: bool = True) -> AddressMetadata | None:
    """What the reference tells about the address; None when it tells nothing. Not `own` (a unit typed at this
    point that the reference does not list): no barcode and no address type, which are the point's, not the
    unit's; its carrier route (the building's) and source stay."""
    if iso2 != "US" or level != ADDRESS_LEVEL:
        return None
    barcode = None
    dp = delivery_point(row.delivery_point)
    if own and us_zip4(row.zip4) and dp and row.street.postcode.isdigit():
        digits = f"{row.street.postcode}{row.zip4}{dp}"
        if digits.isdigit() and len(digits) == 11:
            barcode = Barcode(delivery_point_barcode=digits, check_digit=check_digit(digits))
    crrt = carrier_route(row.carrier_route)
    route = RouteClassification(carrier_route=crrt) if crrt else None
    # which source the point is from, and of when: a reference may merge several (NAD and OpenAddresses)
    info = AddressInfo(sources=[" ".join(x for x in (row.source, row.source_date) if x)]) if row.source else None
    kind = AddressClassification(address_type=AddressType(code="H" if row.unit else "S")) if own else None
    return AddressMetadata(address_info=info, barcode=barcode, route_classification=route,
                           address_classification=kind)


def address_enrichment(row: AddressRow, level: str = ADDRESS_LEVEL) -> Enrichment | None:
    """Geocodes of the reference point, when the reference has coordinates."""
    if level != ADDRESS_LEVEL or not (row.lat == row.lat and row.lon == row.lon):  # NaN: no point
        return None
    return Enrichment(result=EnrichmentResult(geocodes=Geocodes(latitude=round(row.lat, 7),
                                                                longitude=round(row.lon, 7),
                                                                match_level="address")))


def add_ons_for(iso2: str, row: AddressRow, add: AddOns, level: str = ADDRESS_LEVEL, *, own: bool = True,
                ) -> tuple[AddressComponents | None, AddressMetadata | None, Enrichment | None]:
    """The blocks `add` asks for, each None when not asked or not known (`own`: see `address_components`)."""
    return (address_components(iso2, row, level, own=own) if add.components else None,
            address_metadata(iso2, row, level, own=own) if add.metadata else None,
            address_enrichment(row, level) if add.enrichment else None)
