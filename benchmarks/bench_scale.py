"""State-sized references (issue 10, part 5): build, open, type-down and validate at 1M and 10M addresses.

    .venv/bin/python benchmarks/bench_scale.py                          # 1M and 10M (about 15 minutes)
    .venv/bin/python benchmarks/bench_scale.py --rows 200000 1000000    # quicker
    .venv/bin/python benchmarks/bench_scale.py --no-fts5                # skip the peer
    .venv/bin/python benchmarks/bench_scale.py --first-answer state_10000000.dqidx   # time to first answer

For each size: writes a SYNTHETIC OpenAddresses CSV with the state-sized demo generator
(`demo_reference.write_state`: real ZIP / city / state triples, ~85k made-up street names drawn with a Zipf law
so the vocabulary grows with the size as on real statewide data), builds the index from it with `build_index`
in a fresh subprocess (peak memory = that process's `ru_maxrss`), then in another fresh process opens it,
types ~300 addresses one keystroke at a time (every prefix of 3..30 characters, a tenth with a typo; the texts
are addresses of the index itself) and validates 2,000 full addresses, then half as many on made-up streets
(real number, suffix, city and ZIP) and half as many with one swap in the street part, each timed apart.
The named peer is a plain SQLite FTS5 table with a prefix index over the same CSV rows, built and queried with
exact prefixes in the same run (no typo tolerance, ranking or grouping: the floor a "plain" approach gives).

Timings are wall time in process, one core; on a shared machine they are pessimistic and noisy (the CPU-time
columns are steadier).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import os
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench_address import fts5_query, percentiles, timed_searches, typo

TARGETS = "targets at 10M: build <= 300 s, peak RSS <= 3,000 MB, open < 1,000 ms, p99 <= 5 ms, validate >= 2,000/s"


def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KB


def child_build(src: str, out: str) -> dict[str, Any]:
    """Build in this (fresh) process; its peak RSS is the build's."""
    from dqkit.engines.address_index import build_index

    base = _maxrss_mb()
    rep = build_index([src], out, country_iso2="US", synthetic=True)
    return {"build_s": rep.seconds, "peak_rss_mb": _maxrss_mb(), "base_rss_mb": base,
            "addresses": rep.addresses, "streets": rep.streets, "index_mb": rep.size_bytes / 1e6}


def _texts(idx_path: str, n: int, seed: int) -> list[str]:
    from dqkit.engines.address_index import ReferenceIndex

    ix = ReferenceIndex(idx_path)
    rng = random.Random(seed)
    out = []
    for a in rng.sample(range(ix.address_count), n):
        r = ix.address(a)
        s = r.street
        out.append(f"{r.line}, {s.city}, {s.region} {s.postcode}".lower())
    return out


SYLLABLES = ["bra", "ven", "tol", "mis", "quo", "dar", "fen", "lup", "ski", "rho", "zan", "pel", "gor", "tum"]


def _made_up(idx_path: str, n: int, seed: int) -> list[str]:
    """Addresses of the index with the street name replaced by a made-up one (the number, suffix, city and ZIP
    real): the precision case, which must end in Verified place."""
    from dqkit.engines.address_index import ReferenceIndex

    ix = ReferenceIndex(idx_path)
    rng = random.Random(seed)
    out = []
    for a in rng.sample(range(ix.address_count), n):
        r = ix.address(a)
        s = r.street
        name = "".join(rng.choice(SYLLABLES) for _ in range(3))
        street = " ".join(p for p in (s.predir, name, s.suffix, s.postdir) if p)
        out.append(f"{r.number} {street}, {s.city}, {s.region} {s.postcode}".lower())
    return out


def _timed_validate(eng: Any, texts: list[str]) -> tuple[float, float, list[str]]:
    """(per second wall, per second CPU, confidences) of validating `texts` one by one."""
    from dqkit.contract.address import SearchRequest

    vt, vc = time.perf_counter(), time.thread_time()
    got = [str(eng.validate(SearchRequest.of(x)).result.confidence) for x in texts]
    return len(texts) / (time.perf_counter() - vt), len(texts) / (time.thread_time() - vc), got


