"""Merging index files (runs of a large build, installed indexes, new parts) into one index, in bounded memory.

A national reference is too large to sort in memory (100M points would need ~12 GB as `build` holds them), so
`external` builds it in runs of a few million points and this module merges them: every input is sorted by the
same street order (strings sort the same in every pool), so the output is written street batch by street batch,
reading each input's rows of those streets with plain file reads (never a memory map, so nothing passed stays
resident), remapping string ids to the merged pool, and sorting only where two inputs hold the same street.
Memory is that of the merged string pool and street table (tens of bytes per street) plus one batch of rows.

The same merge grows an installed reference (`reference add --append`, a county or state replaced or removed):
its index is one input with the parts or regions to leave out, the new parts' runs the others; the result is
the index a full rebuild would give (tested array by array).

Several sources (NAD and OpenAddresses for one place): an address held by two sources (same street, number,
unit) is served once, from the source first added; the other source's points for it are kept aside in the
file (the `x.*` arrays, never served) so that removing the first source later brings them back exactly as a
rebuild would. Every point keeps its part (`a.part`: which input, of which source, of which date).
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from dqkit.contract.errors import InputError
from dqkit.engines.address_index import derived
from dqkit.engines.address_index.container import ArrayFile, ContainerWriter
from dqkit.engines.address_index.reader import NUMINT_MAX
from dqkit.engines.address_index.runs import (
    FORMAT_VERSION,
    KIND,
    BuildReport,
    dataset_meta,
    default_parts,
    part_dtype,
)
from dqkit.engines.address_index.strings import StringTable, pack_strings
from dqkit.engines.address_index.words import word_arrays

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
_STREET_COLS: Final = ("predir", "name", "suffix", "postdir", "city", "region", "postcode", "text")
# the street order: dataset, postcode, name, predir, suffix, postdir, city, region (as `build._order_streets`)
_ORDER: Final = ("region", "city", "postdir", "suffix", "predir", "name", "postcode")
_EXTRAS: Final = ("zip4", "crrt", "dp")
_UNIT_DIGITS: Final = re.compile(r"\d+")
DEFAULT_BATCH: Final = 1 << 20


@dataclass(frozen=True)
class MergeInput:
    """One index (or run) to merge, less the parts (by name, or "name#region") and regions (by code) to leave
    out."""

    path: Path
    drop_parts: frozenset[str] = frozenset()
    drop_regions: frozenset[str] = frozenset()


def part_key(p: dict[str, Any]) -> tuple[str, str, str]:
    """What makes two parts one: source, name and region (one national file added state by state is several)."""
    return str(p.get("source", "")), str(p.get("name", "")), str(p.get("region", ""))


def _dropped(p: dict[str, Any], drop: frozenset[str]) -> bool:
    name = str(p.get("name", ""))
    return name in drop or (bool(p.get("region")) and f"{name}#{p['region']}" in drop)


@dataclass
class _Rows:
    """The rows of one input: its served rows (`a.`) or the rows it keeps aside (`x.`)."""

    inp: _Input
    prefix: str  # "a" or "x"
    lo: I64  # per local street: [lo, hi) of its rows
    hi: I64
    part_col: str  # "" when every row is of part 0
    kept: I64 = field(default_factory=lambda: np.zeros(0, np.int64))  # rows per local street after filters
    filtered: bool = False  # some rows of kept streets are left out (their part is dropped)

    @property
    def sid(self) -> str:
        return "sid" if self.prefix == "a" else "xsid"


class _Input:
    """An input file: its strings mapped into the merged pool, its streets into the merged street table."""

    def __init__(self, mi: MergeInput) -> None:
        self.mi = mi
        self.af = ArrayFile(mi.path)
        meta = self.af.meta
        self.isos: list[str] = [d["iso2"] for d in meta.get("datasets", [])]
        self.parts: list[dict[str, Any]] = list(meta.get("parts") or default_parts(meta.get("sources", [])))
        self.part_keep = np.array([not _dropped(p, mi.drop_parts) for p in self.parts], dtype=bool)
        self.part_map = np.zeros(len(self.parts), dtype=np.int64)  # local part -> merged part
        self.remap: I64 = np.zeros(0, np.int64)  # local string id -> merged string id
        self.g: I64 = np.zeros(0, np.int64)  # local street -> merged street (-1: left out)
        self.n_streets = self.af.length("s.lo")
        self.extras = [x for x in _EXTRAS if f"a.{x}" in self.af]
        self.rows: list[_Rows] = []

    def strings(self) -> list[str]:
        return StringTable(self.af.read("str.blob"), self.af.read("str.off")).all()

    def close(self) -> None:
        self.af.close()


class _Progress:
    def __init__(self, say: Callable[[str], None] | None, t0: float) -> None:
        self.say, self.t0 = say, t0

    def __call__(self, text: str) -> None:
        if self.say is not None:
            self.say(f"{text} ({time.perf_counter() - self.t0:.0f} s)")


def merge_indexes(inputs: Sequence[MergeInput | str | Path], out: str | Path, *, synthetic: bool = False,
                  dedupe: bool = False, names: Sequence[str] = (), progress: Callable[[str], None] | None = None,
                  batch_rows: int = DEFAULT_BATCH, t0: float | None = None) -> BuildReport:
    """Merge `inputs` (index files or runs) into the index `out`; see the module docstring.

    `dedupe`: rows equal in address and coordinates are kept once, and an address held by two sources is served
    from the first (the other kept aside). Without it every row is kept (as `build` without `dedupe`)."""
    t0 = time.perf_counter() if t0 is None else t0
    say = _Progress(progress, t0)
    ins = [_Input(i if isinstance(i, MergeInput) else MergeInput(Path(i))) for i in inputs]
    if not ins:
        raise InputError("nothing to merge")
    try:
        return _merge(ins, Path(out), synthetic=synthetic, dedupe=dedupe, names=names, say=say,
                      batch_rows=max(1024, batch_rows), t0=t0)
    finally:
        for i in ins:
            i.close()


def _merge(ins: list[_Input], out: Path, *, synthetic: bool, dedupe: bool, names: Sequence[str], say: _Progress,
           batch_rows: int, t0: float) -> BuildReport:
    parts, kinds = _parts(ins)
    isos = _datasets(ins)
    pool = _pool(ins)
    say(f"merging {len(ins)} input(s): {len(pool):,} distinct strings")
    streets, contributors = _streets(ins, pool, isos)
    n_g = len(streets["s.ds"])
    say(f"{n_g:,} streets")
    src_rank = np.array([kinds.index(str(p.get("source", ""))) for p in parts], dtype=np.int64)
    plan = _Plan(ins, contributors, n_g, batch_rows, dedupe, src_rank, pool)
    # pass 1: what each street keeps (served / aside), the bytes of its source ids, the strings still used
    plan.count()
    say(f"{int(plan.served.sum()):,} addresses to write ({int(plan.aside.sum()):,} kept aside)")
    final = plan.prune()
    parts, part_final = plan.parts_kept(parts)
    strings = [s for s, u in zip(pool, plan.used, strict=True) if u] if final is not None else pool
    del pool
    for k in _STREET_COLS:
        streets[f"s.{k}"] = (final[streets[f"s.{k}"]] if final is not None else streets[f"s.{k}"]).astype(np.int32)
    bounds = np.zeros(n_g + 1, dtype=np.int64)
    np.cumsum(plan.served, out=bounds[1:])
    streets["s.lo"], streets["s.hi"] = bounds[:-1].copy(), bounds[1:].copy()
    streets["s.count"] = plan.served.astype(np.int32)
    small: dict[str, npt.NDArray[Any]] = dict(streets)
    small["str.blob"], small["str.off"] = pack_strings(strings)
    ranges = word_arrays(streets, strings.__getitem__, isos, bounds, small)
    del strings
    ds_meta = dataset_meta(ranges, isos, bounds, small, synthetic)
    n = int(bounds[-1])
    n_aside = int(plan.aside.sum())
    extras = [x for x in plan.extras if not plan.filtered or plan.extra_used[x]]
    specs = _specs(n, n_aside, plan, extras, len(parts), small, ranges, bounds)
    sources = list(names) or list(dict.fromkeys(str(s) for i in ins for s in i.af.meta.get("sources", [])))
    meta: dict[str, Any] = {"kind": KIND, "format_version": FORMAT_VERSION, "build_id": uuid.uuid4().hex,
            "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "sources": sources,
            "datasets": ds_meta, "synthetic": synthetic, "parts": parts}
    if n_aside:
        meta["aside"] = n_aside
    with ContainerWriter(out, specs, meta) as w:
        for name, arr in small.items():
            w.put(name, arr)
        del small, streets
        # pass 2: the rows, batch by batch, in order
        plan.write(w, final, part_final, extras, len(parts) > 1, say)
        for ds, (s_lo, s_hi) in enumerate(ranges):
            _number_index(w, ds, int(bounds[s_lo]), int(bounds[s_hi]), batch_rows)
        for name, chunks in derived.sections(ranges, w.mapped):
            for part in chunks:
                w.put(name, part)
        size = w.close()
    say(f"wrote {out}")
    return BuildReport(path=out, addresses=n, streets=n_g, datasets={d["id"]: d["addresses"] for d in ds_meta},
                       seconds=time.perf_counter() - t0, size_bytes=size, files=sources,
                       duplicates=plan.duplicates, runs=len(ins), shadowed=n_aside)


# -- parts, datasets, strings ---------------------------------------------------------------------------------
def _parts(ins: list[_Input]) -> tuple[list[dict[str, Any]], list[str]]:
    """The merged parts (by source, name and region, in order of first appearance; dropped ones left out) and the source
    kinds in the same order (the first kind wins a duplicate address)."""
    out: list[dict[str, Any]] = []
    index: dict[tuple[str, str, str], int] = {}
    for inp in ins:
        for k, p in enumerate(inp.parts):
            if not inp.part_keep[k]:
                inp.part_map[k] = -1
                continue
            key = part_key(p)
            j = index.get(key)
            if j is None:
                j = index[key] = len(out)
                out.append(dict(p))
            elif str(p.get("date", "")) > str(out[j].get("date", "")):
                out[j]["date"] = p.get("date", "")
            inp.part_map[k] = j
    kinds = list(dict.fromkeys(str(p.get("source", "")) for p in out))
    return out, kinds


def _datasets(ins: list[_Input]) -> list[str]:
    return list(dict.fromkeys(iso for i in ins for iso in i.isos))


def _pool(ins: list[_Input]) -> list[str]:
    """The merged, sorted string pool; each input's `remap` (local id -> merged id)."""
    seen: set[str] = {""}
    for inp in ins:
        seen.update(inp.strings())
    pool = sorted(seen)
    del seen
    index = {s: i for i, s in enumerate(pool)}
    for inp in ins:
        strs = inp.strings()
        inp.remap = np.fromiter((index[s] for s in strs), dtype=np.int64, count=len(strs))
    return pool


