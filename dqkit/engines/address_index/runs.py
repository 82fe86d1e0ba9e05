"""Building one run of records: streamed into typed columns, then sorted and indexed with numpy into one container.

Streets (one per street name, locality and postcode) are the unit of text search; addresses hang under their
street sorted by house number, so a house number is a binary search inside a street. Everything is sorted:
strings by text (an id is a rank), streets by dataset, postcode and name (a postcode's streets are contiguous),
addresses by street, number and unit (a building's units are contiguous).

A run is what fits in the memory budget: the whole input when it fits (then the run is the index itself, with
its word and number indexes), else one of several temporary files that `merge` combines (`external`).
"""

from __future__ import annotations

import itertools
import re
import time
import uuid
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from dqkit.contract.errors import InputError
from dqkit.engines.address_index import derived
from dqkit.engines.address_index.container import write_container
from dqkit.engines.address_index.countries import dataset_id
from dqkit.engines.address_index.hygiene import Hygiene
from dqkit.engines.address_index.reader import (
    NUMINT_MAX,
    Record,
    SourceFile,
    numint,
    open_text,
    read_records,
)
from dqkit.engines.address_index.strings import pack_strings
from dqkit.engines.address_index.words import FIELD_LOCALITY as FIELD_LOCALITY  # re-exported (the matcher)
from dqkit.engines.address_index.words import FIELD_STREET as FIELD_STREET
from dqkit.engines.address_index.words import locality_tokens as locality_tokens
from dqkit.engines.address_index.words import number_index, word_arrays
from dqkit.engines.address_index.words import street_tokens as street_tokens

FORMAT_VERSION: Final = 1
KIND: Final = "dqkit-reference-index"
_UNIT_DIGITS: Final = re.compile(r"\d+")
PART_MARK: Final = "\x00"  # an iso2 starting with it is no record: the records after it are of part int(iso2[1:])


@dataclass
class BuildReport:
    path: Path
    addresses: int
    streets: int
    datasets: dict[str, int]
    seconds: float
    size_bytes: int
    files: list[str] = field(default_factory=list)
    duplicates: int = 0  # exact duplicate rows dropped (only when the build was asked to)
    dropped: dict[str, int] = field(default_factory=dict)  # rows not served, by reason (`hygiene.REASONS`)
    runs: int = 1  # runs of records built apart and merged (1: the whole input fitted in memory)
    workers: int = 1  # processes that built the runs
    temp_bytes: int = 0  # the most temporary disk the build used at once (runs and merge)
    shadowed: int = 0  # rows kept aside as duplicates of another source's points (see `merge`)
    postcodes: set[tuple[str, str]] = field(default_factory=set, repr=False)  # (region, postcode) of rows kept


