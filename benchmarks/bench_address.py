"""Benchmark of the address engine (issue 4, "Speed"), with a plain SQLite FTS5 table timed in the same run.

    .venv/bin/python benchmarks/bench_address.py                 # 200,000 synthetic addresses (a minute or two)
    .venv/bin/python benchmarks/bench_address.py --rows 1000000  # the issue's size

Builds a reference of `--rows` addresses with the demo generator, then reports build time, index size, memory
after open, per-keystroke latency of type-down queries (every prefix of 3..30 characters of realistic address
texts, a tenth of them with a typo) and validate throughput. The FTS5 peer indexes the same addresses in one
FTS5 table with a prefix index and answers the same queries with exact prefixes only (no typo tolerance, no
ranking beyond bm25's default order, no grouping): the floor a "plain" approach gives. Latency is wall time of
one call in process, one core; the machine may be shared, so the numbers are noisy.
"""

from __future__ import annotations

import argparse
import gc
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from dqkit.contract.address import SearchRequest
from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine
from dqkit.engines.address_index import build_index
from dqkit.engines.address_index.tokens import tokens


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 1e6


def typo(text: str, rng: random.Random) -> str:
    """Swap two adjacent letters inside the street part (after the house number)."""
    i = rng.randrange(text.find(" ") + 2, max(text.find(" ") + 3, min(len(text) - 1, 20)))
    if i + 1 >= len(text) or not (text[i].isalpha() and text[i + 1].isalpha()):
        return text
    return text[:i] + text[i + 1] + text[i] + text[i + 2:]


