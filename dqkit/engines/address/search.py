"""Search and type-down over a reference index: words -> streets -> house numbers -> grouped suggestions.

Ranking is lexicographic: an exact house number first, then the street words (exact > prefix > typo, street name
> locality), then how many addresses the street holds (or the distance to `location` when given). Grouping
keeps the list short: the units of a building are one suggestion ("1200 MAIN ST APT 1-40", multiples), a street
without a typed house number is one range per side ("2…78 ARCH ST [even]", unresolvable_range); refine and
step-in open them.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from dqkit.engines import deadline
from dqkit.engines.address.layout import delivery_lines, one_line
from dqkit.engines.address.matching import LEVEL_EXACT_STREET, Matcher, StreetMatch, WordHit, harmless
from dqkit.engines.address.number_spans import held_on_streets, key_ranges, spans_in_held, street_runs
from dqkit.engines.address.query import Query, parse_query
from dqkit.engines.address.sparse_match import (
    Entries,
    WordIds,
    entry_levels,
    forward_entries,
    forward_levels,
    posting_size,
)
from dqkit.engines.address_index.derived import PRIOR_CAP as _PRIOR_CAP
from dqkit.engines.address_index.reader import NUMINT_MAX, numint
from dqkit.engines.address_index.store import DatasetInfo, ReferenceIndex
from dqkit.engines.address_index.tokens import is_unit_designator, street_word_forms, token_spans

ADDRESS: Final = "address"
BUILDING: Final = "building"
RANGE: Final = "range"
PARITY_ALL, PARITY_ODD, PARITY_EVEN = 0, 1, 2
NUMBER_EXACT: Final = 3
NUMBER_NUMERIC: Final = 2  # same leading integer, other letter ("12A" for "12")
NUMBER_PREFIX: Final = 1
_KEY_STREETS: Final = 16  # up to this many candidate streets, the number's (street, number) key ranges
_FEW_STREETS: Final = 4096  # up to this many candidate streets, no shortcut: every one's addresses with the number
_BEST_CHUNK: Final = 512  # many candidate streets: look the number up on the best of them, this many at a time,
_BEST_WALK: Final = 8192  # ... over at most this many of the busiest streets before taking the full path
_TIER_STREETS: Final = 65536  # datasets with more streets: a number and one common word found tier by tier
_TIER_POSTINGS: Final = 4096  # ... when the word's postings are over this many (fewer: the matcher's path; a
# prefix of 2-3 letters holds 4-32k postings at 100M points, and tier by tier answers it in about half the time of
# the match + the number's addresses on 20-30k candidate streets: 8,389 bench keystrokes 8.5 -> 7.6 s CPU)
_RUN_POSTINGS: Final = 262144  # ... a tier's postings up to this many: its runs of street ids looked at
_TIER_RUNS: Final = 32768  # ... and up to this many runs of street ids (a locality's streets are a few)
_TIER_ADDRS: Final = 16384  # ... holding up to this many addresses with the number: the tier at once, else walked
_STORED_ADDRS: Final = _TIER_ADDRS  # a letter with stored levels expected on up to this many of the number's
# addresses: ranked at once instead of tier by tier
_HELD_READ: Final = 1  # a tier's streets found from the number's addresses' streets up to this many a posting
_HELD_KEPT: Final = 4  # numbers whose addresses' streets are kept (type-down asks for one number keystroke after
# keystroke; up to ~400k addresses a number at 100M points: 1.6 MB each)
_GROUP_CHUNK: Final = 64  # grouping reads the addresses' streets and numbers this many at a time
_ADDR_BITS: Final = 39  # address ids in the packed ranking key (1 + 3 + 20 bits above them)
MIN_CHARS: Final = 2  # fewer typed characters: "Insufficient search terms"
_UNIT_WORDS: Final = frozenset({"FLAT", "FLOOR", "UNIT", "APARTMENT", "SUITE"})


@dataclass(slots=True)
class Item:
    """One suggestion to be: an address, a building (units), or a range of a street."""

    kind: str
    street: int
    lo: int  # address id range [lo, hi) (one id for an address)
    hi: int
    parity: int = PARITY_ALL
    number_level: int = 0
    word_score: int = 0
    unit_level: int = 0
    prior: float = 0.0

    @property
    def rank(self) -> tuple[int, int, int, float, int, int]:
        return (self.number_level, self.word_score, self.unit_level, self.prior, -self.street, -self.lo)


@dataclass(slots=True)
class Found:
    """The outcome of one search: items best first, whether more exist, and what matched."""

    items: list[Item]
    more: bool
    query: Query
    match: StreetMatch | None
    number_missing: bool = False  # a house number was typed but is on none of the streets
    total: int = 0


class Searcher:
    """Search over one index (all its datasets)."""

    def __init__(self, ix: ReferenceIndex) -> None:
        self.ix = ix
        self._matchers: dict[int, Matcher] = {}
        self._prior_order: dict[int, npt.NDArray[np.int64]] = {}
        self._busiest: dict[tuple[int, int, int], Entries | None] = {}  # see _busiest_entries
        self._held: dict[tuple[int, int], _Held] = {}  # (dataset, number) -> its addresses' streets, see held_of

    def matcher(self, ds: DatasetInfo) -> Matcher:
        m = self._matchers.get(ds.ordinal)
        if m is None:
            m = self._matchers[ds.ordinal] = Matcher(self.ix, ds)
        return m

    # -- search ----------------------------------------------------------------------------------------------
    def search(self, ds: DatasetInfo, text: str, k: int, *, location: tuple[float, float] | None = None,
               query: Query | None = None, strict: bool = False) -> Found:
        """`strict` (type-down): no suggestion when a typed word that matters matches nothing at all; the
        lenient reading (such words set aside) is for validate, which then weighs the words itself."""
        q = query or parse_query(text)
        if q.empty or q.typed_chars < MIN_CHARS:
            return Found([], False, q, None)
        if not q.words:
            return self._number_only(ds, q, k)
        if q.number and not q.unit:
            # a short value after the street, with a house number typed, may be a bare unit ("1200 Main St 4"):
            # taken as the unit when some building has it, else as a word
            for drop, unit, complete in _unit_readings(q):
                deadline.check()
                words = [w for i, w in enumerate(q.words) if i not in drop]
                if not words:
                    continue
                q2 = Query(q.raw, q.number, q.number_complete, words, "", unit, complete)
                found = self._search_words(ds, q2, k, location, strict)
                if found.items and not found.number_missing and any(it.unit_level for it in found.items):
                    return found
        return self._search_words(ds, q, k, location, strict)

    def _search_words(self, ds: DatasetInfo, q: Query, k: int,
                      location: tuple[float, float] | None, strict: bool = False) -> Found:
        deadline.check()
        if strict and q.number and len(q.words) == 1 and location is None:
            got = self._one_word_number(ds, q, k)
            if got is not None:
                return got
        within = None
        if strict and q.number and location is None and self.matcher(ds).n > _TIER_STREETS:
            within = functools.partial(self._number_streets, ds, q)
        m = self.matcher(ds).match(q, remember=strict, within=within)
        if m.empty or (strict and any(not (harmless(w) or w.maybe_unit or w.text in _UNIT_WORDS
                                           or is_unit_designator(w.text)) for w in m.dropped)):
            # "zzzz q": a word that matches nothing is not silently dropped while the rest matches by prefix
            return Found([], False, q, m)
        if q.number:
            items, more, total = self._number_items(ds, q, m, k, location)
            if items:
                return Found(items, more, q, m, total=total)
            items, more, total = self._street_items(ds, m, k, location)
            return Found(items, more, q, m, number_missing=True, total=total)
        items, more, total = self._street_items(ds, m, k, location)
        return Found(items, more, q, m, total=total)

    def _priors(self, streets: npt.NDArray[np.int64], location: tuple[float, float] | None) -> npt.NDArray[np.float64]:
        ix = self.ix
        if location is None:
            return np.minimum(ix.s_count[streets], _PRIOR_CAP).astype(np.float64)
        first = ix.s_lo[streets]
        dlat = ix.a_lat[first] - location[0]
        dlon = (ix.a_lon[first] - location[1]) * math.cos(math.radians(location[0]))
        d = np.sqrt(dlat * dlat + dlon * dlon)
        return np.nan_to_num(-d, nan=-1e9)

    def _number_items(self, ds: DatasetInfo, q: Query, m: StreetMatch, k: int,
                      location: tuple[float, float] | None) -> tuple[list[Item], bool, int]:
        ix = self.ix
        tk = self.matcher(ds).tk
        ni = numint(q.number)
        if len(m.streets) <= _KEY_STREETS:  # one or a few streets (validate): two binary searches in the keys
            addrs, which = numbered_on(ix, m.streets, ni)
        else:
            lo = int(tk.num_sorted.searchsorted(np.int32(ni), "left"))
            hi = int(tk.num_sorted.searchsorted(np.int32(ni), "right"))
            if lo == hi:
                return [], False, 0
            held = tk.num_order[lo:hi]  # the addresses carrying the number, by id (see number_spans)
            if len(m.streets) > _FEW_STREETS and location is None:
                got = self._number_on_best_streets(ds, q, m, k, ni, held)
                if got is not None:
                    return got
            kept = None  # the streets of the number's addresses, read once for the next keystrokes (type-down)
            if len(m.streets) * 4 > len(held) and ((ds.ordinal, ni) in self._held
                                                   or self.matcher(ds).n > _TIER_STREETS):
                kept = self.held_of(ds, ni, held).street
            addrs, which = held_on_streets(held, ix.s_lo, ix.s_hi, ix.a_street, m.streets, kept)
        if not len(addrs):
            return [], False, 0
        st, sc = m.streets[which], m.scores[which]
        num_ids = [i for f in q.number_forms or (q.number,) if (i := ix.strings.find(f)) >= 0]
        nums = ix.a_number[addrs]
        exact = np.zeros(len(addrs), dtype=bool)
        for num_id in num_ids:  # one or a few spellings: == is cheaper than np.isin here
            exact |= nums == num_id
        nlevel = np.where(exact, NUMBER_EXACT, NUMBER_NUMERIC)
        prior = self._priors(st, location)
        # best first: number level, word score, prior; then by address id (keeps a building's units together)
        order = np.lexsort((addrs, -prior, -sc, -nlevel))
        return self._group(ds, q, addrs[order], nlevel[order], sc[order], prior[order], k)

    def _number_on_best_streets(self, ds: DatasetInfo, q: Query, m: StreetMatch, k: int, ni: int,
                                held: npt.NDArray[np.int64]) -> tuple[list[Item], bool, int] | None:
        """The exact house number looked up on the candidate streets in the order the full ranking gives them
        (word score, then prior, then street id), score by score: a score held by few streets all at once, one
        held by many through the dataset's busiest streets. As soon as the streets looked at fill more than k
        suggestions they are the first ones of the full ranking (an exact number outranks every other), so the
        answer is the same without gathering every address of the country that has the number (a one-letter
        street prefix keeps most streets). None: not settled here, the caller takes the full path."""
        ix = self.ix
        if ni >= NUMINT_MAX:
            return None
        num_ids = [i for f in q.number_forms or (q.number,) if (i := ix.strings.find(f)) >= 0]
        if not num_ids:
            return None
        cand, scores = m.streets, m.scores
        lo_sc = int(scores.min())
        if lo_sc <= -10_000:
            return None
        sizes = np.bincount(scores - lo_sc)
        a_number, s_lo, s_hi = ix.a_number, ix.s_lo, ix.s_hi
        got: list[int] = []
        got_sc: list[int] = []

        def settled() -> tuple[list[Item], bool, int] | None:
            return self._exact_settled(ds, q, got, got_sc, k)

        for sc in (np.flatnonzero(sizes)[::-1] + lo_sc).tolist():  # best word score first
            if sizes[sc - lo_sc] <= _FEW_STREETS:  # a few streets: all of them, busiest first
                few = cand[scores == sc]
                few = few[np.lexsort((few, -np.minimum(ix.s_count[few], _PRIOR_CAP)))]
                addrs, _ = spans_in_held(held, s_lo, s_hi, few)
                exact = _has_number(a_number[addrs], num_ids)
                got += addrs[exact].tolist()
                got_sc += [sc] * int(exact.sum())
                if (out := settled()) is not None:
                    return out
                continue
            order = self._by_prior(ds)  # many streets: the busiest of the dataset, those of this score
            for c0 in range(0, min(len(order), _BEST_WALK), _BEST_CHUNK):
                chunk = order[c0:c0 + _BEST_CHUNK] + ds.street_lo
                pos = np.minimum(cand.searchsorted(chunk), len(cand) - 1)
                good = chunk[(cand[pos] == chunk) & (scores[pos] == sc)]
                addrs, _ = spans_in_held(held, s_lo, s_hi, good)  # street by street, busiest first
                hit = addrs[_has_number(a_number[addrs], num_ids)].tolist()
                got += hit
                got_sc += [sc] * len(hit)
                if (out := settled()) is not None:
                    return out
            return None  # the busiest streets of this score did not settle it
        return None

    def _one_word_number(self, ds: DatasetInfo, q: Query, k: int) -> Found | None:
        """A house number and one common word ("272 s", "10008 oak", "1200 main "), typed down: the answer of the
        full path (every street the word reaches, scored, then the number's addresses on them ranked) without
        listing and scoring every street the word reaches. The word's level on a street (6 / 5 exact in the
        street / locality, 4 / 3 prefix) is the street's score; the ranking is exact number, score, prior,
        address. None: not such a query, or nothing found (the caller takes the full path). Only the matched
        streets of `Found.match` are left out (type-down uses its words and best score)."""
        mt = self.matcher(ds)
        tk, ix = mt.tk, self.ix
        if mt.n <= _TIER_STREETS:
            return None
        w = q.words[0]
        ids = mt.word_ids(w)
        if not ids.any or ids.fuzzy:
            return None
        size = posting_size(tk, ids)
        ni = numint(q.number)
        if size <= _TIER_POSTINGS or ni >= NUMINT_MAX:
            return None
        lo = int(tk.num_sorted.searchsorted(np.int32(ni), "left"))
        hi = int(tk.num_sorted.searchsorted(np.int32(ni), "right"))
        if lo == hi:
            return None
        held = tk.num_order[lo:hi]
        num_ids = [i for f in q.number_forms or (q.number,) if (i := ix.strings.find(f)) >= 0]
        if len(held) * size <= _STORED_ADDRS * mt.n and mt.stored_levels(w, ids) is not None:
            # a letter whose levels the index stores (no marking), expected on few of the number's addresses (held x
            # its postings / streets): those ranked at once ("400 u": 7 -> 3 ms at 100M points)
            got = self._held_ranked(ds, q, k, ids, held, num_ids)
        else:
            got = self._word_tiers(ds, q, k, ids, held, num_ids) if num_ids else None
            if got is None:  # not settled: every address with the number (4-9 ms at 100-400k; the full path ~2x)
                got = self._held_ranked(ds, q, k, ids, held, num_ids)
        if got is None:
            return None
        hit = mt.word_hit(w, ids)
        m = StreetMatch(np.zeros(0, np.int64), np.zeros(0, np.int32), [hit], [], hit.fuzzy, LEVEL_EXACT_STREET)
        return Found(got[0], got[1], q, m, total=got[2])

    def _held_ranked(self, ds: DatasetInfo, q: Query, k: int, ids: WordIds, held: npt.NDArray[np.int64],
                     num_ids: list[int]) -> tuple[list[Item], bool, int] | None:
        """Every address carrying the number, the word's level read on its street (one byte per street, marked
        from the word's postings), ranked by one packed key: exact number, score, prior, address id (the full
        path's `lexsort`). None when the word is on none of their streets."""
        ix = self.ix
        lv = self.matcher(ds).word_levels(q.words[0], ids)
        st = self.held_of(ds, numint(q.number), held).street
        sc = lv[st - ds.street_lo]
        keep = sc > 0
        if not keep.any():
            return None
        addrs, sc8, st = held[keep], sc[keep], st[keep]
        if int(addrs[-1]) >= 1 << _ADDR_BITS:
            return None
        nums = ix.a_number[addrs]
        other = np.ones(len(addrs), dtype=np.int64)  # 0: the number exactly as typed (NUMBER_EXACT) first
        for num_id in num_ids:
            other[nums == num_id] = 0
        prior = np.minimum(ix.s_count[st], _PRIOR_CAP).astype(np.int64)
        key = (other << 62) | ((7 - sc8.astype(np.int64)) << 59) | ((_PRIOR_CAP - prior) << _ADDR_BITS) | addrs
        key.sort()
        addrs = key & ((1 << _ADDR_BITS) - 1)
        nlevel = np.where(key >> 62, NUMBER_NUMERIC, NUMBER_EXACT)
        scores = (7 - ((key >> 59) & 7)).astype(np.int32)
        prior_f = (_PRIOR_CAP - ((key >> _ADDR_BITS) & _PRIOR_CAP)).astype(np.float64)
        return self._group(ds, q, addrs, nlevel, scores, prior_f, k)

    def _word_tiers(self, ds: DatasetInfo, q: Query, k: int, ids: WordIds, held: npt.NDArray[np.int64],
                    num_ids: list[int]) -> tuple[list[Item], bool, int] | None:
        """Score tier by tier, best first, the number looked up on a tier's streets busiest first: every street of
        the tier when its field's postings are few (their level read from the forward index: a better one puts a
        street in a higher tier), else the dataset's busiest streets, the word's level on each read likewise. As
        soon as the addresses found fill more than k suggestions they are the ranking's first ones (an exact
        number outranks every other). None: not settled."""
        ix, tk = self.ix, self.matcher(ds).tk
        base, s_lo, s_hi, a_number = ds.street_lo, ix.s_lo, ix.s_hi, ix.a_number
        # a street's level is L only if it is in the postings of L's field and kind (6: exact in the street field,
        # 5: exact in the locality, 4 / 3: prefix): (level, postings, pointers, exact ids or None for the prefix)
        tiers: list[tuple[int, npt.NDArray[np.int32], npt.NDArray[np.int64], list[int] | None]] = []
        if ids.exact:
            tiers += [(LEVEL_EXACT_STREET, tk.ps, tk.ps_ptr, ids.exact),
                      (LEVEL_EXACT_STREET - 1, tk.pl, tk.pl_ptr, ids.exact)]
        if ids.phi > ids.plo:
            tiers += [(LEVEL_EXACT_STREET - 2, tk.ps, tk.ps_ptr, None),
                      (LEVEL_EXACT_STREET - 3, tk.pl, tk.pl_ptr, None)]
        got: list[int] = []
        got_sc: list[int] = []

        def add(addrs: npt.NDArray[np.int64], level: int) -> tuple[list[Item], bool, int] | None:
            """The number's exact addresses among `addrs` (in ranking order) added; the answer once settled."""
            found = addrs[_has_number(a_number[addrs], num_ids)].tolist()
            got.extend(found)
            got_sc.extend([level] * len(found))
            return self._exact_settled(ds, q, got, got_sc, k)

        for level, post, ptr, exact in tiers:
            size = int(ptr[ids.phi] - ptr[ids.plo]) if exact is None else sum(int(ptr[i + 1] - ptr[i]) for i in exact)
            if size == 0:
                continue
            if size <= _RUN_POSTINGS:
                posts = post[ptr[ids.plo]:ptr[ids.phi]] if exact is None else \
                    np.concatenate([post[ptr[i]:ptr[i + 1]] for i in exact])
                inside = self._tier_inside(ds, numint(q.number), held, posts)
                if inside is not None:  # few enough: every street of the tier at once
                    addrs = self._tier_addresses(ids, level, inside, num_ids)
                    if addrs is None:
                        return None
                    if (out := add(addrs, level)) is not None:
                        return out
                    continue
            order = self._by_prior(ds)  # many streets: the dataset's busiest, the word's level read on each
            for c0 in range(0, min(len(order), _BEST_WALK), _BEST_CHUNK):
                chunk = order[c0:c0 + _BEST_CHUNK] + base
                entries = self._busiest_entries(ds, c0, chunk)
                if entries is None:
                    return None
                addrs, _ = spans_in_held(held, s_lo, s_hi, chunk[entry_levels(entries, [ids])[0] == level])
                if (out := add(addrs, level)) is not None:
                    return out
            return None  # the busiest streets did not settle this tier
        return None

    def _tier_inside(self, ds: DatasetInfo, ni: int, held: npt.NDArray[np.int64],
                     posts: npt.NDArray[np.int32]) -> npt.NDArray[np.int64] | None:
        """The number's addresses (`held`, ascending) on the streets of one tier's postings, ascending; None when
        over _TIER_ADDRS (or over _TIER_RUNS runs of street ids): the caller walks the busiest streets. Up to
        _TIER_RUNS postings, from the streets of the number's addresses (one flag a street) when they are read
        already or cost no more than the postings, else by the postings' runs of street ids (a locality's streets
        are numbered together)."""
        ix = self.ix
        if len(posts) <= _TIER_RUNS and (len(held) <= _HELD_READ * len(posts) or self._held_cheap(ds, ni)):
            on = np.zeros(ds.street_hi - ds.street_lo, dtype=bool)
            on[posts - ds.street_lo] = True
            inside = held[on[self.held_of(ds, ni, held).street - ds.street_lo]]
            return inside if len(inside) <= _TIER_ADDRS else None
        runs = street_runs(posts, _TIER_RUNS)
        if runs is None:
            return None
        first, last = runs
        a = held.searchsorted(ix.s_lo[first])
        lens = held.searchsorted(ix.s_hi[last]) - a
        if int(lens.sum()) > _TIER_ADDRS:
            return None
        out: npt.NDArray[np.int64] = held[np.repeat(a - (np.cumsum(lens) - lens), lens) + np.arange(int(lens.sum()))]
        return out

    def _tier_addresses(self, ids: WordIds, level: int, addrs: npt.NDArray[np.int64],
                        num_ids: list[int]) -> npt.NDArray[np.int64] | None:
        """Of the number's addresses on the streets holding one tier's postings (ascending), those with the exact
        number whose street has the word at `level` (read from the forward index: a street with a better level
        is in a higher tier), in ranking order (prior, then address id). None: a street without forward
        entries."""
        ix = self.ix
        addrs = addrs[_has_number(ix.a_number[addrs], num_ids)]
        out: npt.NDArray[np.int64] = addrs
        if not len(addrs):
            return out
        st = ix.a_street[addrs].astype(np.int64)
        new = np.ones(len(st), dtype=bool)
        new[1:] = st[1:] != st[:-1]
        streets = st[new]
        fw = forward_levels(ix, streets, [ids])
        if fw is None:
            return None
        keep = (fw[0] == level)[np.cumsum(new) - 1]
        addrs, st = addrs[keep], st[keep]
        out = addrs[np.lexsort((addrs, -np.minimum(ix.s_count[st], _PRIOR_CAP)))]
        return out

    def held_of(self, ds: DatasetInfo, ni: int, held: npt.NDArray[np.int64]) -> _Held:
        """The street of each address carrying leading integer `ni` (`held`, ascending), read once for the last
        few numbers: a number typed down is asked for keystroke after keystroke, and at 100M points reading the
        streets of its 100-400k addresses costs 2-6 ms (one memory access each)."""
        key = (ds.ordinal, ni)
        got = self._held.get(key)
        if got is None:
            column = self.matcher(ds).tk.num_street
            if column is not None:  # stored in `num_order` order: one slice of the index's pages, not a copy
                lo = int(self.matcher(ds).tk.num_sorted.searchsorted(np.int32(ni), "left"))
                st = column[lo:lo + len(held)]
            else:  # one memory access an address, kept (int32: half the bytes of a serve worker's copy)
                st = self.ix.a_street[held]
                st.flags.writeable = False
            got = _Held(st)
            while len(self._held) >= _HELD_KEPT:
                self._held.pop(next(iter(self._held)), None)
            self._held[key] = got
        return got

    def _held_cheap(self, ds: DatasetInfo, ni: int) -> bool:
        """Whether the streets of number `ni`'s addresses cost a slice: read already, or stored in the index."""
        return (ds.ordinal, ni) in self._held or self.matcher(ds).tk.num_street is not None

    def _number_streets(self, ds: DatasetInfo, q: Query, most: int | None = None) -> npt.NDArray[np.int64] | None:
        """The streets (sorted local ids) holding an address with the typed number's leading integer: the only
        streets a search with that number ranks addresses on (`Matcher.match`'s `within`). None: no such
        address, a number the index keys cannot hold, or more than `most` addresses whose streets are not read
        yet (the caller combines every street)."""
        ni = numint(q.number)
        if ni >= NUMINT_MAX:
            return None
        tk = self.matcher(ds).tk
        lo = int(tk.num_sorted.searchsorted(np.int32(ni), "left"))
        hi = int(tk.num_sorted.searchsorted(np.int32(ni), "right"))
        if lo == hi or (most is not None and hi - lo > most and (ds.ordinal, ni) not in self._held
                        and tk.num_street is None):
            return None
        return self.held_of(ds, ni, tk.num_order[lo:hi]).streets(ds.street_lo)

    def _busiest_entries(self, ds: DatasetInfo, c0: int, chunk: npt.NDArray[np.int64]) -> Entries | None:
        """The forward entries of the chunk of the dataset's busiest streets starting at `c0` (`chunk`), read once:
        every tier walk reads the same streets' entries (16 chunks of ~8k entries, ~0.7 ms each to gather at 100M
        points), only the word differs."""
        key = (ds.ordinal, c0, len(chunk))
        if key not in self._busiest:
            self._busiest[key] = forward_entries(self.ix, chunk)
        return self._busiest[key]

    def _by_prior(self, ds: DatasetInfo) -> npt.NDArray[np.int64]:
        """The dataset's streets (local ids) busiest first, the lower id first among equals: the ranking's order
        of streets of one word score (worked out once per dataset)."""
        got = self._prior_order.get(ds.ordinal)
        if got is None:
            stored = self.matcher(ds).tk.by_prior  # the index's own (derived.by_prior), else worked out here
            if stored is not None:
                got = stored.astype(np.int64)
            else:
                pr = np.minimum(self.ix.s_count[ds.street_lo:ds.street_hi], _PRIOR_CAP).astype(np.int64)
                got = np.argsort(-pr, kind="stable").astype(np.int64)
            self._prior_order[ds.ordinal] = got
        return got

    def _exact_settled(self, ds: DatasetInfo, q: Query, got: list[int], got_sc: list[int],
                       k: int) -> tuple[list[Item], bool, int] | None:
        """The answer from the number's exact addresses found so far (in ranking order, with their word scores),
        once they fill more than k suggestions and grouping them says they settle it; else None (look further)."""
        if len(got) <= k:
            return None
        ix = self.ix
        a = np.array(got, dtype=np.int64)
        prior = np.minimum(ix.s_count[ix.a_street[a]], _PRIOR_CAP).astype(np.float64)
        out = self._group(ds, q, a, np.full(len(a), NUMBER_EXACT, dtype=np.int64), np.array(got_sc, dtype=np.int32),
                          prior, k)
        return out if out[1] else None

    def _group(self, ds: DatasetInfo, q: Query, addrs: npt.NDArray[np.int64], nlevel: npt.NDArray[np.int64],
               sc: npt.NDArray[np.int32], prior: npt.NDArray[np.float64], k: int) -> tuple[list[Item], bool, int]:
        """Addresses (best first) -> building / address items, distinct per building, at most k (+1 to know
        there are more)."""
        ix = self.ix
        items: list[Item] = []
        seen: set[tuple[int, int]] = set()
        total = 0
        stopped = False
        n = len(addrs)
        # a chunk's streets and numbers read at once (a building's units are one item: most addresses are only
        # looked up to be skipped); chunks, because the list stops after k items however long `addrs` is
        for c0 in range(0, n, _GROUP_CHUNK):
            part = addrs[c0:c0 + _GROUP_CHUNK]
            keys = zip(ix.a_street[part].tolist(), ix.a_number[part].tolist(), strict=True)
            for j, a, key in zip(range(c0, c0 + len(part)), part.tolist(), keys, strict=True):
                deadline.check()
                if key in seen:
                    continue
                seen.add(key)
                b_lo, b_hi = ix.building(a)
                base = Item(ADDRESS, key[0], b_lo, b_hi, number_level=int(nlevel[j]), word_score=int(sc[j]),
                            prior=float(prior[j]))
                got = self._building_items(base, q, k)
                total += len(got)
                items.extend(got)
                if len(items) > k:
                    stopped = j + 1 < n
                    break
            else:
                continue
            break
        items.sort(key=lambda it: it.rank, reverse=True)
        return items[:k], len(items) > k or stopped, total

    def _building_items(self, base: Item, q: Query, k: int) -> list[Item]:
        """One building -> one address, the building as a group, or its units that match the typed unit."""
        ix = self.ix
        lo, hi = base.lo, base.hi
        if hi - lo == 1 and not ix.has_unit(lo):
            return [_with(base, ADDRESS, lo, lo + 1)]
        if q.unit:
            hits = self._unit_hits(lo, hi, q.unit, q.unit_complete)
            if hits:
                return [_with(base, ADDRESS, a, a + 1, unit_level=lvl) for a, lvl in hits[: k + 1]]
        if q.unit_marker and not q.unit:
            return [_with(base, ADDRESS, a, a + 1) for a in range(lo, min(hi, lo + k + 1))]
        if hi - lo == 1:
            return [_with(base, ADDRESS, lo, lo + 1)]
        if not ix.has_unit(lo):  # the building's own address is a point too: offer it beside its units
            return [_with(base, ADDRESS, lo, lo + 1), _with(base, BUILDING, lo, hi)]
        return [_with(base, BUILDING, lo, hi)]

    def _unit_hits(self, lo: int, hi: int, unit: str, complete: bool) -> list[tuple[int, int]]:
        """Units of a building matching `unit`: exact (level 2) first, then prefix (level 1)."""
        ix = self.ix
        exact: list[tuple[int, int]] = []
        prefix: list[tuple[int, int]] = []
        u = _ukey(unit)
        for a in range(lo, hi):
            val = _ukey(ix.strings[int(ix.a_unit[a])])
            if val == u or (val and val.lstrip("0") == u.lstrip("0")):
                exact.append((a, 2))
            elif not complete and val.startswith(u):
                prefix.append((a, 1))
        return exact + prefix

    def _street_items(self, ds: DatasetInfo, m: StreetMatch, k: int,
                      location: tuple[float, float] | None) -> tuple[list[Item], bool, int]:
        streets, scores = m.streets, m.scores
        prior = self._priors(streets, location)
        n = len(streets)
        want = min(n, k + 1)
        if n > want:
            key = scores.astype(np.float64) * 1e7 + np.clip(prior, -1e6, 1e6)
            top = np.argpartition(-key, want - 1)[:want]
        else:
            top = np.arange(n)
        items: list[Item] = []
        for t in top.tolist():
            items.extend(self.street_groups(int(streets[t]), int(scores[t]), float(prior[t])))
        items.sort(key=lambda it: it.rank, reverse=True)
        return items[:k], len(items) > k or n > want, n

    def street_groups(self, s: int, word_score: int = 0, prior: float = 0.0) -> list[Item]:
        """A street as suggestions: its one address, its one building, or one range per side."""
        ix = self.ix
        lo, hi = int(ix.s_lo[s]), int(ix.s_hi[s])
        base = Item(RANGE, s, lo, hi, word_score=word_score, prior=prior)
        nums = ix.a_number[lo:hi]
        if (nums == nums[0]).all():
            return [_with(base, ADDRESS if hi - lo == 1 else BUILDING, lo, hi)]
        ni = ix.a_numint[lo:hi]
        out: list[Item] = []
        for parity, sel in ((PARITY_ODD, ni % 2 == 1), (PARITY_EVEN, ni % 2 == 0)):
            if not sel.any():
                continue
            idx = np.flatnonzero(sel)
            if (nums[idx] == nums[idx[0]]).all():
                a = lo + int(idx[0])
                b_lo, b_hi = ix.building(a)
                out.append(_with(base, ADDRESS if b_hi - b_lo == 1 else BUILDING, b_lo, b_hi))
            else:
                out.append(_with(base, RANGE, lo, hi, parity=parity))
        out.sort(key=lambda it: int(ix.a_numint[it.lo]) if it.kind != RANGE else _range_min(ix, it))
        return out

    def _number_only(self, ds: DatasetInfo, q: Query, k: int) -> Found:
        """Only a house number typed: its buildings, exact number first, busiest streets first."""
        ix = self.ix
        tk = self.matcher(ds).tk
        if not q.number[:1].isdigit():
            return Found([], False, q, None)
        ni = numint(q.number)
        spans = [(ni, ni)]
        if not q.number_complete and q.number.isdigit():
            lo_, hi_ = ni, ni
            for _ in range(6):
                lo_, hi_ = lo_ * 10, hi_ * 10 + 9
                spans.append((lo_, hi_))
        items: list[Item] = []
        more = False
        for level, (a, b) in enumerate(spans):
            lo = int(tk.num_sorted.searchsorted(np.int32(min(a, NUMINT_MAX)), "left"))
            hi = int(tk.num_sorted.searchsorted(np.int32(min(b, NUMINT_MAX)), "right"))
            if lo == hi:
                continue
            if hi - lo > 20_000:
                hi, more = lo + 20_000, True
            addrs = tk.num_order[lo:hi]
            st = (ix.a_street[addrs] if tk.num_street is None else tk.num_street[lo:hi]).astype(np.int64)
            st_prior = np.minimum(ix.s_count[st], _PRIOR_CAP).astype(np.int64)
            num_id = ix.strings.find(q.number)
            nlevel = np.full(len(addrs), NUMBER_PREFIX if level else NUMBER_NUMERIC, dtype=np.int64)
            if level == 0 and num_id >= 0:
                nlevel[ix.a_number[addrs] == num_id] = NUMBER_EXACT
            if ds.addr_hi <= 1 << _ADDR_BITS:  # one packed key sorted: the lexsort's order, ~5x cheaper
                key = ((NUMBER_EXACT - nlevel) << 59) | ((_PRIOR_CAP - st_prior) << _ADDR_BITS) | addrs
                key.sort()
                ranked, nlevel = key & ((1 << _ADDR_BITS) - 1), NUMBER_EXACT - (key >> 59)
                prior = (_PRIOR_CAP - ((key >> _ADDR_BITS) & _PRIOR_CAP)).astype(np.float64)
            else:
                order = np.lexsort((addrs, -st_prior, -nlevel))
                ranked, nlevel, prior = addrs[order], nlevel[order], st_prior[order].astype(np.float64)
            got, more_here, _ = self._group(ds, q, ranked, nlevel, np.zeros(len(addrs), np.int32), prior,
                                            k - len(items))
            items.extend(got)
            if more_here or len(items) >= k:
                more = more or more_here or level + 1 < len(spans)
                break
        return Found(items[:k], more or len(items) > k, q, None, total=len(items))

    # -- listing a group ---------------------------------------------------------------------------------
    def members(self, item: Item) -> list[Item]:
        """What a group holds: a range -> its buildings and addresses; a building -> its units."""
        ix = self.ix
        if item.kind == BUILDING:
            return [Item(ADDRESS, item.street, a, a + 1) for a in range(item.lo, item.hi)]
        if item.kind == RANGE:
            out: list[Item] = []
            a = item.lo
            while a < item.hi:
                b_lo, b_hi = ix.building(a)
                n = int(ix.a_numint[a])
                if item.parity == PARITY_ALL or (n % 2 == 1) == (item.parity == PARITY_ODD):
                    kind = ADDRESS if b_hi - b_lo == 1 else BUILDING
                    out.append(Item(kind, item.street, b_lo, b_hi))
                a = b_hi
            return out
        return [item]

    # -- text --------------------------------------------------------------------------------------------
    def text(self, ds: DatasetInfo, item: Item) -> str:
        ix = self.ix
        s = ix.street(item.street)
        iso2 = ds.iso2
        if item.kind == ADDRESS:
            a = item.lo
            lines = delivery_lines(iso2, ix.number_text(a), s.text, ix.strings[int(ix.a_desig[a])],
                                   ix.strings[int(ix.a_unit[a])])
        elif item.kind == BUILDING:
            first, last = item.lo, item.hi - 1
            while first < last and not ix.has_unit(first):
                first += 1
            desig = ix.strings[int(ix.a_desig[first])]
            u1, u2 = ix.strings[int(ix.a_unit[first])], ix.strings[int(ix.a_unit[last])]
            units = f"{u1}-{u2}" if u1 != u2 else u1
            number = ix.number_text(first)
            if iso2 in ("US", "CA"):
                lines = [" ".join(p for p in (number, s.text, desig, units) if p)]
            else:
                lines = delivery_lines(iso2, number, s.text, desig, units)
        else:
            lo_n, hi_n, side = self.range_bounds(item)
            lines = [f"{lo_n}…{hi_n} {s.text}" + (f" [{side}]" if side else "")]
        return one_line(iso2, lines, s.city, s.region, s.postcode)

    def range_bounds(self, item: Item) -> tuple[str, str, str]:
        """Lowest and highest house number of a range item, and its side ("odd", "even" or "")."""
        ix = self.ix
        ni = ix.a_numint[item.lo:item.hi]
        if item.parity == PARITY_ALL:
            idx = np.arange(len(ni))
        else:
            idx = np.flatnonzero(ni % 2 == (1 if item.parity == PARITY_ODD else 0))
        first, last = item.lo + int(idx[0]), item.lo + int(idx[-1])
        side = {PARITY_ODD: "odd", PARITY_EVEN: "even"}.get(item.parity, "")
        return ix.number_text(first), ix.number_text(last), side


