"""Hostile clients against a real `dqkit serve` (issues 13 and 24): what each attack costs the server and its other
users, before, during and after it.

Each attack runs against a fresh server process (started from `--dqkit`, default this worktree's `.venv/bin/dqkit`)
on 127.0.0.1, with its descriptor limit lowered to `--nofile` (default 1024) so that descriptor exhaustion shows
at a size this shared machine can afford. While an attack runs, a prober asks `GET /healthz` every 50 ms and a
legitimate client sends one small lead and one address search every 100 ms (its own connection each time).

Columns:
    requests      attack requests (or sockets) sent
    answers       the attack's answers by status ("drop": no HTTP answer at all)
    CPU s         the server's CPU seconds from the attack's start until it is idle again (at most 30 s after
                  the attack's last answer); "after" is the part of it spent after the last answer (work that goes
                  on for requests already answered or abandoned)
    MB            resident memory of the server before the attack, its peak during it, and once idle after it
    health p99    `/healthz` latency p99 over 2 s before the attack, during it, and over 2 s once the server is idle
                  after it (a probe that fails counts as 5000 ms); "fail": failed probes during the attack
    legit p99     the legitimate client's latency p99 during the attack, and how many of its calls failed
    tracebacks    "Traceback" lines the server logged during the attack

Scaled down for a shared 2-core machine (the issue's sizes in brackets): 2 000 trickling sockets [20 000] against a
server limited to 1 024 descriptors; a 16 MB header and a 16 MB Auth-Token [64 MB, 50 MB]; 200 searches of 1 MB
[500]; 4 parser-bomb requests of ~400 KB [8 of 380 KB]; 4 clients of 1 MB nested XML for 8 s.

Issue 24's attacks, at its sizes: `pipelined-header` (a 64 MiB header pipelined behind a request, by a client that
reads and one that does not), `public-bodies` (1,000 unauthenticated POST /healthz and /openapi.json trickling 1 MB
bodies), `held-bodies` (1,000 POST /address/search/v1 bodies that never finish), `malformed-bodies` (invalid UTF-8
and lone surrogates), `auth-lockout` (20 wrong tokens then the right one; 66,000 failures from distinct loopback
addresses), `host-location` (a foreign Host header, a 1 MB location), `csv-formulas` (`dqkit verify` output of
hostile cells) and `cache-threads` (the search cache under 4 threads).

`reference-files` (issue 24 part 6) needs no server: it runs the real `dqkit reference add FILE` (the one given by
`--dqkit`) on each hostile file, with the references folder and caches in a temporary folder: a 2 MB zip (also
one whose headers understate its member) and a 2 MB .gz that expand to one 2 GiB line, 2 GiB of newlines (.gz,
and a plain file of `--newlines-gib` GiB on disk), a .gz of 2 GiB of 7-byte rows, a GeoJSON line nested 100,000
deep; then a `kill -9` of an add while it writes its part file and of `dqkit verify` while it writes its output,
each followed by the same command again. The files are written streaming (never held in memory; the .gz ones
repeat one compressed member). Its own table, per file: exit code, wall and CPU seconds and peak RSS of the child
(its own rusage from `os.wait4`), whether stderr holds a traceback (it must not), the first line of the message,
and what was left behind (hidden staging folders, `*.tmp` files: nothing, except right after a kill -9, which the
next run must remove); in brackets, what the issue saw before the fix.

    .venv/bin/python benchmarks/bench_hostile.py [--dqkit PATH] [--only a,b] [--nofile 1024] [--stack NAME]
                                                 [--newlines-gib 2] [--json FILE]

Issue 30's attacks: `store-stopped`, `store-slowed` (a redis-server of its own, SIGSTOPped / `DEBUG SLEEP`), and
`rate-file-locked` (a `sqlite:` rate store under an exclusive lock), each 300 searches: latency p50/p99, wall time
and how soon counts are shared again; `worker-kill` (kill -9 of one of 2 workers under load: failed requests,
`/healthz` failures, time to 2 ready workers); `second-server` (a second `dqkit serve` on the busy port);
`bulk-disk-fill` (create-then-stop loop of 10 MB batches beside another token's batch), `bulk-bodies` (100 held
16 MiB batch bodies), `bulk-fairness` (10 addresses behind another token's 30,000), `input-numbers` (400- and
5,000-digit numbers), `layouts-note` (2.7 MB of layout names), `reference-name` (an index named `東京.dqidx`); and,
with no server, `files`: an .xlsx bomb, `--history` at a folder, a FIFO, a device node, another program's database
and a locked store, `reference add --id 東京`, blank and world-writable key secrets, formulas behind invisible
characters in CSV and .xlsx output. docs/server-stack.md has the before/after table.

`--only throughput` (not part of the default set) measures plain lead requests/s, to compare server stacks.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TOKEN = "bench-hostile-token"
HOST = "127.0.0.1"
LEAD: dict[str, Any] = {
    "LEAD_TRANS_DETAILS": {"FIRST_NAME": "Maria", "LAST_NAME": "Garcia"},
    "LEAD_ADDRESS": {"STREET1": "1600 Pennsylvania Ave", "CITY": "Washington", "STATE": "DC", "ZIP": "20500"},
    "LEAD_PHONE": [{"PHONE_NUMBER": "202-456-1111"}]}
SEARCH = {"country_iso": "USA", "components": {"unspecified": ["1 Main"]}}


# ---- the server -----------------------------------------------------------------------------------------


@dataclass
class Server:
    proc: subprocess.Popen[str]
    port: int
    log: Path
    context: dict[str, Any] = field(default_factory=dict)  # what an attack needs beyond the server (a Redis, ...)

    def _tree(self) -> list[Any]:
        import psutil

        root = psutil.Process(self.proc.pid)
        return [root, *root.children(recursive=True)]

    def cpu(self) -> float:
        """CPU seconds of the server and its worker processes (granian runs its workers as children)."""
        total = 0.0
        for p in self._tree():
            with contextlib.suppress(Exception):
                t = p.cpu_times()
                total += t.user + t.system
        return total

    def rss_mb(self) -> float:
        total = 0
        for p in self._tree():
            with contextlib.suppress(Exception):
                total += p.memory_info().rss
        return total / (1 << 20)

    def tracebacks(self) -> int:
        return self.log.read_text(errors="replace").count("Traceback")


# Other server stacks for the same ASGI app (docs/server-stack.md): each prints the line `dqkit serve` prints.
_STACKS = {
    "uvicorn": """
import sys, uvicorn
from dqkit.server.app import create_app
from dqkit.server.config import ServerConfig
from dqkit.server.listeners import bind
sock = bind("127.0.0.1", 0)
print("listening on http://127.0.0.1:%d" % sock.getsockname()[1], flush=True)
app = create_app(ServerConfig(tokens=frozenset({TOKEN})))
uvicorn.Server(uvicorn.Config(app, lifespan="on", log_level="warning", http="httptools")).run(sockets=[sock])
""",
    "hypercorn": """
import asyncio, socket
from hypercorn.asyncio import serve
from hypercorn.config import Config
from dqkit.server.app import create_app
from dqkit.server.config import ServerConfig
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
c = Config(); c.bind = ["127.0.0.1:%d" % port]; c.h11_max_incomplete_size = 32768; c.read_timeout = 10
c.keep_alive_timeout = 5; c.loglevel = "WARNING"
print("listening on http://127.0.0.1:%d" % port, flush=True)
asyncio.run(serve(create_app(ServerConfig(tokens=frozenset({TOKEN}))), c))
""",
    "granian": """
import socket
from granian import Granian
from granian.http import HTTP1Settings
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
print("listening on http://127.0.0.1:%d" % port, flush=True)
Granian("dqkit.server.app:create_app", address="127.0.0.1", port=port, interface="asgi", factory=True,
        http1_settings=HTTP1Settings(header_read_timeout=10_000, max_buffer_size=32_768), log_enabled=False).serve()
""",
}


@contextlib.contextmanager
def server(dqkit: str, nofile: int, extra: list[str], stack: str = "dqkit",
           more_env: dict[str, str] | None = None) -> Iterator[Server]:
    log = Path(tempfile.mkstemp(prefix="bench-hostile-", suffix=".log")[1])

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    env = {**os.environ, "DQKIT_SERVE_TOKENS": TOKEN, **(more_env or {})}
    if stack == "dqkit":
        cmd = [dqkit, "serve", "--host", HOST, "--port", "0", *extra]
    else:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (os.environ.get("STACKS_PATH", ""), env.get("PYTHONPATH", ""))
                                            if p)
        cmd = [sys.executable, "-c", f"TOKEN = {TOKEN!r}\n" + _STACKS[stack]]
    with open(log, "w") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                stderr=err, stdin=subprocess.DEVNULL, text=True, env=env, preexec_fn=limits)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        if "listening on" not in line:
            raise SystemExit(f"the server did not start: {line!r}\n{log.read_text()[-2000:]}")
        port = int(line.strip().rsplit(":", 1)[1])
        srv = Server(proc, port, log)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            status, _ = call("GET", port, "/healthz", timeout=2)
            if status == 200:
                break
            time.sleep(0.1)
        else:
            raise SystemExit("the server never became healthy")
        yield srv
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
        log.unlink(missing_ok=True)


def call(method: str, port: int, path: str, body: bytes | None = None, headers: dict[str, str] | None = None,
         timeout: float = 5.0) -> tuple[int | str, bytes]:
    """(status or "drop"/"timeout", body) of one request on its own connection."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers={"Auth-Token": TOKEN, **(headers or {})})
        resp = conn.getresponse()
        return resp.status, resp.read()
    except TimeoutError:
        return "timeout", b""
    except (OSError, http.client.HTTPException):
        return "drop", b""
    finally:
        conn.close()