def queries(rows: list[tuple[str, ...]], n_addresses: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """(type-down queries, full texts): every 3..30-character prefix of sampled addresses, typed lower case."""
    qs: list[str] = []
    full: list[str] = []
    for r in rng.sample(rows, n_addresses):
        text = f"{r[2]} {r[3]}{' ' + r[4] if r[4] else ''}, {r[5]}, {r[7]} {r[8]}".lower()
        full.append(text)
        if rng.random() < 0.1:
            text = typo(text, rng)
        qs += [text[:k] for k in range(3, min(30, len(text)) + 1)]
    return qs, full


def percentiles(xs: list[float]) -> tuple[float, float, float]:
    a = np.array(xs) * 1e3
    return float(np.percentile(a, 50)), float(np.percentile(a, 99)), float(a.mean())


def timed_searches(eng: AddressEngine, qs: list[str]) -> tuple[list[float], list[float]]:
    """(wall, CPU) seconds of each keystroke query, after 200 of them page in what queries touch."""
    for q in qs[:200]:
        eng.search(SearchRequest.of(q))
    lat: list[float] = []
    cpu: list[float] = []
    for q in qs:
        req = SearchRequest.of(q)
        t0, c0 = time.perf_counter(), time.thread_time()
        eng.search(req)
        lat.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    return lat, cpu


def fts5_build(csv_rows: list[tuple[str, ...]], path: Path) -> tuple[sqlite3.Connection, float]:
    t = time.perf_counter()
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("CREATE VIRTUAL TABLE addr USING fts5(text, prefix='1 2 3')")
    con.executemany("INSERT INTO addr(text) VALUES (?)",
                    ((f"{r[2]} {r[3]} {r[4]} {r[5]} {r[7]} {r[8]}",) for r in csv_rows))
    con.commit()
    con.execute("INSERT INTO addr(addr) VALUES('optimize')")
    con.commit()
    return con, time.perf_counter() - t


def fts5_query(con: sqlite3.Connection, text: str) -> list[str]:
    toks = tokens(text)
    if not toks:
        return []
    match = " ".join(f'"{t}"*' for t in toks)
    return [r[0] for r in con.execute("SELECT text FROM addr WHERE addr MATCH ? LIMIT 7", (match,))]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--addresses", type=int, default=300, help="addresses typed (each gives ~27 queries)")
    p.add_argument("--validate", type=int, default=2000, help="addresses validated for the throughput")
    p.add_argument("--dir", help="keep the files here (default: a temporary directory)")
    a = p.parse_args()
    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(a.dir or tmp)
        d.mkdir(parents=True, exist_ok=True)
        src = d / f"demo_{a.rows}.csv.gz"
        t = time.perf_counter()
        if not src.exists():
            demo_reference.write(src, rows=a.rows)
        gen_s = time.perf_counter() - t
        rows = list(demo_reference.generate(a.rows))
        idx = d / f"demo_{a.rows}.dqidx"
        rep = build_index([src], idx, country_iso2="US", synthetic=True)
        gc.collect()
        before = rss_mb()
        t = time.perf_counter()
        eng = AddressEngine.open(idx)
        open_ms = (time.perf_counter() - t) * 1e3
        qs, full = queries(rows, a.addresses, rng)
        lat, cpu = timed_searches(eng, qs)
        mem_after = rss_mb()
        for text in full[:20]:  # warm-up: the first validate loads the ZIP tables (a one-time cost per process)
            eng.validate(SearchRequest.of(text))
        vt = time.perf_counter()
        vc = time.thread_time()
        n_val = min(a.validate, len(full))
        verified = 0
        for text in (full * (n_val // len(full) + 1))[:n_val]:
            if eng.validate(SearchRequest.of(text)).result.confidence == "Verified match":
                verified += 1
        val_s = time.perf_counter() - vt
        val_cpu = time.thread_time() - vc

        fts_path = d / f"fts5_{a.rows}.sqlite"
        fts_path.unlink(missing_ok=True)
        con, fts_build = fts5_build(rows, fts_path)
        for q in qs[:200]:
            fts5_query(con, q)
        fts_lat: list[float] = []
        for q in qs:
            t0 = time.perf_counter()
            fts5_query(con, q)
            fts_lat.append(time.perf_counter() - t0)
        fts_size = fts_path.stat().st_size
        con.close()

    p50, p99, mean = percentiles(lat)
    c50, c99, _ = percentiles(cpu)
    f50, f99, fmean = percentiles(fts_lat)
    print(f"\nAddress engine benchmark: {a.rows:,} synthetic addresses ({rep.streets:,} streets), "
          f"{len(qs):,} type-down queries of 3-30 characters, one core")
    print(f"(generating the CSV took {gen_s:.1f} s; machine may be shared: numbers are noisy)\n")
    w = 44
    print(f"{'measure':<{w}} {'dqkit index':>14} {'plain FTS5':>14}")
    print("-" * (w + 30))
    print(f"{'build time (s)':<{w}} {rep.seconds:>14.1f} {fts_build:>14.1f}")
    print(f"{'index size on disk (MB)':<{w}} {rep.size_bytes / 1e6:>14.1f} {fts_size / 1e6:>14.1f}")
    print(f"{'open time (ms)':<{w}} {open_ms:>14.2f} {'':>14}")
    print(f"{'memory after open + queries (MB RSS delta)':<{w}} {mem_after - before:>14.1f} {'':>14}")
    print(f"{'per-keystroke p50 (ms)':<{w}} {p50:>14.3f} {f50:>14.3f}")
    print(f"{'per-keystroke p99 (ms)':<{w}} {p99:>14.3f} {f99:>14.3f}")
    print(f"{'per-keystroke mean (ms)':<{w}} {mean:>14.3f} {fmean:>14.3f}")
    print(f"{'per-keystroke CPU p50 / p99 (ms)':<{w}} {f'{c50:.3f} / {c99:.3f}':>14} {'':>14}")
    print(f"{'typo tolerance / ranking / grouping':<{w}} {'yes':>14} {'no':>14}")
    print(f"{'validate throughput (addresses/s, wall)':<{w}} {n_val / val_s:>14,.0f} {'':>14}")
    print(f"{'validate throughput (addresses/s, CPU)':<{w}} {n_val / val_cpu:>14,.0f} {'':>14}")
    print(f"{'validate: Verified match':<{w}} {verified / n_val:>14.1%} {'':>14}")
    print(f"\nratio dqkit / FTS5 latency: p50 {p50 / f50:.2f}x, p99 {p99 / f99:.2f}x "
          f"(targets: p50 <= 1 ms, p99 <= 5 ms, validate >= 2,000/s, build <= 60 s)")
    print(f"median of per-query ratio: {statistics.median(x / y for x, y in zip(lat, fts_lat, strict=True)):.2f}x")


if __name__ == "__main__":
    main()
