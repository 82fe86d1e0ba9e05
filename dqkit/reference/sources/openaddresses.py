"""OpenAddresses files as users download them: CSV, GeoJSON lines, either gzipped, and `.zip` bundles.

A bundle (batch.openaddresses.io collections, the older regional zips) holds several sources laid out as
`<country>/<region>/<source>.csv|.geojson` (with `.vrt` / summary files beside them, ignored); each member is one
part, its country and region read from its path unless given. GeoJSON lines hold one Feature per line, properties
`number`, `street`, `unit`, `city`, `district`, `region`, `postcode`, `id`, `hash` and a Point geometry.
Licence: each OpenAddresses source carries its own (most are public domain or CC-BY); the manifest says so and
names openaddresses.io for attribution.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import IO, Any, Final

from dqkit.contract.errors import InputError
from dqkit.engines.address_index import located
from dqkit.engines.address_index.bounded import check_zip_member
from dqkit.engines.address_index.countries import known_countries
from dqkit.engines.address_index.reader import Record, SourceFile, source_of
from dqkit.reference.progress import CountingReader, Progress
from dqkit.reference.sources.common import Part, csv_lines, normalized, text_lines

KIND: Final = "openaddresses"
LICENCE: Final = "per source (see openaddresses.io; mostly public domain or CC-BY)"
ATTRIBUTION: Final = "Address data from OpenAddresses (openaddresses.io) and its contributors"
_DATA_SUFFIXES: Final = (".csv", ".csv.gz", ".geojson", ".geojsonl", ".geojson.gz", ".geojsonl.gz", ".gz")


def _is_data(name: str) -> bool:
    low = name.lower()
    base = PurePosixPath(low).name
    return low.endswith(_DATA_SUFFIXES) and not base.startswith((".", "__")) and "__macosx" not in low


def _geojson_name(name: str) -> bool:
    low = name.lower().removesuffix(".gz")
    return low.endswith((".geojson", ".geojsonl", ".json", ".ndjson"))


def parts_of(paths: list[Path], *, country: str | None = None, region: str | None = None) -> list[Part]:
    """The parts of OpenAddresses inputs (files, folders of them, zip bundles)."""
    out: list[Part] = []
    for p in paths:
        if p.is_dir():
            files = sorted(f for f in p.rglob("*") if f.is_file() and (_is_data(f.name) or f.suffix == ".zip"))
            if not files:
                raise InputError(f"{p}: no OpenAddresses files (.csv, .geojson, .zip) in this folder")
            for f in files:
                out += _file_parts(f, country, region)
        elif p.is_file():
            out += _file_parts(p, country, region)
        else:
            raise InputError(f"no such file: {p}")
    return out


def _day(mtime: float) -> str:
    """The source date of a plain download: the day the file was written (OpenAddresses files carry none)."""
    return time.strftime("%Y-%m-%d", time.gmtime(mtime))


_FLAT_NAME: Final = re.compile(r"^([a-z]{2})[_-]([a-z]{2})[_-]")
_DATA_EXT: Final = re.compile(r"(\.(csv|geojsonl?|json|ndjson|zip))?(\.gz)?$")
_PLACE_NOISE: Final = frozenset({"addresses", "address", "county", "city", "of", "statewide", "state", "region",
                                 "parcels", "points"})


def place_of(name: str) -> str:
    """The county or city an OpenAddresses file is of, from its name: "us/ca/alameda.csv" -> "alameda",
    "us_ca_santa_clara-addresses-county.geojson.gz" -> "santa-clara", "city_of_san_jose.csv" -> "san-jose";
    "" for a statewide file or a name that says no place."""
    base = _DATA_EXT.sub("", PurePosixPath(name.replace("\\", "/")).name.lower())
    base = _FLAT_NAME.sub("", base)
    words = [w for w in re.split(r"[^a-z0-9]+", base) if w]
    if "statewide" in words:
        return ""
    return "-".join(w for w in words if w not in _PLACE_NOISE)


def _where(rel: PurePosixPath | Path, country: str | None, region: str | None) -> tuple[SourceFile, bool]:
    """Country and region as the options and the path say them (the rows decide later, `locate_parts`): the
    options, else the OpenAddresses path (us/ca/x.csv), else a flattened download name
    (us_ca_alameda-addresses-county.geojson), else US; and whether the path named the country."""
    src = source_of(Path(rel), country)
    hinted = located.path_names_country(Path(rel))
    if not region and not src.region:
        m = _FLAT_NAME.match(Path(rel).name.lower())
        if m and (not country or m.group(1).upper() == country.upper()) and m.group(1).upper() in known_countries():
            return SourceFile(src.path, m.group(1).upper(), m.group(2).upper()), True
    return SourceFile(src.path, src.iso2, (region or src.region).upper()), hinted


def _file_parts(path: Path, country: str | None, region: str | None) -> list[Part]:
    st = path.stat()
    if path.suffix.lower() == ".zip":
        return _zip_parts(path, country, region)
    where, hinted = _where(path, country, region)
    name = str(path)
    part = Part(name, where.iso2, where.region, st.st_size, st.st_mtime, _unread, source_date=_day(st.st_mtime),
                place=place_of(path.name), hinted=hinted)

    def records(progress: Progress) -> Iterator[Record]:
        with open(path, "rb") as raw:
            yield from _raw_records(raw, name, part.source(), progress)

    def sample() -> list[dict[str, str]]:
        with open(path, "rb") as raw:
            return _sample(raw, name)

    part.records, part.sample = records, sample
    return [part]


def _unread(progress: Progress) -> Iterator[Record]:
    raise AssertionError("a part's records are set when it is made")  # pragma: no cover


def _zip_parts(path: Path, country: str | None, region: str | None) -> list[Part]:
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"{path}: not a readable zip file ({exc}); it may be cut short: download it again") \
            from None
    with zf:
        members = _one_format_each([i for i in zf.infolist() if not i.is_dir() and _is_data(i.filename)])
    if not members:
        raise InputError(f"{path}: this zip holds no OpenAddresses data (.csv or .geojson members)")
    mtime = path.stat().st_mtime
    out = []
    for info in members:
        where, hinted = _where(PurePosixPath(info.filename), country, region)
        name = f"{path}!{info.filename}"
        check_zip_member(info, name)
        y, mo, d = info.date_time[:3]
        part = Part(name, where.iso2, where.region, info.file_size, mtime + info.CRC / 1e12, _unread,
                    source_date=f"{y:04d}-{mo:02d}-{d:02d}", place=place_of(info.filename), hinted=hinted)
        part.records, part.sample = _zip_records(path, info.filename, name, part), _zip_sample(path, info.filename,
                                                                                              name)
        out.append(part)
    return out


def _raw_records(raw: Any, name: str, where: SourceFile, progress: Progress) -> Iterator[Record]:
    """The records of one open binary stream (a file or a zip member), gzip or not, counting the bytes read so
    progress can show an ETA."""
    counting = CountingReader(raw)
    buffered = io.BufferedReader(counting)
    gz = buffered.peek(2)[:2] == b"\x1f\x8b"
    binary: Any = gzip.GzipFile(fileobj=buffered) if gz else buffered
    yield from _records(binary, SourceFile(Path(name), where.iso2, where.region), name, progress,
                        lambda: counting.count, gz)


def _one_format_each(members: list[zipfile.ZipInfo]) -> list[zipfile.ZipInfo]:
    """One member per source: a bundle that holds a source as both CSV and GeoJSON would count it twice."""
    chosen: dict[str, zipfile.ZipInfo] = {}
    for info in sorted(members, key=lambda i: (not i.filename.lower().endswith(".csv"), i.filename)):
        stem = re.sub(r"(\.(csv|geojsonl?|json|ndjson))?(\.gz)?$", "", info.filename.lower())
        chosen.setdefault(stem, info)
    return sorted(chosen.values(), key=lambda i: i.filename)


def _zip_records(path: Path, member: str, name: str, part: Part) -> Callable[[Progress], Iterator[Record]]:
    def records(progress: Progress) -> Iterator[Record]:
        try:
            with zipfile.ZipFile(path) as zf, zf.open(member) as raw:
                yield from _raw_records(raw, name, part.source(), progress)
        except (zipfile.BadZipFile, zipfile.LargeZipFile) as exc:
            raise InputError(f"{name}: damaged zip member ({exc}); download the bundle again") from None

    return records


def _zip_sample(path: Path, member: str, name: str) -> Callable[[], list[dict[str, str]]]:
    def sample() -> list[dict[str, str]]:
        try:
            with zipfile.ZipFile(path) as zf, zf.open(member) as raw:
                return _sample(raw, name)
        except (zipfile.BadZipFile, zipfile.LargeZipFile) as exc:
            raise InputError(f"{name}: damaged zip member ({exc}); download the bundle again") from None

    return sample


def _sample(raw: Any, name: str) -> list[dict[str, str]]:
    """The first rows of one open binary stream (gzip or not, CSV or GeoJSON lines), in OpenAddresses columns."""
    buffered = io.BufferedReader(CountingReader(raw))
    gz = buffered.peek(2)[:2] == b"\x1f\x8b"
    binary: Any = gzip.GzipFile(fileobj=buffered) if gz else buffered
    try:
        return located.sample_csv(_lines(binary, name, lambda: 0, False))
    except (EOFError, zlib.error, OSError, UnicodeDecodeError):
        return []  # the import names what is wrong, with its line


def _records(binary: IO[bytes], src: SourceFile, name: str, progress: Progress,
             position: Callable[[], int], compressed: bool) -> Iterator[Record]:
    yield from normalized(_lines(binary, name, position, compressed), src, name, progress, position)


def _lines(binary: IO[bytes], name: str, position: Callable[[], int], compressed: bool) -> Iterator[str]:
    """OpenAddresses CSV lines of a stream, a GeoJSON-lines one converted."""
    geojson = _geojson_name(name) or _starts_with_brace(binary)
    text = text_lines(binary, name, position if compressed else None)
    return csv_lines(_geojson_rows(text, name)) if geojson else text


def _starts_with_brace(binary: IO[bytes]) -> bool:
    peek = getattr(binary, "peek", None)
    if peek is None:
        return False
    try:
        head: bytes = peek(64)[:64]
    except (OSError, EOFError):
        return False
    return head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{"


_PROPS: Final = ("number", "street", "unit", "city", "district", "region", "postcode")


def _geojson_rows(lines: Iterator[str], name: str) -> Iterator[list[str]]:
    for lineno, line in enumerate(lines, start=1):
        line = line.strip()
        if not line:
            continue
        try:
            feat = json.loads(line)
        except RecursionError:
            raise InputError(f"{name}, line {lineno}: nested too deep to be a GeoJSON Feature (OpenAddresses "
                             "features are flat)") from None
        except ValueError as exc:
            if lineno == 1 and '"FeatureCollection"' in line[:200]:
                raise InputError(f"{name}: a GeoJSON FeatureCollection; OpenAddresses GeoJSON has one Feature per "
                                 "line (GeoJSON lines)") from None
            raise InputError(f"{name}, line {lineno}: not a GeoJSON Feature ({exc})") from None
        if not isinstance(feat, dict) or not isinstance(feat.get("properties"), dict):
            raise InputError(f"{name}, line {lineno}: not a GeoJSON Feature (no properties)")
        props = feat["properties"]
        if lineno == 1 and not ({"number", "street"} & set(props)):
            raise InputError(f"{name}, line 1: wrong properties {sorted(props)[:8]}; OpenAddresses GeoJSON "
                             "features need number and street")
        lon = lat = ""
        geom = feat.get("geometry")
        if isinstance(geom, dict) and geom.get("type") == "Point":
            coords = geom.get("coordinates") or []
            if len(coords) >= 2:
                lon, lat = str(coords[0]), str(coords[1])
        vals = [str(props.get(k) or "") for k in _PROPS]
        yield [lon, lat, *vals, str(props.get("id") or props.get("hash") or "")]