# ---- background observers -------------------------------------------------------------------------------


@dataclass
class Observers:
    srv: Server
    stop: threading.Event = field(default_factory=threading.Event)
    health: list[float] = field(default_factory=list)
    health_fail: int = 0
    legit: list[float] = field(default_factory=list)
    legit_fail: int = 0
    peak_rss: float = 0.0
    threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> None:
        for fn in (self._probe, self._legit, self._rss):
            t = threading.Thread(target=fn, daemon=True)
            t.start()
            self.threads.append(t)

    def finish(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=15)

    def _probe(self) -> None:
        while not self.stop.wait(0.05):
            t = time.perf_counter()
            status, _ = call("GET", self.srv.port, "/healthz", timeout=5)
            ms = (time.perf_counter() - t) * 1000
            if status != 200:
                self.health_fail += 1
                ms = 5000.0
            self.health.append(ms)

    def _legit(self) -> None:
        lead = json.dumps(LEAD).encode()
        search = json.dumps(SEARCH).encode()
        while not self.stop.wait(0.1):
            for path, body in (("/search", lead), ("/address/search/v1", search)):
                t = time.perf_counter()
                status, _ = call("POST", self.srv.port, path, body, {"Content-Type": "application/json"},
                                 timeout=5)
                ms = (time.perf_counter() - t) * 1000
                if status != 200:
                    self.legit_fail += 1
                    ms = 5000.0
                self.legit.append(ms)

    def _rss(self) -> None:
        while not self.stop.wait(0.05):
            with contextlib.suppress(OSError):
                self.peak_rss = max(self.peak_rss, self.srv.rss_mb())


def p99(xs: list[float]) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(0.99 * len(s)))]


# ---- the attacks ----------------------------------------------------------------------------------------
# Each returns (requests sent, Counter of answers); all bounded in count and time.


def _parallel(n: int, fn: Callable[[int], int | str]) -> Counter[int | str]:
    out: Counter[int | str] = Counter()
    lock = threading.Lock()

    def run(i: int) -> None:
        r = fn(i)
        with lock:
            out[r] += 1

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return out


def parser_bomb(srv: Server) -> tuple[int, Counter[int | str]]:
    """4 concurrent validations of a ~400 KB address that drives the US parser's suffix search (Timeout-Seconds 2)."""
    text = "1 main " + "ave main " * 44_000
    body = json.dumps({"country_iso": "USA", "components": {"unspecified": [text]}}).encode()
    n = 4
    return n, _parallel(n, lambda i: call("POST", srv.port, "/address/validate/v1", body,
                                          {"Content-Type": "application/json", "Timeout-Seconds": "2"},
                                          timeout=60)[0])


def search_memory(srv: Server) -> tuple[int, Counter[int | str]]:
    """200 address searches of ~1 MB text, each different (2 at a time)."""
    n = 200
    out: Counter[int | str] = Counter()
    pad = "x" * 1_000_000

    def one(i: int) -> int | str:
        body = json.dumps({"country_iso": "USA", "components": {"unspecified": [f"{i} main st {pad}"]}}).encode()
        return call("POST", srv.port, "/address/search/v1", body[:1_048_000] if len(body) > 1_048_576 else body,
                    {"Content-Type": "application/json", "Timeout-Seconds": "2"}, timeout=30)[0]

    deadline = time.monotonic() + 90
    for start in range(0, n, 2):
        if time.monotonic() > deadline:
            break
        out += _parallel(2, functools.partial(lambda base, j: one(base + j), start))
    return sum(out.values()), out


def slowloris(srv: Server) -> tuple[int, Counter[int | str]]:
    """2 000 sockets that send a request line and then one header byte per second, for 12 s; no token."""
    socks: list[socket.socket] = []
    refused = 0
    for _ in range(2000):
        try:
            s = socket.create_connection((HOST, srv.port), timeout=2)
            s.sendall(b"POST /search HTTP/1.1\r\nHost: x\r\n")
            socks.append(s)
        except OSError:
            refused += 1
    out: Counter[int | str] = Counter()
    end = time.monotonic() + 12
    while time.monotonic() < end:
        for s in socks:
            with contextlib.suppress(OSError):
                s.send(b"X")
        time.sleep(1)
    answered = 0
    for s in socks:
        s.setblocking(False)
        try:
            data = s.recv(64)
            if data.startswith(b"HTTP/1.1 "):
                out[int(data[9:12])] += 1
                answered += 1
            else:
                out["closed"] += 1
        except BlockingIOError:
            out["open"] += 1
        except OSError:
            out["reset"] += 1
        s.close()
    if refused:
        out["connect failed"] = refused
    return 2000, out


def _raw_request(port: int, head: bytes, chunk: int = 1 << 20, timeout: float = 30) -> int | str:
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            for i in range(0, len(head), chunk):
                s.sendall(head[i:i + chunk])
            data = s.recv(64)
            return int(data[9:12]) if data.startswith(b"HTTP/1.1 ") else "drop"
    except TimeoutError:
        return "timeout"
    except OSError:
        return "drop"


def big_header(srv: Server) -> tuple[int, Counter[int | str]]:
    """2 requests with a 16 MB header (X-Pad) and 2 with a 16 MB Auth-Token."""
    pad = b"a" * (16 << 20)
    heads = [b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + pad + b"\r\n\r\n",
             b"POST /search HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nAuth-Token: " + pad + b"\r\n\r\n{}"]
    out: Counter[int | str] = Counter()
    for head in heads:
        for _ in range(2):
            out[_raw_request(srv.port, head)] += 1
    return 4, out


