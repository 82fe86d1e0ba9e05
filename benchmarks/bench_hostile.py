"""Hostile clients against a real `dqkit serve` (issue 13): what each attack costs the server and its other users.

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
    peak MB       highest resident memory of the server; "end MB" the resident memory once idle again
    health p99    `/healthz` latency p99 during the attack (a probe that fails counts as 5000 ms), and failures
    legit p99     the legitimate client's latency p99 during the attack, and how many of its calls failed
    tracebacks    "Traceback" lines the server logged during the attack

Scaled down for a shared 2-core machine (the issue's sizes in brackets): 2 000 trickling sockets [20 000] against a
server limited to 1 024 descriptors; a 16 MB header and a 16 MB Auth-Token [64 MB, 50 MB]; 200 searches of 1 MB
[500]; 4 parser-bomb requests of ~400 KB [8 of 380 KB]; 4 clients of 1 MB nested XML for 8 s.

    .venv/bin/python benchmarks/bench_hostile.py [--dqkit PATH] [--only a,b] [--nofile 1024] [--stack NAME]

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

    def _tree(self) -> list[Any]:
        import psutil  # type: ignore[import-untyped]

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
from dqkit.server.runner import bind
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
def server(dqkit: str, nofile: int, extra: list[str], stack: str = "dqkit") -> Iterator[Server]:
    log = Path(tempfile.mkstemp(prefix="bench-hostile-", suffix=".log")[1])

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    env = {**os.environ, "DQKIT_SERVE_TOKENS": TOKEN}
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
    "throughput": throughput,
}


def wait_idle(srv: Server, limit: float = 30.0) -> None:
    """Until the server used under 5% CPU over half a second, at most `limit` seconds."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        c0 = srv.cpu()
        time.sleep(0.5)
        if srv.cpu() - c0 < 0.025:
            return


def run_attack(name: str, dqkit: str, nofile: int, stack: str = "dqkit") -> dict[str, Any]:
    with server(dqkit, nofile, [], stack) as srv:
        wait_idle(srv, 10)
        tb0 = srv.tracebacks()
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
        return {
            "attack": name, "requests": requests,
            "answers": " ".join(f"{k}:{v}" for k, v in sorted(answers.items(), key=lambda kv: str(kv[0]))),
            "cpu": cpu_end - cpu0, "after": cpu_end - cpu_last, "peak": obs.peak_rss, "end": srv.rss_mb(),
            "health": p99(obs.health), "health_fail": obs.health_fail, "legit": p99(obs.legit),
            "legit_fail": obs.legit_fail, "tracebacks": srv.tracebacks() - tb0,
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
    ap.add_argument("--json", type=Path, default=None, help="also write the rows as JSON here")
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n] or [n for n in ATTACKS if n != "throughput"]
    rows = []
    shown = args.dqkit if args.stack == "dqkit" else args.stack
    print(f"server: {shown}; descriptor limit {args.nofile}; measured under load (shared 2-core machine)")
    header = (f"{'attack':<14} {'requests':>8} {'CPU s':>7} {'after':>6} {'peak MB':>8} {'end MB':>7} "
              f"{'health p99':>10} {'fail':>5} {'legit p99':>9} {'fail':>5} {'tb':>4}  answers")
    print(header)
    for name in names:
        r = run_attack(name, args.dqkit, args.nofile, args.stack)
        rows.append(r)
        print(f"{r['attack']:<14} {r['requests']:>8} {r['cpu']:>7.2f} {r['after']:>6.2f} {r['peak']:>8.0f} "
              f"{r['end']:>7.0f} {r['health']:>8.0f}ms {r['health_fail']:>5} {r['legit']:>7.0f}ms "
              f"{r['legit_fail']:>5} {r['tracebacks']:>4}  {r['answers']}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
