"""The opened reference index: typed access to its arrays, and the standardizer's `PointSource` over it."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from dqkit.contract.errors import ReferenceDataError
from dqkit.engines.address_index.build import FORMAT_VERSION, KIND
from dqkit.engines.address_index.container import Container
from dqkit.engines.address_index.letter_sieve import NameSieve, ZipLetters, near_names, sieves_of
from dqkit.engines.address_index.strings import StringTable
from dqkit.engines.usaddr.points import (
    EXTRA_CARRIER_ROUTE,
    EXTRA_DELIVERY_POINT,
    EXTRA_ZIP4,
    AddressPoint,
)
from dqkit.engines.usaddr.street import Street

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]


@dataclass(frozen=True, slots=True)
class DatasetInfo:
    """One dataset (country) of an index: its street and address id ranges."""

    ordinal: int
    id: str
    iso2: str
    street_lo: int
    street_hi: int
    addr_lo: int
    addr_hi: int
    synthetic: bool

    @property
    def addresses(self) -> int:
        return self.addr_hi - self.addr_lo


@dataclass(frozen=True, slots=True)
class StreetRow:
    id: int
    dataset: int
    predir: str
    name: str
    suffix: str
    postdir: str
    text: str  # "N MAIN ST"
    city: str
    region: str
    postcode: str
    lo: int  # address id range [lo, hi)
    hi: int


@dataclass(frozen=True, slots=True)
class AddressRow:
    id: int
    street: StreetRow
    number: str
    unit_desig: str
    unit: str
    lon: float
    lat: float
    source_id: str
    zip4: str = ""
    carrier_route: str = ""
    delivery_point: str = ""
    source: str = ""  # the kind of source of the point ("nad", "openaddresses"), "" when the index does not say
    source_date: str = ""  # the date of that source's data

    @property
    def secondary(self) -> str:
        return " ".join(p for p in (self.unit_desig, self.unit) if p)

    @property
    def line(self) -> str:
        """Delivery line: "1200 N MAIN ST APT 4"."""
        return " ".join(p for p in (self.number, self.street.text, self.secondary) if p)


class TokenIndex:
    """The search vocabulary of one dataset and its posting lists (street ids), by field."""

    def __init__(self, c: Container, ds: int) -> None:
        p = f"d{ds}."
        self.vocab = StringTable(c[p + "tok.blob"], c[p + "tok.off"])
        self.ps: I32 = c[p + "ps"]
        self.ps_ptr: I64 = c[p + "ps_ptr"]
        self.pl: I32 = c[p + "pl"]
        self.pl_ptr: I64 = c[p + "pl_ptr"]
        self.num_order: I64 = c[p + "num_order"]
        self.num_sorted: I32 = c[p + "num_sorted"]
        # derived (`derived.py`): the street of each `num_order` entry; None in an index built before it
        self.num_street: I32 | None = c.arrays.get(p + "num_street")
        self.by_prior: I32 | None = c.arrays.get(p + "by_prior")  # derived: streets busiest first (local ids)
        # derived: a one-letter word's level on every street, a row per letter (`derived.letter_levels`)
        self.letter_levels: npt.NDArray[np.int8] | None = c.arrays.get(p + "letter_levels")

    @cached_property
    def words(self) -> list[str]:
        """The vocabulary as a Python list (decoded once, on the first fuzzy lookup)."""
        return self.vocab.all()

    @cached_property
    def first_char_ranges(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for i, w in enumerate(self.words):
            c = w[:1]
            lo, _ = out.get(c, (i, i))
            out[c] = (lo, i + 1)
        return out

    @cached_property
    def ids(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.words)}

    def find(self, word: str) -> int:
        return self.ids.get(word, -1)

    def prefix_range(self, prefix: str) -> tuple[int, int]:
        words = self.words
        lo = bisect.bisect_left(words, prefix)
        return lo, bisect.bisect_left(words, prefix + "\U0010ffff", lo)


class ReferenceIndex:
    """A built reference index, memory-mapped. Cheap to open; safe to share between threads (read-only)."""

    def __init__(self, path: str | Path) -> None:
        self.container = c = Container(path)
        meta = c.meta
        if meta.get("kind") != KIND:
            raise ReferenceDataError(f"{path} is not a dqkit reference index")
        if meta.get("format_version") != FORMAT_VERSION:
            raise ReferenceDataError(
                f"{path} is a reference index of format {meta.get('format_version')}, this dqkit reads "
                f"format {FORMAT_VERSION}: rebuild it with `dqkit index build`")
        if meta.get("run"):
            raise ReferenceDataError(f"{path} is a temporary run of an index build, not an index")
        self.path = Path(path)
        self.build_id: str = meta["build_id"]
        self.meta = meta
        self.strings = StringTable(c["str.blob"], c["str.off"])
        self.source_ids = StringTable(c["sid.blob"], c["sid.off"])
        self.s_predir: I32 = c["s.predir"]
        self.s_name: I32 = c["s.name"]
        self.s_suffix: I32 = c["s.suffix"]
        self.s_postdir: I32 = c["s.postdir"]
        self.s_city: I32 = c["s.city"]
        self.s_region: I32 = c["s.region"]
        self.s_postcode: I32 = c["s.postcode"]
        self.s_text: I32 = c["s.text"]
        self.s_ds: npt.NDArray[np.uint8] = c["s.ds"]
        self.s_lo: I64 = c["s.lo"]
        self.s_hi: I64 = c["s.hi"]
        self.s_count: I32 = c["s.count"]
        self.a_street: I32 = c["a.street"]
        self.a_numint: I32 = c["a.numint"]
        self.a_number: I32 = c["a.number"]
        self.a_desig: I32 = c["a.desig"]
        self.a_unit: I32 = c["a.unit"]
        self.a_key: I64 = c["a.key"]
        self.a_lon: npt.NDArray[np.float64] = c["a.lon"]
        self.a_lat: npt.NDArray[np.float64] = c["a.lat"]
        self.a_extra: dict[str, I32] = {k: c[f"a.{k}"] for k in ("zip4", "crrt", "dp") if f"a.{k}" in c}
        # where each point came from: a part is one input of the reference (a file, of a source, of a date)
        self.parts: list[dict[str, Any]] = [dict(p) for p in meta.get("parts") or [
            {"name": ", ".join(meta.get("sources", [])), "source": "", "date": ""}]]
        self.a_part: npt.NDArray[np.unsignedinteger[Any]] | None = c.arrays.get("a.part")
        self.fw_ptr: I64 = c["fw.ptr"]
        self.fw_tok: I32 = c["fw.tok"]
        self.fw_field: npt.NDArray[np.uint8] = c["fw.field"]
        self.datasets: list[DatasetInfo] = [
            DatasetInfo(i, d["id"], d["iso2"], d["street_lo"], d["street_hi"], d["addr_lo"], d["addr_hi"],
                        bool(d.get("synthetic")))
            for i, d in enumerate(meta["datasets"])
        ]
        self._tokens: dict[int, TokenIndex] = {}
        self._us = next((d for d in self.datasets if d.iso2 == "US"), None)
        self._points_cache: dict[tuple[str, str], tuple[AddressPoint, ...]] = {}
        # validate asks the same postcodes many times a query (search, standardizer, note): looked up once
        self._postcode_cache: dict[tuple[int, int, str], tuple[int, int]] = {}
        self._names_cache: dict[str, tuple[str, ...]] = {}
        self._name_sieves: dict[str, NameSieve] = {}  # zip5 -> its street names' letters (an index without the
        # name sections below: `street_name_candidates`)
        # derived (`derived.py`): each US street's name letters, as the sieves read them; None in an older index
        us = f"d{self._us.ordinal}." if self._us is not None else ""
        self._name_lacks: npt.NDArray[np.uint32] | None = c.arrays.get(us + "name_lacks") if us else None
        self._name_size: npt.NDArray[np.uint16] | None = c.arrays.get(us + "name_size") if us else None
        self._zip_letters: tuple[tuple[str, ...], ZipLetters] | None = None  # the last ZIPs asked, laid end to end
        self._name_candidates: dict[tuple[tuple[str, ...], str, int], list[tuple[str, ...]]] = {}

    # -- sizes and datasets -------------------------------------------------------------------------------
    @property
    def address_count(self) -> int:
        return len(self.a_street)

    @property
    def street_count(self) -> int:
        return len(self.s_lo)

    def dataset(self, dataset_id: str) -> DatasetInfo | None:
        return next((d for d in self.datasets if d.id == dataset_id), None)

    def tokens(self, ds: int) -> TokenIndex:
        t = self._tokens.get(ds)
        if t is None:
            t = self._tokens[ds] = TokenIndex(self.container, ds)
        return t

    # -- rows ----------------------------------------------------------------------------------------------
    # ~760 bytes an entry (100M index): 32,768 rows hold ~24 MB a process (65,536 held 48 MB, a serve worker's
    # after ~60k keystrokes); a row read again costs ~11 us
    @lru_cache(maxsize=32768)  # noqa: B019 - the index lives as long as the process uses it
    def street(self, s: int) -> StreetRow:
        st = self.strings
        return StreetRow(
            id=s, dataset=int(self.s_ds[s]), predir=st[int(self.s_predir[s])], name=st[int(self.s_name[s])],
            suffix=st[int(self.s_suffix[s])], postdir=st[int(self.s_postdir[s])], text=st[int(self.s_text[s])],
            city=st[int(self.s_city[s])], region=st[int(self.s_region[s])],
            postcode=st[int(self.s_postcode[s])], lo=int(self.s_lo[s]), hi=int(self.s_hi[s]),
        )

    def address(self, a: int) -> AddressRow:
        st = self.strings
        ex = self.a_extra
        part = self.part_of(a)
        return AddressRow(
            id=a, street=self.street(int(self.a_street[a])), number=st[int(self.a_number[a])],
            unit_desig=st[int(self.a_desig[a])], unit=st[int(self.a_unit[a])],
            lon=float(self.a_lon[a]), lat=float(self.a_lat[a]), source_id=self.source_ids[a],
            zip4=st[int(ex["zip4"][a])] if "zip4" in ex else "",
            carrier_route=st[int(ex["crrt"][a])] if "crrt" in ex else "",
            delivery_point=st[int(ex["dp"][a])] if "dp" in ex else "",
            source=str(part.get("source", "")), source_date=str(part.get("date", "")),
        )

    def part_of(self, a: int) -> dict[str, Any]:
        """The part (input) address `a` came from: {"name", "source", "date", ...} (see `merge`)."""
        return self.parts[int(self.a_part[a])] if self.a_part is not None else self.parts[0]

    def number_text(self, a: int) -> str:
        return self.strings[int(self.a_number[a])]

    def unit_text(self, a: int) -> str:
        return " ".join(p for p in (self.strings[int(self.a_desig[a])], self.strings[int(self.a_unit[a])]) if p)

    def has_unit(self, a: int) -> bool:
        return bool(self.a_unit[a] or self.a_desig[a])

    def building(self, a: int) -> tuple[int, int]:
        """[lo, hi) of the addresses sharing the street and house number of address `a`."""
        s = int(self.a_street[a])
        lo, hi = int(self.s_lo[s]), int(self.s_hi[s])
        num = self.a_number[a]
        nums = self.a_number[lo:hi]
        key = self.a_key[a]
        keys = self.a_key[lo:hi]
        k_lo = int(keys.searchsorted(key, "left")) + lo
        k_hi = int(keys.searchsorted(key, "right")) + lo
        same = np.flatnonzero(nums[k_lo - lo:k_hi - lo] == num)
        return k_lo + int(same[0]), k_lo + int(same[-1]) + 1

    # -- postcodes -----------------------------------------------------------------------------------------
    def streets_in_postcode(self, ds: DatasetInfo, postcode: str) -> tuple[int, int]:
        """[lo, hi) of the streets of a postcode in a dataset (streets are sorted by postcode)."""
        key = (ds.street_lo, ds.street_hi, postcode)
        got = self._postcode_cache.get(key)
        if got is None:
            got = self._streets_in_postcode(ds, postcode)
            if len(self._postcode_cache) >= 65536:
                self._postcode_cache.clear()
            self._postcode_cache[key] = got
        return got

    def _streets_in_postcode(self, ds: DatasetInfo, postcode: str) -> tuple[int, int]:
        pid = self.strings.find(postcode)
        if pid < 0 or not postcode:
            return 0, 0
        seg = self.s_postcode[ds.street_lo:ds.street_hi]
        lo = int(seg.searchsorted(np.int32(pid), "left"))
        hi = int(seg.searchsorted(np.int32(pid), "right"))
        return ds.street_lo + lo, ds.street_lo + hi

    def streets_named(self, ds: DatasetInfo, postcode: str, name: str) -> list[int]:
        lo, hi = self.streets_in_postcode(ds, postcode)
        nid = self.strings.find(name)
        if nid < 0 or lo == hi:
            return []
        seg = self.s_name[lo:hi]
        a = int(seg.searchsorted(np.int32(nid), "left"))
        b = int(seg.searchsorted(np.int32(nid), "right"))
        return list(range(lo + a, lo + b))

    # -- the standardizer's PointSource ------------------------------------------------------------------
    def points_on_street(self, zip5: str, name: str) -> Sequence[AddressPoint]:
        if self._us is None:
            return ()
        key = (zip5, name)
        got = self._points_cache.get(key)
        if got is None:
            got = tuple(p for s in self.streets_named(self._us, zip5, name) for p in self.street_points(s))
            if len(self._points_cache) >= 4096:
                self._points_cache.clear()
            self._points_cache[key] = got
        return got

    def street_points(self, s: int) -> list[AddressPoint]:
        """Every point of street `s`, built in one pass over its slice of the arrays."""
        row = self.street(s)
        lo, hi = row.lo, row.hi
        st = self.strings
        nums = st.many(self.a_number[lo:hi].tolist())
        desigs = st.many(self.a_desig[lo:hi].tolist())
        units = st.many(self.a_unit[lo:hi].tolist())
        lats = self.a_lat[lo:hi].tolist()
        lons = self.a_lon[lo:hi].tolist()
        sids = self.source_ids.range(lo, hi)
        ex = self.a_extra
        extras: list[dict[str, str]] = [{} for _ in range(hi - lo)]
        for col, key in (("zip4", EXTRA_ZIP4), ("crrt", EXTRA_CARRIER_ROUTE), ("dp", EXTRA_DELIVERY_POINT)):
            if col in ex:
                for j, i in enumerate(ex[col][lo:hi].tolist()):
                    if i:
                        extras[j][key] = st[i]
        out: list[AddressPoint] = []
        for j in range(hi - lo):
            street = Street(number=nums[j], predir=row.predir, name=row.name, suffix=row.suffix,
                            postdir=row.postdir, unit_desig=desigs[j], unit=units[j])
            out.append(AddressPoint(id=sids[j], number=nums[j], street=street, unit=units[j], city=row.city,
                                    state=row.region, zip=row.postcode, lat=_coord(lats[j]), lon=_coord(lons[j]),
                                    extra=extras[j]))
        return out

    def street_names(self, zip5: str) -> Sequence[str]:
        if self._us is None:
            return ()
        got = self._names_cache.get(zip5)
        if got is None:
            lo, hi = self.streets_in_postcode(self._us, zip5)
            got = tuple(self.strings.many(np.unique(self.s_name[lo:hi]).tolist()))
            if len(self._names_cache) >= 4096:
                self._names_cache.clear()
            self._names_cache[zip5] = got
        return got

    def street_names_held(self, zips: list[str]) -> list[int] | None:
        """How many streets each of `zips` holds: a point source that says so can hand the standardizer only the
        names near a typed one (`street_name_candidates`); None outside the US."""
        if self._us is None:
            return None
        return [hi - lo for lo, hi in (self.streets_in_postcode(self._us, z) for z in zips)]

    def street_name_candidates(self, zips: list[str], key: str, limit: int) -> list[tuple[str, ...]] | None:
        """For each of `zips`, the names of `street_names(zip)`, in its order, that may have a standardizer key
        (`usaddr.match.name_key`) within `limit` edits of `key`: the standardizer decodes and compares only those
        (for a street the city lacks, usually none of its ~90 names a ZIP). Read from the derived sections
        `name_lacks` / `name_size` on the ZIPs' street slices when the index has them, else from each ZIP's
        sieve (built from its names' bytes once). Remembered for the ZIPs, key and limit asked (a validation asks
        twice: the typed ZIP, then every ZIP of the city)."""
        if self._us is None:
            return None
        ask = (tuple(zips), key, limit)
        got = self._name_candidates.get(ask)
        if got is None:
            if self._name_lacks is not None and self._name_size is not None:
                near = self._letters_of(ask[0], self._name_lacks, self._name_size).near(key, limit)
                got = [tuple(self.strings.many(ids.tolist())) if len(ids) else () for ids in near]
            else:
                got = near_names(self.strings, self._sieves(zips), key, limit)
            if len(self._name_candidates) >= 4096:
                self._name_candidates.clear()
            self._name_candidates[ask] = got
        return got

    def _letters_of(self, zips: tuple[str, ...], lacks: npt.NDArray[np.uint32], size: npt.NDArray[np.uint16],
                    ) -> ZipLetters:
        """The name letters of the streets of `zips` laid end to end, kept for the next ask of the same ZIPs (the
        standardizer asks limit 0, then its typo limit)."""
        assert self._us is not None
        last = self._zip_letters
        if last is not None and last[0] == zips:
            return last[1]
        base = self._us.street_lo
        spans = [(lo - base, hi - base) if hi > lo else (0, 0)
                 for lo, hi in (self.streets_in_postcode(self._us, z) for z in zips)]
        got = ZipLetters(self.s_name[base:self._us.street_hi], lacks, size, spans)
        self._zip_letters = (zips, got)
        return got

    def _sieves(self, zips: list[str]) -> list[NameSieve]:
        assert self._us is not None
        missing = [z for z in dict.fromkeys(zips) if z not in self._name_sieves]
        if missing:
            if len(self._name_sieves) + len(missing) > 4096:
                self._name_sieves.clear()
            spans = [self.streets_in_postcode(self._us, z) for z in missing]
            groups = distinct_names(self.s_name, spans)
            self._name_sieves.update(zip(missing, sieves_of(self.strings, groups), strict=True))
        return [self._name_sieves[z] for z in zips]

    def point(self, a: int) -> AddressPoint:
        """The standardizer's view of address `a`."""
        r = self.address(a)
        s = r.street
        extra: dict[str, Any] = {}
        if r.zip4:
            extra[EXTRA_ZIP4] = r.zip4
        if r.carrier_route:
            extra[EXTRA_CARRIER_ROUTE] = r.carrier_route
        if r.delivery_point:
            extra[EXTRA_DELIVERY_POINT] = r.delivery_point
        street = Street(number=r.number, predir=s.predir, name=s.name, suffix=s.suffix, postdir=s.postdir,
                        unit_desig=r.unit_desig, unit=r.unit)
        return AddressPoint(
            id=r.source_id, number=r.number, street=street, unit=r.unit, city=s.city, state=s.region,
            zip=s.postcode, lat=_coord(r.lat), lon=_coord(r.lon), extra=extra,
        )