# -- streets --------------------------------------------------------------------------------------------------
def _streets(ins: list[_Input], pool: list[str], isos: list[str]) -> tuple[dict[str, Any], I64]:
    """The merged street table (sorted, string ids in the merged pool) and how many row sets feed each street.

    A street is left out where its region is dropped or no row of it is kept (its parts dropped)."""
    keys: list[list[I64]] = [[] for _ in range(len(_STREET_COLS) + 1)]
    owners: list[tuple[_Input, I64]] = []
    for inp in ins:
        af = inp.af
        cols = [inp.remap[af.read(f"s.{k}").astype(np.int64)] for k in _STREET_COLS]
        ds_map = np.array([isos.index(x) for x in inp.isos] or [0], dtype=np.int64)
        ds = ds_map[af.read("s.ds").astype(np.int64)]
        keep = np.ones(inp.n_streets, dtype=bool)
        if inp.mi.drop_regions:
            region_ids = {i for i, s in enumerate(pool) if s in inp.mi.drop_regions}
            keep &= ~np.isin(cols[5], np.fromiter(region_ids, dtype=np.int64, count=len(region_ids)))
        lo, hi = af.read("s.lo").astype(np.int64), af.read("s.hi").astype(np.int64)
        rows = [_Rows(inp, "a", lo, hi, "a.part" if "a.part" in af else "")]
        if "x.street" in af:
            xs = af.read("x.street").astype(np.int64)
            bounds = np.searchsorted(xs, np.arange(inp.n_streets + 1))
            rows.append(_Rows(inp, "x", bounds[:-1], bounds[1:], "x.part"))
            del xs
        total = np.zeros(inp.n_streets, dtype=np.int64)
        for r in rows:
            r.kept = _kept_rows(r)
            r.filtered = bool(((r.hi - r.lo) != r.kept)[keep].any())
            total += r.kept
        keep &= total > 0
        inp.rows = rows
        sel = np.flatnonzero(keep)
        owners.append((inp, sel))
        keys[0].append(ds[sel])
        for j, c in enumerate(cols):
            keys[j + 1].append(c[sel])
    cat = [np.concatenate(k) if k else np.zeros(0, np.int64) for k in keys]
    ds_all, col = cat[0], dict(zip(_STREET_COLS, cat[1:], strict=True))
    order = np.lexsort((*(col[k] for k in _ORDER), ds_all))
    n_all = len(order)
    if n_all:
        srt = [ds_all[order]] + [col[k][order] for k in _STREET_COLS[:-1]]
        new = np.ones(n_all, dtype=bool)
        diff = np.zeros(n_all - 1, dtype=bool)
        for a in srt:
            diff |= a[1:] != a[:-1]
        new[1:] = diff
        gid_sorted = np.cumsum(new) - 1
    else:
        new = np.zeros(0, dtype=bool)
        gid_sorted = np.zeros(0, dtype=np.int64)
    gid = np.empty(n_all, dtype=np.int64)
    gid[order] = gid_sorted
    first = order[new]
    streets: dict[str, Any] = {f"s.{k}": col[k][first] for k in _STREET_COLS}
    streets["s.ds"] = ds_all[first].astype(np.uint8)
    n_g = len(first)
    contributors = np.zeros(n_g, dtype=np.int64)
    pos = 0
    for inp, sel in owners:
        inp.g = np.full(inp.n_streets, -1, dtype=np.int64)
        inp.g[sel] = gid[pos:pos + len(sel)]
        pos += len(sel)
        for r in inp.rows:
            has = sel[r.kept[sel] > 0]
            contributors += np.bincount(inp.g[has], minlength=n_g)
    return streets, contributors


