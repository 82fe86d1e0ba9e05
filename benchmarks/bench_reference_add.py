"""`dqkit reference add`: rows per second and install time, against the peer `dqkit index build` (build_index) on
the same input in the same run; and the cost of serving several installed references (one engine per reference,
what `LocalBackend()` does) against one index built from all the files (the alternative not taken).

    .venv/bin/python benchmarks/bench_reference_add.py [--scale 40]

Inputs: the shared OpenAddresses samples (../shared/data/openaddresses, or DQKIT_SHARED_DIR), and a larger file
made from them (`--scale` copies of alameda.csv with shifted house numbers) as CSV, .gz and inside a zip bundle,
plus the same rows as a NAD text release read with a state filter. Timed figures are noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import os
import random
import statistics
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("DQKIT_SHARED_DIR", REPO.parent / "shared")) / "data" / "openaddresses"
sys.path.insert(0, str(REPO / "tests" / "reference"))


def timed(fn: Callable[[], object], repeat: int = 3) -> float:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def scaled_rows(rows: list[dict[str, str]], copies: int) -> list[dict[str, str]]:
    out = []
    for k in range(copies):
        for r in rows:
            n = r["NUMBER"]
            out.append({**r, "NUMBER": f"{int(n) + 100000 * k}" if n.isdigit() else n, "ID": f"{r['ID']}-{k}"})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=40, help="copies of alameda.csv in the large input")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    if not SHARED.is_dir():
        print(f"needs {SHARED}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="dqkit-bench-ref-"))
    os.environ["DQKIT_REFERENCE_DIR"] = str(work / "refs")
    os.environ["DQKIT_PROGRESS"] = "0"
    from ref_layouts import NAD_HEADER, nad_text, oa_csv_text

    from dqkit import reference
    from dqkit.contract.address import SearchRequest
    from dqkit.engines.address import AddressEngine
    from dqkit.engines.address.references import ReferenceSet
    from dqkit.engines.address_index.build import build_index

    def load(name: str) -> list[dict[str, str]]:
        with open(SHARED / f"{name}.csv", newline="", encoding="utf-8") as f:
            return list(csv.DictReader(f))

    alameda = load("alameda")
    big_rows = scaled_rows(alameda, args.scale)
    big = work / "us" / "ca" / "big.csv"
    big.parent.mkdir(parents=True)
    big.write_text(oa_csv_text(big_rows), encoding="utf-8")
    big_gz = work / "us" / "ca" / "big_gz.csv.gz"
    big_gz.write_bytes(gzip.compress(big.read_bytes(), compresslevel=6))
    bundle = work / "bundle.zip"
    with zipfile.ZipFile(bundle, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(big, "us/ca/big.csv")
    nad = work / "NAD_r18.txt"
    nad.write_text(nad_text([("CA", "Alameda", big_rows), ("OR", "Washington", load("portland_metro"))]),
                   encoding="utf-8")
    assert NAD_HEADER

    cases: list[tuple[str, Path, int, dict[str, Any]]] = []
    for name in ("alameda", "santa_clara", "portland_metro"):
        region = "OR" if name == "portland_metro" else "CA"
        cases.append((f"{name}.csv", SHARED / f"{name}.csv", len(load(name)), {"region": region}))
    n_big = len(big_rows)
    cases += [(f"big.csv ({n_big:,} rows)", big, n_big, {}), ("big.csv.gz", big_gz, n_big, {}),
              ("bundle.zip (big.csv)", bundle, n_big, {}),
              ("NAD .txt, --state CA", nad, n_big, {"state": "CA"})]
    print(f"reference add vs build_index (the peer: `dqkit index build`), median of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores\n")
    print(f"{'input':<28} {'rows':>9} {'add s':>8} {'rows/s':>9} {'peer s':>8} {'peer rows/s':>11} {'ratio':>6}")
    for label, path, rows, opts in cases:
        peer_ok = path.suffix == ".csv" or path.name.endswith(".csv.gz")
        adds, peers = [], []
        for _ in range(args.repeat):  # interleaved, so that load on the machine hits both alike
            adds.append(timed(partial(reference.add, path, progress=False, id="bench", replace=True, **opts), 1))
            if peer_ok:
                peers.append(timed(partial(build_index, [path], work / "peer.dqidx", country_iso2="US"), 1))
        add_s = statistics.median(adds)
        if peers:
            peer = statistics.median(peers)
            tail = f"{peer:>8.2f} {rows / peer:>11,.0f} {add_s / peer:>6.2f}"
        else:
            tail = f"{'-':>8} {'-':>11} {'-':>6}"
        print(f"{label:<28} {rows:>9,} {add_s:>8.2f} {rows / add_s:>9,.0f} {tail}")
        reference.remove("bench")

    # Serving several references: one engine per reference (the choice) vs one index of all files.
    for name in ("alameda", "santa_clara", "portland_metro"):
        reference.add(SHARED / f"{name}.csv", region="OR" if name == "portland_metro" else "CA",
                      id=f"bench-{name}", progress=False)
    combined = work / "combined.dqidx"
    build_index([SHARED / f"{n}.csv" for n in ("alameda", "santa_clara", "portland_metro")], combined,
                country_iso2="US")
    rng = random.Random(5)
    sample = [r for r in rng.sample(alameda, 400) if r["STREET"]]
    texts = [f"{r['NUMBER']} {r['STREET']}, {r['CITY']} CA {r['POSTCODE']}" for r in sample]
    reqs = [SearchRequest.of(t) for t in texts]

    def rate(engine: object) -> float:
        validate = engine.validate  # type: ignore[attr-defined]
        validate(reqs[0])
        t = time.perf_counter()
        for r in reqs:
            validate(r)
        return len(reqs) / (time.perf_counter() - t)

    open_set = timed(lambda: reference.open_installed(), args.repeat)
    open_one = timed(lambda: AddressEngine.open(combined), args.repeat)
    set_rate = statistics.median(rate(reference.open_installed()) for _ in range(args.repeat))
    one_rate = statistics.median(rate(AddressEngine.open(combined)) for _ in range(args.repeat))
    assert isinstance(reference.open_installed(), ReferenceSet)
    print("\nthree installed references (Alameda, Santa Clara, Portland): validate of 400 real Alameda addresses")
    print(f"{'engine':<44} {'open ms':>8} {'validate/s':>11}")
    print(f"{'one engine per reference (ReferenceSet)':<44} {open_set * 1e3:>8.1f} {set_rate:>11,.0f}")
    print(f"{'peer: one index built from all three files':<44} {open_one * 1e3:>8.1f} {one_rate:>11,.0f}")
    print(f"ratio (set / one index): open {open_set / open_one:.2f}, validate {set_rate / one_rate:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
