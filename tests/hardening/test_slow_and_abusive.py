"""Slow and abusive clients against a real `dqkit serve` (issue 13, part 3): each gets a clean HTTP answer and the
server keeps answering everyone else."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import time

from hostile import TOKEN, raw, status_of

from dqkit.server.testing import ServedProcess


def _get(server: ServedProcess, path: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    conn.request("GET", path, headers={"Auth-Token": TOKEN, **(headers or {})})
    resp = conn.getresponse()
    resp.read()
    conn.close()
    return resp


def test_trickled_headers_get_408_and_health_stays_up(hostile_server: ServedProcess) -> None:
    socks = []
    for _ in range(30):
        s = socket.create_connection((hostile_server.host, hostile_server.port), timeout=10)
        s.sendall(b"POST /search HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        socks.append(s)
    end = time.monotonic() + 4
    while time.monotonic() < end:  # one byte a second per socket: never a complete head
        assert _get(hostile_server, "/healthz").status == 200
        for s in socks:
            with contextlib.suppress(OSError):
                s.send(b"a")
        time.sleep(0.5)
    answers = []
    for s in socks:
        s.settimeout(5)
        try:
            answers.append(s.recv(4096))
        except OSError:
            answers.append(b"")
        s.close()
    assert all(status_of(a) == 408 for a in answers), answers[:3]
    assert all(b'"error"' in a for a in answers)


def test_connection_cap_evicts_unfinished_heads_first(hostile_server: ServedProcess) -> None:
    idle = [socket.create_connection((hostile_server.host, hostile_server.port), timeout=10) for _ in range(60)]
    try:
        time.sleep(0.3)
        assert _get(hostile_server, "/healthz").status == 200  # a real request still gets through
    finally:
        for s in idle:
            s.close()


def test_oversized_head_and_token_get_431(hostile_server: ServedProcess) -> None:
    big = b"a" * (2 << 20)
    for head in (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + big + b"\r\n\r\n",
                 b"POST /search HTTP/1.1\r\nHost: x\r\nAuth-Token: " + big + b"\r\nContent-Length: 2\r\n\r\n{}"):
        assert status_of(raw(hostile_server, head)) == 431


def test_slow_body_gets_408(hostile_server: ServedProcess) -> None:
    head = (b"POST /address/search/v1 HTTP/1.1\r\nHost: x\r\nAuth-Token: " + TOKEN.encode() +
            b"\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{")
    assert status_of(raw(hostile_server, head)) == 408


def test_reference_id_checked_against_the_vendor_pattern(hostile_server: ServedProcess) -> None:
    ok = _get(hostile_server, "/address/datasets/v1", {"Reference-Id": "abc-123/x:y.z,(1) 2"})
    assert ok.status == 200 and ok.getheader("reference-id") == "abc-123/x:y.z,(1) 2"
    for bad in ("r" * 257, "a<script>", "x\u00e9"):
        resp = _get(hostile_server, "/address/datasets/v1", {"Reference-Id": bad.encode("utf-8").decode("latin-1")})
        assert resp.status == 400
        assert resp.getheader("reference-id") is None


def test_bad_requests_get_clean_4xx_without_tracebacks(hostile_server: ServedProcess) -> None:
    query = "&".join(f"p{i}=v" for i in range(200))
    lead = json.dumps({"LEAD_TRANS_DETAILS": {"FIRST_NAME": "Maria", "LAST_NAME": "Garcia"},
                       "LEAD_ADDRESS": {"ZIP": "20500"}}).encode()
    nested = b'{"LEAD_TRANS_DETAILS": {"FIRST_NAME": ' + b"[" * 1000 + b"]" * 1000 + b"}}"
    cases = [("GET", f"/search?{query}", None, {}), ("POST", f"/search?{query}", lead, {}),
             ("GET", f"/address/datasets/v1?{query}", None, {}), ("GET", f"/nowhere?{query}", None, {}),
             ("GET", "/search?" + "x" * 9000, None, {}),
             ("POST", "/search", lead, {"Timeout-Seconds": "1e999"}),
             ("POST", "/address/search/v1", b'{"country_iso": "USA", "components": {"unspecified": [[[]]]}}', {}),
             ("GET", "/address/format/v1/" + "A" * 3000, None, {})]
    for method, path, body, headers in cases:
        conn = http.client.HTTPConnection(hostile_server.host, hostile_server.port, timeout=30)
        conn.request(method, path, body=body, headers={"Auth-Token": TOKEN, **headers})
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        assert 400 <= resp.status < 500, (path[:40], resp.status, data[:200])
        assert resp.getheader("content-type", "").startswith(("application/json", "application/xml")), path[:40]
    # nested arrays in a lead field, a truncated multipart body: the request could not be read, E300 with 400
    for body, ctype in ((nested, "application/json"), (b"--b\r\nbroken", "multipart/form-data; boundary=b"),
                        (b"--b\r\nbroken", "multipart/form-data")):
        conn = http.client.HTTPConnection(hostile_server.host, hostile_server.port, timeout=30)
        conn.request("POST", "/search", body=body, headers={"Auth-Token": TOKEN, "Content-Type": ctype})
        resp = conn.getresponse()
        assert resp.status == 400 and b'"E300"' in resp.read(), ctype
        conn.close()
    assert "Traceback" not in hostile_server.log_text()


def test_idle_kept_alive_connections_make_room_at_the_cap(hostile_server: ServedProcess) -> None:
    kept = []
    try:
        for _ in range(45):  # each answered once, then idle on keep-alive
            conn = http.client.HTTPConnection(hostile_server.host, hostile_server.port, timeout=10)
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            kept.append(conn)
        assert _get(hostile_server, "/healthz").status == 200  # not a 503: the oldest idle one made room
    finally:
        for conn in kept:
            conn.close()
