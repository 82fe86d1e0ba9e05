"""Finding the streets a query's words point at: exact words, prefixes, typos, with graceful fallbacks.

Each query word becomes a per-street "level" array over one dataset (numpy int8, one byte per street):
6 exact in the street name, 5 exact in the locality (city, region, postcode), 4 / 3 prefix, 2 / 1 within one or
two typos, 0 no match. A street is a candidate when every kept word reaches it; its score is the sum of levels,
which ranks street-name matches above locality matches and exact above prefix above typo. Postings are slices
of sorted arrays (a prefix is one contiguous vocabulary range), so a word costs a few numpy slices.

When nothing matches, the search relaxes step by step: words with no hit at all are set aside (a half-typed unit
designator, "USA", a typo beyond reach), then typo matching is tried for every word, then one and then two words
are dropped (each drop costs score). That is what lets validate land on an address whose city or ZIP is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import OSA

from dqkit.engines.address.query import Query, Word
from dqkit.engines.address_index.build import FIELD_STREET
from dqkit.engines.address_index.store import DatasetInfo, ReferenceIndex, TokenIndex
from dqkit.engines.address_index.tokens import unit_designator_prefix

LEVEL_EXACT_STREET: Final = 6
LEVEL_EXACT_LOCALITY: Final = 5
LEVEL_PREFIX_STREET: Final = 4
LEVEL_PREFIX_LOCALITY: Final = 3
LEVEL_FUZZY_STREET: Final = 2
LEVEL_FUZZY_LOCALITY: Final = 1
DROP_PENALTY: Final = 7
_SPARSE_MAX: Final = 4096  # candidate streets up to which the other words are checked street by street
_SPARSE_MIN_STREETS: Final = 65536  # below this, one byte per street per word is cheaper than the detour
_SPARSE_RATIO: Final = 16  # ... and above it, when some word hits fewer than 1/16 of the streets
MIN_FUZZY_LEN: Final = 4
MIN_FUZZY2_LEN: Final = 8
_FUZZY_CACHE: Final = 65536  # complete words whose typo matches are kept per dataset (then the cache starts over)

I8 = npt.NDArray[np.int8]


def max_typos(word: str) -> int:
    if word.isdigit():
        return 0  # a wrong digit is a different ZIP or number, not a typo to forgive silently
    n = len(word)
    return 0 if n < MIN_FUZZY_LEN else 1 if n < MIN_FUZZY2_LEN else 2


@dataclass(slots=True)
class WordHit:
    """How one word matched the streets of a dataset."""

    word: Word
    levels: I8 | None  # one byte per street; None: no street at all (or only `sparse` is known)
    exact: set[str] = field(default_factory=set)  # vocabulary words matched whole (forms and typos)
    prefix: str = ""  # the prefix matched, when the word is incomplete
    fuzzy: bool = False  # typo matching was used
    fuzzy_prefixes: set[str] = field(default_factory=set)  # prefixes matched with a typo (incomplete word)
    # the selective path's form of `levels`: sorted local street ids and their levels (0 where the word misses);
    # the streets outside it are known to be 0 only for the streets the AND was restricted to
    sparse: tuple[npt.NDArray[np.int64], I8] | None = None

    @property
    def hit(self) -> bool:
        return self.levels is not None or self.sparse is not None

    def level(self, i: int) -> int:
        """This word's level on local street `i`."""
        if self.levels is not None:
            return int(self.levels[i])
        if self.sparse is None:
            return 0
        ids, lv = self.sparse
        j = int(ids.searchsorted(i))  # the method: np.searchsorted's dispatch cost more than the search
        return int(lv[j]) if j < len(ids) and ids[j] == i else 0

    def levels_at(self, idx: npt.NDArray[np.int64]) -> I8:
        """This word's levels on the sorted local streets `idx` (all inside `sparse` when that is used)."""
        if self.levels is not None:
            return self.levels[idx]
        assert self.sparse is not None
        ids, lv = self.sparse
        if ids is idx:
            return lv
        return lv[ids.searchsorted(idx)]


