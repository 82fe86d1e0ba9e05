"""A client of the vendor's address API as a vendor customer would write it: plain pydantic models of the published
shapes (no dqkit import), `extra="forbid"` where the published objects allow no other members, and httpx.

It follows the published flow: search, step in or refine a group, then format the chosen address by following the
suggestion's absolute `format` URL with `Add-Components` and `Add-Metadata`.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal, get_args

import httpx
from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NameValue(Strict):
    name: str | None = None
    value: str | None = None


class Suggestion(Strict):
    global_address_key: str | None = None
    text: str | None = None
    matched: list[list[int]] | None = None
    format: str | None = None
    stepin: str | None = None
    number_of_addresses: int | None = None
    dataset: str | None = None
    additional_attributes: list[NameValue] | None = None
    names: list[str] | None = None
    uprn: str | None = None

    def attr(self, name: str) -> str | None:
        return next((a.value for a in self.additional_attributes or [] if a.name == name), None)


SearchConfidence = Literal["Verified match", "Multiple matches", "No matches", "Insufficient search terms"]
SEARCH_CONFIDENCES: tuple[str, ...] = get_args(SearchConfidence)  # the four the vendor's search docs list


class SearchResult(Strict):
    more_results_available: bool = False
    confidence: SearchConfidence | None = None
    suggestions_key: str | None = None
    suggestions_prompt: str | None = None
    suggestions: list[Suggestion] | None = None


class ErrorBody(BaseModel):
    type: str | None = None
    title: str | None = None
    detail: str | None = None
    instance: str | None = None


class SearchResponse(Strict):
    result: SearchResult | None = None
    error: ErrorBody | None = None


class Address7Lines(Strict):
    address_line_1: str | None = None
    address_line_2: str | None = None
    address_line_3: str | None = None
    locality: str | None = None
    region: str | None = None
    postal_code: str | None = None
    country: str | None = None


class PostalCode(Strict):
    full_name: str | None = None
    primary: str | None = None
    secondary: str | None = None


class Building(Strict):
    building_name: str | None = None
    secondary_name: str | None = None
    building_number: str | None = None
    secondary_number: str | None = None
    allotment_number: str | None = None


class SubBuildingItem(Strict):
    full_name: str | None = None
    type: str | None = None
    value: str | None = None


class SubBuilding(Strict):
    name: str | None = None
    entrance: SubBuildingItem | None = None
    floor: SubBuildingItem | None = None
    door: SubBuildingItem | None = None


class Street(Strict):
    full_name: str | None = None
    prefix: str | None = None
    name: str | None = None
    type: str | None = None
    suffix: str | None = None


class LocalityItem(Strict):
    name: str | None = None
    code: str | None = None


class Locality(Strict):
    region: LocalityItem | None = None
    sub_region: LocalityItem | None = None
    town: LocalityItem | None = None
    district: LocalityItem | None = None
    sub_district: LocalityItem | None = None


class Components(Strict):
    language: str | None = None
    country_name: str | None = None
    country_iso_3: str | None = None
    country_iso_2: str | None = None
    country_iso_numeric: str | None = None
    postal_code: PostalCode | None = None
    delivery_service: dict[str, Any] | None = None
    secondary_delivery_service: dict[str, Any] | None = None
    sub_building: SubBuilding | None = None
    building: Building | None = None
    organization: dict[str, Any] | None = None
    street: Street | None = None
    secondary_street: Street | None = None
    route_service: dict[str, Any] | None = None
    locality: Locality | None = None
    physical_locality: Locality | None = None
    additional_elements: dict[str, Any] | None = None


class FormatResult(Strict):
    global_address_key: str | None = None
    confidence: str | None = None
    address: Address7Lines | None = None
    addresses_formatted: list[dict[str, Any]] | None = None
    components: Components | None = None


class AddressType(Strict):
    code: str | None = None


class AddressClassification(Strict):
    address_type: AddressType | None = None
    delivery_type: str | None = None
    is_deliverable: str | None = None


class Metadata(Strict):
    address_info: dict[str, Any] | None = None
    barcode: dict[str, Any] | None = None
    route_classification: dict[str, Any] | None = None
    address_classification: AddressClassification | None = None
    dpv: dict[str, Any] | None = None


class FormatResponse(Strict):
    result: FormatResult | None = None
    metadata: Metadata | None = None
    enrichment: dict[str, Any] | None = None
    error: ErrorBody | None = None


class VendorAddressClient:
    """Search, step in, refine and format, with the vendor's headers on every request."""

    def __init__(self, base_url: str, token: str) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=60,
                                 headers={"Auth-Token": token, "Content-Type": "application/json"})
        self.last_reference_id = ""

    def _headers(self, **extra: str) -> dict[str, str]:
        self.last_reference_id = str(uuid.uuid4())
        return {"Reference-Id": self.last_reference_id, "Timeout-Seconds": "10", **extra}

    def _ok(self, r: httpx.Response) -> httpx.Response:
        r.raise_for_status()
        assert r.headers.get("Reference-Id") == self.last_reference_id
        return r

    def search(self, text: str, search_type: str | None = None) -> SearchResult:
        body: dict[str, Any] = {"country_iso": "USA", "components": {"unspecified": [text]},
                                "datasets": ["us-address"]}
        if search_type:
            body["options"] = [{"name": "search_type", "value": search_type}]
        r = self._ok(self.http.post("/address/search/v1", json=body, headers=self._headers()))
        result = SearchResponse.model_validate_json(r.content).result
        assert result is not None
        return result

    def step_in(self, key: str) -> SearchResult:
        r = self._ok(self.http.get(f"/address/suggestions/stepin/v1/{key}", headers=self._headers()))
        result = SearchResponse.model_validate_json(r.content).result
        assert result is not None
        return result

    def refine(self, key: str, refinement: str) -> SearchResult:
        r = self._ok(self.http.post(f"/address/suggestions/refine/v1/{key}", json={"refinement": refinement},
                                    headers=self._headers()))
        result = SearchResponse.model_validate_json(r.content).result
        assert result is not None
        return result

    def format(self, url: str) -> FormatResponse:
        """Follow a suggestion's absolute `format` URL, with components and metadata."""
        r = self._ok(self.http.get(url, headers=self._headers(**{"Add-Components": "true",
                                                                  "Add-Metadata": "true"})))
        return FormatResponse.model_validate_json(r.content)

    def close(self) -> None:
        self.http.close()
