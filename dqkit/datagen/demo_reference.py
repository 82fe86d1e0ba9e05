"""The demo address reference: SYNTHETIC address points on real ZIP / city / state triples and real street names.

Every ZIP, city and state comes from the bundled `zipcodes` package (USPS data); street names are among the most
common street names of the US (public facts, listed below); house numbers, units and coordinates are made up
with a fixed seed, so the same call always writes the same file. None of these addresses is claimed to exist.

    python -m dqkit.datagen.demo_reference [-n 60000] [-o data/demo_reference.csv.gz]
    python -m dqkit.datagen.demo_reference --state-sized -n 10000000 -o /tmp/demo_10m.csv.gz

The bundled `data/demo_reference.csv.gz` is this module's output with the defaults; `benchmarks/bench_address.py`
calls it with `-n 1000000`. Its few hundred street names are too few for a state: a 10-million-point reference
built from them would have a tiny vocabulary and make typo search look cheaper than it is on real data. The
`--state-sized` generator (`generate_state`, used by `benchmarks/bench_scale.py`) adds made-up street names built
from syllables, drawn with a Zipf law so that common names repeat across localities and rare ones appear once,
as on real statewide data; it is vectorized with numpy and streams its output, so 10 million rows take well
under a minute and little memory.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import math
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import numpy as np

DEFAULT_ROWS: Final = 60_000
DEFAULT_SEED: Final = 20240601
DEFAULT_OUT: Final = "data/demo_reference.csv.gz"
HEADER: Final = ("LON", "LAT", "NUMBER", "STREET", "UNIT", "CITY", "DISTRICT", "REGION", "POSTCODE", "ID")

# Common US street names (numbered, trees, people, places, landscape); ~ joins a two-word name.
STREET_NAMES: Final = tuple("""
MAIN PARK OAK PINE MAPLE CEDAR ELM WASHINGTON LAKE HILL WALNUT SPRING NORTH RIDGE CHURCH WILLOW MILL SUNSET
RAILROAD JACKSON CHERRY CENTER HIGHLAND JOHNSON FRANKLIN LINCOLN MADISON JEFFERSON ADAMS MEADOW DOGWOOD
HICKORY POPLAR SYCAMORE BIRCH ASH CHESTNUT LOCUST MAGNOLIA HOLLY LAUREL SPRUCE CYPRESS REDWOOD ASPEN
JUNIPER ACACIA ORCHARD VALLEY RIVER FOREST GROVE MEADOWBROOK LAKEVIEW HILLSIDE RIVERSIDE WOODLAND FAIRVIEW
PLEASANT PROSPECT UNION SCHOOL COLLEGE MARKET BRIDGE WATER FRONT HIGH BROAD STATE COURT KING QUEEN PRINCE
BROADWAY EUCLID EVERGREEN GREENWOOD WILDWOOD ROSEWOOD BRIARWOOD WESTWOOD EASTWOOD KENSINGTON WINDSOR
CAMBRIDGE OXFORD HAMPTON COLONIAL HERITAGE LIBERTY INDEPENDENCE PATRIOT MONROE HARRISON GRANT TAYLOR
WILSON CLEVELAND POLK PIERCE HAYES GARFIELD ARTHUR TYLER VAN_BUREN KENNEDY ROOSEVELT TRUMAN MCKINLEY
JOHNSTON MORGAN WALKER SMITH BROWN DAVIS MILLER MOORE CLARK LEWIS ROBINSON YOUNG ALLEN WRIGHT SCOTT GREEN
BAKER ADAMSON NELSON HILL CARTER MITCHELL ROBERTS TURNER PHILLIPS CAMPBELL PARKER EVANS EDWARDS COLLINS
STEWART MORRIS ROGERS REED COOK BELL MURPHY BAILEY COOPER RICHARDSON HOWARD WARD PETERSON GRAY JAMES
WATSON BROOKS KELLY SANDERS PRICE BENNETT WOOD BARNES ROSS HENDERSON COLEMAN JENKINS PERRY POWELL LONG
PATTERSON HUGHES FLORES BUTLER SIMMONS FOSTER BRYANT ALEXANDER RUSSELL GRIFFIN HAMILTON GRAHAM SULLIVAN
WALLACE WOODS COLE WEST JORDAN OWENS REYNOLDS FISHER ELLIS HARRIS MARSHALL DUNCAN SHERMAN CUSTER
SUMMIT CRESCENT CREEKSIDE BROOKSIDE STONEY FOX DEER EAGLE HAWK QUAIL CARDINAL ROBIN BLUEBIRD SPARROW
PHEASANT TURKEY BUFFALO BEAR WOLF ELK BEAVER OTTER HERON SWAN FALCON RAVEN DOVE LARK WREN
SUNNYSIDE SHADY CLEARVIEW BAYVIEW MOUNTAIN_VIEW SEAVIEW OCEAN BEACH HARBOR BAY SHORE ISLAND CANAL
MISSION PRESIDIO ALAMEDA CAMINO VISTA SIERRA MESA CANYON ARROYO PASEO PLAZA RANCHO LOMA MONTE DEL_MAR
BELMONT BEVERLY CHELSEA DEVON ESSEX GLENWOOD HAWTHORNE IVY JASMINE LILAC LAVENDER MARIGOLD ORCHID POPPY
PRIMROSE ROSE TULIP VIOLET DAISY CLOVER FERN HEATHER IRIS SAGE THISTLE BRAMBLE HOLLOW GLEN DALE BROOK
MEADOWLARK STONEBRIDGE FIELDSTONE COBBLESTONE OLD_MILL COUNTRY_CLUB GOLF_VIEW AIRPORT DEPOT STATION
INDUSTRIAL COMMERCE ENTERPRISE TECHNOLOGY RESEARCH UNIVERSITY ACADEMY SEMINARY HOSPITAL CEMETERY
""".replace("_", "~").split())
NUMBERED: Final = tuple(
    f"{n}{'TH' if 10 <= n % 100 <= 20 else {1: 'ST', 2: 'ND', 3: 'RD'}.get(n % 10, 'TH')}" for n in range(1, 61)
)
SUFFIXES: Final = (("ST", 26), ("AVE", 18), ("DR", 16), ("RD", 12), ("LN", 8), ("CT", 6), ("WAY", 5),
                   ("BLVD", 3), ("PL", 3), ("CIR", 2), ("TER", 2), ("PKWY", 1), ("TRL", 1), ("LOOP", 1))
DIRECTIONS: Final = ("N", "S", "E", "W")
UNIT_STYLES: Final = (("APT", "num", 45), ("UNIT", "num", 20), ("STE", "hundreds", 15), ("APT", "letter", 12),
                      ("#", "num", 8))


def _zip_pool(rng: random.Random, states: frozenset[str] | None = None) -> list[tuple[str, str, str, float, float]]:
    """(zip, city, state, lat, lng) of standard, active ZIPs in the 50 states and DC (or in `states`), shuffled
    by `rng`."""
    from dqkit.engines import zipdata

    out = []
    for z in sorted(zipdata.tables().by_zip.values(), key=lambda z: z.zip):
        if z.kind != "STANDARD" or not z.active or not z.lat or not z.lng or z.country != "US":
            continue
        if z.state in _NOT_STATES or (states is not None and z.state not in states):
            continue
        out.append((z.zip, z.city, z.state, float(z.lat), float(z.lng)))
    rng.shuffle(out)
    return out


_NOT_STATES: Final = frozenset({"AS", "GU", "MP", "PR", "VI", "FM", "MH", "PW", "AA", "AE", "AP"})


def state_shares() -> dict[str, int]:
    """Standard active ZIPs per state (50 states and DC): how `write_national` shares the points out."""
    from collections import Counter

    return dict(sorted(Counter(z[2] for z in _zip_pool(random.Random(0))).items()))


def _street_name(rng: random.Random) -> str:
    name = rng.choice(NUMBERED) if rng.random() < 0.18 else rng.choice(STREET_NAMES).replace("~", " ")
    suffix = rng.choices([s for s, _ in SUFFIXES], weights=[w for _, w in SUFFIXES])[0]
    predir = rng.choice(DIRECTIONS) + " " if rng.random() < 0.12 else ""
    postdir = " " + rng.choice(DIRECTIONS) if not predir and rng.random() < 0.03 else ""
    return f"{predir}{name} {suffix}{postdir}"


def _units(rng: random.Random) -> list[str]:
    desig, style = rng.choices([(d, s) for d, s, _ in UNIT_STYLES], weights=[w for *_, w in UNIT_STYLES])[0]
    return _unit_lines(desig, style, rng.randint(2, 40))


def _unit_lines(desig: str, style: str, n: int) -> list[str]:
    """The units of one building: `n` of them (12 at most when lettered), numbered in `style`."""
    if style == "letter":
        labels = [chr(ord("A") + i) for i in range(min(n, 12))]
    elif style == "hundreds":
        labels = [str(100 * f + k) for f in range(1, 4) for k in range(1, 1 + max(1, n // 3))]
    else:
        labels = [str(i) for i in range(1, n + 1)]
    return [f"{desig} {lab}" for lab in labels]


def generate(rows: int = DEFAULT_ROWS, seed: int = DEFAULT_SEED) -> Iterator[tuple[str, ...]]:
    """Yield OpenAddresses-format rows (HEADER order), exactly `rows` of them."""
    rng = random.Random(seed)
    zips = _zip_pool(rng)
    made = 0
    zi = 0
    while made < rows:
        zip5, city, state, lat0, lng0 = zips[zi % len(zips)]
        zi += 1
        used: set[str] = set()
        for _ in range(rng.randint(15, 70)):
            street = _street_name(rng)
            if street in used:
                continue
            used.add(street)
            heading = rng.uniform(0, math.pi)
            slat, slng = lat0 + rng.uniform(-0.03, 0.03), lng0 + rng.uniform(-0.03, 0.03)
            start = rng.choice((1, 2, 100, 101, 200, 400, 1000, 1200, 2400, 10000))
            step = rng.choice((2, 2, 4, 6, 10))
            count = max(1, min(160, int(rng.lognormvariate(2.9, 0.8))))
            for k in range(count):
                number = start + k * step + (1 if rng.random() < 0.5 and step > 2 else 0)
                num = str(number)
                if rng.random() < 0.01:
                    num += rng.choice("AB")
                d = k * 0.00012
                lat = round(slat + d * math.cos(heading), 7)
                lng = round(slng + d * math.sin(heading), 7)
                units = _units(rng) if rng.random() < 0.03 else [""]
                for unit in units:
                    made += 1
                    yield (f"{lng}", f"{lat}", num, street, unit, city, "", state, zip5, f"demo-{made}")
                    if made >= rows:
                        return


# Syllables of made-up street names (onset + middle + ending gives ~100k distinct words).
_ONSETS: Final = tuple("""
ASH BRAN CAL DAR EL FAIR GLEN HAR IVER JAS KEN LAN MAR NOR OAK PEN QUIN RAV SAL TAM UL VAL WEST YOR ZAN BEL
COR DUN EST FOR GAR HOL KIR LOR MEL NEW ORM PAR RED SHER TOR WIN ABER BRIS CHES DOR EVER FAL GRAN HAW KING
LEX MOR NOT PRES ROS STAN THOR WAL AL BAR CAM DEL
""".replace("\n", " ").split())
_MIDDLES: Final = ("", "", "", "A", "E", "I", "O", "EN", "ER", "IN", "AN", "OL", "AR", "ES", "IL", "ON",
                   "AM", "ING", "ET", "OW", "ELL", "ID", "UR", "AV", "EB", "IC", "OB", "UN", "AD", "EM")
_ENDINGS: Final = tuple("""
FORD TON WOOD FIELD DALE BROOK HURST LEY WICK MOOR GATE VIEW CREST RIDGE HAVEN SHIRE BURY MONT STEAD WORTH
LAND MERE WELL BANK BURN CLIFF COMBE DEN DOWN HAM HOLM HOPE LOW MOUTH NESS PORT SIDE STONE THORPE WATER
WAY YARD FORTH GROVE MEAD ROW SHAW BY
""".replace("\n", " ").split())
STATE_UNIT_RATE: Final = 0.03


def _made_up_names() -> list[str]:
    """Distinct made-up street words, in a fixed order (onset x middle x ending, de-duplicated)."""
    seen: dict[str, None] = {}
    for o in _ONSETS:
        for m in _MIDDLES:
            for e in _ENDINGS:
                seen.setdefault(o + m + e, None)
    return list(seen)


def generate_state(rows: int, seed: int = DEFAULT_SEED, *, chunk_streets: int = 4096, state: str = "") -> Iterator[str]:
    """Yield OpenAddresses CSV text (no header) of exactly `rows` SYNTHETIC points, in chunks of many lines.

    Localities are the real ZIP / city / state triples of `_zip_pool`, each with 15-70 streets; a street's name
    is a common US name (45%), a numbered street (12%) or a made-up name (43%, Zipf-distributed over ~100k
    words, sometimes two words); house numbers, units and coordinates as in `generate`. Deterministic for a
    given (rows, seed). `state`: that state's ZIPs only (ids then start with the state, `demo-ca-1`).
    """
    rng = np.random.default_rng(seed)
    zips = _zip_pool(random.Random(seed), frozenset({state}) if state else None)
    id_prefix = f"demo-{state.lower()}-" if state else "demo-"
    common = [n.replace("~", " ") for n in STREET_NAMES]
    made = _made_up_names()
    order = rng.permutation(len(made))
    made = [made[i] for i in order]
    zipf_w = 1.0 / np.arange(1, len(made) + 1) ** 1.05
    zipf_cdf = np.cumsum(zipf_w / zipf_w.sum())
    suffixes = [s for s, _ in SUFFIXES]
    suf_w = np.array([w for _, w in SUFFIXES], dtype=np.float64)
    suf_cdf = np.cumsum(suf_w / suf_w.sum())
    units_by_style = [("APT", "num"), ("UNIT", "num"), ("STE", "hundreds"), ("APT", "letter"), ("#", "num")]
    unit_w = np.array([w for *_, w in UNIT_STYLES], dtype=np.float64)
    unit_cdf = np.cumsum(unit_w / unit_w.sum())
    made_count = 0
    zi = 0
    while made_count < rows:
        # One batch of localities and their streets.
        n_loc = max(1, chunk_streets // 40)
        loc = [zips[(zi + k) % len(zips)] for k in range(n_loc)]
        zi += n_loc
        per_loc = rng.integers(15, 71, n_loc)
        n_st = int(per_loc.sum())
        st_loc = np.repeat(np.arange(n_loc), per_loc)
        kind = rng.random(n_st)
        pick_common = rng.integers(0, len(common), n_st)
        pick_num = rng.integers(0, len(NUMBERED), n_st)
        pick_made = np.searchsorted(zipf_cdf, rng.random(n_st)).clip(0, len(made) - 1)
        pick_made2 = rng.integers(0, len(common), n_st)
        two_words = rng.random(n_st) < 0.15
        suf = np.searchsorted(suf_cdf, rng.random(n_st)).clip(0, len(suffixes) - 1)
        dir_r = rng.random(n_st)
        dir_pick = rng.integers(0, 4, n_st)
        post_r = rng.random(n_st)
        heading = rng.uniform(0, math.pi, n_st)
        dlat = rng.uniform(-0.03, 0.03, n_st)
        dlng = rng.uniform(-0.03, 0.03, n_st)
        start = rng.choice(np.array([1, 2, 100, 101, 200, 400, 1000, 1200, 2400, 10000]), n_st)
        step = rng.choice(np.array([2, 2, 4, 6, 10]), n_st)
        count = np.clip(rng.lognormal(2.9, 0.8, n_st).astype(np.int64), 1, 160)
        lines: list[str] = []
        for s in range(n_st):
            if kind[s] < 0.45:
                name = common[pick_common[s]]
            elif kind[s] < 0.57:
                name = NUMBERED[pick_num[s]]
            else:
                name = made[pick_made[s]]
                if two_words[s]:
                    name = f"{name} {common[pick_made2[s]]}"
            predir = DIRECTIONS[dir_pick[s]] + " " if dir_r[s] < 0.12 else ""
            postdir = " " + DIRECTIONS[dir_pick[s]] if not predir and post_r[s] < 0.03 else ""
            street = f"{predir}{name} {suffixes[suf[s]]}{postdir}"
            zip5, city, state, lat0, lng0 = loc[st_loc[s]]
            c = int(count[s])
            k = np.arange(c)
            st_ = int(step[s])
            numbers = start[s] + k * st_ + ((rng.random(c) < 0.5) & (st_ > 2))
            letter = rng.random(c) < 0.01
            d = k * 0.00012
            lat = np.round(lat0 + dlat[s] + d * math.cos(heading[s]), 7).tolist()
            lng = np.round(lng0 + dlng[s] + d * math.sin(heading[s]), 7).tolist()
            with_units = np.flatnonzero(rng.random(c) < STATE_UNIT_RATE).tolist()
            tail = f",{city},,{state},{zip5},{id_prefix}"
            nums = [str(n) for n in numbers.tolist()]
            for j in np.flatnonzero(letter).tolist():
                nums[j] += "AB"[j % 2]
            unit_of: dict[int, list[str]] = {}
            for j in with_units:
                style = int(np.searchsorted(unit_cdf, rng.random()))
                desig, kind_ = units_by_style[min(style, len(units_by_style) - 1)]
                unit_of[j] = _unit_lines(desig, kind_, int(rng.integers(2, 41)))
            for j in range(c):
                for unit in unit_of.get(j, ("",)):
                    made_count += 1
                    lines.append(f"{lng[j]},{lat[j]},{nums[j]},{street},{unit}{tail}{made_count}\n")
                    if made_count >= rows:
                        yield "".join(lines)
                        return
        yield "".join(lines)


def write_state(path: str | Path, rows: int, seed: int = DEFAULT_SEED, state: str = "") -> Path:
    """Write `generate_state` rows as CSV, gzip (level 1: 10M rows are ~1 GB of text) when the name ends .gz."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    head = ",".join(HEADER) + "\n"
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as raw:
        out: Any = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=1) \
            if path.suffix == ".gz" else raw
        out.write(head.encode())
        for text in generate_state(rows, seed, state=state):
            out.write(text.encode())
        if out is not raw:
            out.close()
    tmp.replace(path)
    return path


