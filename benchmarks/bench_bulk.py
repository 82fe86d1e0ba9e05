"""Bulk batches against one request per address, and what a running batch costs autocomplete, on `dqkit serve --demo`.

    .venv/bin/python benchmarks/bench_bulk.py [--addresses 10000] [--typed 200]

Part 1, throughput: the same `--addresses` real demo addresses validated (a) with `AddressClient.bulk` (batches of
  the vendor's `/address/bulk/v1/batches`, polled) and (b) with `AddressClient.validate_many` (one POST
  /address/validate/v1 per address, the client's default concurrency): the peer. Reported: addresses per second of
  each and their ratio, measured in the same run on the same server.
Part 2, not blocking: `--typed` autocomplete searches, one after another, first on an idle server, then while a
  batch of `--addresses` is processing; reported: median and p95 of the round trip of each.

The machine has 2 cores shared by server and client (and by other work: note `uptime`), so figures are noisy.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx

from dqkit.client import AddressClient
from dqkit.datagen.demo_reference import generate
from dqkit.server.testing import serve_process

TOKEN = "bench-token"


def demo_addresses(n: int) -> list[str]:
    return [f"{r[2]} {r[3]} {r[4]}".strip() + f", {r[5]} {r[7]} {r[8]}" for r in itertools.islice(generate(), n)]


def _typing(url: str, texts: list[str]) -> list[float]:
    out = []
    with httpx.Client(base_url=url, headers={"Auth-Token": TOKEN}, timeout=60) as c:
        for t in texts:
            start = time.perf_counter()
            r = c.post("/address/search/v1", json={"country_iso": "USA", "components": {"unspecified": [t]}})
            out.append((time.perf_counter() - start) * 1000)
            r.raise_for_status()
    return out


def _p(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--addresses", type=int, default=10_000)
    ap.add_argument("--typed", type=int, default=200)
    args = ap.parse_args(argv)
    texts = demo_addresses(args.addresses)
    # different texts idle and busy: the server keeps search answers, a repeated text would be a cache hit
    prefixes = [t.split(",")[0][: 6 + i % 10] for i, t in enumerate(demo_addresses(20_000 + 2 * args.typed))]
    typed_idle, typed_busy = prefixes[-2 * args.typed:-args.typed], prefixes[-args.typed:]
    print(f"load before: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as folder, \
            serve_process(tokens=[TOKEN], demo=True, env={"DQKIT_BULK_DIR": folder}) as server, \
            AddressClient(server.url, token=TOKEN) as client:
        client.validate_many(texts[:200])  # warm-up
        start = time.perf_counter()
        bulk = client.bulk(texts, poll_seconds=0.5)
        t_bulk = time.perf_counter() - start
        start = time.perf_counter()
        many = client.validate_many(texts)
        t_many = time.perf_counter() - start
        same = sum(b.confidence == m.result.result.confidence for b, m in zip(bulk, many, strict=True) if m.result)
        print(f"bulk:          {len(texts) / t_bulk:8.0f} addresses/s ({t_bulk:.1f} s)")
        print(f"validate_many: {len(texts) / t_many:8.0f} addresses/s ({t_many:.1f} s)   (the peer)")
        print(f"ratio bulk / validate_many: {t_many / t_bulk:.2f}; same confidence on {same} of {len(texts)}")
        idle = _typing(server.url, typed_idle)
        c = httpx.Client(base_url=server.url, headers={"Auth-Token": TOKEN}, timeout=60)
        batch = c.post("/address/bulk/v1/batches", json={"defaults": {"country_iso": "USA"},
                                                         "addresses": [{"address": t} for t in texts]}).json()
        batch_id = batch["result"]["batch_id"]
        c.post(f"/address/bulk/v1/batches/{batch_id}/start")
        busy = _typing(server.url, typed_busy)
        status = c.get(f"/address/bulk/v1/batches/{batch_id}").json()["result"]
        print(f"autocomplete idle:        median {statistics.median(idle):6.1f} ms  p95 {_p(idle, 0.95):6.1f} ms")
        print(f"autocomplete during bulk: median {statistics.median(busy):6.1f} ms  p95 {_p(busy, 0.95):6.1f} ms"
              f"  (batch {status['status']}, {status['records_processed']} done when typing ended)")
        c.close()
    print(f"load after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
