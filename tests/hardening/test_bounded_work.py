"""Bounded work and memory (issue 13, parts 1 and 2): linear parsing, limits refused at once, deadlines that stop
the engine's work, caches bounded in bytes, keys of bounded length."""

from __future__ import annotations

import http.client
import json
import time

import pytest
from hostile import TOKEN, served_in_thread

from dqkit.contract.address import SearchRequest
from dqkit.engines import deadline
from dqkit.engines.address.cache import BytesLRU
from dqkit.engines.deadline import DeadlineExceeded, deadline_scope
from dqkit.engines.usaddr.parser import parse_tokens
from dqkit.server.config import ServerConfig
from dqkit.server.engines import Loaded, load_local
from dqkit.server.testing import ServedProcess


def _post(server: ServedProcess, path: str, body: object, headers: dict[str, str] | None = None,
          ) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=60)
    conn.request("POST", path, body=json.dumps(body).encode(),
                 headers={"Auth-Token": TOKEN, "Content-Type": "application/json", **(headers or {})})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, data


def test_parser_is_linear_in_suffix_words() -> None:
    # "AVE MAIN" repeated made the old parser copy the rest of the line at every suffix: 64k pairs took ~7 s
    t0 = time.process_time()
    parse_tokens(["1", "MAIN", *(["AVE", "MAIN"] * 64_000)])
    parse_tokens(["1", *(["#", "1"] * 20_000), "MAIN", "ST"])  # "# 1 # 1 ...": no recursion per unit
    assert time.process_time() - t0 < 3.0


def test_the_parser_stops_at_the_deadline() -> None:
    tokens = ["1", "MAIN", *(["AVE", "MAIN"] * 1000)]
    with deadline_scope(0.0), pytest.raises(DeadlineExceeded):
        parse_tokens(tokens)
    deadline.check()  # outside a scope: nothing to stop


def test_over_long_search_text_is_refused_at_once_and_keys_stay_short(hostile_server: ServedProcess) -> None:
    status, data = _post(hostile_server, "/address/search/v1",
                         {"country_iso": "USA", "components": {"unspecified": ["1 main st " * 300]}})
    assert status == 400 and b"1024 bytes" in data
    text = ("1 main st " * 102)[:1024]
    status, data = _post(hostile_server, "/address/search/v1",
                         {"country_iso": "USA", "components": {"unspecified": [text]}})
    assert status == 200
    key = json.loads(data)["result"].get("suggestions_key", "")
    assert len(key) <= 1500  # the vendor's key limit is 4000; refine and step-in accept it
    if key:
        status, _ = _post(hostile_server, f"/address/suggestions/refine/v1/{key}", {"refinement": "x" * 2000})
        assert status == 400


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def test_memory_stays_bounded_under_big_searches(hostile_server: ServedProcess) -> None:
    pad = "x" * 900_000
    for i in range(30):  # 1 MB bodies: refused before any search or cache entry
        status, _ = _post(hostile_server, "/address/search/v1",
                          {"country_iso": "USA", "components": {"unspecified": [f"{i} main {pad}"]},
                           "options": [{"name": "pad", "value": pad[:10]}]})
        assert status == 400
    for i in range(300):  # many distinct answers: the answer cache is bounded in bytes
        status, _ = _post(hostile_server, "/address/search/v1",
                          {"country_iso": "USA", "components": {"unspecified": [f"{i} main st {'y' * 900}"]}})
        assert status == 200
    assert _rss_mb(hostile_server.process.pid) < 600


def test_bytes_lru_is_bounded_in_bytes() -> None:
    cache = BytesLRU(max_bytes=10_000, max_entry_bytes=3_000)
    for i in range(100):
        cache.put(f"k{i}".encode(), b"v" * 1000)
    cache.put(b"huge", b"v" * 5000)
    assert cache.size <= 10_000 and cache.get(b"huge") is None and cache.get(b"k99") is not None


def test_a_timed_out_request_stops_its_engine_work() -> None:
    """Real HTTP on 127.0.0.1; the engine's search is made endless (fault injection) but checks the deadline."""
    stopped: list[float] = []

    def slow_loader(config: ServerConfig) -> Loaded:
        loaded = load_local(config)
        address = loaded.address

        class Endless:
            def __getattr__(self, name: str) -> object:
                return getattr(address, name)

            def search(self, request: SearchRequest) -> object:
                end = time.monotonic() + 30  # bounded even if cancellation were broken
                try:
                    while time.monotonic() < end:
                        deadline.check()
                        sum(range(10_000))
                finally:
                    stopped.append(time.monotonic())
                raise AssertionError("the deadline never stopped the work")

        return Loaded(loaded.lead_engine, loaded.lead, Endless(), loaded.dataset_ids)  # type: ignore[arg-type]

    with served_in_thread(ServerConfig(), slow_loader) as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/address/search/v1", body=b'{"country_iso": "USA", "components": '
                     b'{"unspecified": ["1 main"]}}', headers={"Timeout-Seconds": "2"})  # the vendor allows 2..15
        resp = conn.getresponse()
        body = resp.read()
        answered = time.monotonic()
        conn.close()
        assert resp.status == 408 and b'"error"' in body
        end = time.monotonic() + 10
        while not stopped and time.monotonic() < end:
            time.sleep(0.05)
        assert stopped and stopped[0] - answered < 2.0  # generous: the check runs every few microseconds


def test_an_internal_failure_on_the_lead_path_is_the_seeds_e400() -> None:
    """Fault injection: the lead backend raises; the caller gets an ELSGenericMessage E400 (HTTP 500, retried by
    clients), never a bare error body or a dropped connection."""

    def failing_loader(config: ServerConfig) -> Loaded:
        loaded = load_local(config)

        class Broken:
            def verify_lead(self, lead: object) -> object:
                raise RuntimeError("injected fault")

        return Loaded(loaded.lead_engine, Broken(), loaded.address, loaded.dataset_ids)  # type: ignore[arg-type]

    with served_in_thread(ServerConfig(), failing_loader) as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/search", body=b'{"FIRST_NAME": "Ann", "LAST_NAME": "Lee", "ZIP": "62701"}',
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        body = json.loads(resp.read())
        conn.close()
    assert resp.status == 500 and body["Message"]["RESULT_CODE"] == "E400"
