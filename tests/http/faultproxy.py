"""A fault-injecting HTTP proxy for the client tests: it sits between a client and a real `dqkit serve`.

For each request a `plan(reference_id, nth_try)` names a fault or None:
    "500"        answer 500 with the vendor error body, without forwarding
    "503"        the same with 503
    "429"        answer 429 with Retry-After / X-Rate-Limit-Reset (see `retry_after`), without forwarding
    "400"        answer 400 (a client error that must not be retried)
    "drop"       close the connection without an answer, without forwarding
    "drop_after" forward (the server does the work), then close the connection without the answer
    "stall"      wait `stall_seconds`, then close without forwarding (the client's timeout should fire first)
    "delay"      wait `delay_seconds`, then forward as usual (a slow vendor: requests stay in flight)
It records, per Reference-Id, every request it received, every 200 it delivered and every answer of any status it
delivered (`answered`: what a vendor would bill), and every request body (`bodies`), so tests can prove that no
request was lost, none was sent again after its success, and what was sent.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web

Plan = Callable[[str, int], str | None]
_HOP_HEADERS = frozenset({"host", "content-length", "connection", "transfer-encoding", "keep-alive"})


def random_plan(rate: float, seed: int, kinds: tuple[str, ...] = ("500", "429", "drop", "drop_after", "stall",
                                                                  "503")) -> Plan:
    """Each request faults with probability `rate`, with a kind drawn uniformly; reproducible by `seed`."""
    rng = random.Random(seed)
    lock = threading.Lock()

    def plan(ref: str, nth: int) -> str | None:
        with lock:
            return rng.choice(kinds) if rng.random() < rate else None

    return plan


def script_plan(faults: list[str | None]) -> Plan:
    """The n-th try of every request gets faults[n-1] (None past the end)."""
    return lambda ref, nth: faults[nth - 1] if nth <= len(faults) else None


@dataclass
class FaultProxy:
    upstream: str
    plan: Plan = field(default=lambda ref, nth: None)
    stall_seconds: float = 3.0
    delay_seconds: float = 1.0
    retry_after: str = "0"
    received: Counter[str] = field(default_factory=Counter)
    delivered_ok: Counter[str] = field(default_factory=Counter)
    answered: Counter[str] = field(default_factory=Counter)
    bodies: list[bytes] = field(default_factory=list)
    sent_after_success: Counter[str] = field(default_factory=Counter)
    faults: Counter[str] = field(default_factory=Counter)
    paths: list[str] = field(default_factory=list)
    url: str = ""
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None
    _runner: web.AppRunner | None = None
    _session: aiohttp.ClientSession | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: asyncio.Event | None = None

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        ref = request.headers.get("Reference-Id", "")
        with self._lock:
            self.received[ref] += 1
            nth = self.received[ref]
            if self.delivered_ok[ref]:
                self.sent_after_success[ref] += 1
            self.paths.append(request.path_qs)
            self.bodies.append(body)
        fault = self.plan(ref, nth)
        if fault:
            with self._lock:
                self.faults[fault] += 1
        if fault in ("500", "503", "400"):
            status = int(fault)
            return web.json_response({"error": {"type": "injected", "title": "Injected", "detail": f"fault {fault}",
                                                "instance": request.path}}, status=status)
        if fault == "429":
            return web.json_response(
                {"error": {"type": "injected", "title": "Too Many Requests", "detail": "slow down",
                           "instance": request.path}}, status=429,
                headers={"Retry-After": self.retry_after, "X-Rate-Limit-Limit": "100",
                         "X-Rate-Limit-Remaining": "0", "X-Rate-Limit-Reset": str(int(time.time()) + 1)})
        if fault == "drop":
            return self._drop(request)
        if fault == "stall":
            await asyncio.sleep(self.stall_seconds)
            return self._drop(request)
        if fault == "delay":
            await asyncio.sleep(self.delay_seconds)
        headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP_HEADERS}
        assert self._session is not None
        async with self._session.request(request.method, self.upstream + request.path_qs, headers=headers,
                                         data=body or None) as upstream:
            data = await upstream.read()
            status = upstream.status
            out_headers = {k: v for k, v in upstream.headers.items() if k.lower() not in _HOP_HEADERS}
        if fault == "drop_after":
            return self._drop(request)
        with self._lock:  # counted before writing: the client may read the answer before write_eof returns
            if status == 200:
                self.delivered_ok[ref] += 1
            if status < 500 and status not in (401, 429):  # an answer (E-codes come with 400 / 403 too)
                self.answered[ref] += 1
        return web.Response(status=status, body=data, headers=out_headers)

    @staticmethod
    def _drop(request: web.Request) -> web.StreamResponse:
        if request.transport is not None:
            request.transport.close()
        raise asyncio.CancelledError()

    async def _main(self, started: threading.Event) -> None:
        self._stop = asyncio.Event()
        self._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=200))
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{port}"
        started.set()
        await self._stop.wait()
        await self._runner.cleanup()
        await self._session.close()

    def __enter__(self) -> FaultProxy:
        started = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._main(started),),
                                        daemon=True)
        self._thread.start()
        if not started.wait(10):
            raise RuntimeError("the fault proxy did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._loop is not None and self._stop is not None and self._thread is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(15)
        self._loop.close()