def _kept_rows(r: _Rows) -> I64:
    """Rows per local street left once the dropped parts' rows are out."""
    inp = r.inp
    n = r.hi - r.lo
    if inp.part_keep.all():
        return n
    if not r.part_col:
        return n if inp.part_keep[0] else np.zeros_like(n)
    out = np.zeros(inp.n_streets, dtype=np.int64)
    total = int(r.hi[-1]) if len(r.hi) else 0
    street_col = f"{r.prefix}.street"
    for a in range(0, total, 1 << 22):
        b = min(total, a + (1 << 22))
        keep = inp.part_keep[inp.af.read(r.part_col, a, b).astype(np.int64)]
        out += np.bincount(inp.af.read(street_col, a, b)[keep], minlength=inp.n_streets)
    return out


# -- the rows -------------------------------------------------------------------------------------------------
@dataclass
class _Batch:
    """The rows of some streets from every input, in merged ids, sorted, with who is served and who is aside."""

    g: I64
    numint: I64
    number: I64
    desig: I64
    unit: I64
    lon: npt.NDArray[np.float64]
    lat: npt.NDArray[np.float64]
    part: I64
    extras: dict[str, I64]
    sid_start: I64  # each row's source id: start in `sid_blob`, length
    sid_len: I64
    sid_blob: npt.NDArray[np.uint8]
    served: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))
    aside: npt.NDArray[np.bool_] = field(default_factory=lambda: np.zeros(0, bool))

    def take(self, order: I64) -> None:
        for k in ("g", "numint", "number", "desig", "unit", "lon", "lat", "part", "sid_start", "sid_len"):
            setattr(self, k, getattr(self, k)[order])
        self.extras = {k: v[order] for k, v in self.extras.items()}