def _queries(full: list[str], seed: int) -> list[str]:
    rng = random.Random(seed)
    qs: list[str] = []
    for text in full:
        if rng.random() < 0.1:
            text = typo(text, rng)
        qs += [text[:k] for k in range(3, min(30, len(text)) + 1)]
    return qs


def _pcts(xs: list[float]) -> tuple[float, float]:
    return percentiles(xs)[:2]


def child_measure(idx_path: str, n_addr: int, n_val: int) -> dict[str, Any]:
    """Open, type, validate in this (fresh) process."""
    from dqkit.contract.address import SearchRequest
    from dqkit.engines.address import AddressEngine

    full = _texts(idx_path, n_addr, 11)  # before the timed open: its own index handle, dropped
    qs = _queries(full, 12)
    rss0 = _maxrss_mb()
    t = time.perf_counter()
    eng = AddressEngine.open(idx_path)
    open_ms = (time.perf_counter() - t) * 1e3
    t = time.perf_counter()
    eng.search(SearchRequest.of(qs[0]))
    first_ms = (time.perf_counter() - t) * 1e3
    lat, cpu = timed_searches(eng, qs)
    for text in full[:20]:  # warm-up: the first validate loads the ZIP tables
        eng.validate(SearchRequest.of(text))
    texts = (full * (n_val // len(full) + 1))[:n_val]
    vt, vc = time.perf_counter(), time.thread_time()
    verified = sum(eng.validate(SearchRequest.of(x)).result.confidence == "Verified match" for x in texts)
    val_s, val_cpu = time.perf_counter() - vt, time.thread_time() - vc
    # made-up streets (must end in Verified place) and one swap in the street part (must be found)
    n_kind = max(n_val // 2, 1)
    made = _made_up(idx_path, min(n_kind, n_addr), 13)
    made = (made * (n_kind // len(made) + 1))[:n_kind]
    rng = random.Random(14)
    typod = [typo(x, rng) for x in texts[:n_kind]]
    mu_s, mu_cpu, mu_got = _timed_validate(eng, made)
    ty_s, ty_cpu, ty_got = _timed_validate(eng, typod)
    # each once: addresses not validated above (other samples), so no answer of this process's caches is reused;
    # the repeated figures above cycle over n_addr addresses
    fresh = _texts(idx_path, n_addr, 15)
    fresh_typod = [typo(x, rng) for x in _texts(idx_path, n_addr, 16)]
    fresh_made = _made_up(idx_path, n_addr, 17)
    _, once_cpu, once_got = _timed_validate(eng, fresh)
    _, mu_once_cpu, mu_once_got = _timed_validate(eng, fresh_made)
    _, ty_once_cpu, ty_once_got = _timed_validate(eng, fresh_typod)
    p50, p99 = _pcts(lat)
    c50, c99 = _pcts(cpu)
    confident = ("Verified match", "Interaction required")
    return {"open_ms": open_ms, "first_query_ms": first_ms, "p50": p50, "p99": p99, "cpu_p50": c50,
            "cpu_p99": c99, "queries": len(qs), "validate_per_s": n_val / val_s,
            "validate_cpu_per_s": n_val / val_cpu, "verified": verified / n_val,
            "made_up_per_s": mu_s, "made_up_cpu_per_s": mu_cpu,
            "made_up_confident": sum(c in confident for c in mu_got) / len(mu_got),
            "typo_per_s": ty_s, "typo_cpu_per_s": ty_cpu,
            "typo_verified": sum(c == "Verified match" for c in ty_got) / len(ty_got),
            "once_cpu_per_s": once_cpu, "made_up_once_cpu_per_s": mu_once_cpu, "typo_once_cpu_per_s": ty_once_cpu,
            "once_verified": sum(c == "Verified match" for c in once_got) / len(once_got),
            "made_up_once_confident": sum(c in confident for c in mu_once_got) / len(mu_once_got),
            "typo_once_verified": sum(c == "Verified match" for c in ty_once_got) / len(ty_once_got),
            "rss_delta_mb": _maxrss_mb() - rss0}


def _csv_texts(src: str) -> Iterator[tuple[str]]:
    with io.TextIOWrapper(gzip.open(src, "rb"), encoding="utf-8", newline="") as f:
        rd = csv.reader(f)
        next(rd)
        for r in rd:
            yield (f"{r[2]} {r[3]} {r[4]} {r[5]} {r[7]} {r[8]}",)


def child_fts5(src: str, idx_path: str, db: str, n_addr: int) -> dict[str, Any]:
    """The peer: build a plain FTS5 table of the same rows and run the same keystrokes."""
    Path(db).unlink(missing_ok=True)
    t = time.perf_counter()
    con = sqlite3.connect(db)
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("CREATE VIRTUAL TABLE addr USING fts5(text, prefix='1 2 3')")
    con.executemany("INSERT INTO addr(text) VALUES (?)", _csv_texts(src))
    con.commit()
    con.execute("INSERT INTO addr(addr) VALUES('optimize')")
    con.commit()
    build_s = time.perf_counter() - t
    con.close()
    t = time.perf_counter()
    con = sqlite3.connect(db)
    con.execute("SELECT 1 FROM addr LIMIT 1").fetchall()
    open_ms = (time.perf_counter() - t) * 1e3
    qs = _queries(_texts(idx_path, n_addr, 11), 12)
    for q in qs[:200]:
        fts5_query(con, q)
    lat = []
    for q in qs:
        t0 = time.perf_counter()
        fts5_query(con, q)
        lat.append(time.perf_counter() - t0)
    p50, p99 = _pcts(lat)
    con.close()
    size = Path(db).stat().st_size
    Path(db).unlink()
    return {"build_s": build_s, "index_mb": size / 1e6, "open_ms": open_ms, "p50": p50, "p99": p99}


def _run_child(*args: str) -> dict[str, Any]:
    env = dict(os.environ)
    out = subprocess.run([sys.executable, __file__, "--child", *args], check=True, capture_output=True,
                         text=True, env=env)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _post(port: int, path: str, body: dict[str, Any] | bytes, content_type: str = "application/json") -> int:
    import http.client

    con = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        con.request("POST", path, body=data, headers={"content-type": content_type})
        resp = con.getresponse()
        resp.read()
        return resp.status
    finally:
        con.close()


def first_answers(idx: str, rounds: int) -> None:
    """Time-to-first-answer (issue 31, part 4): a cold `dqkit serve --index IDX` from its start to its first 200 to
    an address search and to a lead `/search`, and the widget's first suggestion in a fresh process (imports,
    `AddressAutocomplete` on the local engine over IDX, the first search), each a fresh process per round."""
    import socket

    text = _texts(idx, 1, 11)[0]
    prefix = text[: max(6, len(text) // 2)]
    from dqkit.contract.lead import LeadRequest
    from dqkit.contract.lead_wire import encode_lead

    street, _, rest = text.partition(", ")
    lead, lead_type = encode_lead(LeadRequest(full_name="Ann Lee", street1=street, zip=rest[-5:]), "json")
    rows: dict[str, list[tuple[float, float]]] = {"serve: first address search 200": [],
                                                  "serve: first lead /search 200 (after it)": [],
                                                  "widget: first suggestion, fresh process": []}
    loads = []
    for _ in range(rounds):
        loads.append(" ".join(f"{x:.2f}" for x in os.getloadavg()))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with tempfile.TemporaryDirectory() as bulk:
            env = {**os.environ, "DQKIT_BULK_DIR": bulk}
            cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            proc = subprocess.Popen([str(Path(sys.executable).with_name("dqkit")), "serve", "--index", idx, "--port",
                                     str(port), "--log-level", "warning", "--no-access-log"], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                while True:
                    try:
                        status = _post(port, "/address/search/v1", {"country_iso": "USA",
                                                                    "components": {"unspecified": [prefix]}})
                    except OSError:
                        status = 0
                    if status == 200:
                        break
                    if proc.poll() is not None or time.perf_counter() - t0 > 600:
                        raise SystemExit(f"dqkit serve did not answer (exit {proc.returncode}, status {status})")
                    time.sleep(0.02)
                t1 = time.perf_counter()
                assert _post(port, "/search", lead, lead_type) == 200
                t2 = time.perf_counter()
            finally:
                proc.terminate()
                proc.wait(timeout=60)
            cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
            total_cpu = cpu.ru_utime - cpu0.ru_utime + cpu.ru_stime - cpu0.ru_stime
            rows["serve: first address search 200"].append((t1 - t0, total_cpu))
            rows["serve: first lead /search 200 (after it)"].append((t2 - t1, float("nan")))
        code = ("import dqkit\nfrom dqkit.backends.local import LocalBackend\n"
                f"w = dqkit.AddressAutocomplete(LocalBackend(reference={idx!r}))\n"
                f"m = w.ask('search', text={prefix!r})\nassert m['ok'] and m['result'], m\n")
        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        rows["widget: first suggestion, fresh process"].append(
            (time.perf_counter() - t0, cpu.ru_utime - cpu0.ru_utime + cpu.ru_stime - cpu0.ru_stime))
    print(f"Time to first answer on {idx} ({rounds} rounds, load average per round: {' | '.join(loads)}); "
          "page cache as the machine left it\n")
    print("| what | wall s (median) | wall s (best) | CPU s (median, whole process) |")
    print("|---|---:|---:|---:|")
    import statistics

    for k, v in rows.items():
        cpu_med = statistics.median(c for _, c in v)
        print(f"| {k} | {statistics.median(w for w, _ in v):.3f} | {min(w for w, _ in v):.3f} | "
              f"{'' if cpu_med != cpu_med else f'{cpu_med:.2f}'} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    p.add_argument("--addresses", type=int, default=300, help="addresses typed (each gives ~27 queries)")
    p.add_argument("--validate", type=int, default=2000, help="addresses validated for the throughput")
    p.add_argument("--dir", help="keep the generated CSVs and indexes here (default: a temporary directory)")
    p.add_argument("--no-fts5", action="store_true", help="skip the FTS5 peer")
    p.add_argument("--first-answer", metavar="IDX",
                   help="only time the first answer of a cold dqkit serve and of the widget on this index")
    p.add_argument("--rounds", type=int, default=3, help="rounds of --first-answer")
    p.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.first_answer:
        first_answers(a.first_answer, a.rounds)
        return
    if a.child:
        kind, *rest = a.child
        res = {"build": lambda: child_build(rest[0], rest[1]),
               "measure": lambda: child_measure(rest[0], int(rest[1]), int(rest[2])),
               "fts5": lambda: child_fts5(rest[0], rest[1], rest[2], int(rest[3]))}[kind]()
        print(json.dumps(res))
        return
    from dqkit.datagen import demo_reference

    results: list[tuple[int, float, dict[str, Any], dict[str, Any], dict[str, Any] | None]] = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(a.dir or tmp)
        d.mkdir(parents=True, exist_ok=True)
        for rows in a.rows:
            src = d / f"state_{rows}.csv.gz"
            t = time.perf_counter()
            made = not src.exists()
            if made:
                demo_reference.write_state(src, rows)
            gen_s = time.perf_counter() - t
            idx = d / f"state_{rows}.dqidx"
            said = f"generated the CSV in {gen_s:.1f} s" if made else f"reusing {src}"
            print(f"[{rows:,}] {said}; building ...", file=sys.stderr, flush=True)
            b = _run_child("build", str(src), str(idx))
            print(f"[{rows:,}] built in {b['build_s']:.1f} s; measuring ...", file=sys.stderr, flush=True)
            m = _run_child("measure", str(idx), str(a.addresses), str(a.validate))
            f = None
            if not a.no_fts5:
                print(f"[{rows:,}] FTS5 peer ...", file=sys.stderr, flush=True)
                f = _run_child("fts5", str(src), str(idx), str(d / f"fts5_{rows}.sqlite"), str(a.addresses))
            results.append((rows, gen_s, b, m, f))
            if not a.dir:
                idx.unlink()
                src.unlink()

    print("\nState-sized references: SYNTHETIC demo addresses (demo_reference.write_state), build_index from a "
          "CSV.gz,\none core per process; measured on a shared machine, so timings are pessimistic and noisy.\n")
    hdr = ("rows", "streets", "build s", "peak RSS MB", "index MB", "open ms", "1st query ms",
           "p50 ms", "p99 ms", "CPU p50 ms", "CPU p99 ms", "validate/s", "val. CPU/s", "verified")
    print(" | ".join(f"{h:>12}" for h in ("engine", *hdr)))
    print("-" * (15 * (len(hdr) + 1)))
    for rows, _gen, b, m, f in results:
        print(" | ".join(f"{x:>12}" for x in (
            "dqkit", f"{rows:,}", f"{b['streets']:,}", f"{b['build_s']:.1f}", f"{b['peak_rss_mb']:,.0f}",
            f"{b['index_mb']:.0f}", f"{m['open_ms']:.2f}", f"{m['first_query_ms']:.1f}", f"{m['p50']:.3f}",
            f"{m['p99']:.3f}", f"{m['cpu_p50']:.3f}", f"{m['cpu_p99']:.3f}", f"{m['validate_per_s']:,.0f}",
            f"{m['validate_cpu_per_s']:,.0f}", f"{m['verified']:.1%}")))
        if f:
            print(" | ".join(f"{x:>12}" for x in (
                "plain FTS5", f"{rows:,}", "", f"{f['build_s']:.1f}", "", f"{f['index_mb']:.0f}",
                f"{f['open_ms']:.2f}", "", f"{f['p50']:.3f}", f"{f['p99']:.3f}", "", "", "", "", "")))
    print("\nvalidate by kind of query (per second wall / CPU; made-up streets must not be confident, typo'd ones "
          "found):")
    for rows, _gen, _b, m, _f in results:
        print(f"  {rows:>12,} rows: clean {m['validate_per_s']:,.0f} / {m['validate_cpu_per_s']:,.0f} "
              f"({m['verified']:.1%} Verified match); made-up street {m['made_up_per_s']:,.0f} / "
              f"{m['made_up_cpu_per_s']:,.0f} ({m['made_up_confident']:.2%} confident); one swap in the street "
              f"{m['typo_per_s']:,.0f} / {m['typo_cpu_per_s']:,.0f} ({m['typo_verified']:.1%} Verified match)")
        if "once_cpu_per_s" in m:
            print(f"  {'':>12}  each once (other addresses, CPU): clean {m['once_cpu_per_s']:,.0f}; made-up "
                  f"{m['made_up_once_cpu_per_s']:,.0f}; one swap {m['typo_once_cpu_per_s']:,.0f}")
    if len(results) >= 2:
        (r0, _, b0, m0, _), (r1, _, b1, m1, _) = results[0], results[-1]
        k = r1 / r0
        print(f"\ngrowth {r0:,} -> {r1:,} rows (x{k:.0f}): build x{b1['build_s'] / b0['build_s']:.1f}, "
              f"peak RSS x{b1['peak_rss_mb'] / b0['peak_rss_mb']:.1f}, index x{b1['index_mb'] / b0['index_mb']:.1f}"
              f", p99 x{m1['p99'] / m0['p99']:.1f}, validate/s x{m1['validate_per_s'] / m0['validate_per_s']:.2f} "
              f"(CPU x{m1['validate_cpu_per_s'] / m0['validate_cpu_per_s']:.2f})")
        per_row_s = (b1["build_s"] - b0["build_s"]) / (r1 - r0)
        per_row_mb = (b1["peak_rss_mb"] - b0["peak_rss_mb"]) / (r1 - r0)
        ca = 14_000_000
        ca_build = b1["build_s"] + per_row_s * (ca - r1)
        ca_rss = b1["peak_rss_mb"] + per_row_mb * (ca - r1)
        print(f"EXTRAPOLATED (linear from these two points, not measured) to California's ~14M points: build "
              f"{ca_build:.0f} s, peak RSS {ca_rss:,.0f} MB, "
              f"index {b1['index_mb'] * ca / r1:,.0f} MB")
    for rows, _gen, _b, m, f in results:
        if f:
            print(f"ratio dqkit / FTS5 at {rows:,}: p50 {m['p50'] / f['p50']:.2f}x, p99 {m['p99'] / f['p99']:.2f}x")
    print(TARGETS)
    print("wall times include waiting for a core on a shared machine; the CPU columns (thread time) do not")


if __name__ == "__main__":
    main()
