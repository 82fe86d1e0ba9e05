"""Any CSV or Parquet file of address points, with a column mapping.

    --map number=house_no --map street=st_name --map postcode=zip --map lon=x --map lat=y

Fields: number, street, unit, city, district, region, postcode, lon, lat, id. A field may join several columns
with "+" (`street=predir+name+type`), joined by spaces. `street` is required (and `number`, unless the street
column holds the number too: say `number=` nothing and map the whole line to street). Parquet is read in record
batches of the mapped columns only, so a large file is never loaded whole.
"""

from __future__ import annotations

import contextlib
import csv
import io
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from dqkit.contract.errors import InputError
from dqkit.engines.address_index import located
from dqkit.engines.address_index.reader import Record, SourceFile, source_of
from dqkit.reference.progress import CountingReader, Progress
from dqkit.reference.sources.common import Part, csv_lines, normalized, text_lines

KIND: Final = "tabular"
FIELDS: Final = ("lon", "lat", "number", "street", "unit", "city", "district", "region", "postcode", "id")


def parse_mapping(items: Sequence[str] | Mapping[str, str]) -> dict[str, list[str]]:
    """`["number=house_no", "street=pre+name"]` (or a dict) -> {"number": ["house_no"], "street": ["pre", "name"]}."""
    pairs = list(items.items()) if isinstance(items, Mapping) else []
    if not isinstance(items, Mapping):
        for item in items:
            if "=" not in item:
                raise InputError(f"--map {item!r}: write FIELD=COLUMN, for example number=house_no")
            k, v = item.split("=", 1)
            pairs.append((k, v))
    out: dict[str, list[str]] = {}
    for k, v in pairs:
        key = k.strip().lower()
        if key not in FIELDS:
            raise InputError(f"--map {k}={v}: unknown field {k!r}; fields are {', '.join(FIELDS)}")
        cols = [c.strip() for c in v.split("+") if c.strip()]
        if cols:
            out[key] = cols
    if "street" not in out:
        raise InputError("the column mapping needs at least street=COLUMN (and usually number=COLUMN)")
    return out


def parts_of(paths: list[Path], mapping: dict[str, list[str]], *, country: str | None = None,
             region: str | None = None) -> list[Part]:
    out = []
    for p in paths:
        if not p.is_file():
            raise InputError(f"no such file: {p}")
        src = source_of(p, country)
        st = p.stat()
        parquet = p.suffix.lower() in (".parquet", ".pq", ".geoparquet")
        part = Part(str(p), src.iso2, (region or src.region).upper(), st.st_size, st.st_mtime, _unset,
                    coordinates="lon" in mapping and "lat" in mapping, hinted=located.path_names_country(p))
        part.records = _bind(_parquet_records if parquet else _csv_records, p, mapping, part)
        part.sample = _sampler(_parquet_rows if parquet else _csv_rows, p, mapping)
        out.append(part)
    return out


def _unset(progress: Progress) -> Iterator[Record]:
    raise AssertionError("a part's records are set when it is made")  # pragma: no cover


def _bind(fn: Callable[..., Iterator[Record]], p: Path, mapping: dict[str, list[str]],
          part: Part) -> Callable[[Progress], Iterator[Record]]:
    return lambda progress: fn(p, mapping, part.source(), progress)


def _sampler(rows: Callable[..., Any], p: Path, mapping: dict[str, list[str]]) -> Callable[[], list[dict[str, str]]]:
    """The first rows of the file in OpenAddresses columns (for `locate_parts`)."""
    def sample() -> list[dict[str, str]]:
        with rows(p, mapping) as (got, _):
            return located.sample_csv(csv_lines(got))

    return sample


def _pick(mapping: dict[str, list[str]], header: Sequence[str], name: str) -> list[list[int]]:
    lower = {h.strip().lower(): i for i, h in enumerate(header)}
    picks: list[list[int]] = []
    missing = []
    for f in FIELDS:
        idx = []
        for c in mapping.get(f, []):
            i = lower.get(c.lower())
            if i is None:
                missing.append(c)
            else:
                idx.append(i)
        picks.append(idx)
    if missing:
        raise InputError(f"{name}, line 1: no column {', '.join(repr(m) for m in missing)} (the file has: "
                         f"{', '.join(header[:20])}{' ...' if len(header) > 20 else ''})")
    return picks


def _row(values: Sequence[Any], picks: list[list[int]]) -> list[str]:
    out = []
    for idx in picks:
        parts = [str(values[i]) for i in idx if i < len(values) and values[i] is not None and str(values[i]).strip()]
        out.append(" ".join(p.strip() for p in parts))
    return out


@contextlib.contextmanager
def _csv_rows(p: Path, mapping: dict[str, list[str]]) -> Iterator[tuple[Iterator[list[str]], Callable[[], int]]]:
    """The mapped rows of a CSV file (delimiter sniffed) and the bytes read so far."""
    name = str(p)
    with open(p, "rb") as raw:
        counting = CountingReader(raw)
        text = text_lines(io.BufferedReader(counting), name)
        sample = next(text, "")
        try:
            dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
        except csv.Error:
            dialect = csv.excel
        header = next(csv.reader([sample], dialect))
        picks = _pick(mapping, header, name)
        yield (_row(r, picks) for r in csv.reader(text, dialect)), lambda: counting.count


def _csv_records(p: Path, mapping: dict[str, list[str]], where: SourceFile, progress: Progress) -> Iterator[Record]:
    with _csv_rows(p, mapping) as (rows, position):
        yield from normalized(csv_lines(rows), where, str(p), progress, position)


@contextlib.contextmanager
def _parquet_rows(p: Path, mapping: dict[str, list[str]]) -> Iterator[tuple[Iterator[list[str]], Callable[[], int]]]:
    """The mapped rows of a Parquet file, read by row group (mapped columns only), and the bytes read so far."""
    import pyarrow.parquet as pq

    name = str(p)
    try:
        pf = pq.ParquetFile(p)
    except Exception as exc:  # pyarrow raises ArrowInvalid / OSError for damaged files
        raise InputError(f"{name}: not a readable Parquet file ({exc})") from None
    header = pf.schema_arrow.names
    picks = _pick(mapping, header, name)
    wanted = sorted({i for idx in picks for i in idx})
    cols = [header[i] for i in wanted]
    pos = {i: k for k, i in enumerate(wanted)}
    local = [[pos[i] for i in idx] for idx in picks]
    done = [0]

    def rows() -> Iterator[list[str]]:
        for g in range(pf.num_row_groups):
            batch = pf.read_row_group(g, columns=cols)
            data = [batch.column(c).to_pylist() for c in cols]
            for vals in zip(*data, strict=True):
                yield _row(vals, local)
            done[0] = int(p.stat().st_size * (g + 1) / max(pf.num_row_groups, 1))

    yield rows(), lambda: done[0]


def _parquet_records(p: Path, mapping: dict[str, list[str]], where: SourceFile,
                     progress: Progress) -> Iterator[Record]:
    with _parquet_rows(p, mapping) as (rows, position):
        yield from normalized(csv_lines(rows), where, str(p), progress, position)
