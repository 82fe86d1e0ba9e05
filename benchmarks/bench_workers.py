"""Requests per second of `dqkit serve` with 1 and with 2 workers, in one run (issue 21, part 2).

Each round starts `dqkit serve --workers 1` and then `--workers 2` (alternating over --rounds) on the real
OpenAddresses files of `../shared/data/openaddresses`, and drives it for --seconds with a light client: one
asyncio task per keep-alive connection (--connections), each sending prebuilt HTTP/1.1 requests one after the
other and reading only the status line, headers and Content-Length body (no HTTP library, so the client takes as
little of the shared CPU as it can). Requests: `POST /address/search/v1` (type-ahead) or
`POST /address/validate/v1` with addresses of those files as people type them ("1216 santa clara av alameda ca").
Every answer must be 200, else the round fails.

Reported: requests/s per round and the median, the ratio 2 workers / 1 worker, and the load average before and
after. The machine has 2 cores shared with the client (and maybe with other work): the ratio measured in the same
run is the figure to read.

    .venv/bin/python benchmarks/bench_workers.py [--seconds 15] [--rounds 2] [--connections 16] [--op validate]
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dqkit.server.testing import serve_process

SHARED = Path(os.environ.get("DQKIT_SHARED_DIR", Path(__file__).resolve().parent.parent.parent / "shared"))
OA_FILES = {"alameda.csv": "CA", "santa_clara.csv": "CA", "portland_metro.csv": "OR"}


def typed_addresses(shared: Path, n: int, seed: int = 21) -> list[str]:
    """Addresses of the OpenAddresses files as typed: lower case, number street city state ZIP."""
    out: list[str] = []
    for name, state in OA_FILES.items():
        with (shared / "data" / "openaddresses" / name).open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                if row["NUMBER"] and row["STREET"]:
                    out.append(f"{row['NUMBER']} {row['STREET']} {row['CITY']} {state} {row['POSTCODE']}".lower())
    random.Random(seed).shuffle(out)
    return out[:n]


def requests_bytes(texts: list[str], op: str) -> list[bytes]:
    out = []
    for text in texts:
        if op == "search":
            text = text.rsplit(" ", 3)[0][: max(6, len(text) // 2)]  # a prefix, as typed into an autocomplete
        body = json.dumps({"country_iso": "USA", "components": {"unspecified": [text]}}).encode()
        out.append(f"POST /address/{op}/v1 HTTP/1.1\r\nhost: bench\r\ncontent-type: application/json\r\n"
                   f"content-length: {len(body)}\r\n\r\n".encode() + body)
    return out


async def _connection(host: str, port: int, reqs: list[bytes], start: int, stop_at: float,
                      counts: list[int]) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    i = start
    try:
        while time.perf_counter() < stop_at:
            writer.write(reqs[i % len(reqs)])
            i += 1
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head[9:12])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            await reader.readexactly(length)
            if status != 200:
                raise RuntimeError(f"answer {status}: {head[:200]!r}")
            counts[0] += 1
    finally:
        writer.close()


async def drive(url: str, reqs: list[bytes], connections: int, seconds: float) -> float:
    """Requests per second over `seconds` with `connections` keep-alive connections."""
    host, port = url.split("://", 1)[1].rsplit(":", 1)
    warm = [0]
    await asyncio.gather(*(_connection(host, int(port), reqs, k * 97, time.perf_counter() + 1.0, warm)
                           for k in range(connections)))
    counts = [0]
    t = time.perf_counter()
    await asyncio.gather(*(_connection(host, int(port), reqs, k * 997, t + seconds, counts)
                           for k in range(connections)))
    return counts[0] / (time.perf_counter() - t)


def worker_cpu(pid: int) -> dict[int, float]:
    """CPU seconds (user + system) of the processes that serve: the server itself with one worker, else its
    forked workers."""
    tick = os.sysconf("SC_CLK_TCK")
    kids = [int(k) for t in Path(f"/proc/{pid}/task").iterdir()
            for k in (t / "children").read_text().split()]
    out = {}
    for p in kids or [pid]:
        with open(f"/proc/{p}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        out[p] = (int(fields[11]) + int(fields[12])) / tick
    return out


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--op", choices=("validate", "search"), default="validate")
    ap.add_argument("--shared", type=Path, default=SHARED)
    args = ap.parse_args(argv)
    if not (args.shared / "data" / "openaddresses").is_dir():
        print(f"needs the OpenAddresses files in {args.shared}/data/openaddresses (--shared)")
        return 2
    refs = [args.shared / "data" / "openaddresses" / name for name in OA_FILES]
    reqs = requests_bytes(typed_addresses(args.shared, 5000), args.op)
    results: dict[int, list[float]] = {1: [], 2: []}
    cpu: dict[int, list[list[float]]] = {1: [], 2: []}
    load_before = _load()
    for _ in range(args.rounds):
        for workers in (1, 2):
            with serve_process(references=refs, workers=workers, extra_args=["--no-access-log"]) as server:
                before = worker_cpu(server.process.pid)
                results[workers].append(asyncio.run(drive(server.url, reqs, args.connections, args.seconds)))
                after = worker_cpu(server.process.pid)
                cpu[workers].append([round(after[p] - before.get(p, 0.0), 1) for p in sorted(after)])
    med = {w: statistics.median(v) for w, v in results.items()}
    print(f"dqkit serve, POST /address/{args.op}/v1 with real OpenAddresses addresses, {args.connections} keep-alive "
          f"connections, {args.seconds:g} s per round, {args.rounds} rounds, {os.cpu_count()} cores "
          f"(load average before: {load_before}, after: {_load()})\n")
    print("| workers | requests/s per round | requests/s (median) | CPU s of each serving process per round |")
    print("|---:|---|---:|---|")
    for w in (1, 2):
        print(f"| {w} | {', '.join(f'{x:,.0f}' for x in results[w])} | {med[w]:,.0f} | {cpu[w]} |")
    print(f"\nratio 2 workers / 1 worker (medians): {med[2] / med[1]:.2f}x  (goal >= 1.6)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
