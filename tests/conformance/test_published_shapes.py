"""Every answer of a real `dqkit serve` validates against the vendor's published schema of its operation, and
dqkit's client decodes it and re-encodes it to the same JSON (nothing dropped, nothing unknown).

All calls go through `AddressClient`, which keeps the JSON it received (`.raw`): that JSON is what is validated
(OpenAPI 3.0 rules: `nullable`, `additionalProperties: false`), and the typed answer must encode back to it.
The request bodies the tests send are validated against the published request schemas too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import msgspec
import pytest
from conformance_helpers import TOKEN, Check

from dqkit.client.address import AddressClient
from dqkit.contract.address import (
    Answer,
    Components,
    FormatRequest,
    LookupKey,
    LookupRequest,
    SearchRequest,
    SearchResponse,
    SuggestionsFormatRequest,
)
from dqkit.contract.address_components import AddOns
from dqkit.server.testing import ServedProcess

pytestmark = pytest.mark.shared

SEARCH_TYPES = (None, "singleline", "typedown")  # None: no option, the vendor's Autocomplete
SEARCH_TEXTS = ("1216 santa clara", "santa clara av alameda", "hill", "1543 santa clara", "zzzz qqqq", "1", "")
VALIDATE_TEXTS = (
    "1216 Santa Clara Ave, Alameda, CA 94501",   # verified
    "1543 santa clara av apt a alameda 94501",   # a unit of a building
    "1543 Santa Clara Av, Alameda CA 94501",     # the building, unit missing
    "1216 santa clra ave alameda",               # a typo and no ZIP
    "santa clara ave alameda",                   # a street only
    "1216 Santa Clara Ave, Alameda, NY 94501",   # wrong state
    "zzzz",
    "",
)
ADD_ONS = (AddOns(), AddOns(components=True), AddOns(metadata=True), AddOns(components=True, metadata=True),
           AddOns(components=True, metadata=True, enrichment=True))
SEARCH_OP = "POST /address/search/v1"
VALIDATE_OP = "POST /address/validate/v1"
FORMAT_GET = "GET /address/format/v1/{global_address_key}"
FORMAT_POST = "POST /address/format/v1/{global_address_key}"
STEPIN_OP = "GET /address/suggestions/stepin/v1/{global_address_key}"
REFINE_OP = "POST /address/suggestions/refine/v1/{key}"
SUGGESTIONS_FORMAT_OP = "POST /address/suggestions/format/v1"
LOOKUP_OP = "POST /address/lookup/v2"
DATASETS_OP = "GET /address/datasets/v1"


@pytest.fixture(scope="module")
def client(served: ServedProcess) -> Iterator[AddressClient]:
    with AddressClient(served.url, token=TOKEN) as c:
        yield c


@pytest.fixture(scope="module")
def http(served: ServedProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=served.url, headers={"Auth-Token": TOKEN}, timeout=60) as c:
        yield c


def conforms(check: Check, operation: str, answer: Answer) -> None:
    """The JSON received validates against the published schema, and the typed answer is that JSON exactly."""
    check(operation, answer.raw)
    assert answer.unknown == {}, f"{operation}: members dqkit's models do not know: {answer.unknown}"
    assert msgspec.json.decode(msgspec.json.encode(answer)) == answer.raw, f"{operation}: round trip differs"


def search_request(text: str, search_type: str | None) -> SearchRequest:
    req = SearchRequest.of(text, "USA", search_type=search_type, datasets=["us-address"])
    return req


@pytest.mark.parametrize("search_type", SEARCH_TYPES, ids=lambda t: t or "autocomplete")
def test_search_refine_step_in_and_format(client: AddressClient, answer_schema: Check, request_schema: Check,
                                          search_type: str | None) -> None:
    seen = {"final": 0, "group": 0}
    for text in SEARCH_TEXTS:
        req = search_request(text, search_type)
        request_schema(SEARCH_OP, req.wire())
        answer = client.search(req)
        conforms(answer_schema, SEARCH_OP, answer)
        result = answer.result
        if result.suggestions_key:
            conforms(answer_schema, REFINE_OP, client.refine(result.suggestions_key, "alameda"))
        for s in result.suggestions[:3]:
            if s.is_final:
                seen["final"] += 1
                assert s.format.startswith("http://127.0.0.1:")
                for add in ADD_ONS:
                    conforms(answer_schema, FORMAT_GET, client.format(s.global_address_key, None, add))
                    conforms(answer_schema, FORMAT_POST,
                             client.format(s.global_address_key, FormatRequest(layouts=["default"]), add))
            else:
                seen["group"] += 1
                assert s.stepin.startswith("http://127.0.0.1:")
                conforms(answer_schema, STEPIN_OP, client.step_in(s.global_address_key))
                conforms(answer_schema, REFINE_OP, client.refine(s.global_address_key, "1"))
    assert seen["final"], "no final suggestion was formatted"
    if search_type == "typedown":
        assert seen["group"], "typedown listed no group to step into"


@pytest.mark.parametrize("add", ADD_ONS, ids=lambda a: "+".join(k for k in ("components", "metadata", "enrichment")
                                                                   if getattr(a, k)) or "plain")
def test_validate(client: AddressClient, answer_schema: Check, request_schema: Check, add: AddOns) -> None:
    confidences = set()
    for text in VALIDATE_TEXTS:
        req = SearchRequest.of(text, "USA", datasets=["us-address"])
        request_schema(VALIDATE_OP, req.wire())
        answer = client.validate(req, add)
        conforms(answer_schema, VALIDATE_OP, answer)
        confidences.add(answer.result.confidence)
        has_address = bool(answer.result.global_address_key)
        assert (answer.result.components is not None) == (add.components and has_address)
    assert {"Verified match", "No matches"} <= confidences


def test_format_with_every_block(client: AddressClient, answer_schema: Check) -> None:
    """What a real reference without ZIP+4 gives: components, an address type, geocodes; no barcode, no route."""
    final = next(s for s in client.search(search_request("1543 santa clara av a", "singleline")).result.suggestions
                 if s.is_final)
    answer = client.format(final.global_address_key, None, AddOns(components=True, metadata=True, enrichment=True))
    conforms(answer_schema, FORMAT_GET, answer)
    r, c = answer.result, answer.result.components
    assert r.address.country == "UNITED STATES OF AMERICA" and r.address.locality == "Alameda"
    assert r.address.address_line_1 == "1543 Santa Clara Ave # A" and r.address.postal_code == "94501"
    assert c is not None and (c.country_iso_3, c.country_iso_2) == ("USA", "US")
    assert c.street is not None and (c.street.name, c.street.type) == ("Santa Clara", "Ave")
    door = c.sub_building.door if c.sub_building is not None else None
    assert door is not None and (door.full_name, door.type, door.value) == ("# A", "#", "A")
    assert c.postal_code is not None and c.postal_code.secondary is None  # no ZIP+4 in this reference
    md = answer.metadata
    assert md is not None and md.barcode is None and md.route_classification is None and md.dpv is None
    assert md.address_classification is not None and md.address_classification.address_type is not None
    geo = answer.enrichment.result.geocodes if answer.enrichment and answer.enrichment.result else None
    assert geo is not None and geo.latitude is not None and abs(geo.latitude - 37.77) < 0.1


def test_datasets_and_lookup(client: AddressClient, answer_schema: Check, request_schema: Check) -> None:
    for country in (None, "USA", "usa"):
        conforms(answer_schema, DATASETS_OP, client.datasets_answer(country))
    for key in (LookupKey("94501", "postal_code"), LookupKey("Alameda", "locality"), LookupKey("00000")):
        req = LookupRequest(country_iso="USA", key=key, datasets=["us-address"], max_addresses=5)
        request_schema(LOOKUP_OP, msgspec.to_builtins(req))
        conforms(answer_schema, LOOKUP_OP, client.lookup(req))


@pytest.mark.parametrize("add", ADD_ONS[:4], ids=("plain", "components", "metadata", "both"))
def test_suggestions_format(client: AddressClient, answer_schema: Check, request_schema: Check,
                            add: AddOns) -> None:
    for text in ("1216 santa clara", "hill", "zzzz qqqq"):
        req = SuggestionsFormatRequest(country_iso="USA", components=Components([text]), datasets=["us-address"])
        request_schema(SUGGESTIONS_FORMAT_OP, msgspec.to_builtins(req))
        answer = client.suggestions_format(req, add)
        conforms(answer_schema, SUGGESTIONS_FORMAT_OP, answer)
        for s in answer.result.suggestions:
            assert (s.components is not None) == add.components and s.address is not None


def test_legacy_paths_still_answer(http: httpx.Client, answer_schema: Check) -> None:
    """The seed's /address/suggestions/stepIn and /address/lookup/v1 answer as step-in and lookup v2 do."""
    body = search_request("hill", "typedown").wire()
    found = msgspec.json.decode(http.post("/address/search/v1", json=body).content, type=SearchResponse)
    group = next(s for s in found.result.suggestions if not s.is_final)
    r = http.post("/address/suggestions/stepIn", json={"global_address_key": group.global_address_key})
    assert r.status_code == 200, r.text
    answer_schema(STEPIN_OP, r.json())
    r = http.post("/address/lookup/v1", json={"country_iso": "USA", "datasets": ["us-address"],
                                              "key": {"type": "postal_code", "value": "94501"}})
    assert r.status_code == 200, r.text
    answer_schema(LOOKUP_OP, r.json())


