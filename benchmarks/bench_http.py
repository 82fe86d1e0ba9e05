"""HTTP throughput of the lead client and autocomplete latency under load, against `dqkit serve` on loopback.

    .venv/bin/python benchmarks/bench_http.py [--requests 4000] [--concurrency 32] [--typists 50] [--seconds 20]
    .venv/bin/python benchmarks/bench_http.py --url http://127.0.0.1:8000 --token T   # an already running server

Part 1, throughput: the same lead POSTed `--requests` times with `--concurrency` requests in flight by
  (a) raw aiohttp (the ceiling), (b) raw httpx.AsyncClient with its own transport, and (c) dqkit's LeadClient
  batch (`verify_leads`) with the aiohttp transport (the default) and with httpx's own. Target: (c) >= 70% of (a).
Part 2, autocomplete: `--typists` simulated users each send a search for the next prefix of an address every
  100 ms for `--seconds` s (not waiting for answers, as a debounced widget would). Reported: p50/p99 of the
  server's own time (`Server-Timing`) and of the round trip seen by the client. Target: server p99 <= 25 ms.

The machine has 2 cores shared by server and client, so figures are noisy; each client runs after a warm-up.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp
import httpx

from dqkit.client import AddressClient, LeadClient
from dqkit.contract.address import SearchRequest
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.contract.lead_wire import encode_lead
from dqkit.server.testing import serve_process

LEAD = LeadRequest(first_name="Maria", last_name="Lopez", street1="1600 Main St", city="Springfield", state="IL",
                   zip="62701", phones=(Phone(phone_type="H", phone_number="2175550134"),), cust_ref_no="bench")
TOKEN = "bench-token"


async def _pool(n: int, concurrency: int, one: Callable[[], Awaitable[None]]) -> float:
    left = n

    async def worker() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            await one()

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - start


async def raw_aiohttp(url: str, token: str | None, n: int, concurrency: int) -> float:
    body, ctype = encode_lead(LEAD, "json")
    headers = {"content-type": ctype, **({"auth-token": token} if token else {})}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency)) as session:
        async def one() -> None:
            async with session.post(url + "/search", data=body, headers=headers) as r:
                await r.read()
                assert r.status == 200, r.status

        await _pool(200, concurrency, one)
        return await _pool(n, concurrency, one)


async def raw_httpx(url: str, token: str | None, n: int, concurrency: int) -> float:
    body, ctype = encode_lead(LEAD, "json")
    headers = {"content-type": ctype, **({"auth-token": token} if token else {})}
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits) as client:
        async def one() -> None:
            r = await client.post(url + "/search", content=body, headers=headers)
            assert r.status_code == 200, r.status_code

        await _pool(200, concurrency, one)
        return await _pool(n, concurrency, one)


def dqkit_batch(url: str, token: str | None, n: int, concurrency: int, transport: str) -> float:
    with LeadClient(url, token=token, max_concurrency=concurrency, transport=transport) as client:
        client.verify_leads([LEAD] * 200)
        start = time.perf_counter()
        items = client.verify_leads([LEAD] * n)
        elapsed = time.perf_counter() - start
    bad = [i for i in items if not i.ok]
    assert not bad and len(items) == n, bad[:3]
    return elapsed


def _pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def typist_targets(url: str, token: str | None, count: int) -> list[str]:
    """Address texts to type, taken from the server's own index (whatever reference it holds)."""
    texts: list[str] = []
    with AddressClient(url, token=token) as client:
        for number in range(1, 40):
            for letter in "MSOWECPNBR":
                result = client.search(SearchRequest.of(f"{number} {letter}", max_suggestions=25))
                texts += [s.text for s in result.result.suggestions if s.text]
            if len(set(texts)) >= count:
                break
    unique = list(dict.fromkeys(texts)) or ["1 Main St"]
    return [unique[i % len(unique)] for i in range(count)]


