"""Building a reference index from OpenAddresses-format files: records -> sorted arrays -> one container file.

Streets (one per street name, locality and postcode) are the unit of text search; addresses hang under their
street sorted by house number, so a house number is a binary search inside a street. Everything is sorted:
strings by text (an id is a rank), streets by dataset, postcode and name (a postcode's streets are contiguous),
addresses by street, number and unit (a building's units are contiguous).
"""

from __future__ import annotations

import re
import time
import uuid
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from dqkit.contract.errors import InputError
from dqkit.engines.address_index.container import write_container
from dqkit.engines.address_index.countries import country, dataset_id
from dqkit.engines.address_index.hygiene import REASON_DUPLICATE, Hygiene
from dqkit.engines.address_index.located import located_source
from dqkit.engines.address_index.reader import (
    NUMINT_MAX,
    Record,
    SourceFile,
    numint,
    open_text,
    read_records,
)
from dqkit.engines.address_index.strings import pack_strings
from dqkit.engines.address_index.tokens import street_word_forms, tokens

FORMAT_VERSION: Final = 1
KIND: Final = "dqkit-reference-index"
_UNIT_DIGITS: Final = re.compile(r"\d+")
FIELD_STREET: Final = 1
FIELD_LOCALITY: Final = 2


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


def locality_tokens(iso2: str, city: str, region: str, postcode: str) -> list[str]:
    """Tokens of a street's locality: city words, region code and name, postcode (whole and in parts)."""
    out = tokens(city)
    if region:
        out.append(region)
        name = country(iso2).regions.get(region, "")
        if iso2 == "US" and not name:
            from dqkit.contract.us_states import STATES

            name = STATES.get(region, "")
        out += tokens(name)
    if postcode:
        parts = postcode.split()
        out.append("".join(parts))
        if len(parts) > 1:
            out += parts
    return out


def street_tokens(street_text: str) -> list[str]:
    out: list[str] = []
    for w in tokens(street_text):
        out += street_word_forms(w)
    return out


def build_index(
    files: Sequence[str | Path] | Sequence[SourceFile],
    out: str | Path,
    *,
    country_iso2: str | None = None,
    synthetic: bool = False,
    progress: Callable[[str], None] | None = None,
    clean: bool | None = None,
) -> BuildReport:
    """Build the index of `files` (OpenAddresses CSV or .csv.gz) into the single file `out`.

    `clean` drops the rows `hygiene` says must not be served and exact duplicates, counted in
    `BuildReport.dropped`, as `reference add` does: on by default, so no way of opening a county file
    (`--reference FILE`, `AddressEngine.from_files`, `dqkit index build`) serves its junk rows. Off by default
    for `synthetic` data (generated, with no junk, built at full speed), and off when asked (`clean=False`)."""
    t0 = time.perf_counter()
    sources = [f if isinstance(f, SourceFile) else _located(f, country_iso2, progress) for f in files]
    if not sources:
        raise InputError("no reference files given")
    hygiene = Hygiene() if (not synthetic if clean is None else clean) else None
    report = _build(_records_of(sources, progress, hygiene), sources, Path(out), synthetic=synthetic, t0=t0,
                    progress=progress, dedupe=hygiene is not None)
    if hygiene is not None:
        report.dropped = {k: v for k, v in ({**hygiene.dropped, REASON_DUPLICATE: report.duplicates}).items() if v}
    return report


def _located(path: str | Path, country_iso2: str | None, progress: Callable[[str], None] | None) -> SourceFile:
    """Country and state of a file from its rows, the path a hint (`located`); notes go to `progress`."""
    p, settled = located_source(path, country_iso2)
    for note in settled.notes:
        if progress:
            progress(note)
    return SourceFile(p, settled.iso2, settled.parse_region)


def _records_of(sources: Sequence[SourceFile], progress: Callable[[str], None] | None,
                hygiene: Hygiene | None) -> Iterable[tuple[str, Record]]:
    for src in sources:
        if not src.path.is_file():
            raise InputError(f"reference file {src.path} does not exist")
        if progress:
            progress(f"reading {src.path} ({src.iso2}{'/' + src.region if src.region else ''})")
        rows = read_records(src)
        if hygiene is not None:
            hygiene.coordinates = _has_coordinates(src)
            rows = hygiene.keep(src.iso2, rows)
        for rec in rows:
            yield src.iso2, rec


def _has_coordinates(src: SourceFile) -> bool:
    """Whether the file has LON and LAT columns (without them no row is dropped for lacking coordinates)."""
    with open_text(src.path) as f:
        head = {h.strip().upper() for h in f.readline(65536).split(",")}
    return {"LON", "LAT"} <= head


def build_from_records(records: Iterable[tuple[str, Record]], out: str | Path, *,
                       synthetic: bool = False, sources: Sequence[str] = (),
                       progress: Callable[[str], None] | None = None, dedupe: bool = False) -> BuildReport:
    """Build from a stream of (iso2, Record) pairs (readers of other formats, generators, tests).

    The stream is consumed once and never held: 10 million records need about 1.3 GB at the peak.
    `progress` gets a line every million rows and, for builds that large, one per phase. `dedupe` keeps rows
    equal in every part of the address and in their coordinates once (`BuildReport.duplicates` counts the rest)."""
    return _build(records, [], Path(out), synthetic=synthetic, t0=time.perf_counter(), names=sources,
                  progress=progress, dedupe=dedupe)