class _Plan:
    """The merged streets cut into batches of about `batch_rows` rows, and what pass 1 learnt of each."""

    def __init__(self, ins: list[_Input], contributors: I64, n_g: int, batch_rows: int, dedupe: bool,
                 src_rank: I64, pool: list[str]) -> None:
        self.ins = ins
        self.dedupe = dedupe
        self.src_rank = src_rank
        self.pool = pool
        self.unit_int = np.full(len(pool), -2, dtype=np.int64)
        self.multi = contributors > 1
        self.filtered = any(r.filtered for i in ins for r in i.rows) or any(
            i.mi.drop_regions or not i.part_keep.all() for i in ins)
        upper = np.zeros(n_g, dtype=np.int64)
        self.order: list[tuple[_Rows, I64, I64]] = []  # per row set: its streets by merged id, and those ids
        for inp in ins:
            for r in inp.rows:
                has = np.flatnonzero((inp.g >= 0) & (r.kept > 0))
                g = inp.g[has]
                o = np.argsort(g, kind="stable")
                self.order.append((r, has[o], g[o]))
                upper += np.bincount(g, weights=r.kept[has], minlength=n_g).astype(np.int64)
        cum = np.cumsum(upper)
        cuts = [0]
        while cuts[-1] < n_g:
            base = int(cum[cuts[-1] - 1]) if cuts[-1] else 0
            nxt = int(np.searchsorted(cum, base + batch_rows, "right"))
            cuts.append(min(n_g, max(nxt, cuts[-1] + 1)))
        self.cuts = cuts
        self.served = np.zeros(n_g, dtype=np.int64)
        self.aside = np.zeros(n_g, dtype=np.int64)
        self.sid_bytes = 0
        self.aside_sid_bytes = 0
        self.used = np.zeros(len(pool), dtype=bool)
        self.part_used = np.zeros(len(src_rank), dtype=bool)
        self.extras = [x for x in _EXTRAS if any(x in i.extras for i in ins)]  # what some input holds
        self.extra_used = dict.fromkeys(self.extras, False)
        self.duplicates = 0
        self.upper = upper

    # pass 1
    def count(self) -> None:
        for b in range(len(self.cuts) - 1):
            g0, g1 = self.cuts[b], self.cuts[b + 1]
            if not self.filtered and not self.multi[g0:g1].any():
                self.served[g0:g1] = self.upper[g0:g1]
                self.sid_bytes += self._sid_bytes(g0, g1)
                continue
            bt = self._gather(g0, g1)
            self._resolve(bt)
            self.served[g0:g1] = np.bincount(bt.g[bt.served] - g0, minlength=g1 - g0)
            self.aside[g0:g1] = np.bincount(bt.g[bt.aside] - g0, minlength=g1 - g0)
            self.sid_bytes += int(bt.sid_len[bt.served].sum())
            self.aside_sid_bytes += int(bt.sid_len[bt.aside].sum())
            self.duplicates += int((~bt.served & ~bt.aside).sum()) + int(bt.aside.sum())
            if self.filtered:
                keep = bt.served | bt.aside
                for col in (bt.number, bt.desig, bt.unit, *bt.extras.values()):
                    self.used[col[keep]] = True
                self.part_used[bt.part[keep]] = True
                for x, v in bt.extras.items():
                    self.extra_used[x] = self.extra_used[x] or bool(v[keep].any())

    def parts_kept(self, parts: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], I64 | None]:
        """The parts some row is left of, and merged part -> final part (None: all are)."""
        if not self.filtered or self.part_used.all():
            return parts, None
        return [p for p, u in zip(parts, self.part_used, strict=True) if u], np.cumsum(self.part_used) - 1

    def prune(self) -> I64 | None:
        """Merged id -> final id once strings used only by rows left out are dropped (None: nothing to drop)."""
        if not self.filtered:
            return None
        for inp in self.ins:  # strings of the streets kept (street parts are not in the rows)
            sel = inp.g >= 0
            for k in _STREET_COLS:
                self.used[inp.remap[inp.af.read(f"s.{k}").astype(np.int64)[sel]]] = True
        self.used[0] = True  # "" (no unit, no extra) is always id 0
        return np.cumsum(self.used) - 1

    def _sid_bytes(self, g0: int, g1: int) -> int:
        total = 0
        for r, loc, g in self.order:
            a, b = np.searchsorted(g, [g0, g1])
            if a == b:
                continue
            ls = loc[a:b]
            off = r.inp.af.read(f"{r.sid}.off", int(r.lo[ls].min()), int(r.hi[ls].max()) + 1).astype(np.int64)
            base = int(r.lo[ls].min())
            total += int((off[r.hi[ls] - base] - off[r.lo[ls] - base]).sum())
        return total

    def _gather(self, g0: int, g1: int) -> _Batch:
        """Every kept row of merged streets [g0, g1), merged ids, in input order (not yet sorted)."""
        got: list[dict[str, Any]] = []
        blob_base = 0
        for r, loc, g in self.order:
            a, b = np.searchsorted(g, [g0, g1])
            if a == b:
                continue
            ls, gs = loc[a:b], g[a:b]
            inp = r.inp
            lo, hi = r.lo[ls], r.hi[ls]
            s_lo, s_hi = int(lo.min()), int(hi.max())
            counts = hi - lo
            whole = bool(len(ls) == 1 or (np.all(lo[1:] == hi[:-1]) and lo[0] == s_lo and hi[-1] == s_hi))
            pos = None if whole else _positions(lo - s_lo, counts)
            af = inp.af
            p = r.prefix

            def col(name: str, af: ArrayFile = af, pos: I64 | None = pos, s_lo: int = s_lo,
                    s_hi: int = s_hi) -> npt.NDArray[Any]:
                v = af.read(name, s_lo, s_hi)
                return v if pos is None else v[pos]

            d: dict[str, Any] = {"g": np.repeat(gs, counts)}
            d["numint"] = col(f"{p}.numint").astype(np.int64)
            for k in ("number", "desig", "unit"):
                d[k] = inp.remap[col(f"{p}.{k}").astype(np.int64)]
            d["lon"], d["lat"] = col(f"{p}.lon"), col(f"{p}.lat")
            d["part"] = inp.part_map[col(r.part_col).astype(np.int64)] if r.part_col else \
                np.full(len(d["g"]), inp.part_map[0], dtype=np.int64)
            d["extras"] = {x: (inp.remap[col(f"{p}.{x}").astype(np.int64)] if f"{p}.{x}" in af
                               else np.zeros(len(d["g"]), np.int64)) for x in self.extras}
            off = af.read(f"{r.sid}.off", s_lo, s_hi + 1).astype(np.int64)
            blob = af.read(f"{r.sid}.blob", int(off[0]), int(off[-1]))
            starts, lens = off[:-1] - off[0], np.diff(off)
            if pos is not None:
                starts, lens = starts[pos], lens[pos]
            d["sid_start"], d["sid_len"], d["blob"] = starts + blob_base, lens, blob
            blob_base += len(blob)
            if r.filtered or not inp.part_keep.all():
                keep = d["part"] >= 0
                if not keep.all():
                    for k in ("g", "numint", "number", "desig", "unit", "lon", "lat", "part", "sid_start",
                              "sid_len"):
                        d[k] = d[k][keep]
                    d["extras"] = {k: v[keep] for k, v in d["extras"].items()}
            got.append(d)

        def cat(k: str) -> Any:
            return np.concatenate([d[k] for d in got]) if got else np.zeros(0, np.int64)

        bt = _Batch(g=cat("g"), numint=cat("numint"), number=cat("number"), desig=cat("desig"), unit=cat("unit"),
                    lon=cat("lon").astype(np.float64), lat=cat("lat").astype(np.float64), part=cat("part"),
                    extras={x: np.concatenate([d["extras"][x] for d in got]) if got else np.zeros(0, np.int64)
                            for x in self.extras},
                    sid_start=cat("sid_start"), sid_len=cat("sid_len"),
                    sid_blob=np.concatenate([d["blob"] for d in got]) if got else np.zeros(0, np.uint8))
        return bt

    def _units(self, ids: I64) -> I64:
        """The integer part of each unit string (as `build` sorts units), worked out once per string."""
        u = np.unique(ids)
        todo = u[self.unit_int[u] == -2]
        for i in todo.tolist():
            m = _UNIT_DIGITS.search(self.pool[i])
            self.unit_int[i] = min(int(m.group()), NUMINT_MAX) if m else -1
        return self.unit_int[ids]

    def _resolve(self, bt: _Batch) -> None:
        """Sort a batch into index order and decide which rows are served, kept aside, or dropped."""
        n = len(bt.g)
        g0 = int(bt.g.min()) if n else 0
        multi = self.multi[bt.g].any() if n else False
        if not multi:
            if n > 1 and not np.all(bt.g[1:] >= bt.g[:-1]):
                bt.take(np.argsort(bt.g, kind="stable"))
            bt.served = np.ones(n, dtype=bool)
            bt.aside = np.zeros(n, dtype=bool)
            return
        k1 = ((bt.g - g0) << 24) | bt.numint
        k2 = (bt.number << 32) | bt.desig
        k3 = ((self._units(bt.unit) + 1) << 32) | bt.unit
        if self.dedupe:
            order = np.lexsort((bt.part, bt.lat, bt.lon, self.src_rank[bt.part], k3, k2, k1))
        else:
            order = np.lexsort((k3, k2, k1))
        bt.take(order)
        k1, k2, k3 = k1[order], k2[order], k3[order]
        bt.served = np.ones(n, dtype=bool)
        bt.aside = np.zeros(n, dtype=bool)
        if not self.dedupe or n < 2:
            return
        same = np.zeros(n, dtype=bool)
        same[1:] = (k1[1:] == k1[:-1]) & (k2[1:] == k2[:-1]) & (k3[1:] == k3[:-1])
        start = np.maximum.accumulate(np.where(same, 0, np.arange(n)))
        src = self.src_rank[bt.part]
        other_source = src != src[start]
        exact = np.zeros(n, dtype=bool)
        exact[1:] = same[1:] & (bt.lon[1:] == bt.lon[:-1]) & (bt.lat[1:] == bt.lat[:-1]) & ~other_source[1:]
        same_part = np.zeros(n, dtype=bool)
        same_part[1:] = exact[1:] & (bt.part[1:] == bt.part[:-1])
        # another source's point for an address, or another part's copy of a point: aside (a removal brings it
        # back); a second copy from the same part (the same file added twice): dropped
        bt.aside = other_source | (exact & ~same_part)
        bt.served = ~other_source & ~exact

    # pass 2
    def write(self, w: ContainerWriter, final: I64 | None, part_final: I64 | None, extras: list[str],
              with_part: bool, say: _Progress) -> None:
        n_b = len(self.cuts) - 1
        sid_off = [0, 0]  # next source id offset: served, aside
        w.put("sid.off", np.zeros(1, dtype=np.int64))
        if "xsid.off" in w.entries:
            w.put("xsid.off", np.zeros(1, dtype=np.int64))
        last = time.perf_counter()
        for b in range(n_b):
            g0, g1 = self.cuts[b], self.cuts[b + 1]
            bt = self._gather(g0, g1)
            self._resolve(bt)
            if final is not None:
                for k in ("number", "desig", "unit"):
                    setattr(bt, k, final[getattr(bt, k)])
                bt.extras = {k: final[v] for k, v in bt.extras.items()}
            for j, (sel, p, sp) in enumerate(((bt.served, "a", "sid"), (bt.aside, "x", "xsid"))):
                if not sel.any():
                    continue
                g = bt.g[sel]
                numint = bt.numint[sel]
                w.put(f"{p}.street", g)
                w.put(f"{p}.numint", numint)
                if p == "a":
                    w.put("a.key", (g << 24) | numint)
                for k in ("number", "desig", "unit"):
                    w.put(f"{p}.{k}", getattr(bt, k)[sel])
                w.put(f"{p}.lon", bt.lon[sel])
                w.put(f"{p}.lat", bt.lat[sel])
                for x in extras:
                    w.put(f"{p}.{x}", bt.extras[x][sel])
                if p == "x" or with_part:
                    part = bt.part[sel]
                    w.put(f"{p}.part", part if part_final is None else part_final[part])
                lens = bt.sid_len[sel]
                starts = bt.sid_start[sel]
                total = int(lens.sum())
                if total:
                    if len(starts) and np.array_equal(starts[1:], starts[:-1] + lens[:-1]):  # in order: a slice
                        w.put(f"{sp}.blob", bt.sid_blob[int(starts[0]):int(starts[0]) + total])
                    else:
                        w.put(f"{sp}.blob", bt.sid_blob[_positions(starts, lens)])
                w.put(f"{sp}.off", sid_off[j] + np.cumsum(lens))
                sid_off[j] += total
            if time.perf_counter() - last > 10 and b + 1 < n_b:
                last = time.perf_counter()
                say(f"merging: {w.written('a.street'):,} addresses written ({100 * (b + 1) // n_b}%)")