def national_plan(rows: int) -> dict[str, int]:
    """Rows per state of a `rows`-point national reference, shared by the states' ZIP counts (exactly `rows`)."""
    shares = state_shares()
    total = sum(shares.values())
    plan = {st: rows * n // total for st, n in shares.items()}
    for st in sorted(shares, key=lambda x: -shares[x])[:rows - sum(plan.values())]:
        plan[st] += 1
    return {st: n for st, n in plan.items() if n}


def write_national(folder: str | Path, rows: int, seed: int = DEFAULT_SEED, *, workers: int = 1) -> list[Path]:
    """A SYNTHETIC national reference as OpenAddresses lays it out: `<folder>/us/<st>/statewide.csv.gz` for the
    50 states and DC, `rows` points shared by their ZIP counts, each state from `generate_state` with its own
    seed (so any state can be written again alone, identically). Returns the files, largest first."""
    folder = Path(folder)
    plan = national_plan(rows)
    jobs = [(folder / "us" / st.lower() / "statewide.csv.gz", n, seed + _state_seed(st), st)
            for st, n in sorted(plan.items(), key=lambda kv: -kv[1])]
    if workers > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(workers) as pool:
            pool.starmap(write_state, jobs)
    else:
        for job in jobs:
            write_state(*job)
    return [j[0] for j in jobs]


def _state_seed(state: str) -> int:
    return (ord(state[0]) - 64) * 100 + (ord(state[1]) - 64)


def write(path: str | Path, rows: int = DEFAULT_ROWS, seed: int = DEFAULT_SEED) -> Path:
    """Write the generated rows as a reproducible gzip CSV (fixed gzip mtime) or a plain CSV by extension."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(HEADER)
    w.writerows(generate(rows, seed))
    data = buf.getvalue().encode()
    if path.suffix == ".gz":
        with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0,
                                                    compresslevel=9) as gz:
            gz.write(data)
    else:
        path.write_bytes(data)
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("-n", "--rows", type=int, default=DEFAULT_ROWS)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("-o", "--out", default=DEFAULT_OUT)
    p.add_argument("--state-sized", action="store_true",
                   help="many distinct street names (for references of millions of points)")
    p.add_argument("--national", action="store_true",
                   help="one state-sized file per state under --out (a folder): us/<st>/statewide.csv.gz")
    p.add_argument("--workers", type=int, default=1, help="--national: files written at once")
    a = p.parse_args(argv)
    if a.national:
        for f in write_national(a.out, a.rows, a.seed, workers=a.workers):
            print(f)
        return 0
    print(write_state(a.out, a.rows, a.seed) if a.state_sized else write(a.out, a.rows, a.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
