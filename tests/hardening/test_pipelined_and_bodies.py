"""Limits that hold for every request of a connection, pipelined or not, and bodies no route reads (issue 24, parts
1 and 2), against a real `dqkit serve`. Attack sizes are small (a 64 KiB pipelined header proves the 32 KiB limit
applies; the benchmark `bench_hostile.py` runs the real sizes)."""

from __future__ import annotations

import contextlib
import http.client
import socket
import time

from hostile import TOKEN, raw, served_in_thread, status_of

from dqkit.contract.address import SearchRequest
from dqkit.engines import deadline
from dqkit.server.config import ServerConfig
from dqkit.server.engines import Loaded, load_local
from dqkit.server.testing import ServedProcess


def _answers(data: bytes) -> list[int]:
    """Statuses of the HTTP answers in `data`, in order."""
    out = []
    at = data.find(b"HTTP/1.1 ")
    while at != -1:
        out.append(int(data[at + 9:at + 12]))
        at = data.find(b"HTTP/1.1 ", at + 12)
    return out


def _read_all(s: socket.socket, limit: float = 10.0) -> tuple[bytes, str]:
    """Everything until the server closes, and how it ended: "eof", "reset" or "timeout" (still open)."""
    s.settimeout(limit)
    out = b""
    try:
        while True:
            chunk = s.recv(1 << 16)
            if not chunk:
                return out, "eof"
            out += chunk
    except ConnectionResetError:
        return out, "reset"
    except TimeoutError:
        return out, "timeout"


def _healthy(server: ServedProcess) -> bool:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    finally:
        conn.close()


def test_a_pipelined_request_gets_the_head_size_limit(hostile_server: ServedProcess) -> None:
    """Before, a head sent while the answer before it was pending went to the parser unlimited (64 MiB: 6 s CPU)."""
    first = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    second = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * (64 << 10) + b"\r\n\r\n"
    with socket.create_connection((hostile_server.host, hostile_server.port), timeout=10) as s:
        s.sendall(first + second)  # one write: the second head arrives before the first answer is out
        data, _ = _read_all(s)
    assert _answers(data) == [200, 431], data[:400]
    assert b'"error"' in data.split(b"HTTP/1.1 431")[1]