class _Held:
    """The streets of the addresses carrying one house number's leading integer (ascending ids, so the streets
    come in order too), and, once asked, those streets each once as local ids."""

    __slots__ = ("_distinct", "street")

    def __init__(self, street: npt.NDArray[np.int32]) -> None:
        self.street = street
        self._distinct: npt.NDArray[np.int64] | None = None

    def streets(self, base: int) -> npt.NDArray[np.int64]:
        if self._distinct is None:
            st = self.street
            new = np.ones(len(st), dtype=bool)
            new[1:] = st[1:] != st[:-1]
            self._distinct = st[new].astype(np.int64) - base
            self._distinct.flags.writeable = False
        return self._distinct


def _has_number(nums: npt.NDArray[Any], num_ids: list[int]) -> npt.NDArray[np.bool_]:
    """Which of `nums` (the number ids of some addresses) is one of `num_ids` (the ids the typed number has)."""
    hit = np.zeros(len(nums), dtype=bool)
    for num_id in num_ids:
        hit |= nums == num_id
    return hit


@functools.lru_cache(maxsize=65536)
def _ukey(unit: str) -> str:
    """A unit compared without case, spaces or dashes ("1-2" == "12", "r a" == "RA")."""
    return "".join(c for c in unit.upper() if c.isalnum())