_NO_UNIT: Final = (0, 0, -1)
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

    def __init__(self) -> None:
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

    def consume(self, records: Iterable[tuple[str, Record]], t0: float,
                progress: Callable[[str], None] | None) -> None:
        """Append every record (one loop with its lookups bound locally: this is the hot path of a build)."""
        pool, street_ids, st_cols, ds_codes = self.pool, self.street_ids, self.st_cols, self.ds_codes
        a_street, a_num, a_numint, a_desig, a_unit, a_unitint = (
            self.a_street, self.a_num, self.a_numint, self.a_desig, self.a_unit, self.a_unitint)
        x_zip4, x_crrt, x_dp = self.extras["zip4"], self.extras["crrt"], self.extras["dp"]
        a_lon, a_lat, sids = self.a_lon, self.a_lat, self.sids
        num_info: dict[str, tuple[int, int]] = {}
        unit_info: dict[tuple[str, str], tuple[int, int, int]] = {}
        for iso2, r in records:
            (number, predir, name, suffix, postdir, desig, unit, city, region, postcode, lon, lat, sid, zip4, crrt,
             dp) = r
            ds = ds_codes.get(iso2)
            if ds is None:
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
            if progress is not None and not len(a_lon) % _PROGRESS_ROWS:
                progress(f"{len(a_lon):,} rows read ({time.perf_counter() - t0:.0f} s)")


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


def _word_arrays(arrays: dict[str, npt.NDArray[Any]], strings: list[str], ds_codes: dict[str, int],
                 bounds: npt.NDArray[np.int64], synthetic: bool) -> list[dict[str, Any]]:
    """The word indexes of every dataset: inverted (word -> streets, by field), forward (street -> words) and
    addresses by house number (step 6). Returns the datasets' metadata."""
    n_streets = len(bounds) - 1
    ds_meta: list[dict[str, Any]] = []
    fw_ptr = np.zeros(n_streets + 1, dtype=np.int64)
    fw_tok_parts: list[npt.NDArray[np.int32]] = []
    fw_field_parts: list[npt.NDArray[np.uint8]] = []
    s_ds_sorted = arrays["s.ds"]
    iso_by_ds = {v: k for k, v in ds_codes.items()}
    for ds in range(len(ds_codes)):
        iso2 = iso_by_ds[ds]
        s_lo, s_hi = (int(x) for x in np.searchsorted(s_ds_sorted, [ds, ds + 1]))
        words, ptok, pst, pfl = _dataset_words(arrays, strings, iso2, s_lo, s_hi)
        tb, to = pack_strings(words)
        arrays[f"d{ds}.tok.blob"], arrays[f"d{ds}.tok.off"] = tb, to
        for fld, tag in ((FIELD_STREET, "ps"), (FIELD_LOCALITY, "pl")):
            sel = pfl == fld
            t_, s_ = ptok[sel], pst[sel]
            order = np.lexsort((s_, t_))
            t_, s_ = t_[order], s_[order]
            keep = np.ones(len(t_), dtype=bool)
            keep[1:] = (t_[1:] != t_[:-1]) | (s_[1:] != s_[:-1])
            t_, s_ = t_[keep], s_[keep]
            arrays[f"d{ds}.{tag}"] = s_.astype(np.int32)
            arrays[f"d{ds}.{tag}_ptr"] = np.searchsorted(t_, np.arange(len(words) + 1)).astype(np.int64)
        # forward index: street -> its token ids (street field first)
        order = np.lexsort((ptok, pfl, pst))
        f_st, f_tok, f_fl = pst[order], ptok[order], pfl[order]
        fw_tok_parts.append(f_tok.astype(np.int32))
        fw_field_parts.append(f_fl.astype(np.uint8))
        fw_lists_counts = np.bincount(f_st - s_lo, minlength=s_hi - s_lo) if len(f_st) else \
            np.zeros(s_hi - s_lo, np.int64)
        fw_ptr[s_lo + 1:s_hi + 1] = fw_lists_counts
        a_lo, a_hi = int(bounds[s_lo]), int(bounds[s_hi])
        ni = arrays["a.numint"][a_lo:a_hi]
        num_order = np.argsort(ni, kind="stable").astype(np.int64) + a_lo
        arrays[f"d{ds}.num_order"] = num_order
        arrays[f"d{ds}.num_sorted"] = ni[num_order - a_lo]
        ds_meta.append({
            "id": dataset_id(iso2), "iso2": iso2, "street_lo": s_lo, "street_hi": s_hi,
            "addr_lo": a_lo, "addr_hi": a_hi, "addresses": a_hi - a_lo, "streets": s_hi - s_lo,
            "tokens": len(words), "synthetic": synthetic,
        })
    arrays["fw.ptr"] = np.cumsum(fw_ptr)
    arrays["fw.tok"] = np.concatenate(fw_tok_parts) if fw_tok_parts else np.zeros(0, np.int32)
    arrays["fw.field"] = np.concatenate(fw_field_parts) if fw_field_parts else np.zeros(0, np.uint8)
    return ds_meta


