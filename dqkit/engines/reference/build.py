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
from dqkit.engines.reference.container import write_container
from dqkit.engines.reference.countries import country, dataset_id
from dqkit.engines.reference.reader import NUMINT_MAX, Record, SourceFile, numint, read_records, source_of
from dqkit.engines.reference.strings import pack_strings
from dqkit.engines.reference.tokens import street_word_forms, tokens

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
            from dqkit.engines.usaddr.pub28 import STATES

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
) -> BuildReport:
    """Build the index of `files` (OpenAddresses CSV or .csv.gz) into the single file `out`."""
    t0 = time.perf_counter()
    sources = [f if isinstance(f, SourceFile) else source_of(f, country_iso2) for f in files]
    if not sources:
        raise InputError("no reference files given")
    return _build(_records_of(sources, progress), sources, Path(out), synthetic=synthetic, t0=t0)


def _records_of(sources: Sequence[SourceFile],
                progress: Callable[[str], None] | None) -> Iterable[tuple[str, Record]]:
    for src in sources:
        if not src.path.is_file():
            raise InputError(f"reference file {src.path} does not exist")
        if progress:
            progress(f"reading {src.path} ({src.iso2}{'/' + src.region if src.region else ''})")
        for rec in read_records(src):
            yield src.iso2, rec


def build_from_records(records: Iterable[tuple[str, Record]], out: str | Path, *,
                       synthetic: bool = False, sources: Sequence[str] = ()) -> BuildReport:
    """Build from records already in memory (tests, generators): (iso2, Record) pairs."""
    return _build(records, [], Path(out), synthetic=synthetic, t0=time.perf_counter(), names=sources)