def _positions(starts: I64, counts: I64) -> I64:
    """starts[0] + 0..counts[0]-1, starts[1] + 0..counts[1]-1, ...: the indexes of consecutive runs (one cumsum:
    each run's first index is a jump from the previous run's last)."""
    keep = counts > 0
    if not keep.all():
        starts, counts = starts[keep], counts[keep]
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    step = np.ones(total, dtype=np.int64)
    first = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=first[1:])
    step[0] = starts[0]
    if len(counts) > 1:
        step[first[1:]] = starts[1:] - (starts[:-1] + counts[:-1] - 1)
    return np.cumsum(step)


def _specs(n: int, n_aside: int, plan: _Plan, extras: list[str], n_parts: int,
           small: dict[str, npt.NDArray[Any]], ranges: list[tuple[int, int]],
           bounds: I64) -> dict[str, tuple[Any, tuple[int, ...]]]:
    specs: dict[str, tuple[Any, tuple[int, ...]]] = {k: (v.dtype, v.shape) for k, v in small.items()}
    pd = part_dtype(n_parts)
    for p, m, sp, nbytes in (("a", n, "sid", plan.sid_bytes), ("x", n_aside, "xsid", plan.aside_sid_bytes)):
        if p == "x" and not m:
            continue
        for k in ("street", "numint", "number", "desig", "unit"):
            specs[f"{p}.{k}"] = (np.int32, (m,))
        if p == "a":
            specs["a.key"] = (np.int64, (m,))
        specs[f"{p}.lon"] = (np.float64, (m,))
        specs[f"{p}.lat"] = (np.float64, (m,))
        for x in extras:
            specs[f"{p}.{x}"] = (np.int32, (m,))
        if p == "x" or n_parts > 1:
            specs[f"{p}.part"] = (pd, (m,))
        specs[f"{sp}.blob"] = (np.uint8, (nbytes,))
        specs[f"{sp}.off"] = (np.uint32 if nbytes < 2**32 else np.uint64, (m + 1,))
    for ds, (s_lo, s_hi) in enumerate(ranges):
        m = int(bounds[s_hi] - bounds[s_lo])
        specs[f"d{ds}.num_order"] = (np.int64, (m,))
        specs[f"d{ds}.num_sorted"] = (np.int32, (m,))
    specs.update(derived.specs(ranges, lambda name: specs[name][1][0]))
    return specs


