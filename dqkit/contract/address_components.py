"""The component breakdown, metadata and enrichment blocks of the address service's answers.

Shapes follow the vendor's published OpenAPI document (`AddressComponent`, `AddressMetadata`,
`AddressFormatV1ResponseEnrichment`); field names are the wire names. Every field is optional and left out of the
JSON when it is None: a field dqkit cannot know from its reference stays absent, never invented. The vendor
objects allow no other properties, so these structs hold exactly the published names.
"""

from __future__ import annotations

from typing import Any

import msgspec


class _Block(msgspec.Struct, omit_defaults=True, kw_only=True):
    """Base of every optional block: absent members are not on the wire."""


class PostalCodeComponent(_Block):
    full_name: str | None = None
    primary: str | None = None
    secondary: str | None = None


class DeliveryServiceComponent(_Block):
    full_name: str | None = None
    service_type: str | None = None
    service_number: str | None = None
    post_centre_name: str | None = None


class SubBuildingItem(_Block):
    """A floor, door or entrance: "Apt 4" is full_name, "Apt" the type, "4" the value."""

    full_name: str | None = None
    type: str | None = None
    value: str | None = None


class SubBuildingComponent(_Block):
    name: str | None = None
    entrance: SubBuildingItem | None = None
    floor: SubBuildingItem | None = None
    door: SubBuildingItem | None = None


class BuildingComponent(_Block):
    building_name: str | None = None
    secondary_name: str | None = None
    building_number: str | None = None
    secondary_number: str | None = None
    allotment_number: str | None = None


class BusinessOrganization(_Block):
    company_name: str | None = None


class OrganizationComponent(_Block):
    department_name: str | None = None
    secondary_department_name: str | None = None
    company_name: str | None = None
    business: BusinessOrganization | None = None


class StreetComponent(_Block):
    """`prefix` and `suffix` are the directionals ("N", "SW"); `type` is the street type ("Ave")."""

    full_name: str | None = None
    prefix: str | None = None
    name: str | None = None
    type: str | None = None
    suffix: str | None = None


class RouteServiceComponent(_Block):
    full_name: str | None = None
    service_type: str | None = None
    service_number: str | None = None
    delivery_name: str | None = None
    qualifier: str | None = None


class LocalityItem(_Block):
    name: str | None = None
    code: str | None = None


class LocalityComponent(_Block):
    region: LocalityItem | None = None
    sub_region: LocalityItem | None = None
    town: LocalityItem | None = None
    district: LocalityItem | None = None
    sub_district: LocalityItem | None = None


class AdditionalSubRegion(_Block):
    administrative_county: str | None = None
    former_postal_county: str | None = None
    traditional_county: str | None = None


class AdditionalLocality(_Block):
    sub_region: AdditionalSubRegion | None = None


class AdditionalElements(_Block):
    locality: AdditionalLocality | None = None


class AddressComponents(_Block):
    """The nested component breakdown (`Add-Components: true`)."""

    language: str | None = None
    country_name: str | None = None
    country_iso_3: str | None = None
    country_iso_2: str | None = None
    country_iso_numeric: str | None = None
    postal_code: PostalCodeComponent | None = None
    delivery_service: DeliveryServiceComponent | None = None
    secondary_delivery_service: DeliveryServiceComponent | None = None
    sub_building: SubBuildingComponent | None = None
    building: BuildingComponent | None = None
    organization: OrganizationComponent | None = None
    street: StreetComponent | None = None
    secondary_street: StreetComponent | None = None
    route_service: RouteServiceComponent | None = None
    locality: LocalityComponent | None = None
    physical_locality: LocalityComponent | None = None
    additional_elements: AdditionalElements | None = None


# -- metadata (`Add-Metadata: true`) --------------------------------------------------------------------------
class MetadataIdentifier(_Block):
    umrrn: str | None = None
    udprn: str | None = None
    uprn: str | None = None
    dpid: str | None = None
    gnafPid: str | None = None  # noqa: N815 - the wire name
    paf_address_key: str | None = None
    hin: str | None = None
    organization_key: str | None = None
    lpi_key: str | None = None
    dps: str | None = None
    parent_uprn: str | None = None
    building_id: str | None = None


class AddressInfo(_Block):
    sources: list[str] | None = None
    number_of_households: str | None = None
    just_built_date: str | None = None
    identifier: MetadataIdentifier | None = None


class Barcode(_Block):
    delivery_point_barcode: str | None = None
    check_digit: str | None = None
    sort_plan_number: str | None = None


class RouteClassification(_Block):
    carrier_route: str | None = None
    id: str | None = None
    elot: str | None = None
    roudis_id: str | None = None


class AddressType(_Block):
    code: str | None = None


class AddressClassification(_Block):
    address_type: AddressType | None = None
    delivery_type: str | None = None
    is_deliverable: str | None = None


class Dpv(_Block):
    cmra_indicator: str | None = None
    seed_indicator: str | None = None
    dpv_indicator: str | None = None
    footnotes: list[str] | None = None
    vacancy_indicator: str | None = None
    no_stats_indicator: str | None = None
    pbsa_indicator: str | None = None
    lacs_indicator: str | None = None
    lacs_code: str | None = None
    urbanization: str | None = None
    delivery_line_1: str | None = None
    delivery_line_2: str | None = None
    last_line: str | None = None
    no_stat_reason_code: list[str] | None = None
    drop: str | None = None
    throwback: str | None = None
    non_delivery_days_indicator: str | None = None
    non_delivery_days_value: list[str] | None = None
    no_secure_location: str | None = None
    door_not_accessible: str | None = None
    enhanced_dpv_code: str | None = None
    firm_name: str | None = None


class AddressMetadata(_Block):
    """Top-level `metadata` of format and validate; per suggestion in suggestions/format."""

    address_info: AddressInfo | None = None
    barcode: Barcode | None = None
    route_classification: RouteClassification | None = None
    address_classification: AddressClassification | None = None
    dpv: Dpv | None = None


# -- enrichment (`Add-Enrichment: true`): geocodes only, where the reference has coordinates ----------------------
class Geocodes(_Block):
    latitude: float | None = None
    longitude: float | None = None
    match_level: str | None = None


class EnrichmentResult(_Block):
    """Of the vendor's many enrichment datasets, dqkit can fill `geocodes` only; the others decode as raw JSON."""

    geocodes: Geocodes | None = None
    usa_regional_geocodes: dict[str, Any] | None = None


class DatasetMetadata(_Block):
    code: str | None = None
    message: str | None = None
    value: str | None = None


class Enrichment(_Block):
    transaction_id: str | None = None
    result: EnrichmentResult | None = None
    metadata: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class AddOns(msgspec.Struct, frozen=True, kw_only=True):
    """Which opt-in blocks an answer carries: the `Add-Components`, `Add-Metadata`, `Add-Enrichment` headers."""

    components: bool = False
    metadata: bool = False
    enrichment: bool = False

    def __bool__(self) -> bool:
        return self.components or self.metadata or self.enrichment


NO_ADD_ONS = AddOns()