@dataclass(slots=True)
class StreetMatch:
    """Candidate streets (global ids, best first not guaranteed) with their word scores."""

    streets: npt.NDArray[np.int64]
    scores: npt.NDArray[np.int32]
    hits: list[WordHit]  # the words kept
    dropped: list[Word]  # words set aside (penalized unless they were harmless)
    fuzzy: bool  # typo matching was needed
    max_score: int  # best possible score of the words kept and dropped

    @property
    def empty(self) -> bool:
        return len(self.streets) == 0


class Matcher:
    """Word-to-street matching over one dataset of an index."""

    def __init__(self, ix: ReferenceIndex, ds: DatasetInfo) -> None:
        self.ix = ix
        self.ds = ds
        self.tk: TokenIndex = ix.tokens(ds.ordinal)
        self.n = ds.street_hi - ds.street_lo
        self._trunc: dict[tuple[str, int], tuple[list[str], list[int]]] = {}
        self._fuzzy: dict[str, tuple[int, ...]] = {}  # complete word -> its fuzzy_ids
        self._lengths: dict[tuple[str, int, int], tuple[list[str], list[int]]] = {}  # see _near_length

    # -- one word ------------------------------------------------------------------------------------------
    def match_word(self, w: Word, *, fuzzy: bool = False) -> WordHit:
        tk = self.tk
        exact_ids = [i for f in w.forms if (i := tk.find(f)) >= 0]
        hit = WordHit(w, None)
        plo = phi = 0
        if not w.complete:
            plo, phi = tk.prefix_range(w.text)
            hit.prefix = w.text
        fuzzy_ids: list[int] = []
        if fuzzy or (not exact_ids and plo == phi):
            fuzzy_ids = [i for i in self.fuzzy_ids(w) if i not in exact_ids]
        if not exact_ids and plo == phi and w.fixes:
            # a word no street has, one slip from a suffix, direction, ordinal or short name ("AEV", "24HT",
            # "ELE"): it reaches the streets it may mean, as a typo does (evidence.py decides)
            fuzzy_ids += [i for f in w.fixes if (i := tk.find(f)) >= 0 and i not in fuzzy_ids]
        hit.fuzzy = bool(fuzzy_ids)
        if not exact_ids and plo == phi and not fuzzy_ids:
            return hit
        lv = np.zeros(self.n, dtype=np.int8)
        base = self.ds.street_lo
        if fuzzy_ids:
            self._mark(lv, fuzzy_ids, tk.pl, tk.pl_ptr, LEVEL_FUZZY_LOCALITY, base)
            self._mark(lv, fuzzy_ids, tk.ps, tk.ps_ptr, LEVEL_FUZZY_STREET, base)
        if phi > plo:
            self._mark(lv, [], tk.pl, tk.pl_ptr, LEVEL_PREFIX_LOCALITY, base, (plo, phi))
            self._mark(lv, [], tk.ps, tk.ps_ptr, LEVEL_PREFIX_STREET, base, (plo, phi))
        if exact_ids:
            self._mark(lv, exact_ids, tk.pl, tk.pl_ptr, LEVEL_EXACT_LOCALITY, base)
            self._mark(lv, exact_ids, tk.ps, tk.ps_ptr, LEVEL_EXACT_STREET, base)
        hit.levels = lv
        hit.exact = {tk.words[i] for i in exact_ids}
        if fuzzy_ids:
            if w.complete:
                hit.exact |= {tk.vocab[i] for i in fuzzy_ids}
            else:
                hit.fuzzy_prefixes = {tk.vocab[i][:len(w.text)] for i in fuzzy_ids[:200]}
        return hit

    @staticmethod
    def _mark(lv: I8, ids: list[int], post: npt.NDArray[np.int32], ptr: npt.NDArray[np.int64], level: int,
              base: int, span: tuple[int, int] | None = None) -> None:
        """Set `level` for the streets in the postings of token `ids` (or of the token id range `span`)."""
        if span is not None:
            hits = post[ptr[span[0]]:ptr[span[1]]]
        elif len(ids) == 1:
            hits = post[ptr[ids[0]]:ptr[ids[0] + 1]]
        else:
            hits = np.concatenate([post[ptr[i]:ptr[i + 1]] for i in ids])
        lv[hits - base if base else hits] = level

    def fuzzy_ids(self, w: Word) -> list[int]:
        """Vocabulary ids within the allowed typos of `w` (of its first `len(w)` letters when incomplete).
        A complete word's ids are kept (the vocabulary never changes): validate asks again for the same words."""
        k = max_typos(w.text)
        if k == 0:
            return []
        if not w.complete:
            return self._fuzzy_ids(w, k)
        got = self._fuzzy.get(w.text)
        if got is None:
            if len(self._fuzzy) >= _FUZZY_CACHE:
                self._fuzzy.clear()
            got = self._fuzzy[w.text] = tuple(self._fuzzy_ids(w, k))
        return list(got)

    def _fuzzy_ids(self, w: Word, k: int) -> list[int]:
        tk = self.tk
        ranges = tk.first_char_ranges
        out: list[int] = []
        for c in dict.fromkeys((w.text[0], w.text[1])):  # a typo in the first letter: try the second's range
            lo, hi = ranges.get(c, (0, 0))
            if lo == hi:
                continue
            if w.complete:
                choices, ids = self._near_length(c, len(w.text), k, lo, hi)
            else:
                choices, ids = self._truncated(c, len(w.text), lo, hi)
            for p, _, j in process.extract(w.text, choices, scorer=OSA.distance, score_cutoff=k, limit=None):
                if w.complete:
                    out.append(ids[j])
                else:  # every word starting with the matched prefix
                    plo, phi = tk.prefix_range(p)
                    out.extend(range(plo, phi))
            if out:
                break
        return out

    def _near_length(self, c: str, n: int, k: int, lo: int, hi: int) -> tuple[list[str], list[int]]:
        """The words starting with `c` (ids lo..hi-1) at most `k` letters longer or shorter than `n`, and their
        ids, in vocabulary order: a word more than k letters longer or shorter is more than k edits away."""
        key = (c, n, k)
        got = self._lengths.get(key)
        if got is None:
            words = self.tk.words
            ids = [i for i in range(lo, hi) if abs(len(words[i]) - n) <= k]
            got = ([words[i] for i in ids], ids)
            if len(self._lengths) >= 4096:
                self._lengths.clear()
            self._lengths[key] = got
        return got

    def _truncated(self, c: str, n: int, lo: int, hi: int) -> tuple[list[str], list[int]]:
        """Distinct first-`n`-letter prefixes of the words starting with `c`, and one word id range each."""
        key = (c, n)
        got = self._trunc.get(key)
        if got is None:
            words = self.tk.words
            pref: list[str] = []
            first: list[int] = []
            last = None
            for i in range(lo, hi):
                p = words[i][:n]
                if p != last:
                    pref.append(p)
                    first.append(i)
                    last = p
            got = (pref, first)
            self._trunc[key] = got
        return got

    # -- all words ---------------------------------------------------------------------------------------
    def match(self, q: Query) -> StreetMatch:
        words = list(q.words)
        sparse = self._selective(words)
        if sparse is not None:
            result = self._combine(sparse[0], [], domain=sparse[1])
            if result is not None:
                return result
        hits = [self._word(w, fuzzy=False) for w in words]
        if sparse is None:
            result = self._combine(hits, [])
            if result is not None:
                return result
        # 1. typos for every word long enough
        if any(max_typos(w.text) for w in words):
            hits = [self._word(w, fuzzy=True) if max_typos(w.text) else h for w, h in zip(words, hits, strict=True)]
            result = self._combine(hits, [], fuzzy=True)
            if result is not None:
                return result
        # 2. let one, then two words miss (each miss costs DROP_PENALTY): a wrong ZIP, a city the index spells
        #    differently, a word beyond typo reach
        for r in (1, 2):
            if len(hits) <= r:
                break
            result = self._combine(hits, [], fuzzy=True, may_miss=r)
            if result is not None:
                return result
        return StreetMatch(np.zeros(0, np.int64), np.zeros(0, np.int32), [], words, False, 0)

    def _selective(self, words: list[Word]) -> tuple[list[WordHit], npt.NDArray[np.int64]] | None:
        """The strict AND, evaluated the cheap way: the most selective word over all streets, every other word
        only on the streets that word left (through the forward index). None when that shortcut does not apply
        (a single word, a word only a typo reaches, too many candidates, or a word matching none of them):
        the caller then takes the general path, which gives the same answer for the cases handled here. A word
        that reaches no street at all (a made-up name) is set aside here as the general path sets it aside.
        Returns the hits (levels kept sparse, over the candidate streets only) and those candidates; nothing here
        costs one byte per street of the dataset."""
        if len(words) < 2 or self.n < _SPARSE_MIN_STREETS:
            return None
        tk = self.tk
        ps_ptr, pl_ptr = tk.ps_ptr, tk.pl_ptr
        specs: list[tuple[list[int], int, int, int]] = []
        none: dict[int, WordHit] = {}  # words that reach no street at all, not even by a typo: set aside
        for k, w in enumerate(words):
            exact_ids = [i for f in w.forms if (i := tk.find(f)) >= 0]
            plo, phi = tk.prefix_range(w.text) if not w.complete else (0, 0)
            size = int(ps_ptr[phi] - ps_ptr[plo] + pl_ptr[phi] - pl_ptr[plo]) if phi > plo else 0
            size += sum(int(ps_ptr[i + 1] - ps_ptr[i] + pl_ptr[i + 1] - pl_ptr[i]) for i in exact_ids)
            if size == 0:
                # a made-up name: the general path would set it aside too (no typo reaches it), so the AND of
                # the other words stays cheap; a word a typo reaches takes the general path
                if exact_ids or phi > plo:
                    return None
                h = self.match_word(w)
                if h.hit:
                    return None
                none[k] = h
            specs.append((exact_ids, plo, phi, size))
        if len(none) == len(words):
            return None
        first = min((i for i in range(len(words)) if i not in none), key=lambda i: specs[i][3])
        if specs[first][3] * _SPARSE_RATIO > self.n:
            return None  # no word is selective enough for the detour to pay
        cand, lv0 = self._posting_levels(*specs[first][:3])
        if len(cand) > _SPARSE_MAX:
            return None
        w0 = words[first]
        h0 = WordHit(w0, None, {tk.words[j] for j in specs[first][0]}, "" if w0.complete else w0.text,
                     sparse=(cand, lv0))
        g = cand + self.ds.street_lo
        fa, fb = self.ix.fw_ptr[g], self.ix.fw_ptr[g + 1]
        lens = fb - fa
        starts = np.cumsum(lens) - lens
        idx = np.repeat(fa - starts, lens) + np.arange(int(lens.sum()))
        ent = self.ix.fw_tok[idx]
        in_street = self.ix.fw_field[idx] == FIELD_STREET
        out: list[WordHit] = []
        for i, w in enumerate(words):
            if i == first or i in none:
                out.append(h0 if i == first else none[i])
                continue
            exact_ids, plo, phi, _ = specs[i]
            lvl = np.zeros(len(ent), dtype=np.int8)
            if phi > plo:
                sel = (ent >= plo) & (ent < phi)
                lvl[sel] = np.where(in_street[sel], LEVEL_PREFIX_STREET, LEVEL_PREFIX_LOCALITY)
            if exact_ids:
                sel = ent == exact_ids[0]
                if len(exact_ids) > 4:
                    sel = np.isin(ent, exact_ids)
                else:  # a word's few forms: one comparison each beats np.isin's sort (5% of a clean validate)
                    for other in exact_ids[1:]:
                        sel |= ent == other
                lvl[sel] = np.where(in_street[sel], LEVEL_EXACT_STREET, LEVEL_EXACT_LOCALITY)
            per = np.maximum.reduceat(lvl, starts)
            if not per.any():
                return None
            out.append(WordHit(w, None, {tk.vocab[j] for j in exact_ids}, "" if w.complete else w.text,
                               sparse=(cand, per)))
        return out, cand

    def _posting_levels(self, exact_ids: list[int], plo: int, phi: int) -> tuple[npt.NDArray[np.int64], I8]:
        """The streets (sorted local ids) a word reaches, straight from its posting lists, with the word's best
        level on each: what `match_word` marks in a full array, without the array."""
        tk = self.tk
        parts: list[npt.NDArray[np.int32]] = []
        levels: list[int] = []
        if phi > plo:
            parts += [tk.pl[tk.pl_ptr[plo]:tk.pl_ptr[phi]], tk.ps[tk.ps_ptr[plo]:tk.ps_ptr[phi]]]
            levels += [LEVEL_PREFIX_LOCALITY, LEVEL_PREFIX_STREET]
        for i in exact_ids:
            parts += [tk.pl[tk.pl_ptr[i]:tk.pl_ptr[i + 1]], tk.ps[tk.ps_ptr[i]:tk.ps_ptr[i + 1]]]
            levels += [LEVEL_EXACT_LOCALITY, LEVEL_EXACT_STREET]
        streets = np.concatenate(parts).astype(np.int64)
        lv = np.repeat(np.array(levels, dtype=np.int64), [len(x) for x in parts])
        key = streets * 8 + (7 - lv)  # sorted: by street, then best level first
        key.sort()
        first = np.ones(len(key), dtype=bool)
        first[1:] = (key[1:] >> 3) != (key[:-1] >> 3)
        key = key[first]
        return (key >> 3) - self.ds.street_lo, (7 - (key & 7)).astype(np.int8)

    def _word(self, w: Word, *, fuzzy: bool) -> WordHit:
        return self.match_word(w, fuzzy=fuzzy)

    def _combine(self, hits: list[WordHit], dropped: list[Word], *, fuzzy: bool = False,
                 may_miss: int = 0, domain: npt.NDArray[np.int64] | None = None) -> StreetMatch | None:
        """AND of the hits (up to `may_miss` of them may miss a street, at a cost each); words without any hit
        at all are set aside. None when no street is left. `domain`: sorted local streets that hold every
        answer (the selective path's candidates); the AND then looks at those streets only."""
        kept = [h for h in hits if h.hit]
        missing = [h.word for h in hits if not h.hit]
        if not kept:
            return None
        if domain is not None and not may_miss:
            at = [h.levels_at(domain) for h in kept]
            ok = at[0] > 0
            for a in at[1:]:
                ok &= a > 0
            idx = domain[ok]
            if len(idx) == 0:
                return None
            sums = at[0][ok].astype(np.int32)
            for a in at[1:]:
                sums += a[ok]
            misses = np.zeros(len(idx), dtype=np.int32)
            return self._result(idx, sums, misses, kept, dropped, missing, fuzzy)
        levels = [h.levels for h in kept if h.levels is not None]
        if may_miss:
            acc = levels[0].astype(np.int16)
            count = (levels[0] > 0).astype(np.int8)
            for lv in levels[1:]:
                count += lv > 0
                acc += lv
            idx = np.flatnonzero(count >= len(levels) - may_miss)
            if len(idx) == 0:
                return None
            misses = len(levels) - count[idx].astype(np.int32)
            sums = acc[idx].astype(np.int32)
        else:
            # narrow down on whole arrays for two words, then only on the streets still standing
            idx = np.flatnonzero(levels[0] > 0) if len(levels) == 1 else \
                np.flatnonzero((levels[0] > 0) & (levels[1] > 0))
            for lv in levels[2:]:
                if len(idx) == 0:
                    break
                idx = idx[lv[idx] > 0]
            if len(idx) == 0:
                return None
            sums = levels[0][idx].astype(np.int32)
            for lv in levels[1:]:
                sums += lv[idx]
            misses = np.zeros(len(idx), dtype=np.int32)
        return self._result(idx, sums, misses, kept, dropped, missing, fuzzy)

    def _result(self, idx: npt.NDArray[np.int64], sums: npt.NDArray[np.int32], misses: npt.NDArray[np.int32],
                kept: list[WordHit], dropped: list[Word], missing: list[Word], fuzzy: bool) -> StreetMatch:
        penalty = DROP_PENALTY * (len(dropped) + sum(1 for w in missing if not harmless(w)))
        scores = sums - penalty - DROP_PENALTY * misses
        all_words = len(kept) + len(dropped) + len(missing)
        return StreetMatch(
            streets=idx.astype(np.int64) + self.ds.street_lo, scores=scores, hits=kept,
            dropped=dropped + missing, fuzzy=fuzzy or any(h.fuzzy for h in kept),
            max_score=LEVEL_EXACT_STREET * all_words,
        )


def harmless(w: Word) -> bool:
    """A word whose absence from the index should not count against a match: a unit designator being typed,
    or the country name."""
    if not w.complete and unit_designator_prefix(w.text):
        return True
    return w.text in _COUNTRY_WORDS


_COUNTRY_WORDS: Final = frozenset({"US", "USA", "UNITED", "STATES", "AMERICA", "CANADA", "UK", "GB", "KINGDOM",
                                   "GREAT", "BRITAIN", "ENGLAND", "SCOTLAND", "WALES"})