def _coord(x: float) -> str:
    return "" if x != x else repr(x)  # the shortest text that reads back as the stored double


def distinct_names(s_name: I32, spans: list[tuple[int, int]]) -> list[npt.NDArray[np.int64]]:
    """The distinct name ids of each street range [lo, hi) of `spans` (a postcode's), ascending: `np.unique` of each,
    in one pass over all of them (a postcode's streets are sorted by name: a name's streets are neighbours; ranges
    that are not are read by `np.unique`)."""
    if not spans:
        return []
    cat = np.concatenate([s_name[lo:hi] for lo, hi in spans]).astype(np.int64)
    ends = list(itertools.accumulate(hi - lo for lo, hi in spans))
    starts = [0, *ends[:-1]]
    up = np.empty(len(cat), dtype=np.int64)  # each street's name id less the one before it in its range
    up[1:] = cat[1:] - cat[:-1]
    up[[a for a, b in zip(starts, ends, strict=True) if b > a]] = 1  # each range's first street
    if (up < 0).any():
        return [np.unique(s_name[lo:hi]).astype(np.int64) for lo, hi in spans]
    keep = up > 0
    at = [0, *np.concatenate(([0], np.cumsum(keep)))[ends].tolist()]
    ids = cat[keep]
    return [ids[at[j]:at[j + 1]] for j in range(len(spans))]