def _error(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body = r.json()
    assert list(body) == ["error"] and set(body["error"]) == {"type", "title", "detail", "instance"}, body
    assert all(isinstance(v, str) and v for v in body["error"].values()), body
    return body["error"]  # type: ignore[no-any-return]


def test_error_bodies_are_exactly_the_vendors(served: ServedProcess, http: httpx.Client) -> None:
    detail = _error(http.post("/address/search/v1", json={"country": "USA", "search": "10 hill"}), 400)["detail"]
    assert "'country_iso'" in detail and "'components'" in detail
    assert "Timeout-Seconds" in _error(http.get("/address/format/v1/abc", headers={"Timeout-Seconds": "16"}),
                                       400)["detail"]
    assert "Add-Components" in _error(http.get("/address/format/v1/abc", headers={"Add-Components": "maybe"}),
                                      400)["detail"]
    _error(http.get("/address/format/v1/not-a-key"), 404)
    _error(http.post("/address/search/v1", json={**search_request("1 main", None).wire(),
                                                 "datasets": ["gb-address"]}), 403)
    _error(httpx.get(served.url + "/address/datasets/v1"), 401)
    ok = http.get("/address/datasets/v1", headers={"Timeout-Seconds": "2", "Reference-Id": "trace-1/a:b.c,(d)"})
    assert ok.status_code == 200 and ok.headers["Reference-Id"] == "trace-1/a:b.c,(d)"


def test_x_app_key_is_accepted_instead_of_auth_token(served: ServedProcess) -> None:
    r = httpx.get(served.url + "/address/datasets/v1", headers={"x-app-key": TOKEN})
    assert r.status_code == 200, r.text
    with AddressClient(served.url, app_key=TOKEN) as app_client:
        assert [d.id for d in app_client.datasets()] == ["us-address"]
