"""Speed of the US address standardizer against usaddress-scourgify, on the same 10,000 strings, in one run.

Strings: the 1,513 real strings of usaddress' labeled.xml, then OpenAddresses points written the way people type
them (lower case, full suffix words, no commas, a city typo, no ZIP), fixed seed, up to 10,000 in all.

    .venv/bin/python benchmarks/bench_standardize.py [--n 10000] [--repeat 3] [--shared ../shared]

Timed, single core, best of `--repeat` passes:
  scourgify   scourgify.normalize_address_record(text)      parse + Publication 28 normalization
  usaddress   usaddress.tag(text)                            parse only (the model scourgify runs on)
  dqkit       dqkit.engines.usaddr.standardize(text)         parse + Pub 28 + last-line reconciliation
  dqkit+pts   the same with the OpenAddresses points loaded  + matching to address points
"Failures" are exceptions for the peers; for dqkit (which never raises) the answers where nothing of the
delivery line could be read (status 57 with an empty street) or 64 (internal error). The machine is shared and
has 2 cores: numbers are noisy.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import warnings
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from dqkit.engines import zipdata
from dqkit.engines.usaddr import InMemoryPoints, standardize
from dqkit.engines.usaddr.points import AddressPoint, read_points_csv
from dqkit.engines.usaddr.pub28 import SUFFIX_WORDS

REPO = Path(__file__).resolve().parent.parent
OA_FILES = {"alameda.csv": "CA", "santa_clara.csv": "CA", "portland_metro.csv": "OR"}


def labeled_strings(shared: Path) -> list[str]:
    root = ET.parse(shared / "data" / "usaddress" / "labeled.xml").getroot()
    return [" ".join(t.text or "" for t in s).strip() for s in root.iter("AddressString")]


def oa_points(shared: Path) -> list[AddressPoint]:
    pts: list[AddressPoint] = []
    for name, state in OA_FILES.items():
        pts.extend(read_points_csv(shared / "data" / "openaddresses" / name, state=state))
    return pts


def messy(p: AddressPoint, rng: random.Random) -> str:
    info = zipdata.zip_info(p.zip)
    city = p.city or (info.city if info else "")
    s = p.street
    full = rng.random() < 0.5
    suffix = SUFFIX_WORDS.get(s.suffix, s.suffix) if full and s.suffix else s.suffix
    line = " ".join(w for w in (p.number, s.predir, s.name, suffix, s.postdir) if w)
    if s.unit:
        line += f" Apt {s.unit}"
    kind = rng.randrange(5)
    if kind == 1 and len(city) > 4:
        i = rng.randrange(1, len(city) - 2)
        city = city[:i] + city[i + 1] + city[i] + city[i + 2 :]
    zip_part = "" if kind == 2 else f" {p.zip}"
    sep = " " if kind == 3 else ", "
    text = f"{line}{sep}{city}{sep}{p.state}{zip_part}"
    return text.lower() if rng.random() < 0.5 else text.title()


def strings(shared: Path, n: int) -> tuple[list[str], list[AddressPoint]]:
    rng = random.Random(20240611)
    out = labeled_strings(shared)
    pts = oa_points(shared)
    pool = [p for p in pts if p.zip and p.number]
    rng.shuffle(pool)
    out.extend(messy(p, rng) for p in pool[: max(0, n - len(out))])
    return out[:n], pts


def run(fn: Callable[[str], object], data: list[str], repeat: int) -> tuple[float, int]:
    best = float("inf")
    failures = 0
    for _ in range(repeat):
        failures = 0
        t = time.perf_counter()
        for s in data:
            try:
                fn(s)
            except Exception:
                failures += 1
        best = min(best, time.perf_counter() - t)
    return best, failures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--shared", type=Path, default=Path(os.environ.get("DQKIT_SHARED_DIR", REPO.parent / "shared")))
    args = ap.parse_args()
    if not (args.shared / "data").is_dir():
        sys.exit(f"needs the shared data at {args.shared}")
    warnings.filterwarnings("ignore")
    import usaddress
    from scourgify import normalize_address_record

    t = time.perf_counter()
    zipdata.tables()
    standardize("1 Main St, Springfield, IL 62701")
    load = time.perf_counter() - t
    data, pts = strings(args.shared, args.n)
    source = InMemoryPoints(pts)

    def dq(s: str) -> object:
        r = standardize(s)
        if not r.street or "64" in r.codes:  # nothing of the delivery line could be read (57), or a bug (64)
            raise ValueError(r.codes)
        return r

    def dq_pts(s: str) -> object:
        r = standardize(s, points=source)
        if not r.street or "64" in r.codes:
            raise ValueError(r.codes)
        return r

    rows = [
        ("scourgify normalize_address_record", *run(normalize_address_record, data, args.repeat)),
        ("usaddress tag (parse only)", *run(usaddress.tag, data, args.repeat)),
        ("dqkit standardize", *run(dq, data, args.repeat)),
        ("dqkit standardize + points", *run(dq_pts, data, args.repeat)),
    ]
    raised = sum(1 for s in data if _raises(standardize, s))
    answers = [standardize(s) for s in data]
    no_last_line = sum(1 for r in answers if r.street and "57" in r.codes)
    print(f"{len(data):,} strings ({len(labeled_strings(args.shared)):,} from labeled.xml); "
          f"ZIP tables loaded in {load:.2f} s; best of {args.repeat}")
    print(f"{'engine':<38}{'seconds':>9}{'addr/s':>10}{'failures':>10}{'fail %':>8}")
    for name, secs, fails in rows:
        print(f"{name:<38}{secs:>9.3f}{len(data) / secs:>10,.0f}{fails:>10,}{100 * fails / len(data):>8.1f}")
    base = rows[0][1]
    print(f"ratio dqkit / scourgify (rate): {base / rows[2][1]:.2f}x; with points: {base / rows[3][1]:.2f}x")
    print(f"dqkit exceptions: {raised}; delivery line standardized but status 57 (no house number or no last "
          f"line in the string): {no_last_line}")
    both = [s for s in data if _raises(normalize_address_record, s) and _raises(usaddress.tag, s)]
    useful = sum(1 for s in both if _useful(standardize(s)))
    print(f"strings both peers raise on: {len(both)}; dqkit gave a standardized address or a precise status "
          f"for {useful}")


def _raises(fn: Callable[[str], object], s: str) -> bool:
    try:
        fn(s)
    except Exception:
        return True
    return False


def _useful(r: object) -> bool:
    addr = getattr(r, "address", None)
    return addr is not None and bool(addr.address_error_status or addr.street1)


if __name__ == "__main__":
    main()