def nested_xml(srv: Server) -> tuple[int, Counter[int | str]]:
    """4 clients posting ~1 MB of nested XML to /search for 8 s."""
    depth = 1_000_000 // 7
    body = (b"<a>" * (depth // 2)) + (b"</a>" * (depth // 2))
    body = b"<?xml version='1.0'?><elsgenericmessage>" + body[:1_000_000] + b"</elsgenericmessage>"
    out: Counter[int | str] = Counter()
    lock = threading.Lock()
    end = time.monotonic() + 8

    def client() -> None:
        while time.monotonic() < end:
            status = call("POST", srv.port, "/search", body, {"Content-Type": "application/xml"}, timeout=30)[0]
            with lock:
                out[status] += 1

    threads = [threading.Thread(target=client, daemon=True) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return sum(out.values()), out


def bad_input(srv: Server) -> tuple[int, Counter[int | str]]:
    """Nested arrays in a lead field (2 KB JSON), 200 query parameters on GET and POST /search, bad Timeout-Seconds,
    a broken multipart body, a 2 KB path, 10 of each."""
    nested = json.dumps({**LEAD, "LEAD_TRANS_DETAILS": {"FIRST_NAME": json.loads("[" * 500 + "]" * 500)}}).encode()
    query = "&".join(f"p{i}=v" for i in range(200))
    out: Counter[int | str] = Counter()
    cases: list[tuple[str, str, bytes | None, dict[str, str]]] = [
        ("POST", "/search", nested, {"Content-Type": "application/json"}),
        ("GET", f"/search?{query}", None, {}),
        ("POST", f"/search?{query}", json.dumps(LEAD).encode(), {"Content-Type": "application/json"}),
        ("POST", "/address/search/v1", b'{"country_iso": "USA", "components": {"unspecified": [[[[]]]]}}', {}),
        ("POST", "/search", b"--b\r\nbroken", {"Content-Type": "multipart/form-data; boundary=b"}),
        ("GET", "/address/format/v1/" + "A" * 2048, None, {}),
        ("POST", "/search", json.dumps(LEAD).encode(), {"Timeout-Seconds": "1e999"}),
    ]
    for _ in range(10):
        for method, path, body, headers in cases:
            out[call(method, srv.port, path, body, headers, timeout=30)[0]] += 1
    return 10 * len(cases), out


def reference_id(srv: Server) -> tuple[int, Counter[int | str]]:
    """50 requests with a 100 KB Reference-Id; answers counted by status, "echoed" when the header came back whole."""
    out: Counter[int | str] = Counter()
    ref = "r" * 100_000
    for _ in range(50):
        conn = http.client.HTTPConnection(HOST, srv.port, timeout=10)
        try:
            conn.request("GET", "/address/datasets/v1", headers={"Auth-Token": TOKEN, "Reference-Id": ref})
            resp = conn.getresponse()
            resp.read()
            echoed = len(resp.getheader("reference-id") or "")
            out[f"{resp.status}{' echoed ' + str(echoed) if echoed else ''}"] += 1
        except (OSError, http.client.HTTPException):
            out["drop"] += 1
        finally:
            conn.close()
    return 50, out


def failed_auth(srv: Server) -> tuple[int, Counter[int | str]]:
    """1 000 requests with wrong tokens from one address, as fast as one connection allows."""
    out: Counter[int | str] = Counter()
    conn = http.client.HTTPConnection(HOST, srv.port, timeout=10)
    for i in range(1000):
        try:
            conn.request("POST", "/search", body=b"{}", headers={"Auth-Token": f"guess-{i}"})
            resp = conn.getresponse()
            resp.read()
            out[resp.status] += 1
            if resp.getheader("connection", "").lower() == "close":
                conn.close()
                conn = http.client.HTTPConnection(HOST, srv.port, timeout=10)
        except (OSError, http.client.HTTPException):
            out["drop"] += 1
            conn.close()
            conn = http.client.HTTPConnection(HOST, srv.port, timeout=10)
    conn.close()
    return 1000, out


def mix(srv: Server) -> tuple[int, Counter[int | str]]:
    """The memory and CPU attacks at once: parser bombs, 1 MB searches, nested XML, big headers, slow headers."""
    parts = (parser_bomb, search_memory, nested_xml, big_header, slowloris)
    results: list[tuple[int, Counter[int | str]]] = []
    lock = threading.Lock()

    def run(fn: Callable[[Server], tuple[int, Counter[int | str]]]) -> None:
        r = fn(srv)
        with lock:
            results.append(r)

    threads = [threading.Thread(target=run, args=(fn,), daemon=True) for fn in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=180)
    total: Counter[int | str] = Counter()
    for _, c in results:
        total += c
    return sum(n for n, _ in results), total


def throughput(srv: Server) -> tuple[int, Counter[int | str]]:
    """Not an attack: 4 keep-alive clients sending small leads for 5 s (the requests column is the count)."""
    out: Counter[int | str] = Counter()
    lock = threading.Lock()
    end = time.monotonic() + 5
    body = json.dumps(LEAD).encode()

    def client() -> None:
        conn = http.client.HTTPConnection(HOST, srv.port, timeout=10)
        while time.monotonic() < end:
            try:
                conn.request("POST", "/search", body=body, headers={"Auth-Token": TOKEN,
                                                                    "Content-Type": "application/json"})
                resp = conn.getresponse()
                resp.read()
                status: int | str = resp.status
            except (OSError, http.client.HTTPException):
                status = "drop"
                conn.close()
                conn = http.client.HTTPConnection(HOST, srv.port, timeout=10)
            with lock:
                out[status] += 1
        conn.close()

    threads = [threading.Thread(target=client, daemon=True) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return sum(out.values()), out


# ---- issue 24: what an attacker still got without a token ----------------------------------------------------


def _drain(s: socket.socket, limit: float) -> tuple[bytes, str]:
    """What the server sends until it closes (at most 1 MB kept), and how it ended: eof, reset or open."""
    s.settimeout(limit)
    out = b""
    try:
        while True:
            chunk = s.recv(1 << 16)
            if not chunk:
                return out, "eof"
            if len(out) < 1 << 20:
                out += chunk
    except TimeoutError:
        return out, "open"
    except OSError:
        return out, "reset"


def _statuses(data: bytes) -> list[int]:
    out, at = [], data.find(b"HTTP/1.1 ")
    while at != -1:
        out.append(int(data[at + 9:at + 12]))
        at = data.find(b"HTTP/1.1 ", at + 12)
    return out


def pipelined_header(srv: Server) -> tuple[int, Counter[int | str]]:
    """One connection, no token: GET /healthz then, in the same write, a second request with a 64 MiB header; and
    one that pipelines 2,000 GET /openapi.json without reading the answers, then sends a 64 MiB header behind them.
    Answers: the statuses the first client read, "sent MB" the header bytes the server took before it stopped
    reading, and how each connection ended."""
    out: Counter[int | str] = Counter()
    pad = b"a" * (1 << 20)
    with socket.create_connection((HOST, srv.port), timeout=60) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ")
        sent = 0
        with contextlib.suppress(OSError):
            s.settimeout(10)
            for _ in range(64):
                s.sendall(pad)
                sent += 1
            s.sendall(b"\r\n\r\n")
        data, how = _drain(s, 60)
        for status in _statuses(data):
            out[status] += 1
        out[f"reader sent {sent} MB, {how}"] += 1
    with socket.create_connection((HOST, srv.port), timeout=60) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sent = 0
        with contextlib.suppress(OSError):
            s.settimeout(10)
            s.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n" * 2000)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ")
            for _ in range(64):
                s.sendall(pad)
                sent += 1
        _, how = _drain(s, 60)
        out[f"non-reader sent {sent} MB, {how}"] += 1
    return 2, out


def _trickled_bodies(srv: Server, heads: Callable[[int], bytes], n: int = 1000,
                     seconds: float = 10) -> Counter[int | str]:
    """`n` connections that send `heads(i)` (announcing a 1 MB body) and then 1 KB of body a second for `seconds`;
    what each got back ("open": nothing yet)."""
    socks: list[socket.socket] = []
    out: Counter[int | str] = Counter()
    for i in range(n):
        try:
            s = socket.create_connection((HOST, srv.port), timeout=2)
            s.sendall(heads(i))
            socks.append(s)
        except OSError:
            out["connect failed"] += 1
    chunk = b" " * 1024
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for s in socks:
            with contextlib.suppress(OSError):
                s.send(chunk)
        time.sleep(1)
    for s in socks:
        s.setblocking(False)
        try:
            data = s.recv(64)
            out[int(data[9:12]) if data.startswith(b"HTTP/1.1 ") else "closed"] += 1
        except BlockingIOError:
            out["open"] += 1
        except OSError:
            out["reset"] += 1
        s.close()
    return out


def public_bodies(srv: Server) -> tuple[int, Counter[int | str]]:
    """1,000 connections, no token: POST /healthz (and /openapi.json) announcing a 1 MB body, then trickling 1 KB a
    second of it for 10 s. Answers: what each connection got back."""

    def head(i: int) -> bytes:
        path = "/healthz" if i % 2 else "/openapi.json"
        return f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n".encode()

    return 1000, _trickled_bodies(srv, head)


def held_bodies(srv: Server) -> tuple[int, Counter[int | str]]:
    """1,000 connections with a token: POST /address/search/v1 announcing a 1 MB body, trickling 1 KB a second for
    10 s (the heads are complete, the bodies never are). Answers: what each got back; at the cap the longest waiting
    are evicted with 408 so that /healthz and the legitimate client keep getting answers."""
    head = (f"POST /address/search/v1 HTTP/1.1\r\nHost: x\r\nAuth-Token: {TOKEN}\r\n"
            "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n").encode()
    return 1000, _trickled_bodies(srv, lambda i: head)


def malformed_bodies(srv: Server) -> tuple[int, Counter[int | str]]:
    """Invalid UTF-8 inside a JSON string on each address POST route, a lone surrogate escape on /search, 10 of
    each. Answers: status and content type ("text" would be the plain-text 500 of before)."""
    bad = b'{"country_iso": "USA", "refinement": "\xff", "global_address_key": "\xff", "key": "\xff", ' \
          b'"components": {"unspecified": ["1 Main \xff\xfe"]}}'
    cases = [(path, bad) for path in ("/address/search/v1", "/address/validate/v1", "/address/lookup/v2",
                                      "/address/suggestions/format/v1", "/address/suggestions/refine/v1/abc",
                                      "/address/format/v1/abc", "/address/suggestions/stepIn")]
    cases.append(("/search", b'{"LEAD_TRANS_DETAILS": {"FIRST_NAME": "\\ud800", "LAST_NAME": "Lee"}}'))
    out: Counter[int | str] = Counter()
    for _ in range(10):
        for path, body in cases:
            conn = http.client.HTTPConnection(HOST, srv.port, timeout=30)
            try:
                conn.request("POST", path, body=body, headers={"Auth-Token": TOKEN,
                                                               "Content-Type": "application/json"})
                resp = conn.getresponse()
                resp.read()
                kind = "json" if resp.getheader("content-type", "").startswith("application/json") else "text"
                out[f"{resp.status} {kind}"] += 1
            except (OSError, http.client.HTTPException):
                out["drop"] += 1
            finally:
                conn.close()
    return 10 * len(cases), out


def auth_lockout(srv: Server) -> tuple[int, Counter[int | str]]:
    """20 wrong tokens from 127.0.0.1 then the right one; then 66,000 wrong tokens from distinct loopback addresses
    (more than the 65,536 the table tracks; 4 at a time, in one 10-minute window), then a new address with the
    right token and one with a wrong token (the legitimate client, from 127.0.0.1, shares the guesser's address).
    Answers: "right token after 20 failures", "newcomer right/wrong token" and the flood's statuses."""
    out: Counter[int | str] = Counter()
    for i in range(20):
        call("GET", srv.port, "/address/datasets/v1", headers={"Auth-Token": f"guess-{i}"})
    out[f"right token after 20 failures: {call('GET', srv.port, '/address/datasets/v1')[0]}"] += 1
    flood = 66_000
    lock = threading.Lock()

    def one(i: int) -> None:
        source = (f"127.{1 + i // 65_025}.{(i // 255) % 255}.{1 + i % 255}", 0)
        try:
            with socket.create_connection((HOST, srv.port), timeout=5, source_address=source) as s:
                s.sendall(b"GET /address/datasets/v1 HTTP/1.1\r\nHost: x\r\nAuth-Token: wrong\r\n"
                          b"Connection: close\r\n\r\n")
                data = s.recv(64)
                got: int | str = int(data[9:12]) if data.startswith(b"HTTP/1.1 ") else "drop"
        except OSError:
            got = "connect failed"
        with lock:
            out[got] += 1

    def worker(start: int) -> None:
        for i in range(start, flood, 4):
            one(i)

    threads = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    for label, token in (("right", TOKEN), ("wrong", "still-wrong")):
        with socket.create_connection((HOST, srv.port), timeout=5, source_address=("127.250.0.1", 0)) as s:
            s.sendall(f"GET /address/datasets/v1 HTTP/1.1\r\nHost: x\r\nAuth-Token: {token}\r\n"
                      "Connection: close\r\n\r\n".encode())
            data = s.recv(64)
            out[f"newcomer {label} token: {data[9:12].decode()}"] += 1
    return 21 + flood + 2, out


def host_and_location(srv: Server) -> tuple[int, Counter[int | str]]:
    """50 searches with `Host: evil.example` (answers: format URLs naming evil.example / not) and 10 searches with a
    1 MB `location` (answers: the size of the 400 body)."""
    out: Counter[int | str] = Counter()
    body = json.dumps(SEARCH).encode()
    for _ in range(50):
        status, data = call("POST", srv.port, "/address/search/v1", body,
                            {"Content-Type": "application/json", "Host": "evil.example"})
        if status != 200:
            out[status] += 1
            continue
        urls = [sug.get("format") or sug.get("stepin") or "" for sug in json.loads(data)["result"]["suggestions"]]
        if not any(urls):
            out["no url in the answer"] += 1
        else:
            out["url names evil.example" if any("evil.example" in u for u in urls) else "url is the server's"] += 1
    bad = json.dumps({**SEARCH, "location": "9" * 1_000_000}).encode()
    for _ in range(10):
        status, data = call("POST", srv.port, "/address/search/v1", bad, {"Content-Type": "application/json"},
                            timeout=30)
        out[f"{status} body {len(data) // 1024} KB" if len(data) >= 1024 else f"{status} body {len(data)} B"] += 1
    return 60, out


def csv_formulas(srv: Server) -> tuple[int, Counter[int | str]]:
    """Not the server: `dqkit verify` (the one next to --dqkit) on 1,000 leads whose note holds "web form\\r=cmd|..."
    or "-1-1". Answers: rows read back from the output CSV and cells (or lines in a cell) that start a live
    formula."""
    import csv

    with tempfile.TemporaryDirectory() as tmp:
        src, dst = Path(tmp) / "in.csv", Path(tmp) / "out.csv"
        with src.open("w", newline="") as fh:
            w = csv.writer(fh, lineterminator="\r\n")
            w.writerow(["first_name", "last_name", "zip", "note"])
            for i in range(1000):
                w.writerow(["Maria", "Garcia", "20500", "web form\r=cmd|' /C calc'!A0" if i % 2 else "-1-1"])
        exe = Path(srv.proc.args[0]) if isinstance(srv.proc.args, list) else Path("dqkit")
        subprocess.run([str(exe), "verify", str(src), "-o", str(dst), "--quiet", "--no-cache"], check=True,
                       capture_output=True, timeout=300)
        with dst.open(newline="") as fh:
            rows = list(csv.reader(fh))
    live = 0
    for row in rows[1:]:
        for cell in row:
            for line in cell.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
                if line[:1] in ("=", "+", "-", "@") and not line.lstrip("+-").replace(".", "", 1).isdigit():
                    live += 1
    out: Counter[int | str] = Counter({f"rows {len(rows) - 1}": 1, f"live formulas {live}": 1})
    return 1000, out


def cache_threads(srv: Server) -> tuple[int, Counter[int | str]]:
    """Not the server: the server's search cache (dqkit.engines.address.cache.BytesLRU, of the running
    interpreter) hammered by 4 threads, 600,000 operations. Answers: errors raised and byte count drift."""
    from dqkit.engines.address.cache import BytesLRU

    cache = BytesLRU(max_bytes=64)
    errors: Counter[int | str] = Counter()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)

    def work(seed: int) -> None:
        keys = [bytes([i]) for i in range(40)]
        for n in range(150_000):
            try:
                key = keys[(n * 7 + seed) % 40]
                if cache.get(key) is None:
                    cache.put(key, b"v")
            except Exception as exc:  # the failure being counted
                errors[type(exc).__name__] += 1

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    sys.setswitchinterval(interval)
    drift = cache.size - sum(len(k) + len(v) for k, v in cache._data.items())
    errors[f"size drift {drift}"] += 1
    return 600_000, errors


# ---- hostile reference files (issue 24 part 6): `dqkit reference add`, no server ----------------------------

REPO = Path(__file__).resolve().parent.parent
GIB = 1 << 30
sys.path.append(str(REPO / "tests" / "reference"))  # ref_layouts: the hostile-file writers the tests use


@dataclass
class ChildRun:
    """One `dqkit` child process: its exit code (negative: killed by that signal), wall and CPU seconds, peak RSS
    (from its own rusage, `os.wait4`) and what it wrote."""
    code: int
    wall: float
    cpu: float
    peak_mb: float
    stdout: str
    stderr: str

    @property
    def traceback(self) -> bool:
        return "Traceback" in self.stderr

    @property
    def message(self) -> str:
        """The first line of dqkit's error message (or "killed by signal N", or what it says it did)."""
        if self.code < 0:
            return f"killed by signal {-self.code}"
        if self.code == 0:  # `verify` ends its stderr with "wrote N rows"; a quiet `add` prints "installed" first
            said = [ln.strip() for ln in self.stderr.splitlines() if ln.strip()]
            return said[-1] if said else next((ln for ln in self.stdout.splitlines() if ln.strip()), "")
        lines = [ln for ln in self.stderr.splitlines() if ln.strip()]
        return next((ln for ln in lines if ln.startswith("dqkit")), lines[0] if lines else "")


def _child(cmd: list[str], env: dict[str, str], kill_when: Callable[[], bool] | None = None,
           timeout: float = 900.0) -> ChildRun:
    """Run `cmd` to its end; with `kill_when`, send it SIGKILL as soon as that holds (polled every 5 ms)."""
    import signal

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if (kill_when is not None and kill_when()) or time.perf_counter() - t0 > timeout:
                os.kill(proc.pid, signal.SIGKILL)
                kill_when = None
            time.sleep(0.005)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        text = []
        for f in (out, err):
            f.seek(0)
            text.append(f.read().decode(errors="replace"))
    return ChildRun(proc.returncode, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, *text)


def _zip_one_line(path: Path, size: int) -> Path:
    """An OpenAddresses zip bundle whose one CSV is the header and a line of `size` bytes 'a', streamed through
    the compressor 1 MiB at a time (deflate of one repeated byte: ~1,000-fold, so 2 GiB is ~2 MB)."""
    import zipfile

    from ref_layouts import OA_HEADER

    block = b"a" * (1 << 20)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf, \
            zf.open("us/ca/alameda.csv", "w", force_zip64=True) as f:
        f.write(OA_HEADER)
        for _ in range(size // len(block)):
            f.write(block)
    return path


def _zip_lying_line(path: Path, size: int) -> Path:
    """A zip of one CSV member, the header and a line of `size` bytes 'a', whose local and central headers declare it
    only twice its compressed size (so a check of the declared ratio passes): written by hand, 1 MiB at a time."""
    import struct
    import zlib

    from ref_layouts import OA_HEADER

    name, block = b"us/ca/alameda.csv", b"a" * (1 << 20)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    crc, packed = zlib.crc32(OA_HEADER), 0
    with open(path, "wb") as f:
        f.write(b"\0" * (30 + len(name)))  # the local header, written once the sizes are known
        for chunk in (OA_HEADER, *(block for _ in range(size // len(block)))):
            if chunk is not OA_HEADER:
                crc = zlib.crc32(chunk, crc)
            out = deflate.compress(chunk)
            f.write(out)
            packed += len(out)
        out = deflate.flush()
        f.write(out)
        packed += len(out)
        sizes = (crc, packed, 2 * packed)  # CRC and compressed size true, uncompressed size a lie
        central = f.tell()
        record = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, *sizes, len(name), 0, 0, 0, 0, 0, 0)
        f.write(record + name)
        f.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(record) + len(name), central, 0))
        f.seek(0)
        f.write(struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, *sizes, len(name), 0) + name)
    return path


def _newlines_file(path: Path, size: int) -> Path:
    """A plain CSV of the header and `size` bytes of newlines, streamed to disk 1 MiB at a time."""
    from ref_layouts import OA_HEADER

    block = b"\n" * (1 << 20)
    with open(path, "wb") as f:
        f.write(OA_HEADER)
        for _ in range(size // len(block)):
            f.write(block)
    return path


def _deep_geojson(path: Path, depth: int = 100_000) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"type":"Feature","properties":{"number":"1","street":"Main St"},"geometry":null}\n')
        f.write('{"type":"Feature","properties":{"number":"2","street":"Main St"},"geometry":'
                + "[" * depth + "]" * depth + "}\n")
    return path


def _addresses_csv(path: Path, rows: int) -> Path:
    """A real-looking OpenAddresses county CSV (Alameda, CA) of `rows` distinct addresses, streamed to disk."""
    from ref_layouts import OA_HEADER

    streets = ["CENTRE CT", "SANTA CLARA AV", "PARK ST", "OTIS DR", "BROADWAY", "LINCOLN AV", "ENCINAL AV"]
    with open(path, "w", encoding="utf-8") as f:
        f.write(OA_HEADER.decode())
        for i in range(rows):
            lon, lat = -122.29 + (i % 400) * 0.0001, 37.75 + (i // 400 % 400) * 0.0001
            f.write(f"{lon:.7f},{lat:.7f},{1 + i // len(streets)},{streets[i % len(streets)]},,ALAMEDA,,CA,"
                    f"94501,{i}\n")
    return path


def _written(paths: Iterator[Path]) -> bool:
    """Whether any of `paths` holds bytes yet (a file renamed away meanwhile does not count)."""
    for p in paths:
        with contextlib.suppress(OSError):
            if p.stat().st_size > 0:
                return True
    return False


def _leftovers(folder: Path) -> list[str]:
    """What an add or a write may leave in `folder`: hidden folders (staging, half-removed) and any `*.tmp` file,
    by name relative to `folder`."""
    if not folder.is_dir():
        return []
    out = [p.name + "/" for p in folder.iterdir() if p.name.startswith(".") and p.is_dir()]
    return sorted(out + [str(p.relative_to(folder)) for p in folder.rglob("*.tmp")])


def _ref_row(case: str, on_disk: str, before: str, run: ChildRun, left: list[str], work: Path) -> dict[str, Any]:
    return {"attack": "reference-files", "case": case, "file": on_disk, "before": before, "exit": run.code,
            "wall": run.wall, "cpu": run.cpu, "peak_mb": run.peak_mb, "traceback": run.traceback,
            "message": run.message.replace(f"{work}{os.sep}", "").replace(str(work), "TMP"), "left": left}


def _size(n: int) -> str:
    return f"{n / GIB:.0f} GiB" if n >= GIB else f"{n / (1 << 20):.0f} MiB" if n >= 1 << 20 else f"{n / 1024:.0f} KB"


def reference_files(dqkit: str, newlines_gib: int = 2, kill_rows: int = 300_000) -> list[dict[str, Any]]:
    """`dqkit reference add FILE` of each hostile file, run for real with its references folder and caches in a
    temporary folder; then a `kill -9` of an add and of an output write, and the next run after each."""
    from ref_layouts import gz_repeating

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-hostile-refs-") as tmp:
        work, refs = Path(tmp), Path(tmp) / "refs"
        env = {**os.environ, "DQKIT_REFERENCE_DIR": str(refs), "DQKIT_CACHE_DIR": str(work / "cache"),
               "XDG_CACHE_HOME": str(work / "cache"), "XDG_DATA_HOME": str(work / "data"), "DQKIT_PROGRESS": "0"}
        src = work / "us" / "ca"
        src.mkdir(parents=True)
        mib = b"a" * (1 << 20)
        files: list[tuple[str, Callable[[], Path], str]] = [
            ("zip: one 2 GiB line", lambda: _zip_one_line(work / "bundle.zip", 2 * GIB),
             "MemoryError traceback after 2.2 GB"),
            ("zip, lying header (says 2-fold): one 2 GiB line", lambda: _zip_lying_line(work / "liar.zip", 2 * GIB),
             "(not in the issue)"),
            (".gz: one 2 GiB line", lambda: gz_repeating(src / "line.csv.gz", mib, 2048),
             "MemoryError traceback after 2.2 GB"),
            (".gz: 2 GiB of newlines", lambda: gz_repeating(src / "newlines.csv.gz", b"\n" * (1 << 20), 2048),
             "ran for minutes"),
            (f".csv: {newlines_gib} GiB of newlines",
             lambda: _newlines_file(src / "plain_newlines.csv", newlines_gib * GIB), "ran for minutes"),
            (".gz: 2 GiB of 7-byte rows", lambda: gz_repeating(src / "short_rows.csv.gz", b"1,2,3,\n" * (1 << 18),
                                                               2048), "(not in the issue)"),
            ("GeoJSON line nested 100,000 deep", lambda: _deep_geojson(src / "deep.geojson"),
             "RecursionError traceback"),
        ]
        for case, make, before in files:
            path = make()
            run = _child([dqkit, "reference", "add", str(path), "--quiet"], env)
            rows.append(_ref_row(case, _size(path.stat().st_size), before, run, _leftovers(refs), work))
            path.unlink()

        # kill -9 while the add writes its part file, then the same add again (it resumes and sweeps)
        big = _addresses_csv(src / "alameda.csv", kill_rows)
        add = [dqkit, "reference", "add", str(big), "--quiet"]
        run = _child(add, env, kill_when=lambda: bool(list(refs.glob(".staging-*/parts/*.tmp"))))
        rows.append(_ref_row(f"kill -9 of an add ({kill_rows:,} rows) writing its part", _size(big.stat().st_size),
                             "", run, _leftovers(refs), work))
        run = _child(add, env)
        rows.append(_ref_row("  the same add again", "", "", run, _leftovers(refs), work))

        # kill -9 while `dqkit verify` writes its output, then the same command again
        leads, out = work / "leads.csv", work / "out" / "out.csv"
        out.parent.mkdir()
        with leads.open("w", encoding="utf-8") as f:
            f.write("first_name,last_name,zip,note\n")
            for i in range(2000):
                f.write(f"Maria,Garcia,20500,{i} {'x' * 50_000}\n")
        verify = [dqkit, "verify", str(leads), "-o", str(out), "--quiet", "--no-cache"]
        run = _child(verify, env, kill_when=lambda: _written(out.parent.glob("*.tmp")))
        rows.append(_ref_row("kill -9 of `dqkit verify` writing out.csv", _size(leads.stat().st_size),
                             "", run, _leftovers(out.parent), work))
        run = _child(verify, env)
        rows.append(_ref_row("  the same verify again", "", "the killed write's out.csv.*.tmp stays", run,
                             _leftovers(out.parent), work))
    return rows


def print_reference_files(rows: list[dict[str, Any]]) -> None:
    print(f"\n{'reference-files':<50} {'on disk':>8} {'exit':>5} {'wall s':>7} {'CPU s':>6} {'peak MB':>8} "
          f"{'tb':>3}  {'left behind':<14} message (first line)  [before the fix]")
    for r in rows:
        left = ", ".join(r["left"]) or "nothing"
        print(f"{r['case']:<50} {r['file']:>8} {r['exit']:>5} {r['wall']:>7.2f} {r['cpu']:>6.2f} "
              f"{r['peak_mb']:>8.0f} {'yes' if r['traceback'] else 'no':>3}  {left:<14} {r['message']}"
              + (f"  [{r['before']}]" if r["before"] else ""), flush=True)


# ---- issue 30: bulk batches, the shared rate store, workers, inputs ------------------------------------------

KEY_SECRET = "bench-hostile-key-secret-3f9e1c"  # the store attacks' servers need one (issue 30: keys are HMACs)


@contextlib.contextmanager
def redis_server() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A redis-server of its own on a free loopback port (no disk), stopped and continued by the store attacks."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", HOST, "--save", "", "--appendonly", "no",
                             "--enable-debug-command", "local"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=1):
                break
            time.sleep(0.05)
        yield f"redis://{HOST}:{port}/0", proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, 18)  # SIGCONT: a stopped Redis cannot be terminated
        proc.terminate()
        proc.wait(timeout=10)


def _timed_searches(srv: Server, n: int, threads: int = 4,
                    seconds: float = 45) -> tuple[list[float], Counter[int | str]]:
    """`n` searches from `threads` clients, each on its own connection; their latencies (ms) and statuses. Stops
    sending after `seconds` (a stalled server would otherwise keep the run for minutes)."""
    body = json.dumps(SEARCH).encode()
    times: list[float] = []
    out: Counter[int | str] = Counter()
    lock = threading.Lock()
    left = [n]
    end = time.monotonic() + seconds

    def client() -> None:
        while time.monotonic() < end:
            with lock:
                if left[0] <= 0:
                    return
                left[0] -= 1
            t = time.perf_counter()
            status, _ = call("POST", srv.port, "/address/search/v1", body, {"Content-Type": "application/json"},
                             timeout=30)
            with lock:
                times.append((time.perf_counter() - t) * 1000)
                out[status] += 1

    pool = [threading.Thread(target=client, daemon=True) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(timeout=seconds + 60)
    return times, out


def _latency(out: Counter[int | str], times: list[float], wall: float) -> None:
    s = sorted(times) or [float("nan")]
    out["p50_ms"] = int(s[len(s) // 2])
    out["p99_ms"] = int(p99(times))
    out["wall_ms"] = int(wall * 1000)


def _shared_again(srv: Server, url: str, limit: float = 30.0) -> float:
    """Seconds from now until a search increments a count in Redis again (the store is used again)."""
    import redis

    r = redis.Redis.from_url(url)

    def incrs() -> int:
        return sum(int(v.get("calls", 0)) for k, v in r.info("commandstats").items() if k.startswith("cmdstat_incr"))

    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        before = incrs()
        call("POST", srv.port, "/address/search/v1", json.dumps(SEARCH).encode(),
             {"Content-Type": "application/json"}, timeout=10)
        if incrs() > before:
            return time.monotonic() - t0
        time.sleep(0.1)
    return float("inf")


def store_stopped(srv: Server) -> tuple[int, Counter[int | str]]:
    """Redis (`--rate-store`) stopped with SIGSTOP: 300 searches from 4 clients (latency p50/p99, wall time), then
    SIGCONT and the seconds until counts go to Redis again (`shared_ms`)."""
    url, proc = srv.context["redis"], srv.context["redis_proc"]
    os.kill(proc.pid, 19)  # SIGSTOP
    t0 = time.monotonic()
    try:
        times, out = _timed_searches(srv, 300)
    finally:
        wall = time.monotonic() - t0
        os.kill(proc.pid, 18)  # SIGCONT
    _latency(out, times, wall)
    out["shared_ms"] = int(_shared_again(srv, url) * 1000)
    return len(times), out


def store_slowed(srv: Server) -> tuple[int, Counter[int | str]]:
    """Redis slowed with `DEBUG SLEEP 0.5` sent over and over from another client while 300 searches run."""
    import redis

    url = srv.context["redis"]
    stop = threading.Event()

    def sleeper() -> None:
        r: Any = redis.Redis.from_url(url, socket_timeout=5)
        while not stop.is_set():
            with contextlib.suppress(Exception):
                r.execute_command("DEBUG", "SLEEP", "0.5")

    t = threading.Thread(target=sleeper, daemon=True)
    t.start()
    t0 = time.monotonic()
    try:
        times, out = _timed_searches(srv, 300)
    finally:
        wall = time.monotonic() - t0
        stop.set()
        t.join(timeout=10)
    _latency(out, times, wall)
    out["shared_ms"] = int(_shared_again(srv, url) * 1000)
    return len(times), out


def rate_file_locked(srv: Server) -> tuple[int, Counter[int | str]]:
    """The shared SQLite rate file (`--rate-store sqlite:PATH`) held under an exclusive lock by another process
    while 300 searches run."""
    import sqlite3

    path = Path(srv.context["tmp"]) / "rate.sqlite"
    holder = sqlite3.connect(path, isolation_level=None, timeout=30)
    holder.execute("BEGIN EXCLUSIVE")
    t0 = time.monotonic()
    try:
        times, out = _timed_searches(srv, 300)
    finally:
        wall = time.monotonic() - t0
        holder.execute("ROLLBACK")
        holder.close()
    _latency(out, times, wall)
    return len(times), out


def _workers_of(srv: Server) -> list[int]:
    import psutil

    return [p.pid for p in psutil.Process(srv.proc.pid).children()]


def worker_kill(srv: Server) -> tuple[int, Counter[int | str]]:
    """`--workers 2`: 4 clients send searches (own connection each) for 12 s; after 3 s one worker gets kill -9.
    The health columns say whether `/healthz` ever failed; `restart_ms`: until the server has 2 workers again."""
    body = json.dumps(SEARCH).encode()
    out: Counter[int | str] = Counter()
    lock = threading.Lock()
    end = time.monotonic() + 12

    def client() -> None:
        while time.monotonic() < end:
            status, _ = call("POST", srv.port, "/address/search/v1", body, {"Content-Type": "application/json"},
                             timeout=10)
            with lock:
                out[status] += 1

    pool = [threading.Thread(target=client, daemon=True) for _ in range(4)]
    for t in pool:
        t.start()
    time.sleep(3)
    victims = _workers_of(srv)
    killed = time.monotonic()
    if victims:
        os.kill(victims[0], 9)
    back = float("nan")
    while time.monotonic() < end + 20:
        kids = _workers_of(srv)
        if len(kids) >= 2 and victims[0] not in kids:
            status, text = call("GET", srv.port, "/healthz", timeout=5)
            if status == 200 and (b"workers_ready" not in text or b'"workers_ready":2' in text):
                back = time.monotonic() - killed
                break
        time.sleep(0.1)
    for t in pool:
        t.join(timeout=60)
    total = sum(v for v in out.values())
    failed = total - out.get(200, 0)
    out["failed_pct_x100"] = int(10000 * failed / max(1, total))
    out["restart_ms"] = int(back * 1000) if back == back else -1
    return total, out


def second_server(srv: Server) -> tuple[int, Counter[int | str]]:
    """A second `dqkit serve` (default --workers, another token) started on the busy port; then 20 searches with
    the first server's token on fresh connections ("401" = taken by the second server)."""
    env = {**os.environ, "DQKIT_SERVE_TOKENS": "the-second-servers-token"}
    cmd = [srv.context["dqkit"], "serve", "--host", HOST, "--port", str(srv.port)]
    second = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                              text=True, env=env)
    out: Counter[int | str] = Counter()
    try:
        try:
            _, stderr = second.communicate(timeout=20)
            out[f"second exit {second.returncode} {'in use' if 'already in use' in stderr.lower() else ''}"] = 1
        except subprocess.TimeoutExpired:
            out["second listening"] = 1
        for _ in range(20):
            status, _ = call("POST", srv.port, "/address/search/v1", json.dumps(SEARCH).encode(),
                             {"Content-Type": "application/json"}, timeout=10)
            out[status] += 1
    finally:
        if second.poll() is None:
            second.terminate()
            try:
                second.wait(timeout=10)
            except subprocess.TimeoutExpired:
                second.kill()
                second.wait()
    return 20, out


OTHER_TOKEN = "bench-hostile-other-tenant"


def _demo_texts(n: int) -> list[str]:
    import itertools

    from dqkit.datagen.demo_reference import generate

    return [f"{r[2]} {r[3]} {r[4]}".strip() + f", {r[5]} {r[7]} {r[8]}" for r in itertools.islice(generate(), n)]


def _bulk(port: int, method: str, path: str, token: str, body: Any = None,
          timeout: float = 60) -> tuple[int | str, Any]:
    data = json.dumps(body).encode() if body is not None else None
    status, raw = call(method, port, "/address/bulk/v1/batches" + path, data,
                       {"Auth-Token": token, "Content-Type": "application/json"}, timeout=timeout)
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, None


def _batch_body(texts: list[str]) -> dict[str, Any]:
    return {"addresses": [{"address": t} for t in texts], "defaults": {"country_iso": "USA"}}


def _du_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / (1 << 20)


def bulk_disk_fill(srv: Server) -> tuple[int, Counter[int | str]]:
    """One token loops create-then-stop with batches of 10,000 addresses of ~1,000 characters (10.2 MB) while
    another token's 500-address batch runs: up to 40 creates or 3 refusals in a row. Then the other batch's
    `other_done` (addresses answered, of 500, after at most 60 s more) and `kept_mb` (the bulk folder)."""
    port, folder = srv.port, Path(srv.context["tmp"]) / "bulk"
    status, body = _bulk(port, "POST", "", OTHER_TOKEN, _batch_body(_demo_texts(500)))
    other = body["result"]["batch_id"] if status == 200 else None
    if other:
        _bulk(port, "POST", f"/{other}/start", OTHER_TOKEN)
    big = _batch_body(["1 " + "x" * 998] * 10_000)
    out: Counter[int | str] = Counter()
    refused = sent = 0
    while sent < 40 and refused < 3:
        sent += 1
        status, body = _bulk(port, "POST", "", TOKEN, big, timeout=120)
        out[status] += 1
        if status == 200:
            refused = 0
            _bulk(port, "POST", f"/{body['result']['batch_id']}/stop", TOKEN)
        else:
            refused += 1
    out["kept_mb"] = int(_du_mb(folder))
    done = -1
    if other:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            status, body = _bulk(port, "GET", f"/{other}", OTHER_TOKEN)
            if status == 200:
                done = body["result"].get("records_processed", 0)
                if body["result"]["status"] in ("completed", "stopped"):
                    break
            time.sleep(0.5)
    out["other_done"] = done
    return sent, out


def bulk_bodies(srv: Server) -> tuple[int, Counter[int | str]]:
    """100 connections, one token: POST a batch announcing 16 MiB, send 4 MiB of it, hold for 5 s, close [the
    issue: 200 half-sent bodies]. The MB columns say what the server held."""
    head = (f"POST /address/bulk/v1/batches HTTP/1.1\r\nHost: x\r\nAuth-Token: {TOKEN}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {16 << 20}\r\n\r\n").encode()
    chunk = b" " * (1 << 20)
    socks: list[socket.socket] = []
    out: Counter[int | str] = Counter()
    for _ in range(100):
        try:
            s = socket.create_connection((HOST, srv.port), timeout=5)
            s.sendall(head)
            for _ in range(4):
                s.sendall(chunk)
            socks.append(s)
        except OSError:
            out["send failed"] += 1
    time.sleep(5)
    for s in socks:
        s.setblocking(False)
        try:
            data = s.recv(64)
            out[int(data[9:12]) if data.startswith(b"HTTP/1.1 ") else "closed"] += 1
        except BlockingIOError:
            out["held"] += 1
        except OSError:
            out["reset"] += 1
        s.close()
    return 100, out


def bulk_fairness(srv: Server) -> tuple[int, Counter[int | str]]:
    """Another token starts 3 batches of 10,000 addresses (30,000); then this token's batch of 10: `small_ms`, until
    it completed (at most 120 s), and `big_done`, the other token's addresses answered by then."""
    port = srv.port
    big_ids = []
    texts = _demo_texts(10_000)
    for _ in range(3):
        status, body = _bulk(port, "POST", "", OTHER_TOKEN, _batch_body(texts), timeout=120)
        if status == 200:
            big_ids.append(body["result"]["batch_id"])
            _bulk(port, "POST", f"/{big_ids[-1]}/start", OTHER_TOKEN)
    time.sleep(1)
    t0 = time.monotonic()
    status, body = _bulk(port, "POST", "", TOKEN, _batch_body(texts[:10]))
    small = body["result"]["batch_id"]
    _bulk(port, "POST", f"/{small}/start", TOKEN)
    out: Counter[int | str] = Counter()
    took = -1.0
    while time.monotonic() - t0 < 120:
        status, body = _bulk(port, "GET", f"/{small}", TOKEN)
        if status == 200 and body["result"]["status"] == "completed":
            took = time.monotonic() - t0
            break
        time.sleep(0.1)
    out["small_ms"] = int(took * 1000)
    out["big_done"] = sum(_bulk(port, "GET", f"/{i}", OTHER_TOKEN)[1]["result"]["records_processed"]
                          for i in big_ids)
    for i in big_ids:
        _bulk(port, "POST", f"/{i}/stop", OTHER_TOKEN)
    return 4, out


def input_numbers(srv: Server) -> tuple[int, Counter[int | str]]:
    """A bulk create with a 400-digit max_processing_time; a 5,000-digit Timeout-Seconds on validate, the bulk list
    and search; answers by status (was: 500 with a traceback)."""
    out: Counter[int | str] = Counter()
    body = _batch_body(["1 Main St, Springfield IL 62701"])
    body["defaults"]["max_processing_time"] = "9" * 400
    out[f"create:{_bulk(srv.port, 'POST', '', TOKEN, body)[0]}"] += 1
    search = json.dumps({"country_iso": "USA", "components": {"unspecified": ["1 main"]}}).encode()
    huge = {"Timeout-Seconds": "9" * 5000, "Content-Type": "application/json"}
    for name, method, path, data in (("validate", "POST", "/address/validate/v1", search),
                                     ("list", "GET", "/address/bulk/v1/batches", None),
                                     ("search", "POST", "/address/search/v1", search)):
        out[f"{name}:{call(method, srv.port, path, data, huge)[0]}"] += 1
    return 4, out


def layouts_note(srv: Server) -> tuple[int, Counter[int | str]]:
    """A format request naming 5 layouts of 540,000 characters: `note_bytes`, the X-Dqkit-Note it gets."""
    _, raw = call("POST", srv.port, "/address/search/v1",
                       json.dumps({"country_iso": "USA", "components": {"unspecified": ["10 hill"]}}).encode(),
                       {"Content-Type": "application/json"})
    key = json.loads(raw)["result"]["suggestions"][0]["global_address_key"]
    body = json.dumps({"layouts": [f"layout-{i}-" + "n" * 540_000 for i in range(5)]}).encode()
    conn = http.client.HTTPConnection(HOST, srv.port, timeout=60)
    out: Counter[int | str] = Counter()
    try:
        conn.request("POST", f"/address/format/v1/{key}", body=body,
                     headers={"Auth-Token": TOKEN, "Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        out[resp.status] += 1
        out["note_bytes"] = len(resp.getheader("x-dqkit-note") or "")
    except (OSError, http.client.HTTPException) as exc:
        out[type(exc).__name__] += 1
    finally:
        conn.close()
    return 1, out


def reference_name(srv: Server) -> tuple[int, Counter[int | str]]:
    """20 searches against a server whose index file is named `東京.dqidx` (the reference name goes into every
    answer's X-Dqkit-Reference header); answers by status."""
    out: Counter[int | str] = Counter()
    for _ in range(20):
        out[call("POST", srv.port, "/address/search/v1", json.dumps(SEARCH).encode(),
                 {"Content-Type": "application/json"})[0]] += 1
    return 20, out


def _named_index(tmp: Path) -> Path:
    out = tmp / "東京.dqidx"
    if not out.exists():
        subprocess.run([sys.executable, "-m", "dqkit.cli", "index", "build",
                        str(Path(__file__).resolve().parent.parent / "data" / "demo_reference.csv.gz"), "-o", str(out),
                        "--synthetic"], check=True, capture_output=True)
    return out


# ---- issue 30, no server: the files dqkit opens and writes ------------------------------------------------------


def _run_cli(dqkit: str, args: list[str], work: Path, timeout: float = 150,
             env: dict[str, str] | None = None) -> tuple[int, float, float, str]:
    """(exit code or -9 when killed at `timeout`, wall s, CPU s, last stderr line) of one dqkit command."""
    full = {**os.environ, "DQKIT_CACHE": "0", "DQKIT_PROGRESS": "0", "DQKIT_REFERENCE_DIR": str(work / "refs"),
            "XDG_DATA_HOME": str(work / "data"), "XDG_CACHE_HOME": str(work / "cache"), **(env or {})}
    t0 = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen([dqkit, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full,
                            cwd=work)
    try:
        _, err = proc.communicate(timeout=timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        code = -9
    wall = time.monotonic() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime - before.ru_utime - before.ru_stime
    lines = [x for x in err.splitlines() if x.strip()]
    last = ("TRACEBACK " if "Traceback" in err else "") + (lines[-1][:150] if lines else "")
    return code, wall, cpu, last


def _xlsx_bomb(path: Path, sheet_mb: int) -> Path:
    import zipfile

    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    assert ws is not None
    ws.append(["First Name", "Last Name", "Zip"])
    ws.append(["Maria", "Garcia", "20500"])
    seed = path.with_suffix(".seed.xlsx")
    wb.save(seed)
    row = b'<row r="3"><c r="A3" t="inlineStr"><is><t>x</t></is></c><c r="B3"><v>1</v></c></row>'
    with zipfile.ZipFile(seed) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename != "xl/worksheets/sheet1.xml":
                out.writestr(info, data)
                continue
            with out.open(info.filename, "w", force_zip64=True) as f:
                f.write(data.partition(b"<sheetData>")[0] + b"<sheetData>")
                block = row * 10_000
                for _ in range(sheet_mb * (1 << 20) // len(block)):
                    f.write(block)
                f.write(b"</sheetData></worksheet>")
    return path


def files_attacks(dqkit: str) -> list[dict[str, Any]]:
    """The files and inputs of issue 30 parts 5 to 7, each the real command of `--dqkit`, in a temporary folder:
    an .xlsx bomb, `--history` pointed at a folder, a FIFO, a device node and another program's database (what became
    of it), a locked history, a non-ASCII reference id, blank and world-writable key secrets, CSV cells behind
    invisible characters and .xlsx text cells."""
    import sqlite3

    rows: list[dict[str, Any]] = []

    def row(case: str, result: tuple[int, float, float, str], left: str = "") -> None:
        code, wall, cpu, last = result
        rows.append({"attack": "files", "case": case, "exit": code, "wall": wall, "cpu": cpu, "message": last,
                     "left": left})

    with tempfile.TemporaryDirectory(prefix="bench-hostile-files-") as tmp:
        work = Path(tmp)
        leads = work / "leads.csv"
        leads.write_text("First Name,Last Name,Street,City,State,Zip,Lead Source\n"
                         "Maria,Garcia,1600 Pennsylvania Ave NW,Washington,DC,20500,web\n")
        bomb = _xlsx_bomb(work / "bomb.xlsx", 256)
        r = _run_cli(dqkit, ["verify", str(bomb), "-o", str(work / "o.csv"), "--no-address"], work)
        row(f"xlsx bomb ({bomb.stat().st_size >> 10} KB, 256 MB of sheet XML)", r)
        folder = work / "hist-folder"
        folder.mkdir()
        fifo = work / "hist-fifo"
        os.mkfifo(fifo)
        targets = [("--history a folder", folder), ("--history a FIFO", fifo)]
        if os.geteuid() == 0:
            node = work / "hist-null-node"
            os.mknod(node, 0o666 | 0o020000, os.makedev(1, 3))  # a character device like /dev/null (never that one)
            targets.append(("--history a char device", node))
        other = work / "crm.sqlite"
        db = sqlite3.connect(other)
        db.executescript("CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT); "
                         "INSERT INTO contacts (name) VALUES ('x');")
        db.close()
        targets.append(("--history another program's database", other))
        for case, target in targets:
            digest = target.read_bytes() if target == other else b""
            for args in (["verify", str(leads), "-o", str(work / "o.csv"), "--no-address", "--history", str(target)],
                         ["history", "--history", str(target), "--drift"]):
                seen = {p.name for p in work.iterdir()}
                r = _run_cli(dqkit, args, work, timeout=60)
                moved = [p.name for p in work.iterdir()
                         if p.name.startswith(target.name + ".corrupt-") and p.name not in seen]
                changed = (target == other and other.exists() and other.read_bytes() != digest)
                left = ("renamed to " + moved[0]) if moved else ("modified" if changed else "untouched")
                row(f"{case}: {args[0]}", r, left)
        store = work / "locked.sqlite"
        _run_cli(dqkit, ["verify", str(leads), "-o", str(work / "o.csv"), "--no-address", "--history", str(store)],
                 work)
        holder = sqlite3.connect(store, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        r = _run_cli(dqkit, ["verify", str(leads), "-o", str(work / "o2.csv"), "--no-address", "--history",
                             str(store)], work, timeout=90)
        holder.execute("ROLLBACK")
        holder.close()
        row("--history locked by another process (30 s wait)", r,
            "output written" if (work / "o2.csv").exists() else "no output")
        points = work / "points.csv"
        points.write_text("LON,LAT,NUMBER,STREET,UNIT,CITY,DISTRICT,REGION,POSTCODE,ID,HASH\n"
                          "-122.27,37.80,1,MAIN ST,,OAKLAND,,CA,94607,,\n")
        r = _run_cli(dqkit, ["reference", "add", str(points), "--id", "東京", "--country", "US", "--region", "CA"],
                     work)
        row("reference add --id 東京", r, ", ".join(p.name for p in (work / "refs").iterdir())
            if (work / "refs").exists() else "")
        for case, env in (("DQKIT_KEY_SECRET blank", {"DQKIT_KEY_SECRET": "   "}),):
            r = _run_cli(dqkit, ["serve", "--port", "0", "--demo", "--workers", "1"], work, timeout=15, env=env)
            row(case, r, "served (killed after 15 s)" if r[0] == -9 else "")
        secret = work / "secret"
        secret.write_text("a-secret-of-more-than-16-bytes")
        secret.chmod(0o666)
        r = _run_cli(dqkit, ["serve", "--port", "0", "--demo", "--workers", "1", "--key-secret-file", str(secret)],
                     work, timeout=15)
        row("world-writable --key-secret-file", r, "served (killed after 15 s)" if r[0] == -9 else "")
        invisible = [" ", "\u00a0", "\u200b", "\ufeff", "\x0b", "\x0c", "\u2028"]
        hostile = work / "hostile.csv"
        pd_rows = ["First Name,Last Name,Zip,Lead Source"] + [
            f'Maria,Garcia,20500,"{c}=cmd|\' /C calc\'!A0"' for c in invisible] + [
            'Maria,Garcia,20500,"=HYPERLINK(""http://example.com"")"', "Maria,Garcia,20500,+1 510 555 0100"]
        hostile.write_text("\n".join(pd_rows) + "\n", encoding="utf-8")
        r = _run_cli(dqkit, ["verify", str(hostile), "-o", str(work / "h.csv"), "--no-address"], work)
        import csv as csv_mod

        with open(work / "h.csv", newline="", encoding="utf-8") as f:
            live = sum(1 for x in csv_mod.DictReader(f) if not x["Lead Source"].startswith("'"))
        row(f"CSV: {len(invisible)} formulas behind invisible characters, 2 plain", r, f"{live} live formulas")
        r = _run_cli(dqkit, ["verify", str(hostile), "-o", str(work / "h.xlsx"), "--no-address"], work)
        from openpyxl import load_workbook

        ws = load_workbook(work / "h.xlsx").active
        cells = [c for line in ws.iter_rows(min_row=2) for c in line] if ws is not None else []
        quoted = sum(1 for c in cells if isinstance(c.value, str) and c.value.startswith("'"))
        formulas = sum(1 for c in cells if c.data_type == "f")
        row(".xlsx: the same 9 cells as text", r, f"{quoted} cells given a leading ', {formulas} formulas")
    return rows


def print_files(rows: list[dict[str, Any]]) -> None:
    print(f"{'case':<55} {'exit':>5} {'wall s':>7} {'CPU s':>7}  left / message")
    for r in rows:
        print(f"{r['case']:<55} {r['exit']:>5} {r['wall']:>7.2f} {r['cpu']:>7.2f}  {r['left']}  |  {r['message']}",
              flush=True)


ATTACKS: dict[str, Callable[[Server], tuple[int, Counter[int | str]]]] = {
    "parser-bomb": parser_bomb,
    "search-memory": search_memory,
    "slowloris": slowloris,
    "big-header": big_header,
    "nested-xml": nested_xml,
    "bad-input": bad_input,
    "reference-id": reference_id,
    "failed-auth": failed_auth,
    "mix": mix,
    "pipelined-header": pipelined_header,
    "public-bodies": public_bodies,
    "held-bodies": held_bodies,
    "malformed-bodies": malformed_bodies,
    "auth-lockout": auth_lockout,
    "host-location": host_and_location,
    "csv-formulas": csv_formulas,
    "cache-threads": cache_threads,
    "store-stopped": store_stopped,
    "store-slowed": store_slowed,
    "rate-file-locked": rate_file_locked,
    "worker-kill": worker_kill,
    "second-server": second_server,
    "bulk-disk-fill": bulk_disk_fill,
    "bulk-bodies": bulk_bodies,
    "bulk-fairness": bulk_fairness,
    "input-numbers": input_numbers,
    "layouts-note": layouts_note,
    "reference-name": reference_name,
    "throughput": throughput,
}
# Attacks that need no server: name -> its own table's rows.
LOCAL_ATTACKS = ("reference-files", "files")


def wait_idle(srv: Server, limit: float = 30.0) -> None:
    """Until the server used under 5% CPU over half a second, at most `limit` seconds."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        c0 = srv.cpu()
        time.sleep(0.5)
        if srv.cpu() - c0 < 0.025:
            return


def probe_window(srv: Server, seconds: float = 2.0) -> tuple[float, int]:
    """`/healthz` p99 (ms) and failed probes over `seconds`, one probe every 50 ms (before or after an attack)."""
    times: list[float] = []
    failed = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.perf_counter()
        status, _ = call("GET", srv.port, "/healthz", timeout=5)
        if status != 200:
            failed += 1
        times.append(5000.0 if status != 200 else (time.perf_counter() - t) * 1000)
        time.sleep(0.05)
    return p99(times), failed


# Server options an attack needs: answer URLs and `location` are only read when a reference is there to search.
# auth-lockout: a 10-minute window, so that its 66,000 failures land in one window on a slow machine.
SERVER_ARGS: dict[str, list[str]] = {
    "host-location": ["--demo"], "auth-lockout": ["--rate-window", "600"],
    "store-stopped": ["--demo", "--rate-limit", "100000", "--rate-store", "{redis}"],
    "store-slowed": ["--demo", "--rate-limit", "100000", "--rate-store", "{redis}"],
    "rate-file-locked": ["--demo", "--rate-limit", "100000", "--rate-store", "sqlite:{tmp}/rate.sqlite"],
    "worker-kill": ["--demo", "--workers", "2"],
    "second-server": ["--demo", "--workers", "2"],
    "bulk-disk-fill": ["--demo"], "bulk-bodies": ["--demo"], "bulk-fairness": ["--demo"], "input-numbers": ["--demo"],
    "layouts-note": ["--demo", "--max-body-bytes", str(8 << 20)], "reference-name": ["--index", "{index}"],
}
SERVER_ENV: dict[str, dict[str, str]] = {
    **{name: {"DQKIT_KEY_SECRET": KEY_SECRET} for name in ("store-stopped", "store-slowed", "rate-file-locked")},
    **{name: {"DQKIT_BULK_DIR": "{tmp}/bulk", "DQKIT_SERVE_TOKENS": f"{TOKEN},{OTHER_TOKEN}"}
       for name in ("bulk-disk-fill", "bulk-bodies", "bulk-fairness", "input-numbers")},
}
REDIS_ATTACKS = frozenset({"store-stopped", "store-slowed"})


def run_attack(name: str, dqkit: str, nofile: int, stack: str = "dqkit") -> dict[str, Any]:
    with contextlib.ExitStack() as setup:
        extra, env, context = list(SERVER_ARGS.get(name, [])), dict(SERVER_ENV.get(name, {})), {}
        if name in REDIS_ATTACKS:
            url, rproc = setup.enter_context(redis_server())
            extra = [a.replace("{redis}", url) for a in extra]
            context = {"redis": url, "redis_proc": rproc}
        if "{index}" in extra:
            tmp_index = setup.enter_context(tempfile.TemporaryDirectory(prefix="bench-hostile-index-"))
            extra = [a.replace("{index}", str(_named_index(Path(tmp_index)))) for a in extra]
        if "{tmp}" in " ".join(extra) or "{tmp}" in " ".join(env.values()):
            tmp = setup.enter_context(tempfile.TemporaryDirectory(prefix="bench-hostile-"))
            extra = [a.replace("{tmp}", tmp) for a in extra]
            env = {k: v.replace("{tmp}", tmp) for k, v in env.items()}
            context["tmp"] = tmp
        srv = setup.enter_context(server(dqkit, nofile, extra, stack, env))
        srv.context.update(context, dqkit=dqkit)
        wait_idle(srv, 10)
        tb0 = srv.tracebacks()
        rss_before = srv.rss_mb()
        health_before, _ = probe_window(srv)
        obs = Observers(srv)
        obs.peak_rss = srv.rss_mb()
        cpu0 = srv.cpu()
        obs.start()
        time.sleep(0.5)
        requests, answers = ATTACKS[name](srv)
        cpu_last = srv.cpu()
        time.sleep(0.5)
        obs.finish()
        wait_idle(srv)
        cpu_end = srv.cpu()
        health_after, after_fail = probe_window(srv)
        return {
            "attack": name, "requests": requests,
            "answers": " ".join(f"{k}:{v}" for k, v in sorted(answers.items(), key=lambda kv: str(kv[0]))),
            "cpu": cpu_end - cpu0, "after": cpu_end - cpu_last, "before_mb": rss_before, "peak": obs.peak_rss,
            "end": srv.rss_mb(), "health_before": health_before, "health": p99(obs.health),
            "health_fail": obs.health_fail, "health_after": health_after, "after_fail": after_fail,
            "legit": p99(obs.legit), "legit_fail": obs.legit_fail, "tracebacks": srv.tracebacks() - tb0,
        }


def main() -> int:
    default = str(Path(__file__).resolve().parent.parent / ".venv" / "bin" / "dqkit")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dqkit", default=default, help="the dqkit executable whose server is attacked")
    ap.add_argument("--only", default="", help="comma-separated attack names (default: all)")
    ap.add_argument("--nofile", type=int, default=1024, help="descriptor limit of the server (default 1024)")
    ap.add_argument("--stack", default="dqkit", choices=["dqkit", *_STACKS],
                    help="dqkit: `dqkit serve` from --dqkit; else the same app under stock uvicorn, hypercorn or "
                         "granian (installed where STACKS_PATH points, e.g. pip install --target DIR)")
    ap.add_argument("--newlines-gib", type=int, default=2,
                    help="reference-files: size of the plain file of newlines, in GiB (default 2; written to disk)")
    ap.add_argument("--json", type=Path, default=None, help="also write the rows as JSON here")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))  # this client's 1,000+ sockets
    names = [n for n in args.only.split(",") if n] or [n for n in (*ATTACKS, *LOCAL_ATTACKS) if n != "throughput"]
    unknown = [n for n in names if n not in ATTACKS and n not in LOCAL_ATTACKS]
    if unknown:
        ap.error(f"unknown attack {', '.join(unknown)}; known: {', '.join((*ATTACKS, *LOCAL_ATTACKS))}")
    rows = []
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    shown = args.dqkit if args.stack == "dqkit" else args.stack
    served = [n for n in names if n in ATTACKS]
    if served:
        print(f"server: {shown}; descriptor limit {args.nofile}; load average {load} at the start")
        header = (f"{'attack':<16} {'requests':>8} {'CPU s':>7} {'after':>6} {'MB before/peak/after':>21} "
                  f"{'health p99 ms before/during/after':>34} {'fail':>5} {'legit p99':>9} {'fail':>5} {'tb':>4}"
                  "  answers")
        print(header)
        for name in served:
            r = run_attack(name, args.dqkit, args.nofile, args.stack)
            rows.append(r)
            mb = f"{r['before_mb']:.0f}/{r['peak']:.0f}/{r['end']:.0f}"
            health = f"{r['health_before']:.0f}/{r['health']:.0f}/{r['health_after']:.0f}"
            print(f"{r['attack']:<16} {r['requests']:>8} {r['cpu']:>7.2f} {r['after']:>6.2f} {mb:>21} {health:>34} "
                  f"{r['health_fail']:>5} {r['legit']:>7.0f}ms {r['legit_fail']:>5} {r['tracebacks']:>4}  "
                  f"{r['answers']}",
                  flush=True)
    if "reference-files" in names:
        print(f"reference-files: {args.dqkit} reference add / verify, no server; load average {load} at the start")
        ref_rows = reference_files(args.dqkit, args.newlines_gib)
        print_reference_files(ref_rows)
        print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        rows += ref_rows
    if "files" in names:
        print(f"files: {args.dqkit} verify / history / reference add / serve, no server; load average "
              f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} at the start")
        file_rows = files_attacks(args.dqkit)
        print_files(file_rows)
        print(f"load average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        rows += file_rows
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
