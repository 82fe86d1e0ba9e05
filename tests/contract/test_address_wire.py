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


def test_a_newer_vendor_answer_decodes_and_keeps_what_it_does_not_know() -> None:
    """Nulls read as absent; members dqkit does not know are kept beside the typed answer, not refused."""
    from dqkit.client.address import decode_answer
    from dqkit.contract.address import FormatResponse

    body = msgspec.json.encode({
        "result": {"global_address_key": "aWQ9", "confidence": "Verified match",
                   "address": {"address_line_1": "77 Massachusetts Ave", "address_line_2": "",
                               "address_line_3": "", "locality": "Cambridge", "region": "MA",
                               "postal_code": "02139-4301", "country": "UNITED STATES OF AMERICA"},
                   "components": {"country_iso_3": "USA", "language": None,
                                  "street": {"full_name": "Massachusetts Ave", "name": "Massachusetts",
                                             "type": "Ave", "brand_new": "x"},
                                  "postal_code": {"full_name": "02139-4301", "primary": "02139",
                                                  "secondary": "4301"}},
                   "new_block": {"a": 1}},
        "metadata": {"barcode": {"delivery_point_barcode": "021394301777", "check_digit": "3"},
                     "dpv": {"dpv_indicator": "Y", "footnotes": ["AA", "BB"]}},
    })
    answer = decode_answer(body, FormatResponse)
    c = answer.result.components
    assert c is not None and c.street is not None and c.street.name == "Massachusetts" and c.language is None
    assert c.postal_code is not None and c.postal_code.secondary == "4301"
    assert answer.metadata is not None and answer.metadata.dpv is not None
    assert answer.metadata.dpv.footnotes == ["AA", "BB"]
    assert answer.unknown == {"result": {"components": {"street": {"brand_new": "x"}}, "new_block": {"a": 1}}}
    assert answer.raw["result"]["new_block"] == {"a": 1}


def test_search_request_wire_always_carries_the_required_members() -> None:
    body = SearchRequest.of("1 Main").wire()
    assert body["country_iso"] == "USA" and body["components"] == {"unspecified": ["1 Main"]}
    assert body["datasets"] == [] and "location" not in body and "preferred_language" not in body
