"""Failed-login limiting that never locks out a correct token, bounded without locking anyone out, trusted proxies
(issue 24, part 5); URLs in answers that never reflect an arbitrary Host (part 7). Real servers on 127.0.0.1."""

from __future__ import annotations

import http.client
import json

from hostile import TOKEN

from dqkit.server.ratelimit import FailureLimiter, client_key
from dqkit.server.testing import ServedProcess, serve_process

SEARCH = json.dumps({"country_iso": "USA", "components": {"unspecified": ["1 Main"]}}).encode()


def _call(server: ServedProcess, method: str, path: str, headers: dict[str, str], body: bytes | None = None,
          ) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    conn.request(method, path, body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    return resp.status, data


def test_failed_logins_get_429_but_never_lock_out_the_right_token() -> None:
    with serve_process(tokens=[TOKEN]) as server:
        statuses = []
        conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
        for i in range(25):
            conn.request("POST", "/search", body=b"{}", headers={"Auth-Token": f"guess-{i}"})
            resp = conn.getresponse()
            resp.read()
            statuses.append((resp.status, resp.getheader("retry-after")))
        conn.close()
        assert [s for s, _ in statuses[:20]] == [401] * 20
        assert all(s == 429 and r is not None and int(r) >= 1 for s, r in statuses[20:])
        # the owner of the token, from the same (shared) address, is served at once
        assert _call(server, "GET", "/address/datasets/v1", {"Auth-Token": TOKEN})[0] == 200
        assert _call(server, "GET", "/address/datasets/v1", {"Auth-Token": "guess-again"})[0] == 429
        log = server.log_text()
        assert "Traceback" not in log
        assert "127.0.0.1: 20 failed logins" in log and log.count("failed logins in this window") == 1


def test_the_failure_table_is_bounded_and_a_flood_of_addresses_locks_nobody_out() -> None:
    """65,556 failures from distinct addresses overflowed the old table into one shared bucket: every new address
    was refused for the rest of the window. Scaled down: a table of 100, 1,000 addresses."""
    limiter = FailureLimiter(limit=3, window=60, clock=lambda: 1000.0, max_keys=100)
    for i in range(1000):
        limiter.failed(f"10.0.{i // 256}.{i % 256}")
    assert len(limiter) <= 200  # bounded memory
    assert limiter.blocked("192.0.2.1") is None  # a newcomer is not refused
    for _ in range(3):  # the limit still applies to an address that keeps failing
        assert limiter.blocked("192.0.2.9") is None
        limiter.failed("192.0.2.9")
    assert limiter.blocked("192.0.2.9") is not None
    # a flood of addresses that each exceed the limit fills the refused set; past it, no one new is refused
    for i in range(300):
        for _ in range(3):
            limiter.failed(f"172.16.{i // 256}.{i % 256}")
    assert len(limiter) <= 200 and limiter.blocked("198.51.100.1") is None


def test_ipv6_clients_are_counted_by_their_64() -> None:
    assert client_key("2001:db8:1:2:aaaa::1") == client_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert client_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert client_key("192.0.2.7") == "192.0.2.7" and client_key("not-an-ip") == "not-an-ip"


def test_behind_a_trusted_proxy_each_forwarded_client_is_counted_alone() -> None:
    """127.0.0.1 plays the proxy: with --trust-forwarded-for it, X-Forwarded-For names the client."""
    with serve_process(tokens=[TOKEN], extra_args=["--trust-forwarded-for", "127.0.0.1/32"]) as server:
        for i in range(20):
            headers = {"Auth-Token": f"guess-{i}", "X-Forwarded-For": "203.0.113.5"}
            assert _call(server, "GET", "/address/datasets/v1", headers)[0] == 401
        guesser = {"Auth-Token": "guess", "X-Forwarded-For": "203.0.113.5"}
        assert _call(server, "GET", "/address/datasets/v1", guesser)[0] == 429
        # another user behind the same proxy is not refused; a spoofed left part does not change who is counted
        other = {"Auth-Token": "typo", "X-Forwarded-For": "198.51.100.7"}
        assert _call(server, "GET", "/address/datasets/v1", other)[0] == 401
        spoofed = {"Auth-Token": "guess", "X-Forwarded-For": "198.51.100.99, 203.0.113.5"}
        assert _call(server, "GET", "/address/datasets/v1", spoofed)[0] == 429
        assert "203.0.113.5: 20 failed logins" in server.log_text()
    # without the option the header is ignored: every guess counts against the peer, 127.0.0.1
    with serve_process(tokens=[TOKEN]) as server:
        for i in range(20):
            headers = {"Auth-Token": f"guess-{i}", "X-Forwarded-For": f"203.0.113.{i}"}
            assert _call(server, "GET", "/address/datasets/v1", headers)[0] == 401
        other = {"Auth-Token": "typo", "X-Forwarded-For": "198.51.100.7"}
        assert _call(server, "GET", "/address/datasets/v1", other)[0] == 429


def _format_urls(server: ServedProcess, headers: dict[str, str]) -> list[str]:
    status, data = _call(server, "POST", "/address/search/v1",
                         {"Auth-Token": TOKEN, "Content-Type": "application/json", **headers}, SEARCH)
    assert status == 200, data[:300]
    urls = [s.get("format") or s.get("stepin") for s in json.loads(data)["result"]["suggestions"]]
    assert urls and all(urls), data[:300]
    return [u for u in urls if u]


def test_answer_urls_never_reflect_an_arbitrary_host(hostile_server: ServedProcess) -> None:
    own = f"http://{hostile_server.host}:{hostile_server.port}/"
    for host in ("evil.example", "evil.example:80", "127.0.0.1:1"):
        urls = _format_urls(hostile_server, {"Host": host})
        assert all(u.startswith(own) for u in urls), urls[:2]


def test_public_url_and_trusted_host_header() -> None:
    with serve_process(tokens=[TOKEN], demo=True, extra_args=["--public-url", "https://dq.example.com/api"]) as s:
        urls = _format_urls(s, {"Host": "evil.example"})
        assert all(u.startswith("https://dq.example.com/api/address/") for u in urls), urls[:2]
    with serve_process(tokens=[TOKEN], demo=True, extra_args=["--trust-host-header"]) as s:
        urls = _format_urls(s, {"Host": "proxy.example:8443"})
        assert all(u.startswith("http://proxy.example:8443/address/") for u in urls), urls[:2]