def numbered_on(ix: ReferenceIndex, streets: npt.NDArray[np.int64], ni: int,
                ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The addresses of `streets` whose house number reads as `ni` (its (street, number) key's range, see
    `number_spans.key_ranges`), street by street in id order, and which of `streets` each is on."""
    if len(streets) == 1:  # a whole address typed: one street, its keys searched with plain integers
        s = int(streets[0])
        lo = ix.s_lo.item(s)
        seg = ix.a_key[lo:ix.s_hi.item(s)]
        key = (s << 24) | ni
        a, b = int(seg.searchsorted(key, "left")) + lo, int(seg.searchsorted(key, "right")) + lo
        return np.arange(a, b, dtype=np.int64), np.zeros(b - a, dtype=np.int64)
    starts, lens = key_ranges(ix.a_key, ix.s_lo, ix.s_hi, streets, ni)
    addrs = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()))
    return addrs, np.repeat(np.arange(len(streets)), lens)


def _unit_readings(q: Query) -> list[tuple[set[int], str, bool]]:
    """Ways to read trailing words as a unit typed without designator: one short value ("4", "B", "E"), or
    two short ones run together ("R A" -> "RA"); the last word first."""
    out: list[tuple[set[int], str, bool]] = []
    ws = q.words
    for i in reversed(range(len(ws))):
        if ws[i].maybe_unit:
            out.append(({i}, ws[i].text, ws[i].complete))
    for i in range(1, len(ws) - 1):
        a, b = ws[i], ws[i + 1]
        if len(a.text) <= 2 and len(b.text) <= 3 and a.text.isalnum() and b.text.isalnum() and b.maybe_unit:
            out.append(({i, i + 1}, a.text + b.text, b.complete))
    return out[:4]


def _with(base: Item, kind: str, lo: int, hi: int, *, parity: int = PARITY_ALL, unit_level: int = 0) -> Item:
    return Item(kind, base.street, lo, hi, parity, base.number_level, base.word_score, unit_level, base.prior)


def _range_min(ix: ReferenceIndex, it: Item) -> int:
    ni = ix.a_numint[it.lo:it.hi]
    sel = ni[ni % 2 == (1 if it.parity == PARITY_ODD else 0)] if it.parity else ni
    return int(sel.min()) if len(sel) else 0


def highlight(text: str, q: Query, hits: list[WordHit]) -> list[tuple[int, int]]:
    """[start, end) ranges of `text` that match what was typed."""
    out: list[tuple[int, int]] = []
    used: set[int] = set()  # each typed word highlights one place of the text
    spans = token_spans(text)
    for n, (tok, s, e) in enumerate(spans):
        if q.number and n == 0 and tok[:1].isdigit():
            if tok == q.number:
                out.append((s, e))
            elif not q.number_complete and tok.startswith(q.number):
                out.append((s, s + len(q.number)))
            continue
        if q.unit and tok in q.unit.upper().split("-"):
            out.append((s, e))
            continue
        forms = street_word_forms(tok)
        for hi_, h in enumerate(hits):
            if hi_ in used:
                continue
            r = _word_range(tok, s, e, forms, h)
            if r is not None:
                out.append(r)
                used.add(hi_)
                break
    return out


def _word_range(tok: str, s: int, e: int, forms: tuple[str, ...], h: WordHit) -> tuple[int, int] | None:
    if h.exact and any(f in h.exact for f in forms):
        return s, e
    if h.prefix and tok.startswith(h.prefix):
        return s, min(e, s + len(h.prefix))
    if h.prefix and any(f.startswith(h.prefix) for f in forms):
        return s, e
    fp = next((p for p in h.fuzzy_prefixes if tok.startswith(p)), None)
    if fp:
        return s, min(e, s + len(fp))
    return None


def word_score_percent(item: Item, m: StreetMatch | None, q: Query) -> int:
    """A 0..100 score for clients: share of the best possible word score, with the house number counted."""
    best = (m.max_score if m else 0) + (NUMBER_EXACT * LEVEL_EXACT_STREET if q.number else 0)
    got = max(item.word_score, 0) + (item.number_level * LEVEL_EXACT_STREET if q.number else 0)
    if best <= 0:
        return 100 if item.number_level == NUMBER_EXACT else 50
    return max(0, min(100, round(100 * got / best)))