def _build(records: Iterable[tuple[str, Record]], sources: Sequence[SourceFile], out: Path, *,
           synthetic: bool, t0: float, names: Sequence[str] = ()) -> BuildReport:
    pool = _Interner()
    sids: list[str] = []
    street_ids: dict[tuple[Any, ...], int] = {}
    st_cols: list[array[int]] = [array("i") for _ in range(10)]  # ds, predir, name, suffix, postdir, city,
    # region, postcode, text, (unused)
    ds_codes: dict[str, int] = {}
    a_street, a_num, a_numint, a_desig, a_unit, a_unitint = (array("i") for _ in range(6))
    a_zip4, a_crrt, a_dp = array("i"), array("i"), array("i")
    a_lon, a_lat = array("d"), array("d")
    for iso2, r in records:
        ds = ds_codes.setdefault(iso2, len(ds_codes))
        key = (ds, r.predir, r.name, r.suffix, r.postdir, r.city, r.region, r.postcode)
        s = street_ids.get(key)
        if s is None:
            s = street_ids[key] = len(street_ids)
            text = " ".join(p for p in (r.predir, r.name, r.suffix, r.postdir) if p)
            for col, v in zip(st_cols, (ds, pool(r.predir), pool(r.name), pool(r.suffix), pool(r.postdir),
                                        pool(r.city), pool(r.region), pool(r.postcode), pool(text), 0),
                              strict=True):
                col.append(v)
        a_street.append(s)
        a_num.append(pool(r.number))
        a_numint.append(numint(r.number))
        a_desig.append(pool(r.unit_desig))
        a_unit.append(pool(r.unit))
        m = _UNIT_DIGITS.search(r.unit)
        a_unitint.append(min(int(m.group()), NUMINT_MAX) if m else -1)
        a_zip4.append(pool(r.zip4))
        a_crrt.append(pool(r.carrier_route))
        a_dp.append(pool(r.delivery_point))
        a_lon.append(r.lon)
        a_lat.append(r.lat)
        sids.append(r.source_id)
    if not sids:
        raise InputError("the reference files hold no usable address rows")

    strings, rank = pool.sorted_table()
    st = [np.frombuffer(c, dtype=np.int32) if c.itemsize == 4 else np.asarray(c, np.int32) for c in st_cols]
    st_ds = st[0]
    st_r = [rank[c] for c in st[1:9]]  # predir, name, suffix, postdir, city, region, postcode, text
    # Streets sorted by dataset, postcode, name, predir, suffix, postdir, city, region.
    s_order = np.lexsort((st_r[5], st_r[4], st_r[3], st_r[2], st_r[0], st_r[1], st_r[6], st_ds))
    s_new = np.empty_like(s_order)
    s_new[s_order] = np.arange(len(s_order))
    street_arr = s_new[np.asarray(a_street, dtype=np.int64)].astype(np.int32)
    num_r = rank[np.asarray(a_num, dtype=np.int64)]
    numint_arr = np.asarray(a_numint, dtype=np.int32)
    desig_r = rank[np.asarray(a_desig, dtype=np.int64)]
    unit_r = rank[np.asarray(a_unit, dtype=np.int64)]
    unitint = np.asarray(a_unitint, dtype=np.int32)
    a_order = np.lexsort((unit_r, unitint, desig_r, num_r, numint_arr, street_arr))
    street_sorted = street_arr[a_order]
    n_streets = len(s_order)
    bounds = np.searchsorted(street_sorted, np.arange(n_streets + 1))

    arrays: dict[str, npt.NDArray[Any]] = {}
    blob, off = pack_strings(strings)
    arrays["str.blob"], arrays["str.off"] = blob, off
    sid_arr = [sids[i] for i in a_order.tolist()]
    arrays["sid.blob"], arrays["sid.off"] = pack_strings(sid_arr)
    names_ = ("predir", "name", "suffix", "postdir", "city", "region", "postcode", "text")
    for nm, st_col in zip(names_, st_r, strict=True):
        arrays[f"s.{nm}"] = st_col[s_order].astype(np.int32)
    s_ds_sorted = st_ds[s_order].astype(np.uint8)
    arrays["s.ds"] = s_ds_sorted
    arrays["s.lo"] = bounds[:-1].astype(np.int64)
    arrays["s.hi"] = bounds[1:].astype(np.int64)
    arrays["a.street"] = street_sorted
    arrays["a.numint"] = numint_arr[a_order]
    arrays["a.number"] = num_r[a_order]
    arrays["a.desig"] = desig_r[a_order]
    arrays["a.unit"] = unit_r[a_order]
    arrays["a.key"] = (street_sorted.astype(np.int64) << 24) | arrays["a.numint"].astype(np.int64)
    arrays["a.lon"] = np.asarray(a_lon, dtype=np.float64)[a_order]
    arrays["a.lat"] = np.asarray(a_lat, dtype=np.float64)[a_order]
    for nm, col_ in (("zip4", a_zip4), ("crrt", a_crrt), ("dp", a_dp)):
        c = rank[np.asarray(col_, dtype=np.int64)][a_order]
        if c.any():
            arrays[f"a.{nm}"] = c
    counts = (bounds[1:] - bounds[:-1]).astype(np.int32)
    arrays["s.count"] = counts

    # Tokens, per dataset.
    ds_meta: list[dict[str, Any]] = []
    fw_ptr = np.zeros(n_streets + 1, dtype=np.int64)
    fw_tok_parts: list[npt.NDArray[np.int32]] = []
    fw_field_parts: list[npt.NDArray[np.uint8]] = []
    s_text = arrays["s.text"]
    s_city, s_region, s_pc = arrays["s.city"], arrays["s.region"], arrays["s.postcode"]
    iso_by_ds = {v: k for k, v in ds_codes.items()}
    fw_lists: list[list[tuple[str, int]]] = [[] for _ in range(n_streets)]
    for ds in range(len(ds_codes)):
        iso2 = iso_by_ds[ds]
        s_lo, s_hi = (int(x) for x in np.searchsorted(s_ds_sorted, [ds, ds + 1]))
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
    del fw_lists
    arrays["fw.ptr"] = np.cumsum(fw_ptr)
    arrays["fw.tok"] = np.concatenate(fw_tok_parts) if fw_tok_parts else np.zeros(0, np.int32)
    arrays["fw.field"] = np.concatenate(fw_field_parts) if fw_field_parts else np.zeros(0, np.uint8)
    meta = {
        "kind": KIND, "format_version": FORMAT_VERSION, "build_id": uuid.uuid4().hex,
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "sources": [str(s.path) for s in sources] or list(names), "datasets": ds_meta, "synthetic": synthetic,
    }
    size = write_container(out, arrays, meta)
    return BuildReport(
        path=out, addresses=len(sids), streets=n_streets, datasets={d["id"]: d["addresses"] for d in ds_meta},
        seconds=time.perf_counter() - t0, size_bytes=size, files=[str(s.path) for s in sources],
    )
