"""Fixtures of the address engine tests: small references written by the tests themselves (US, CA, GB, laid out
as OpenAddresses paths so the country comes from the path), and the real points of ../shared when present."""

from __future__ import annotations

import csv
import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine

HEADER = ["LON", "LAT", "NUMBER", "STREET", "UNIT", "CITY", "DISTRICT", "REGION", "POSTCODE", "ID"]

US_ROWS = [
    # a long street with both sides
    *[(n, "ARCH ST", "", "PHILADELPHIA", "PA", "19106") for n in range(2, 80, 2)],
    *[(n, "ARCH ST", "", "PHILADELPHIA", "PA", "19106") for n in range(1, 60, 2)],
    # a building with 40 apartments
    *[(1200, "MAIN STREET", f"APT {u}", "SPRINGFIELD", "IL", "62701") for u in range(1, 41)],
    (1201, "MAIN STREET", "", "SPRINGFIELD", "IL", "62701"),
    (1204, "MAIN STREET", "", "SPRINGFIELD", "IL", "62701"),
    (12, "MAIN STREET", "", "SPRINGFIELD", "IL", "62701"),
    (120, "N MAIN ST", "", "SPRINGFIELD", "IL", "62702"),
    (1200, "MAIN ST", "", "SPRINGFIELD", "MA", "01103"),
    (77, "MASSACHUSETTS AVENUE", "", "CAMBRIDGE", "MA", "02139"),
    (1600, "PENNSYLVANIA AVE NW", "", "WASHINGTON", "DC", "20500"),
    (350, "FIFTH AVENUE", "", "NEW YORK", "NY", "10118"),
    (1, "ST JAMES PL", "", "BROOKLYN", "NY", "11205"),
    (500, "ELMWOOD DR", "", "SPRINGFIELD", "IL", "62704"),
    (502, "ELMWOOD DR", "", "SPRINGFIELD", "IL", "62704"),
]
CA_ROWS = [
    (24, "SUSSEX DRIVE", "", "OTTAWA", "ON", "K1M 1M4"),
    (111, "WELLINGTON ST", "", "OTTAWA", "ON", "K1A0A9"),
    *[(301, "FRONT ST W", str(u), "TORONTO", "ON", "M5V 2T6") for u in (101, 102, 201)],
]
GB_ROWS = [
    (10, "DOWNING STREET", "", "LONDON", "", "SW1A 2AA"),
    (221, "BAKER STREET", "FLAT B", "LONDON", "", "NW1 6XE"),
    (1, "HIGH STREET", "", "OXFORD", "", "OX1 4AA"),
]


def write_oa(path: Path, rows: Sequence[tuple[object, ...]], *, start_lat: float = 40.0) -> Path:
    """Rows as an OpenAddresses CSV. A US ZIP's points sit at its centroid (from the bundled ZIP data), so the
    builds' hygiene (points outside their state are dropped) keeps them, as it keeps real county rows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(HEADER)
        for i, (num, street, unit, city, region, pc) in enumerate(rows):
            lon, lat = _centroid(str(pc)) or (-75.0, start_lat)
            w.writerow([f"{lon + i * 1e-5:.7f}", f"{lat + i * 1e-5:.7f}", num, street, unit, city, "", region,
                        pc, f"{path.stem}-{i}"])
    return path


def _centroid(pc: str) -> tuple[float, float] | None:
    from dqkit.engines import zipdata

    z = zipdata.tables().by_zip.get(pc[:5]) if pc[:5].isdigit() else None
    try:
        return (float(z.lng), float(z.lat)) if z is not None and z.lat and z.lng else None
    except ValueError:
        return None


@pytest.fixture(scope="session")
def us_rows() -> list[tuple[object, ...]]:
    return list(US_ROWS)


@pytest.fixture(scope="session")
def oa_writer() -> Callable[..., Path]:
    """The helper that writes rows as an OpenAddresses CSV file."""
    return write_oa


@pytest.fixture(scope="session")
def ref_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("oa")
    return {
        "us": write_oa(root / "us" / "pa" / "mixed.csv", US_ROWS),
        "ca": write_oa(root / "ca" / "points.csv", CA_ROWS, start_lat=45.0),
        "gb": write_oa(root / "gb" / "points.csv", GB_ROWS, start_lat=51.0),
    }


@pytest.fixture(scope="session")
def engine(ref_files: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> AddressEngine:
    out = tmp_path_factory.mktemp("idx") / "small.dqidx"
    return AddressEngine.from_files(list(ref_files.values()), out=out)


@pytest.fixture(scope="session")
def oa_engine(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> AddressEngine:
    files = sorted((shared_dir / "data" / "openaddresses").glob("*.csv"))
    out = tmp_path_factory.mktemp("oa_idx") / "oa.dqidx"
    return AddressEngine.from_files(files, out=out)


@pytest.fixture(scope="session")
def oa_complete(shared_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> AddressEngine:
    """The same points, vouched for as every street of every ZIP they hold (`--complete`): what a whole county
    file is, so that "not found" may be said."""
    files = sorted((shared_dir / "data" / "openaddresses").glob("*.csv"))
    out = tmp_path_factory.mktemp("oa_idx_complete") / "oa.dqidx"
    return AddressEngine.from_files(files, out=out, complete=True)


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("DQKIT_CACHE_DIR", str(tmp_path / "cache"))
    yield tmp_path / "cache"


STATE_SEEDS = [demo_reference.DEFAULT_SEED, random.SystemRandom().randrange(1 << 30)]


@pytest.fixture(scope="module", params=STATE_SEEDS)
def state(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[AddressEngine, int]:
    """A SYNTHETIC state of the module's `STATE_ROWS` addresses (`demo_reference.write_state`) and its index, on the
    fixed seed and on a fresh one each run (the fast-path tests compare two paths on both)."""
    seed = int(request.param)
    tmp = tmp_path_factory.mktemp(f"state{seed}")
    src = demo_reference.write_state(tmp / "state.csv.gz", rows=int(request.module.STATE_ROWS), seed=seed)
    return AddressEngine.from_files([src], out=tmp / "state.dqidx"), seed