async def autocomplete(url: str, token: str | None, typists: int, seconds: float) -> dict[str, float]:
    targets = typist_targets(url, token, typists * 8)
    headers = {"content-type": "application/json", **({"auth-token": token} if token else {})}
    server_ms: list[float] = []
    client_ms: list[float] = []
    errors = 0
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=typists * 4)) as session:
        async def keystroke(text: str) -> None:
            nonlocal errors
            body = json.dumps({"country_iso": "USA", "components": {"unspecified": [text]}}).encode()
            t0 = time.perf_counter()
            try:
                async with session.post(url + "/address/search/v1", data=body, headers=headers) as r:
                    await r.read()
                    client_ms.append((time.perf_counter() - t0) * 1000)
                    timing = r.headers.get("server-timing", "")
                    if r.status != 200:
                        errors += 1
                    if "dur=" in timing:
                        server_ms.append(float(timing.split("dur=", 1)[1].split(";", 1)[0]))
            except aiohttp.ClientError:
                errors += 1

        async def typist(i: int) -> None:
            # Typist i types addresses i, i + typists, i + 2 * typists, ... one keystroke per tick.
            tasks: list[asyncio.Task[None]] = []
            start = time.perf_counter() + (i / typists) * 0.1  # typists start spread over one tick
            ticks = int(seconds / 0.1)
            n, typed = i, 0
            for k in range(ticks):
                delay = start + k * 0.1 - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                text = targets[n % len(targets)]
                typed += 1
                tasks.append(asyncio.create_task(keystroke(text[:typed])))
                if typed >= len(text):
                    n, typed = n + typists, 0
            await asyncio.gather(*tasks)

        t0 = time.perf_counter()
        await asyncio.gather(*(typist(i) for i in range(typists)))
        wall = time.perf_counter() - t0
    return {"requests": len(client_ms), "errors": errors, "rate": len(client_ms) / wall,
            "server_p50": _pct(server_ms, 50), "server_p99": _pct(server_ms, 99),
            "client_p50": _pct(client_ms, 50), "client_p99": _pct(client_ms, 99)}


@contextlib.contextmanager
def server(url: str | None, token: str | None) -> Iterator[tuple[str, str | None]]:
    if url:
        yield url.rstrip("/"), token
        return
    with serve_process(tokens=[TOKEN], extra_args=["--no-access-log", "--log-level", "warning"]) as served:
        yield served.url, TOKEN


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--requests", type=int, default=4000)
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--typists", type=int, default=50)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--url", default=None, help="benchmark this running server instead of starting one")
    ap.add_argument("--token", default=None)
    ap.add_argument("--skip-autocomplete", action="store_true")
    args = ap.parse_args()
    n, c = args.requests, args.concurrency
    with server(args.url, args.token) as (url, token):
        print(f"server {url}; {n} POST /search per client, {c} in flight; 2-core machine, noisy numbers\n")
        rows: list[tuple[str, float]] = []
        rows.append(("(a) raw aiohttp", asyncio.run(raw_aiohttp(url, token, n, c))))
        rows.append(("(b) raw httpx.AsyncClient", asyncio.run(raw_httpx(url, token, n, c))))
        rows.append(("(c) LeadClient.verify_leads, transport=aiohttp", dqkit_batch(url, token, n, c, "aiohttp")))
        rows.append(("(c') LeadClient.verify_leads, transport=httpx", dqkit_batch(url, token, n, c, "httpx")))
        ceiling = n / rows[0][1]
        print(f"{'client':<50} {'seconds':>8} {'req/s':>8} {'% of (a)':>9}")
        for name, secs in rows:
            rate = n / secs
            print(f"{name:<50} {secs:>8.2f} {rate:>8.0f} {100 * rate / ceiling:>8.0f}%")
        share = 100 * (n / rows[2][1]) / ceiling
        print(f"\ntarget (c) >= 70% of (a): {'met' if share >= 70 else 'NOT met'} ({share:.0f}%)")
        if not args.skip_autocomplete:
            r = asyncio.run(autocomplete(url, token, args.typists, args.seconds))
            print(f"\nautocomplete: {args.typists} typists x 10 keystrokes/s for {args.seconds:g} s -> "
                  f"{r['requests']:.0f} searches ({r['rate']:.0f}/s), {r['errors']:.0f} errors")
            print(f"{'latency (ms)':<28} {'p50':>8} {'p99':>8}")
            print(f"{'server (Server-Timing)':<28} {r['server_p50']:>8.2f} {r['server_p99']:>8.2f}")
            print(f"{'client round trip':<28} {r['client_p50']:>8.2f} {r['client_p99']:>8.2f}")
            print(f"target server p99 <= 25 ms: {'met' if r['server_p99'] <= 25 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