def _dataset_words(arrays: dict[str, npt.NDArray[Any]], strings: list[str], iso2: str, s_lo: int,
                   s_hi: int) -> tuple[list[str], npt.NDArray[np.int32], npt.NDArray[np.int32],
                                       npt.NDArray[np.uint8]]:
    """The sorted vocabulary of streets [s_lo, s_hi) and their (word rank, street, field) pairs."""
    s_text = arrays["s.text"]
    s_city, s_region, s_pc = arrays["s.city"], arrays["s.region"], arrays["s.postcode"]
    st_tok_cache: dict[int, list[str]] = {}
    loc_cache: dict[tuple[int, int, int], list[str]] = {}
    vocab: dict[str, int] = {}
    pairs_tok: array[int] = array("i")
    pairs_st: array[int] = array("i")
    pairs_field: array[int] = array("b")
    for s in range(s_lo, s_hi):
        t = int(s_text[s])
        stoks = st_tok_cache.get(t)
        if stoks is None:
            stoks = st_tok_cache[t] = list(dict.fromkeys(street_tokens(strings[t])))
        lk = (int(s_city[s]), int(s_region[s]), int(s_pc[s]))
        ltoks = loc_cache.get(lk)
        if ltoks is None:
            ltoks = loc_cache[lk] = list(dict.fromkeys(
                locality_tokens(iso2, strings[lk[0]], strings[lk[1]], strings[lk[2]])))
        for fld, toks in ((FIELD_STREET, stoks), (FIELD_LOCALITY, ltoks)):
            for w in toks:
                tid = vocab.get(w)
                if tid is None:
                    tid = vocab[w] = len(vocab)
                pairs_tok.append(tid)
                pairs_st.append(s)
                pairs_field.append(fld)
    words = sorted(vocab)
    vrank = np.empty(len(words), dtype=np.int32)
    vrank[np.asarray([vocab[w] for w in words], dtype=np.int64)] = np.arange(len(words), dtype=np.int32)
    ptok = vrank[np.frombuffer(pairs_tok, dtype=np.int32)] if len(pairs_tok) else np.zeros(0, np.int32)
    pst = np.frombuffer(pairs_st, dtype=np.int32) if len(pairs_st) else np.zeros(0, np.int32)
    pfl = np.frombuffer(pairs_field, dtype=np.int8).astype(np.uint8) if len(pairs_field) else \
        np.zeros(0, np.uint8)
    return words, ptok, pst, pfl


def _build(records: Iterable[tuple[str, Record]], sources: Sequence[SourceFile], out: Path, *,
           synthetic: bool, t0: float, names: Sequence[str] = (),
           progress: Callable[[str], None] | None = None, dedupe: bool = False) -> BuildReport:
    """Stream `records` into compact typed columns, then sort and index them with numpy, in named steps."""
    cols = _Columns()
    cols.consume(records, t0, progress)
    n_read = len(cols.sids)
    if not n_read:
        raise InputError("the reference files hold no usable address rows")
    say = progress if progress is not None and n_read >= _PROGRESS_ROWS else None  # phases of large builds
    if say is not None:
        say(f"{n_read:,} rows, {len(cols.street_ids):,} streets: sorting")
    strings, rank = cols.pool.sorted_table()
    cols.pool = _Interner()
    streets = _order_streets(cols, rank)
    n_streets = len(streets.order)
    cols.street_ids = {}
    arrays: dict[str, npt.NDArray[Any]] = {}
    a_order, duplicates = _order_addresses(cols, rank, streets, arrays, dedupe=dedupe)
    bounds = np.searchsorted(arrays["a.street"], np.arange(n_streets + 1))
    arrays["str.blob"], arrays["str.off"] = pack_strings(strings)
    arrays["sid.blob"], arrays["sid.off"] = cols.sids.packed(a_order)
    cols.sids = _StringColumn()
    _street_arrays(streets, bounds, arrays)
    _extra_arrays(cols, rank, a_order, n_read, arrays)
    del a_order, streets
    if say is not None:
        say("indexing street and locality words")
    ds_meta = _word_arrays(arrays, strings, cols.ds_codes, bounds, synthetic)
    meta = {
        "kind": KIND, "format_version": FORMAT_VERSION, "build_id": uuid.uuid4().hex,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "sources": [str(s.path) for s in sources] or list(names), "datasets": ds_meta, "synthetic": synthetic,
    }
    if say is not None:
        say(f"writing {out}")
    size = write_container(out, arrays, meta)
    return BuildReport(
        path=out, addresses=len(arrays["a.street"]), streets=n_streets,
        datasets={d["id"]: d["addresses"] for d in ds_meta}, seconds=time.perf_counter() - t0, size_bytes=size,
        files=[str(s.path) for s in sources], duplicates=duplicates,
    )
