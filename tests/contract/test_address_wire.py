"""The address models encode to the seed's JSON: required members always present, optional ones only when set."""

from __future__ import annotations

import msgspec

from dqkit.contract.address import (
    Confidence,
    FormatResult,
    SearchRequest,
    SearchResponse,
    SuggestionList,
    ValidateResponse,
    ValidationResult,
)


def test_no_matches_is_spelled_out() -> None:
    body = msgspec.json.encode(SearchResponse(SuggestionList(more_results_available=False,
                                                             confidence=Confidence.NO_MATCHES, suggestions=[])))
    assert body == b'{"result":{"more_results_available":false,"confidence":"No matches","suggestions":[]}}'
    v = msgspec.json.encode(ValidateResponse(ValidationResult(confidence=Confidence.NO_MATCHES)))
    assert v == b'{"result":{"confidence":"No matches"}}'
    f = msgspec.json.decode(msgspec.json.encode(FormatResult(global_address_key="k",
                                                             confidence=Confidence.VERIFIED_MATCH)))
    assert f["confidence"] == "Verified match" and set(f["address"]) == {
        "address_line_1", "address_line_2", "address_line_3", "locality", "region", "postal_code", "country"}


def test_search_request_options() -> None:
    req = msgspec.json.decode(b'{"country_iso":"usa","components":{"unspecified":["1 Main"]},'
                              b'"options":[{"name":"search_type","value":"Singleline"}],"max_suggestions":3}',
                              type=SearchRequest)
    assert req.text == "1 Main" and req.search_type == "singleline" and req.max_suggestions == 3
    assert SearchRequest.of("x").search_type == "autocomplete"
