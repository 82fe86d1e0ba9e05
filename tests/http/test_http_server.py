"""`dqkit serve` over real HTTP on 127.0.0.1: the lead and address operations, auth, errors, limits, headers."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import msgspec
import pytest
from http_helpers import TEST_TOKEN
from inthread import served_in_thread

from dqkit.contract.address import SearchRequest, SearchResponse
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.contract.lead_wire import decode_message, encode_lead
from dqkit.server.config import ServerConfig, parse_networks
from dqkit.server.engines import Loaded, load_local
from dqkit.server.testing import ServedProcess

LEAD = LeadRequest(first_name="John", last_name="Smith", street1="1 Main St", city="New York", state="NY",
                   zip="10001", phones=(Phone(phone_type="H", phone_number="2125551234"),), cust_ref_no="r1",
                   client_id="C1")


@pytest.fixture()
def http(dqkit_server: ServedProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=dqkit_server.url, headers={"Auth-Token": TEST_TOKEN}, timeout=30) as client:
        yield client


def _error(r: httpx.Response, status: int) -> dict[str, str]:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"type", "title", "detail", "instance"}, body
    return dict(body["error"])


def test_healthz_and_openapi_are_public(dqkit_server: ServedProcess) -> None:
    r = httpx.get(dqkit_server.url + "/healthz")
    assert r.status_code == 200 and r.json() == {"status": "ok"}
    doc = httpx.get(dqkit_server.url + "/openapi.json").json()
    assert doc["openapi"].startswith("3.") and "/address/search/v1" in doc["paths"]


@pytest.mark.parametrize("path", ["/search", "/search/", "/els/rest/enrich/v1/search", "/els/rest/enrich/v1/search/"])
@pytest.mark.parametrize("fmt", ["json", "xml", "form"])
def test_lead_in_every_representation_on_every_path(http: httpx.Client, path: str, fmt: str) -> None:
    body, ctype = encode_lead(LEAD, fmt)  # type: ignore[arg-type]
    r = http.post(path, content=body, headers={"Content-Type": ctype})
    assert r.status_code == 200, r.text
    expected_type = "application/xml" if fmt == "xml" else "application/json"
    assert r.headers["content-type"].startswith(expected_type)
    msg = decode_message(r.content, r.headers["content-type"])
    assert msg.message.type == "STATUS" and msg.result_code in ("S100", "S101", "S102")
    assert msg.input_data is not None and msg.input_data.cust_ref_no == "r1"


def test_response_format_follows_accept(http: httpx.Client) -> None:
    xml, xml_type = encode_lead(LEAD, "xml")
    r = http.post("/search", content=xml, headers={"Content-Type": xml_type, "Accept": "application/json"})
    assert r.headers["content-type"].startswith("application/json") and r.json()["Message"]["RESULT_CODE"]
    js, js_type = encode_lead(LEAD, "json")
    r = http.post("/search", content=js, headers={"Content-Type": js_type, "Accept": "text/xml"})
    assert r.headers["content-type"].startswith("application/xml") and r.text.lstrip().startswith("<?xml")


def test_lead_as_query_parameters_refused_and_multipart(http: httpx.Client) -> None:
    r = http.get("/search", params={"FIRST_NAME": "John", "LAST_NAME": "Smith", "ZIP": "10001"})
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    r = http.post("/search", files={"FIRST_NAME": (None, "John"), "LAST_NAME": (None, "Smith"),
                                    "ZIP": (None, "10001")})
    assert r.status_code == 200 and r.json()["InputData"]["LAST_NAME"] == "Smith"


@pytest.mark.parametrize(("body", "ctype"), [
    (b"{not json", "application/json"),
    (b"<elsgenericmessage><lead_trans_details>", "application/xml"),
    (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]><elsgenericmessage/>', "application/xml"),
    (b'{"LEAD_TRANS_DETAILS": {"FIRST_NAME": "A\\"B"}}', "application/json"),
    (b'{"NOT_A_FIELD": "x"}', "application/json"),
])
def test_unreadable_lead_is_e300_with_400(http: httpx.Client, body: bytes, ctype: str) -> None:
    r = http.post("/search", content=body, headers={"Content-Type": ctype})
    assert r.status_code == 400
    msg = decode_message(r.content, r.headers["content-type"])
    assert msg.result_code == "E300" and msg.message.type == "ERROR"


def test_lead_content_outcomes_are_200(http: httpx.Client) -> None:
    for lead, code in ((LeadRequest(zip="10001"), "E600"), (LeadRequest(first_name="A", last_name="B"), "E601"),
                       (LeadRequest(first_name="Jo$hn", last_name="Smith", zip="10001"), "E200")):
        body, ctype = encode_lead(lead, "form")
        r = http.post("/search", content=body, headers={"Content-Type": ctype})
        assert r.status_code == 200 and r.json()["Message"]["RESULT_CODE"] == code, r.text


def test_token_rules(dqkit_server: ServedProcess) -> None:
    body, _ = encode_lead(LEAD, "json")
    url = dqkit_server.url
    assert "missing" in _error(httpx.post(url + "/search", content=body), 401)["detail"]
    r = httpx.post(url + "/search", content=body, headers={"Auth-Token": "wrong"})
    assert _error(r, 401)["instance"] == "/search"
    r = httpx.post(url + "/address/search/v1", json={"components": {"unspecified": ["1 Main"]}},
                   headers={"Auth-Token": "wrong"})
    _error(r, 401)


def test_query_string_token_is_refused_and_never_logged(dqkit_server: ServedProcess) -> None:
    secret = dqkit_server.token
    assert secret
    for path in ("/search", "/address/search/v1", "/healthz"):
        r = httpx.post(f"{dqkit_server.url}{path}?auth-token={secret}&x=1", headers={"Auth-Token": secret},
                       json={})
        assert secret not in _error(r, 401)["detail"]
    r = httpx.get(f"{dqkit_server.url}/address/datasets/v1", params={"Auth-Token": secret})
    _error(r, 401)
    time.sleep(0.3)  # the access log line is written after the answer
    log = dqkit_server.log_text()
    assert "/address/datasets/v1" in log  # the access log is on ...
    assert secret not in log  # ... and never shows the token


def test_reference_id_is_echoed_and_server_timing_sent(http: httpx.Client) -> None:
    body, ctype = encode_lead(LEAD, "json")
    r = http.post("/search", content=body, headers={"Content-Type": ctype, "Reference-Id": "ref-123"})
    assert r.headers["reference-id"] == "ref-123" and r.headers["server-timing"].startswith("app;dur=")
    r = http.post("/address/search/v1", json={}, headers={"Reference-Id": "ref-456", "Auth-Token": "bad"})
    assert r.status_code == 401 and r.headers["reference-id"] == "ref-456"


def test_unknown_path_and_method_use_the_error_body(http: httpx.Client) -> None:
    assert _error(http.get("/nope"), 404)["instance"] == "/nope"
    _error(http.get("/address/search/v1"), 405)


def test_timeout_seconds_must_be_a_number(http: httpx.Client) -> None:
    for bad in ("soon", "-1", "0", "nan"):
        _error(http.post("/address/search/v1", json={}, headers={"Timeout-Seconds": bad}), 400)


# ---------------------------------------------------------------- address paths


def _search(http: httpx.Client, text: str, path: str = "/address/search/v1", **extra: object) -> dict:  # type: ignore[type-arg]
    r = http.post(path, json={"country_iso": "usa", "components": {"unspecified": [text]}, **extra})
    assert r.status_code == 200, r.text
    return r.json()["result"]  # type: ignore[no-any-return]


def test_address_operations_with_and_without_trailing_slash(http: httpx.Client) -> None:
    for path in ("/address/search/v1", "/address/search/v1/"):
        result = _search(http, "1 Ma", path)
        assert result["suggestions"], result
    suggestions = _search(http, "1 Ma")["suggestions"]
    final = next(s for s in suggestions if s.get("format"))
    group = next((s for s in suggestions if not s.get("format")), None)
    key = final["global_address_key"]
    for path in (f"/address/format/v1/{key}", f"/address/format/v1/{key}/"):
        r = http.get(path)
        assert r.status_code == 200 and r.json()["result"]["address"]["address_line_1"], r.text
    r = http.post(f"/address/format/v1/{key}", json={"layouts": ["default"]}, headers={"Add-Components": "true"})
    assert r.status_code == 200 and r.json()["result"]["global_address_key"] == key
    assert r.json()["result"]["components"]["country_iso_3"] == "USA"
    # absolute, built from the request
    assert final["format"] == f"{str(http.base_url).rstrip('/')}/address/format/v1/{key}"
    for path in ("/address/validate/v1", "/address/validate/v1/"):
        r = http.post(path, json={"country_iso": "USA", "components": {"unspecified": [final["text"]]}})
        assert r.status_code == 200 and r.json()["result"]["confidence"], r.text
    if group is not None:
        gkey = group["global_address_key"]
        for path in (f"/address/suggestions/stepin/v1/{gkey}", f"/address/suggestions/stepIn/v1/{gkey}/"):
            assert http.get(path).status_code == 200
        r = http.post("/address/suggestions/stepIn/", json={"global_address_key": gkey})
        assert r.status_code == 200 and "suggestions" in r.json()["result"]
        r = http.post(f"/address/suggestions/refine/v1/{gkey}/", json={"refinement": "1"})
        assert r.status_code == 200 and "suggestions" in r.json()["result"], r.text
    postcode = final["text"].rsplit(" ", 1)[-1]
    for path in ("/address/lookup/v2", "/address/lookup/v1/"):
        r = http.post(path, json={"country_iso": "usa", "key": {"value": postcode, "type": "postal_code"}})
        assert r.status_code == 200 and r.json()["addresses"], r.text
    for path in ("/address/datasets/v1", "/address/datasets/v1/"):
        r = http.get(path, params={"country_iso": "uSa"})
        assert r.status_code == 200, r.text
        (usa,) = r.json()["result"]
        assert usa["country_iso_3"] == "USA" and [d["id"] for d in usa["datasets"]] == ["us-demo-synthetic"]
        assert r.headers["x-dqkit-reference"].startswith("us-demo-synthetic; built=")
        assert r.headers["x-dqkit-reference"].endswith("; synthetic")


def test_country_iso_in_any_case(http: httpx.Client) -> None:
    results = [_search(http, "1 Ma", country_iso=c) for c in ("usa", "USA", "Usa")]
    assert results[0]["suggestions"] == results[1]["suggestions"] == results[2]["suggestions"]


def test_address_errors(http: httpx.Client) -> None:
    assert "key" in _error(http.get("/address/format/v1/not-a-key"), 404)["detail"]
    _error(http.post("/address/suggestions/refine/v1/not-a-key", json={"refinement": "1"}), 404)
    _error(http.post("/address/search/v1", content=b"{oops", headers={"Content-Type": "application/json"}), 400)
    usa = {"country_iso": "USA"}
    _error(http.post("/address/search/v1", json={**usa, "components": {"unspecified": "not a list"}}), 400)
    _error(http.post("/address/search/v1", json={**usa, "components": {"unspecified": ["1"]}, "max_suggestions": 0}),
           400)
    _error(http.post("/address/search/v1", content=b""), 400)
    wrong_keys = _error(http.post("/address/search/v1", json={"country": "USA", "search": "10 hill"}), 400)
    assert "'country_iso'" in wrong_keys["detail"] and "'components'" in wrong_keys["detail"]
    assert "'country'" in wrong_keys["detail"] and "'search'" in wrong_keys["detail"]
    r = http.post("/address/search/v1", json={**usa, "components": {"unspecified": ["1 Main"]},
                                              "datasets": ["gb-address"]})
    assert "gb-address" in _error(r, 403)["detail"]
    r = http.post("/address/search/v1", json=SearchRequest.of("zzzzqqqq xxyy").wire())
    assert r.status_code == 200
    assert msgspec.json.decode(r.content, type=SearchResponse).result.confidence == "No matches"


# ---------------------------------------------------------------- configurations (in-thread servers)


def test_client_ids_and_allowed_ips() -> None:
    cfg = ServerConfig(client_ids=frozenset({"C1"}), partner_ids=frozenset({"P1"}))
    with served_in_thread(cfg) as url:
        def post(lead: LeadRequest) -> httpx.Response:
            body, ctype = encode_lead(lead, "json")
            return httpx.post(url + "/search", content=body, headers={"Content-Type": ctype}, timeout=30)

        assert post(LEAD).status_code == 200
        r = post(msgspec.structs.replace(LEAD, client_id="C2"))
        assert r.status_code == 403 and r.json()["Message"]["RESULT_CODE"] == "E501"
        r = post(msgspec.structs.replace(LEAD, partner_id="P9"))
        assert r.status_code == 403 and r.json()["Message"]["RESULT_CODE"] == "E501"
    for networks, allowed in ((["10.0.0.0/8"], False), (["127.0.0.0/8", "::1"], True)):
        with served_in_thread(ServerConfig(allow_ips=parse_networks(networks))) as url:
            xml, ctype = encode_lead(LEAD, "xml")
            r = httpx.post(url + "/search", content=xml, headers={"Content-Type": ctype}, timeout=30)
            msg = decode_message(r.content, r.headers["content-type"])
            if allowed:
                assert r.status_code == 200 and msg.message.type == "STATUS"
            else:
                assert r.status_code == 403 and msg.result_code == "E500"
                assert r.headers["content-type"].startswith("application/xml")
            # the address service is not behind the lead IP list
            r = httpx.get(url + "/address/datasets/v1", timeout=30)
            assert r.status_code == 200


def test_rate_limit_and_body_limit() -> None:
    cfg = ServerConfig(tokens=frozenset({"a", "b"}), rate_limit=3, max_body_bytes=2048)
    with served_in_thread(cfg) as url:
        def get(token: str) -> httpx.Response:
            return httpx.get(url + "/address/datasets/v1", headers={"Auth-Token": token}, timeout=30)

        answers = [get("a") for _ in range(4)]
        assert [r.status_code for r in answers] == [200, 200, 200, 429]
        assert [r.headers["x-rate-limit-remaining"] for r in answers] == ["2", "1", "0", "0"]
        last = answers[-1]
        assert last.headers["x-rate-limit-limit"] == "3"
        reset = int(last.headers["x-rate-limit-reset"])
        assert 0 < reset - time.time() <= 61 and int(last.headers["retry-after"]) >= 1
        _error(last, 429)
        assert get("b").status_code == 200  # per token
        assert httpx.get(url + "/healthz").status_code == 200  # health is never limited
    with served_in_thread(ServerConfig(max_body_bytes=2048)) as url:
        r = httpx.post(url + "/address/search/v1", content=b"x" * 5000, headers={"Content-Type": "application/json"})
        _error(r, 413)

        def chunks() -> Iterator[bytes]:  # no Content-Length: the streamed size is counted
            for _ in range(10):
                yield b"y" * 1000

        r = httpx.post(url + "/search", content=chunks(), headers={"Content-Type": "application/json"})
        _error(r, 413)


def test_timeout_seconds_answers_408() -> None:
    def slow_loader(cfg: ServerConfig) -> Loaded:
        loaded = load_local(cfg)
        address = loaded.address

        class Slow:
            def __getattr__(self, name: str) -> object:
                return getattr(address, name)

            def search(self, request: SearchRequest) -> object:
                time.sleep(2.5)
                return address.search(request)

        return Loaded(loaded.lead_engine, loaded.lead, Slow(), loaded.dataset_ids)  # type: ignore[arg-type]

    with served_in_thread(ServerConfig(), slow_loader) as url:
        body = {"country_iso": "USA", "components": {"unspecified": ["1 Main"]}}
        for outside in ("1", "16", "2.5", "x"):  # the vendor's range: whole seconds, 2 to 15
            r = httpx.post(url + "/address/search/v1", json=body, headers={"Timeout-Seconds": outside}, timeout=30)
            assert "Timeout-Seconds" in _error(r, 400)["detail"]
        r = httpx.post(url + "/address/search/v1", json=body, headers={"Timeout-Seconds": "2"}, timeout=30)
        assert "Timeout-Seconds" in _error(r, 408)["detail"]
        r = httpx.post(url + "/address/search/v1", json=body, headers={"Timeout-Seconds": "5"}, timeout=30)
        assert r.status_code == 200


@pytest.mark.shared
def test_serving_an_openaddresses_reference(shared_dir: object, tmp_path: object) -> None:
    from pathlib import Path

    from dqkit.server.testing import serve_process

    csv = Path(str(shared_dir)) / "data" / "openaddresses" / "alameda.csv"
    # build the index into a temporary cache so the user's cache is not touched
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    with serve_process(references=[csv], env=env) as served, httpx.Client(base_url=served.url, timeout=30) as http:
        datasets = http.get("/address/datasets/v1").json()["result"]
        assert datasets and not any(d.get("synthetic") for d in datasets), datasets
        first = csv.read_text().splitlines()[1].split(",")
        number, street = first[2], first[3]
        result = _search(http, f"{number} {street}")
        assert result["suggestions"], result
        assert street.split()[0].upper() in result["suggestions"][0]["text"].upper()