def _number_index(w: ContainerWriter, ds: int, a_lo: int, a_hi: int, batch_rows: int) -> None:
    """`d{ds}.num_order` / `num_sorted` (addresses by house number, stable) of addresses [a_lo, a_hi), from the
    `a.numint` column already written: a counting sort, one range of house numbers at a time, so no array of
    all the addresses is ever held. Within a range narrower than 65,536 numbers the values sort as 16-bit
    integers (a radix sort); wider ranges (rare large numbers) take a comparison sort."""
    n = a_hi - a_lo
    if not n:
        return
    chunk = max(batch_rows, 1 << 20)
    counts = np.zeros(1, dtype=np.int64)
    for a in range(a_lo, a_hi, chunk):
        c = np.bincount(w.read("a.numint", a, min(a_hi, a + chunk)))
        if len(c) > len(counts):
            counts = np.concatenate((counts, np.zeros(len(c) - len(counts), np.int64)))
        counts[:len(c)] += c
    cum = np.cumsum(counts)
    top = len(counts)
    per_pass = max(chunk * 16, 1 << 24)
    v0 = 0
    while v0 < top:
        base = int(cum[v0 - 1]) if v0 else 0
        v1 = int(np.searchsorted(cum, base + per_pass, "right"))
        v1 = min(top, max(v1, v0 + 1))
        if v1 - v0 > 1 << 16 and int(cum[min(top, v0 + (1 << 16)) - 1]) - base > per_pass // 4:
            v1 = v0 + (1 << 16)  # a dense narrow range first, sorted as 16-bit values
        size = int(cum[v1 - 1]) - base
        if size:
            buf = np.empty(size, dtype=np.int64)
            cursor = np.concatenate(([base], cum[v0:v1 - 1])).astype(np.int64) - base
            narrow = v1 - v0 <= 1 << 16
            for a in range(a_lo, a_hi, chunk):
                x = w.read("a.numint", a, min(a_hi, a + chunk))
                idx = np.flatnonzero((x >= v0) & (x < v1)) if (v0 or v1 < top) else np.arange(len(x))
                if not len(idx):
                    continue
                vals = x[idx] - v0
                o = np.argsort(vals.astype(np.uint16) if narrow else vals, kind="stable")
                sv = vals[o].astype(np.int64)
                first = np.flatnonzero(np.concatenate(([True], sv[1:] != sv[:-1])))  # sv is sorted
                uniq, cnt = sv[first], np.diff(np.append(first, len(sv)))
                rank = np.arange(len(sv), dtype=np.int64) - np.repeat(first, cnt)
                buf[cursor[sv] + rank] = a + idx[o]
                cursor[uniq] += cnt
            w.put(f"d{ds}.num_order", buf)
            w.put(f"d{ds}.num_sorted", np.repeat(np.arange(v0, v1, dtype=np.int32), counts[v0:v1]))
        v0 = v1