def test_pipelined_requests_are_answered_in_order(hostile_server: ServedProcess) -> None:
    """The limits change nothing for a well-behaved pipelining client."""
    requests = b"".join(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-N: %d\r\n\r\n" % i for i in range(20))
    with socket.create_connection((hostile_server.host, hostile_server.port), timeout=10) as s:
        s.sendall(requests + b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data, how = _read_all(s)
    assert _answers(data) == [200] * 21 and how == "eof"


def test_a_client_that_stops_reading_is_dropped(hostile_server: ServedProcess) -> None:
    """Pipelined requests whose answers are never read: the server's send buffer fills, the answer in progress
    waits on the client, and a head trickled behind it used to be parsed without limit. Now the connection is
    dropped once the client has read nothing for --send-timeout (2 s here); before, it stayed open for good."""
    with socket.create_connection((hostile_server.host, hostile_server.port), timeout=10) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        request = b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"
        with contextlib.suppress(OSError):
            for _ in range(200):  # several MB of answers, far more than the socket buffers hold
                s.sendall(request * 10)
            for _ in range(8):
                s.sendall(b"GET /healthz HTTP/1.1\r\nX-Slow: ")
                s.sendall(b"a" * 4096)
                assert _healthy(hostile_server)  # other clients are served meanwhile
                time.sleep(0.5)
        time.sleep(3)
        _, how = _read_all(s, limit=10)
    assert how in ("eof", "reset")
    log = hostile_server.log_text()
    assert "read none of its answers" in log
    assert "Traceback" not in log and "without completing response" not in log  # the answer in progress is told


def test_a_body_no_route_reads_is_answered_at_once_and_never_read(hostile_server: ServedProcess) -> None:
    """POST /healthz with a 1 MB body of which 10 bytes come: before, the body was awaited (and buffered) until the
    body timeout, and the connection could not be evicted meanwhile."""
    for method, path, want in (("POST", "/healthz", 405), ("POST", "/openapi.json", 405),
                               ("PUT", "/address/search/v1", 405), ("GET", "/healthz", 200),
                               ("POST", "/nowhere", 404)):
        head = (f"{method} {path} HTTP/1.1\r\nHost: x\r\nAuth-Token: {TOKEN}\r\nContent-Length: 1000000\r\n\r\n"
                ).encode()
        with socket.create_connection((hostile_server.host, hostile_server.port), timeout=10) as s:
            s.sendall(head + b"0123456789")
            # at most 1.5 s, under the body timeout (2 s): a body that was awaited would answer 408 only after it
            data, how = _read_all(s, limit=1.5)
        assert status_of(data) == want and how in ("eof", "reset"), (method, path, how, data[:200])
        assert (b"connection: close" in data.lower() and b'"error"' in data) or want == 200


def test_unfinished_bodies_are_evicted_at_the_cap_like_heads(hostile_server: ServedProcess) -> None:
    """40 connections (the cap) whose heads are in but whose bodies never come: a newcomer is served and the one
    that waited longest gets 408. Before, they counted as requests in progress: every newcomer got 503."""
    held = []
    try:
        for _ in range(40):
            s = socket.create_connection((hostile_server.host, hostile_server.port), timeout=10)
            s.sendall(b"POST /search HTTP/1.1\r\nHost: x\r\nAuth-Token: " + TOKEN.encode() +
                      b"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
            held.append(s)
        time.sleep(0.3)
        assert status_of(raw(hostile_server, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")) == 200
        held[0].settimeout(5)
        assert status_of(held[0].recv(4096)) == 408
    finally:
        for s in held:
            s.close()


def test_a_cap_full_of_requests_in_progress_answers_503() -> None:
    """Connections whose requests are complete and being worked on are never evicted: the newcomer gets 503 with
    Retry-After. Fault injection: a search that runs until its deadline (2 s)."""

    def slow_loader(config: ServerConfig) -> Loaded:
        loaded = load_local(config)
        address = loaded.address

        class Slow:
            def __getattr__(self, name: str) -> object:
                return getattr(address, name)

            def search(self, request: SearchRequest) -> object:
                end = time.monotonic() + 30
                while time.monotonic() < end:
                    deadline.check()
                    time.sleep(0.01)
                raise AssertionError("the deadline never stopped the work")

        return Loaded(loaded.lead_engine, loaded.lead, Slow(), loaded.dataset_ids)  # type: ignore[arg-type]

    body = b'{"country_iso": "USA", "components": {"unspecified": ["1 main"]}}'
    with served_in_thread(ServerConfig(demo=True), slow_loader, guarded_cap=4) as port:
        busy = []
        try:
            for _ in range(4):
                s = socket.create_connection(("127.0.0.1", port), timeout=10)
                s.sendall(b"POST /address/search/v1 HTTP/1.1\r\nHost: x\r\nTimeout-Seconds: 3\r\n"
                          b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
                busy.append(s)
            time.sleep(0.5)
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                answer = s.recv(4096)
            assert status_of(answer) == 503 and b"retry-after" in answer.lower() and b'"error"' in answer
            for s in busy:  # each request in progress got its own answer (408 at its deadline), none was dropped
                s.settimeout(10)
                assert status_of(s.recv(4096)) == 408
        finally:
            for s in busy:
                s.close()


TRICKLE_SCRIPT = """
import asyncio, tracemalloc
from dqkit.server.config import ServerConfig
from dqkit.server.gate import Gate

N = 200_000
received = []

async def app(scope, receive, send):
    received.append(len((await receive())["body"]))
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})

async def main():
    gate = Gate(app, ServerConfig())
    scope = {"type": "http", "method": "POST", "path": "/address/search/v1", "headers": [], "query_string": b""}
    sent = 0

    async def receive():
        nonlocal sent
        sent += 1
        return {"type": "http.request", "body": b"%04d" % (sent % 10_000), "more_body": sent < N}

    async def send(message):
        return None

    tracemalloc.start()
    await gate(scope, receive, send)
    print(tracemalloc.get_traced_memory()[1], received[0])

asyncio.run(main())
"""


def test_a_trickled_body_is_held_in_one_buffer() -> None:
    """A body that comes a few bytes at a time is gathered in one growing buffer, not in a list of small objects
    (~45 bytes each for 4 bytes of body: the ~1 GB that 1,000 such connections left behind). Measured in a fresh
    interpreter, so nothing else allocates meanwhile."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", TRICKLE_SCRIPT], capture_output=True, text=True, timeout=120,
                         check=True).stdout.split()
    peak, size = int(out[0]), int(out[1])
    assert size == 800_000
    assert peak < 3 * size, peak  # a buffer and its copy: ~2 bytes per byte; a list of chunks ~11