class _Interner:
    """str -> provisional id, in first-seen order; ranks come later when the table is sorted."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {"": 0}

    def __call__(self, s: str) -> int:
        i = self.ids.get(s)
        if i is None:
            i = self.ids[s] = len(self.ids)
        return i

    def sorted_table(self) -> tuple[list[str], npt.NDArray[np.int32]]:
        """Strings sorted, and the array mapping provisional id -> rank."""
        strings = list(self.ids)
        order = sorted(range(len(strings)), key=strings.__getitem__)
        rank = np.empty(len(strings), dtype=np.int32)
        rank[np.asarray(order, dtype=np.int64)] = np.arange(len(strings), dtype=np.int32)
        return [strings[i] for i in order], rank


def part_marker(part: int) -> tuple[str, Record]:
    """The item of a record stream that says "the records after me are of part `part`" (see `build_from_records`)."""
    return f"{PART_MARK}{part}", _NO_RECORD


def records_of_files(sources: Sequence[SourceFile], progress: Callable[[str], None] | None,
                     hygiene: Hygiene | None, first_part: int = 0) -> Iterator[tuple[str, Record]]:
    """The records of `sources` in order, each file a part (numbered from `first_part`), through `hygiene`."""
    for k, src in enumerate(sources):
        if not src.path.is_file():
            raise InputError(f"reference file {src.path} does not exist")
        if progress:
            progress(f"reading {src.path} ({src.iso2}{'/' + src.region if src.region else ''})")
        rows = read_records(src)
        if hygiene is not None:
            hygiene.coordinates = _has_coordinates(src)
            rows = hygiene.keep(src.iso2, rows)
        yield part_marker(first_part + k)
        for rec in rows:
            yield src.iso2, rec


def _has_coordinates(src: SourceFile) -> bool:
    """Whether the file has LON and LAT columns (without them no row is dropped for lacking coordinates)."""
    with open_text(src.path) as f:
        head = {h.strip().upper() for h in f.readline(65536).split(",")}
    return {"LON", "LAT"} <= head


_NO_UNIT: Final = (0, 0, -1)
_NO_RECORD: Final = Record("", "", "", "", "", "", "", "", "", "", 0.0, 0.0, "", "", "", "")
_SID_FLUSH: Final = 1 << 16
_PROGRESS_ROWS: Final = 1_000_000
_GATHER_ROWS: Final = 1 << 18


class _StringColumn:
    """Strings appended one by one, stored as UTF-8 bytes plus lengths (not one Python object per row).

    A 10-million-row build holds 10 million source ids: as a list of str that is ~700 MB, here ~20 bytes a row.
    """

    def __init__(self) -> None:
        self.blob = bytearray()
        self.lengths: array[int] = array("I")
        self._buf: list[str] = []

    def append(self, s: str) -> None:
        self._buf.append(s)
        if len(self._buf) >= _SID_FLUSH:
            self.flush()

    def flush(self) -> None:
        buf = self._buf
        if not buf:
            return
        joined = "".join(buf)
        if joined.isascii():
            self.lengths.extend(map(len, buf))
            self.blob += joined.encode("ascii")
        else:
            enc = [x.encode() for x in buf]
            self.lengths.extend(map(len, enc))
            self.blob += b"".join(enc)
        self._buf = []

    def __len__(self) -> int:
        return len(self.lengths) + len(self._buf)

    def packed(self, order: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[Any]]:
        """(blob, offsets) of the strings in `order`, as `pack_strings` would give; gathered in chunks."""
        self.flush()
        lengths = np.asarray(self.lengths, dtype=np.int64)
        src = np.frombuffer(self.blob, dtype=np.uint8) if self.blob else np.zeros(0, np.uint8)
        src_off = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=src_off[1:])
        new_len = lengths[order]
        off = np.zeros(len(order) + 1, dtype=np.int64)
        np.cumsum(new_len, out=off[1:])
        del new_len
        out = np.empty(int(off[-1]), dtype=np.uint8)
        for i in range(0, len(order), _GATHER_ROWS):
            o = order[i:i + _GATHER_ROWS]
            d0, d1 = int(off[i]), int(off[i + len(o)])
            shift = src_off[o] - (off[i:i + len(o)] - d0)
            idx = np.repeat(shift, lengths[o]) + np.arange(d1 - d0, dtype=np.int64)
            out[d0:d1] = src[idx]
        dtype = np.uint32 if off[-1] < 2**32 else np.uint64
        return out, off.astype(dtype)


def _i32(col: array[int]) -> npt.NDArray[np.int32]:
    """A typed int array as numpy int32 (a view, no copy, where the platform's int is 32 bits)."""
    if not len(col):
        return np.zeros(0, np.int32)
    return np.frombuffer(col, dtype=np.int32) if col.itemsize == 4 else np.asarray(col, np.int32)


class _Columns:
    """The records of one pass, as compact typed columns (step 1 of a build).

    Nothing is held per record as a Python object: each row costs ~60 bytes of typed arrays (street id,
    interned number / unit / extras, coordinates, source id bytes), so 10 million rows fit in well under a GB.
    Numbers and units are interned with their integer sort keys once per distinct text.
    """

    def __init__(self, part: int = 0, rows_before: int = 0) -> None:
        self.pool = _Interner()
        self.street_ids: dict[tuple[Any, ...], int] = {}
        # per street: ds, predir, name, suffix, postdir, city, region, postcode, text
        self.st_cols: list[array[int]] = [array("i") for _ in range(9)]
        self.ds_codes: dict[str, int] = {}
        self.a_street, self.a_num, self.a_numint, self.a_desig, self.a_unit, self.a_unitint = (
            array("i") for _ in range(6))
        # ZIP+4, carrier route, delivery point: sparse (row, string id) pairs, as most files have none
        self.extras: dict[str, tuple[array[int], array[int]]] = {
            k: (array("q"), array("i")) for k in ("zip4", "crrt", "dp")}
        self.a_lon, self.a_lat = array("d"), array("d")
        self.sids = _StringColumn()
        self.part_marks: list[tuple[int, int]] = [(0, part)]  # (first row, part) where the part changes
        self.rows_before = rows_before  # rows of the stream consumed by earlier runs (for progress lines)

    def consume(self, records: Iterator[tuple[str, Record]], t0: float,
                progress: Callable[[str], None] | None, limit: int = 0) -> bool:
        """Append records until the stream ends (True) or `limit` rows are held (False: more may follow).

        One loop with its lookups bound locally: this is the hot path of a build. `part_marker` items switch the
        part of the rows after them."""
        pool, street_ids, st_cols, ds_codes = self.pool, self.street_ids, self.st_cols, self.ds_codes
        a_street, a_num, a_numint, a_desig, a_unit, a_unitint = (
            self.a_street, self.a_num, self.a_numint, self.a_desig, self.a_unit, self.a_unitint)
        x_zip4, x_crrt, x_dp = self.extras["zip4"], self.extras["crrt"], self.extras["dp"]
        a_lon, a_lat, sids = self.a_lon, self.a_lat, self.sids
        num_info: dict[str, tuple[int, int]] = {}
        unit_info: dict[tuple[str, str], tuple[int, int, int]] = {}
        part_marks = self.part_marks
        n = len(a_lon)
        stop = limit or 1 << 62
        mark = (n // _PROGRESS_ROWS + 1) * _PROGRESS_ROWS if progress is not None else 1 << 62
        check = min(stop, mark)
        for iso2, r in records:
            (number, predir, name, suffix, postdir, desig, unit, city, region, postcode, lon, lat, sid, zip4, crrt,
             dp) = r
            ds = ds_codes.get(iso2)
            if ds is None:
                if iso2[:1] == PART_MARK:
                    if part_marks[-1][0] == n:
                        part_marks[-1] = (n, int(iso2[1:]))
                    else:
                        part_marks.append((n, int(iso2[1:])))
                    continue
                ds = ds_codes[iso2] = len(ds_codes)
            key = (ds, predir, name, suffix, postdir, city, region, postcode)
            s = street_ids.get(key)
            if s is None:
                s = street_ids[key] = len(street_ids)
                text = " ".join(p for p in (predir, name, suffix, postdir) if p)
                for col, v in zip(st_cols, (ds, pool(predir), pool(name), pool(suffix), pool(postdir),
                                            pool(city), pool(region), pool(postcode), pool(text)), strict=True):
                    col.append(v)
            a_street.append(s)
            nk = num_info.get(number)
            if nk is None:
                nk = num_info[number] = (pool(number), numint(number))
            a_num.append(nk[0])
            a_numint.append(nk[1])
            if unit or desig:
                uk = (desig, unit)
                ui = unit_info.get(uk)
                if ui is None:
                    m = _UNIT_DIGITS.search(unit)
                    ui = unit_info[uk] = (pool(desig), pool(unit), min(int(m.group()), NUMINT_MAX) if m else -1)
            else:
                ui = _NO_UNIT
            a_desig.append(ui[0])
            a_unit.append(ui[1])
            a_unitint.append(ui[2])
            if zip4:
                x_zip4[0].append(len(a_lon))
                x_zip4[1].append(pool(zip4))
            if crrt:
                x_crrt[0].append(len(a_lon))
                x_crrt[1].append(pool(crrt))
            if dp:
                x_dp[0].append(len(a_lon))
                x_dp[1].append(pool(dp))
            a_lon.append(lon)
            a_lat.append(lat)
            sids.append(sid)
            n += 1
            if n >= check:
                if n >= mark:
                    assert progress is not None
                    progress(f"{self.rows_before + n:,} rows read ({time.perf_counter() - t0:.0f} s)")
                    mark += _PROGRESS_ROWS
                if n >= stop:
                    return False
                check = min(stop, mark)
        return True

    @property
    def part(self) -> int:
        """The part of the last rows (the part a next run starts in)."""
        return self.part_marks[-1][1]

    def part_column(self) -> npt.NDArray[np.uint16] | None:
        """Each row's part, None when every row is of one part."""
        n = len(self.a_lon)
        marks = [(r, p) for r, p in self.part_marks if r < n] or [(0, self.part_marks[0][1])]
        if len({p for _, p in marks}) <= 1:
            return None
        starts = np.array([r for r, _ in marks] + [n], dtype=np.int64)
        return np.repeat(np.array([p for _, p in marks], dtype=np.uint16), np.diff(starts))

    def single_part(self) -> int:
        n = len(self.a_lon)
        return next((p for r, p in reversed(self.part_marks) if r < n), self.part_marks[0][1])


@dataclass
class _StreetOrder:
    """Streets sorted by dataset, postcode, name, predir, suffix, postdir, city, region (step 2)."""

    order: npt.NDArray[np.int64]  # sorted position -> first-seen street id
    new: npt.NDArray[np.int64]  # first-seen street id -> sorted position
    ds: npt.NDArray[np.int32]  # dataset of each first-seen street
    ranked: list[npt.NDArray[np.int32]]  # predir, name, suffix, postdir, city, region, postcode, text (ranks)


def _order_streets(cols: _Columns, rank: npt.NDArray[np.int32]) -> _StreetOrder:
    st = [_i32(c) for c in cols.st_cols]
    st_r = [rank[c] for c in st[1:9]]
    s_order = np.lexsort((st_r[5], st_r[4], st_r[3], st_r[2], st_r[0], st_r[1], st_r[6], st[0]))
    s_new = np.empty_like(s_order)
    s_new[s_order] = np.arange(len(s_order))
    return _StreetOrder(s_order, s_new, st[0], st_r)


def _order_addresses(cols: _Columns, rank: npt.NDArray[np.int32], streets: _StreetOrder,
                     arrays: dict[str, npt.NDArray[Any]], *, dedupe: bool) -> tuple[npt.NDArray[np.int64], int]:
    """Addresses sorted by street, number (integer, then text), unit designator, unit (integer, then text) into
    `arrays` (step 3); with `dedupe`, rows equal in all of these and in their coordinates are kept once.

    Three int64 keys pack the six sort columns (each part fits in 32 bits; numint in 24 bits). The columns are
    read back from the sorted keys, so only the keys are alive during the sort. Returns the order (sorted
    position -> row read) and the number of duplicates dropped."""
    key1 = (streets.new[_i32(cols.a_street)].astype(np.int64) << 24) | _i32(cols.a_numint).astype(np.int64)
    key2 = (rank[_i32(cols.a_num)].astype(np.int64) << 32) | rank[_i32(cols.a_desig)].astype(np.int64)
    key3 = ((_i32(cols.a_unitint).astype(np.int64) + 1) << 32) | rank[_i32(cols.a_unit)].astype(np.int64)
    for name in ("a_street", "a_numint", "a_num", "a_desig", "a_unit", "a_unitint"):
        setattr(cols, name, array("i"))  # freed: the keys hold them now
    lon = np.frombuffer(cols.a_lon, dtype=np.float64) if len(cols.a_lon) else np.zeros(0)
    lat = np.frombuffer(cols.a_lat, dtype=np.float64) if len(cols.a_lat) else np.zeros(0)
    a_order = np.lexsort((lat, lon, key3, key2, key1) if dedupe else (key3, key2, key1))
    key1, key2, key3 = key1[a_order], key2[a_order], key3[a_order]
    duplicates = 0
    if dedupe and len(a_order) > 1:
        lo_, la_ = lon[a_order], lat[a_order]
        same = ((key1[1:] == key1[:-1]) & (key2[1:] == key2[:-1]) & (key3[1:] == key3[:-1])
                & (lo_[1:] == lo_[:-1]) & (la_[1:] == la_[:-1]))
        if same.any():
            keep = np.ones(len(a_order), dtype=bool)
            keep[1:] = ~same
            duplicates = int(same.sum())
            a_order, key1, key2, key3 = a_order[keep], key1[keep], key2[keep], key3[keep]
    arrays["a.street"] = (key1 >> 24).astype(np.int32)
    arrays["a.numint"] = (key1 & 0xFFFFFF).astype(np.int32)
    arrays["a.key"] = key1
    arrays["a.number"] = (key2 >> 32).astype(np.int32)
    arrays["a.desig"] = (key2 & 0xFFFFFFFF).astype(np.int32)
    arrays["a.unit"] = (key3 & 0xFFFFFFFF).astype(np.int32)
    arrays["a.lon"] = lon[a_order]
    arrays["a.lat"] = lat[a_order]
    cols.a_lon, cols.a_lat = array("d"), array("d")
    return a_order, duplicates


def _extra_arrays(cols: _Columns, rank: npt.NDArray[np.int32], a_order: npt.NDArray[np.int64], n_read: int,
                  arrays: dict[str, npt.NDArray[Any]]) -> None:
    """ZIP+4, carrier route and delivery point as full columns in address order (0: none), where any row has
    them (step 4)."""
    if not any(len(rows) for rows, _ in cols.extras.values()):
        return
    new_pos = np.full(n_read, -1, dtype=np.int64)
    new_pos[a_order] = np.arange(len(a_order))
    for nm, (rows, ids) in cols.extras.items():
        if len(rows):
            pos = new_pos[np.asarray(rows, dtype=np.int64)]
            kept = pos >= 0
            xcol = np.zeros(len(a_order), dtype=np.int32)
            xcol[pos[kept]] = rank[_i32(ids)][kept]
            arrays[f"a.{nm}"] = xcol


def _street_arrays(streets: _StreetOrder, bounds: npt.NDArray[np.int64],
                   arrays: dict[str, npt.NDArray[Any]]) -> None:
    """The street columns in sorted order, with each street's [lo, hi) of addresses (step 5)."""
    names_ = ("predir", "name", "suffix", "postdir", "city", "region", "postcode", "text")
    for nm, st_col in zip(names_, streets.ranked, strict=True):
        arrays[f"s.{nm}"] = st_col[streets.order].astype(np.int32)
    arrays["s.ds"] = streets.ds[streets.order].astype(np.uint8)
    arrays["s.lo"] = bounds[:-1].astype(np.int64)
    arrays["s.hi"] = bounds[1:].astype(np.int64)
    arrays["s.count"] = (bounds[1:] - bounds[:-1]).astype(np.int32)


def dataset_meta(ranges: Sequence[tuple[int, int]], isos: Sequence[str], bounds: npt.NDArray[np.int64],
                 arrays: dict[str, npt.NDArray[Any]] | None, synthetic: bool) -> list[dict[str, Any]]:
    """The `datasets` entry of an index's metadata: each dataset's street and address ranges."""
    out = []
    for ds, ((s_lo, s_hi), iso2) in enumerate(zip(ranges, isos, strict=True)):
        a_lo, a_hi = int(bounds[s_lo]), int(bounds[s_hi])
        d: dict[str, Any] = {
            "id": dataset_id(iso2), "iso2": iso2, "street_lo": s_lo, "street_hi": s_hi,
            "addr_lo": a_lo, "addr_hi": a_hi, "addresses": a_hi - a_lo, "streets": s_hi - s_lo,
            "synthetic": synthetic}
        if arrays is not None:
            d["tokens"] = len(arrays[f"d{ds}.tok.off"]) - 1
        out.append(d)
    return out


def default_parts(names: Sequence[str]) -> list[dict[str, Any]]:
    """The parts of a build that was given none: one, named after its sources."""
    return [{"name": ", ".join(names), "source": "", "date": "", "region": ""}]


def _parts_meta(cols: _Columns, parts: Sequence[dict[str, Any]], a_order: npt.NDArray[np.int64],
                part_col: npt.NDArray[np.uint16] | None, arrays: dict[str, npt.NDArray[Any]],
                run: bool) -> list[dict[str, Any]]:
    """The parts of the rows kept, and their `a.part` column when there are several. A run keeps the build's
    numbering (every part listed); a finished index lists only its parts, numbered in their order."""
    if part_col is None:
        p = cols.single_part()
        return [dict(parts[p])] if p < len(parts) else default_parts([])
    col = part_col[a_order]
    if run:
        arrays["a.part"] = col
        return list(parts)
    used = np.unique(col)
    if len(used) == 1:
        return [dict(parts[int(used[0])])]
    remap = np.zeros(int(used[-1]) + 1, dtype=np.uint32)
    remap[used] = np.arange(len(used), dtype=np.uint32)
    arrays["a.part"] = remap[col].astype(part_dtype(len(used)))
    return [dict(parts[int(i)]) for i in used]


def part_dtype(n_parts: int) -> type[np.unsignedinteger[Any]]:
    return np.uint16 if n_parts <= 1 << 16 else np.uint32


def finish(cols: _Columns, out: Path, *, synthetic: bool, t0: float, names: Sequence[str] = (),
           parts: Sequence[dict[str, Any]] = (), progress: Callable[[str], None] | None = None,
           dedupe: bool = False, run: bool = False) -> BuildReport:
    """Sort and index the records held in `cols` with numpy, in named steps, into the container `out`.

    `run`: an intermediate file of a larger build (`external`): strings, streets and addresses only (no word or
    number index, no `a.key`), each row's part in the build's numbering; `merge` makes the index from runs."""
    n_read = len(cols.sids)
    if not n_read:
        raise InputError("the reference files hold no usable address rows")
    parts = list(parts) or default_parts(names)
    say = progress if progress is not None and n_read >= _PROGRESS_ROWS and not run else None  # phases
    if say is not None:
        say(f"{n_read:,} rows, {len(cols.street_ids):,} streets: sorting")
    part_col = cols.part_column()
    strings, rank = cols.pool.sorted_table()
    cols.pool = _Interner()
    streets = _order_streets(cols, rank)
    n_streets = len(streets.order)
    cols.street_ids = {}
    arrays: dict[str, npt.NDArray[Any]] = {}
    a_order, duplicates = _order_addresses(cols, rank, streets, arrays, dedupe=dedupe)
    if run:
        del arrays["a.key"]
    bounds = np.searchsorted(arrays["a.street"], np.arange(n_streets + 1))
    arrays["str.blob"], arrays["str.off"] = pack_strings(strings)
    arrays["sid.blob"], arrays["sid.off"] = cols.sids.packed(a_order)
    cols.sids = _StringColumn()
    _street_arrays(streets, bounds, arrays)
    _extra_arrays(cols, rank, a_order, n_read, arrays)
    parts_meta = _parts_meta(cols, parts, a_order, part_col, arrays, run)
    del a_order, streets, part_col
    isos = [iso for iso, _ in sorted(cols.ds_codes.items(), key=lambda kv: kv[1])]
    if run:
        cut = np.searchsorted(arrays["s.ds"], np.arange(len(isos) + 1)).tolist()
        ds_meta = dataset_meta(list(itertools.pairwise(cut)), isos, bounds, None, synthetic)
    else:
        if say is not None:
            say("indexing street and locality words")
        ranges = word_arrays(arrays, strings.__getitem__, isos, bounds, arrays)
        for ds, (s_lo, s_hi) in enumerate(ranges):
            a_lo = int(bounds[s_lo])
            arrays[f"d{ds}.num_order"], arrays[f"d{ds}.num_sorted"] = number_index(
                arrays["a.numint"][a_lo:int(bounds[s_hi])], a_lo)
        arrays.update(derived.computed(ranges, arrays.__getitem__))
        ds_meta = dataset_meta(ranges, isos, bounds, arrays, synthetic)
    meta = {
        "kind": KIND, "format_version": FORMAT_VERSION, "build_id": uuid.uuid4().hex,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "sources": list(names), "datasets": ds_meta, "synthetic": synthetic, "parts": parts_meta,
    }
    if run:
        meta["run"] = True
    if say is not None:
        say(f"writing {out}")
    size = write_container(out, arrays, meta)
    return BuildReport(
        path=out, addresses=len(arrays["a.street"]), streets=n_streets,
        datasets={d["id"]: d["addresses"] for d in ds_meta}, seconds=time.perf_counter() - t0, size_bytes=size,
        files=list(names), duplicates=duplicates,
    )
