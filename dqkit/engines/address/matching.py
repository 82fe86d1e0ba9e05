"""Finding the streets a query's words point at: exact words, prefixes, typos, with graceful fallbacks.

Each query word gets a "level" on each street of one dataset (numpy int8: one byte per street, or at national
size on a few candidate streets only, see `sparse_match`): 6 exact in the street name, 5 exact in the locality
(city, region, postcode), 4 / 3 prefix, 2 / 1 within one or two typos, 0 no match. A street is a candidate when
every kept word reaches it; its score is the sum of levels, which ranks street-name matches above locality
matches and exact above prefix above typo. Postings are slices of sorted arrays (a prefix is one contiguous
vocabulary range), so a word costs a few numpy slices.

When nothing matches, the search relaxes step by step: words with no hit at all are set aside (a half-typed unit
designator, "USA", a typo beyond reach), then typo matching is tried for every word, then one and then two words
are dropped (each drop costs score). That is what lets validate land on an address whose city or ZIP is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Final, TypeVar

import numpy as np
import numpy.typing as npt
from rapidfuzz import process
from rapidfuzz.distance import OSA

from dqkit.engines.address.query import Query, Word
from dqkit.engines.address.sparse_match import (
    FEW_STREETS,
    Entries,
    WordIds,
    entry_levels,
    forward_entries,
    forward_levels,
    levels_at,
    levels_on,
    posting_levels,
    posting_size,
)
from dqkit.engines.address_index.derived import LETTERS
from dqkit.engines.address_index.letter_sieve import LetterSieve, distinct
from dqkit.engines.address_index.store import DatasetInfo, ReferenceIndex, TokenIndex
from dqkit.engines.address_index.tokens import unit_designator_prefix
from dqkit.engines.address_index.words import LEVEL_EXACT_LOCALITY as LEVEL_EXACT_LOCALITY
from dqkit.engines.address_index.words import LEVEL_EXACT_STREET as LEVEL_EXACT_STREET
from dqkit.engines.address_index.words import LEVEL_FUZZY_LOCALITY as LEVEL_FUZZY_LOCALITY
from dqkit.engines.address_index.words import LEVEL_FUZZY_STREET as LEVEL_FUZZY_STREET
from dqkit.engines.address_index.words import LEVEL_PREFIX_LOCALITY as LEVEL_PREFIX_LOCALITY
from dqkit.engines.address_index.words import LEVEL_PREFIX_STREET as LEVEL_PREFIX_STREET

DROP_PENALTY: Final = 7
_SPARSE_MIN_STREETS: Final = 65536  # below this, one byte per street per word is cheaper than the detour
_SPARSE_RATIO: Final = 16  # ... and above it, when the seed words' postings are under 1/16 of the streets
_SEED_MAX: Final = 32768  # ... and under this many (each candidate street costs ~15 forward entries a word)


class _Dense:
    """A stage the sparse path leaves to the per-street arrays."""


_DENSE: Final = _Dense()
MIN_FUZZY_LEN: Final = 4
MIN_FUZZY2_LEN: Final = 8
_SIEVE_MIN: Final = 1024  # words of one first letter from which typo matching sieves them (`letter_sieve`)
_FUZZY_CACHE: Final = 65536  # complete words whose typo matches are kept per dataset (then the cache starts over)
_SEED_CACHE: Final = 32  # candidate sets of the sparse stage kept (each up to _SEED_MAX streets)
_LEVELS_CACHE: Final = 256  # a word's levels on such candidates kept
_WITHIN_READ: Final = 4  # a sparse stage reads a typed number's addresses' streets up to this many a candidate
_ENTRIES_CACHE: Final = 4  # the forward entries of the last seed sets' candidates (~3 MB each at _SEED_MAX)
_DENSE_CACHE: Final = 12  # per-street level arrays kept (one byte per street each: 31 MB at 2.6M streets)
_DENSE_CACHE_POSTINGS: Final = 65536  # ... of words with at least this many postings (their marking costs most)
# The distinct first-n-letter prefixes of a first letter's words (typo matching of a word being typed), kept up to
# this many bytes (`_prefix_bytes`: Python strings, ints and list slots), the least recently used dropped:
# one (letter, length) at national size is up to ~0.6 MB, all 36 x 30 of them 157 MB, and type-down reaches more
# of them keystroke after keystroke (160 after 60k keystrokes at 100M points, still growing): bounded in entries
# only by the alphabet, they were the type-down memory that kept growing (issue 33).
TRUNC_CACHE_BYTES: Final = 24 << 20

I8 = npt.NDArray[np.int8]
_K = TypeVar("_K")
_V = TypeVar("_V")


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
        self._trunc: dict[tuple[str, int], tuple[list[str], list[int]]] = {}  # see _truncated
        self._trunc_bytes = 0
        self._fuzzy: dict[str, tuple[int, ...]] = {}  # complete word -> its fuzzy_ids
        self._lengths: dict[tuple[str, int, int], tuple[list[str], list[int]]] = {}  # see _near_length
        # the sparse stage's candidates by seed words, and other words' levels on them: a keystroke's readings and
        # the next keystroke ask again (read-only arrays; the index never changes)
        self._seeds: dict[tuple[_IdsKey, ...], _Seeded] = {}
        self._levels: dict[tuple[tuple[_IdsKey, ...], _IdsKey], I8] = {}
        self._entries: dict[tuple[_IdsKey, ...], Entries | None] = {}  # see _cand_entries
        self._dense: dict[_IdsKey, I8] = {}  # the per-street arrays of the most common words ("ST", "S", "APT")
        self._sieves: dict[str, LetterSieve | None] = {}  # first letter -> its words' sieve (see _sieve)

    # -- one word ------------------------------------------------------------------------------------------
    def word_ids(self, w: Word, *, fuzzy: bool = False) -> WordIds:
        """The vocabulary `w` reaches: its exact forms, its prefix range when incomplete, and typo matches (when
        asked, or when nothing else is found: a word no street has may still be a slip of one)."""
        tk = self.tk
        exact_ids = [i for f in w.forms if (i := tk.find(f)) >= 0]
        plo = phi = 0
        if not w.complete:
            plo, phi = tk.prefix_range(w.text)
        fuzzy_ids: list[int] = []
        if fuzzy or (not exact_ids and plo == phi):
            fuzzy_ids = [i for i in self.fuzzy_ids(w) if i not in exact_ids]
        if not exact_ids and plo == phi and w.fixes:
            # a word no street has, one slip from a suffix, direction, ordinal or short name ("AEV", "24HT",
            # "ELE"): it reaches the streets it may mean, as a typo does (evidence.py decides)
            fuzzy_ids += [i for f in w.fixes if (i := tk.find(f)) >= 0 and i not in fuzzy_ids]
        return WordIds(exact_ids, plo, phi, fuzzy_ids)

    def _hit(self, w: Word, ids: WordIds) -> WordHit:
        """The word's hit without its levels: what it matched, for highlighting and the evidence check."""
        tk = self.tk
        hit = WordHit(w, None)
        if not w.complete:
            hit.prefix = w.text
        hit.fuzzy = bool(ids.fuzzy)
        hit.exact = {tk.words[i] for i in ids.exact}
        if ids.fuzzy:
            if w.complete:
                hit.exact |= {tk.vocab[i] for i in ids.fuzzy}
            else:
                hit.fuzzy_prefixes = {tk.vocab[i][:len(w.text)] for i in ids.fuzzy[:200]}
        return hit

    def word_hit(self, w: Word, ids: WordIds) -> WordHit:
        """What `w` matched (its vocabulary, no levels): the hit a match reports for highlighting."""
        return self._hit(w, ids)

    def word_levels(self, w: Word, ids: WordIds) -> I8:
        """`w`'s level on every street of the dataset (one byte per street), as a stage's per-street array."""
        lv = self._dense_hit(w, ids, remember=True).levels
        return np.zeros(self.n, dtype=np.int8) if lv is None else lv

    def match_word(self, w: Word, *, fuzzy: bool = False) -> WordHit:
        return self._dense_hit(w, self.word_ids(w, fuzzy=fuzzy))

    def _dense_hit(self, w: Word, ids: WordIds, *, remember: bool = False) -> WordHit:
        """`remember`: a common word's array kept for the next keystrokes (type-down; validate's words vary)."""
        hit = self._hit(w, ids)
        if not ids.any:
            return hit
        tk = self.tk
        key = _ids_key(ids) if remember and self.n >= _SPARSE_MIN_STREETS else None
        if key is not None and (got := self._dense.get(key)) is not None:
            hit.levels = got
            return hit
        if (stored := self._letter_levels(w, ids)) is not None:
            hit.levels = stored
            return hit
        lv = np.zeros(self.n, dtype=np.int8)
        base = self.ds.street_lo
        if ids.fuzzy:
            self._mark(lv, ids.fuzzy, tk.pl, tk.pl_ptr, LEVEL_FUZZY_LOCALITY, base)
            self._mark(lv, ids.fuzzy, tk.ps, tk.ps_ptr, LEVEL_FUZZY_STREET, base)
        if ids.phi > ids.plo:
            self._mark(lv, [], tk.pl, tk.pl_ptr, LEVEL_PREFIX_LOCALITY, base, (ids.plo, ids.phi))
            self._mark(lv, [], tk.ps, tk.ps_ptr, LEVEL_PREFIX_STREET, base, (ids.plo, ids.phi))
        if ids.exact:
            self._mark(lv, ids.exact, tk.pl, tk.pl_ptr, LEVEL_EXACT_LOCALITY, base)
            self._mark(lv, ids.exact, tk.ps, tk.ps_ptr, LEVEL_EXACT_STREET, base)
        if key is not None and posting_size(tk, ids) >= _DENSE_CACHE_POSTINGS:
            lv = _kept(self._dense, key, lv, _DENSE_CACHE)
        hit.levels = lv
        return hit

    def stored_levels(self, w: Word, ids: WordIds) -> I8 | None:
        """`w`'s levels on every street when the index stores them (a letter being typed), else None."""
        return self._letter_levels(w, ids)

    def _letter_levels(self, w: Word, ids: WordIds) -> I8 | None:
        """The levels of a one-letter word being typed, stored in the index (`derived.letter_levels`: the same
        marks from the same postings, one row of the section); None when the index has no such row or the word
        reaches other ids (typo matches)."""
        rows = self.tk.letter_levels
        if rows is None or w.complete or len(w.text) != 1 or ids.fuzzy or ids.exact not in ([], [ids.plo]):
            return None
        k = LETTERS.find(w.text)
        if k < 0 or (ids.plo, ids.phi) != self.tk.prefix_range(w.text):
            return None
        return rows[k * self.n:(k + 1) * self.n]

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
                sieve = self._sieve(c, lo, hi)
                near = sieve.near(w.text, k) if sieve is not None else None
                choices, ids = near if near is not None else self._near_length(c, len(w.text), k, lo, hi)
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

    def _sieve(self, c: str, lo: int, hi: int) -> LetterSieve | None:
        """The sieve of the words starting with `c` (ids lo..hi-1), built once: a complete word is compared only
        with those of near length whose letters allow its typos, in vocabulary order, as `_near_length` lists them
        all (at national size ~4,000 words a first letter, ~8,000 for a made-up word: 0.3 ms a word)."""
        if c not in self._sieves:
            self._sieves[c] = LetterSieve.of(self.tk.words[lo:hi], lo) if hi - lo >= _SIEVE_MIN else None
        return self._sieves[c]

    def _truncated(self, c: str, n: int, lo: int, hi: int) -> tuple[list[str], list[int]]:
        """Distinct first-`n`-letter prefixes of the words starting with `c`, and one word id range each."""
        key = (c, n)
        got = self._trunc.pop(key, None)  # (put back last: the least recently used is dropped first)
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
            self._trunc_bytes += _prefix_bytes(got, n)
            while self._trunc and self._trunc_bytes > TRUNC_CACHE_BYTES:
                old = next(iter(self._trunc))
                self._trunc_bytes -= _prefix_bytes(self._trunc.pop(old), old[1])
        self._trunc[key] = got
        return got

    # -- all words ---------------------------------------------------------------------------------------
    def match(self, q: Query, *, remember: bool = False,
              within: Callable[[int | None], npt.NDArray[np.int64] | None] | None = None) -> StreetMatch:
        """The strict AND of the words, then the relaxations in order; each stage on a few candidate streets
        when the words allow it (`sparse_match`), else on per-street level arrays: the same answer either way.

        `within` (type-down with a house number): the streets (sorted local ids) the caller will look at, asked
        when a stage takes the per-street arrays, or when a sparse stage would read other words on its candidates
        (then only if it costs reading at most the given number of addresses). That stage is then combined on
        those streets first: when some of them qualify, the stage has an answer over all streets too (so it is
        the stage the full AND picks) and its streets outside `within` are left out of the match; when none do,
        all streets (candidates) are combined."""
        words = list(q.words)
        dense: dict[int, WordHit] = {}  # id(WordIds) -> its dense hit, kept across stages
        for ids, may_miss, fuzzy in self._stages(words):
            result = self._sparse_stage(words, ids, may_miss, fuzzy, remember, within)
            if isinstance(result, _Dense):
                hits = [dense.get(id(i)) or dense.setdefault(id(i), self._dense_hit(w, i, remember=remember))
                        for w, i in zip(words, ids, strict=True)]
                on = within(None) if within is not None else None
                result = self._combine(hits, [], fuzzy=fuzzy, may_miss=may_miss, on=on) if on is not None else None
                if result is None:
                    result = self._combine(hits, [], fuzzy=fuzzy, may_miss=may_miss)
            if result is not None:
                return result
        return StreetMatch(np.zeros(0, np.int64), np.zeros(0, np.int32), [], words, False, 0)

    def _stages(self, words: list[Word]) -> Iterator[tuple[list[WordIds], int, bool]]:
        """(word ids, words that may miss, typo matching) of each stage, worked out only when reached: the strict
        AND; 1. typos for every word long enough; 2. one, then two words may miss (each miss costs DROP_PENALTY):
        a wrong ZIP, a city the index spells differently, a word beyond typo reach."""
        ids = [self.word_ids(w) for w in words]
        yield ids, 0, False
        if any(max_typos(w.text) for w in words):
            ids = [self.word_ids(w, fuzzy=True) if max_typos(w.text) else i for w, i in zip(words, ids, strict=True)]
            yield ids, 0, True
        for r in (1, 2):
            if len(words) <= r:
                break
            yield ids, r, True

    def _sparse_stage(self, words: list[Word], ids: list[WordIds], may_miss: int, fuzzy: bool,
                      remember: bool = False,
                      within: Callable[[int | None], npt.NDArray[np.int64] | None] | None = None,
                      ) -> StreetMatch | _Dense | None:
        """One stage on the candidate streets only (see `sparse_match`); `_DENSE` when that would not pay (a
        small dataset, words too common) or cannot decide (every street may qualify). `within`: see `match`."""
        kept = [k for k, i in enumerate(ids) if i.any]
        if not kept:
            return None
        need = len(kept) - may_miss
        if need < 1 or self.n < _SPARSE_MIN_STREETS:
            return _DENSE
        tk = self.tk
        sizes = [posting_size(tk, ids[k]) for k in kept]
        by_size = sorted(range(len(kept)), key=sizes.__getitem__)
        order = by_size[:may_miss + 1]
        seeds = [kept[j] for j in order]
        seed_max = min(_SEED_MAX, self.n // _SPARSE_RATIO)
        if sum(sizes[j] for j in order) > seed_max:
            return _DENSE
        base = self.ds.street_lo
        seed_key = tuple(_ids_key(ids[k]) for k in seeds) if remember else ()
        got = self._seeds.get(seed_key) if remember else None
        if got is None:
            seed_levels = [posting_levels(tk, ids[k], base) for k in seeds]
            cand = seed_levels[0][0] if len(seeds) == 1 else _union_sorted([s for s, _ in seed_levels])
            got = (seed_levels, cand)
            if remember:
                _kept(self._seeds, seed_key, got, _SEED_CACHE)
        by_seed, cand = dict(zip(seeds, got[0], strict=True)), got[1]
        if len(cand) == 0:
            return None
        others = [k for k in kept if k not in by_seed]
        at: dict[int, I8] = {}
        if not remember and not may_miss:
            cand = self._narrowed(ids, kept, sizes, seed_max, by_seed, at, cand)
            if len(cand) == 0:
                return None
        for k in others if remember else ():  # levels read on these candidates (another reading, the last keystroke)
            lv = self._levels.get((seed_key, _ids_key(ids[k])))
            if lv is not None:
                at[k] = lv
        todo = [k for k in others if k not in at]
        if todo and within is not None and (on := within(_WITHIN_READ * len(cand))) is not None:
            got_on = self._on_streets(words, ids, kept, by_seed, _among_sorted(cand, on), need, may_miss, fuzzy)
            if got_on is not None:
                return got_on
        fw: list[I8] | None = []
        if todo and remember:  # the candidates' forward entries read once for the readings and keystrokes to come
            entries = self._cand_entries(seed_key, cand + base)
            fw = None if entries is None else entry_levels(entries, [ids[k] for k in todo])
        elif todo:
            fw = forward_levels(self.ix, cand + base, [ids[k] for k in todo])
        if fw is None:
            return _DENSE
        for k, lv in zip(todo, fw, strict=True):
            at[k] = _kept(self._levels, (seed_key, _ids_key(ids[k])), lv, _LEVELS_CACHE) if remember else lv
        levels = [levels_on(*by_seed[k], cand) if k in by_seed else at[k] for k in kept]
        return self._counted(words, ids, kept, levels, cand, need, may_miss, fuzzy)

    def _on_streets(self, words: list[Word], ids: list[WordIds], kept: list[int],
                    by_seed: dict[int, tuple[npt.NDArray[np.int64], I8]], cand: npt.NDArray[np.int64], need: int,
                    may_miss: int, fuzzy: bool) -> StreetMatch | None:
        """A sparse stage on some of its candidates only (sorted local ids): the seeds' levels read from their
        postings, the other words' from the forward index. None: none qualifies (or a street without forward
        entries): the caller reads every candidate."""
        if len(cand) == 0:
            return None
        others = [k for k in kept if k not in by_seed]
        fw = forward_levels(self.ix, cand + self.ds.street_lo, [ids[k] for k in others])
        if fw is None:
            return None
        at = dict(zip(others, fw, strict=True))
        levels = [levels_on(*by_seed[k], cand) if k in by_seed else at[k] for k in kept]
        return self._counted(words, ids, kept, levels, cand, need, may_miss, fuzzy)

    def _counted(self, words: list[Word], ids: list[WordIds], kept: list[int], levels: list[I8],
                 cand: npt.NDArray[np.int64], need: int, may_miss: int, fuzzy: bool) -> StreetMatch | None:
        """The candidates (sorted local ids) reached by at least `need` of the kept words (their `levels` on
        them), scored: a sparse stage's result, None when none is."""
        got_streets = (_few_streets if len(cand) <= FEW_STREETS else _reached)(cand, levels, need, may_miss)
        if got_streets is None:
            return None
        idx, sums, misses = got_streets
        hits = []
        for k, lv in zip(kept, levels, strict=True):
            h = self._hit(words[k], ids[k])
            h.sparse = (cand, lv)
            hits.append(h)
        missing = [words[k] for k, i in enumerate(ids) if not i.any]
        return self._result(idx, sums, misses, hits, [], missing, fuzzy)

    def _narrowed(self, ids: list[WordIds], kept: list[int], sizes: list[int], most: int,
                  by_seed: dict[int, tuple[npt.NDArray[np.int64], I8]], at: dict[int, I8],
                  cand: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """The strict AND's candidates narrowed by the postings of the other words that have few (street-name words
        first: the seed is most often the ZIP or the city, whose streets the other one shares), until a few
        streets are left: a street every word must reach is in every word's postings. The seed's levels and the
        narrowing words' are set on the streets kept (`by_seed`, `at`); the other words are then read on a few
        streets instead of the ZIP's ~50 (a whole address typed)."""
        tk, base = self.tk, self.ds.street_lo
        (seed, (_, seed_lv)), = by_seed.items()
        ps = tk.ps_ptr

        def street_word_first(j: int) -> tuple[bool, int]:
            return not any(ps.item(i + 1) > ps.item(i) for i in ids[kept[j]].exact), sizes[j]

        narrowing = [kept[j] for j in sorted(range(len(kept)), key=street_word_first)
                     if kept[j] != seed and sizes[j] <= most]
        got: dict[int, I8] = {}
        for k in narrowing:
            if len(cand) <= FEW_STREETS:
                break
            lv = levels_at(tk, ids[k], cand, base)
            keep = lv > 0
            cand, seed_lv = cand[keep], seed_lv[keep]
            got = {j: x[keep] for j, x in got.items()}
            got[k] = lv[keep]
            if len(cand) == 0:
                break
        by_seed[seed] = (cand, seed_lv)
        at.update(got)
        return cand

    def _cand_entries(self, seed_key: tuple[_IdsKey, ...], streets: npt.NDArray[np.int64]) -> Entries | None:
        """The forward entries of the sparse stage's candidates of `seed_key` (global ids `streets`), kept for the
        last few seed sets: another word on the same candidates (the next reading, the next keystroke) then costs
        a few comparisons instead of one memory access a street (~5 ms at 20k candidates at 100M points)."""
        if seed_key in self._entries:
            return self._entries[seed_key]
        got = forward_entries(self.ix, streets)
        while len(self._entries) >= _ENTRIES_CACHE:
            self._entries.pop(next(iter(self._entries)), None)
        if got is not None:
            for arr in got:
                arr.flags.writeable = False
        self._entries[seed_key] = got
        return got

    def _combine(self, hits: list[WordHit], dropped: list[Word], *, fuzzy: bool = False,
                 may_miss: int = 0, on: npt.NDArray[np.int64] | None = None) -> StreetMatch | None:
        """AND of the hits (up to `may_miss` of them may miss a street, at a cost each); words without any hit
        at all are set aside. None when no street is left. `on`: only these streets (sorted local ids)."""
        kept = [h for h in hits if h.hit]
        missing = [h.word for h in hits if not h.hit]
        if not kept:
            return None
        levels = [h.levels for h in kept if h.levels is not None]
        if on is not None and not may_miss:
            return self._combine_on(levels, on, kept, dropped, missing, fuzzy)
        if on is not None:
            levels = [lv[on] for lv in levels]
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
            misses = None
        if on is not None:
            idx = on[idx]
        return self._result(idx, sums, misses, kept, dropped, missing, fuzzy)

    def _combine_on(self, levels: list[I8], on: npt.NDArray[np.int64], kept: list[WordHit], dropped: list[Word],
                    missing: list[Word], fuzzy: bool) -> StreetMatch | None:
        """`_combine`'s strict AND on the streets `on` (sorted local ids) only: each word's levels read on the streets
        the words before it left standing, not on all of `on` (a typed number's streets: up to ~230k at 100M points,
        one gather per word), the same streets, in the same order, with the same sums."""
        first = levels[0][on]
        idx = np.flatnonzero(first > 0)
        sums = first[idx].astype(np.int32)
        for lv in levels[1:]:
            if len(idx) == 0:
                break
            got = lv[on[idx]]
            keep = got > 0
            idx, sums = idx[keep], sums[keep] + got[keep]
        if len(idx) == 0:
            return None
        return self._result(on[idx], sums, None, kept, dropped, missing, fuzzy)

    def _result(self, idx: npt.NDArray[np.int64], sums: npt.NDArray[np.int32], misses: npt.NDArray[np.int32] | None,
                kept: list[WordHit], dropped: list[Word], missing: list[Word], fuzzy: bool) -> StreetMatch:
        """`misses`: words each street misses (None: none; a million-street answer skips an array of zeros)."""
        penalty = DROP_PENALTY * (len(dropped) + sum(1 for w in missing if not harmless(w)))
        scores = sums - penalty if misses is None else sums - penalty - DROP_PENALTY * misses
        all_words = len(kept) + len(dropped) + len(missing)
        return StreetMatch(
            streets=idx.astype(np.int64, copy=False) + self.ds.street_lo, scores=scores, hits=kept,
            dropped=dropped + missing, fuzzy=fuzzy or any(h.fuzzy for h in kept),
            max_score=LEVEL_EXACT_STREET * all_words,
        )


_Reached = tuple[npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.int32] | None]


def _reached(cand: npt.NDArray[np.int64], levels: list[I8], need: int, may_miss: int) -> _Reached | None:
    """A sparse stage's streets: those of `cand` that `need` of the words reach (`levels` on `cand`), their level
    sums and (when words may miss) the words each misses; None when no street is left."""
    count = (levels[0] > 0).astype(np.int32)
    for lv in levels[1:]:
        count += lv > 0
    ok = count >= need
    idx = cand[ok]
    if len(idx) == 0:
        return None
    sums = levels[0][ok].astype(np.int32)
    for lv in levels[1:]:
        sums += lv[ok]
    return idx, sums, len(levels) - count[ok] if may_miss else None


def _few_streets(cand: npt.NDArray[np.int64], levels: list[I8], need: int, may_miss: int) -> _Reached | None:
    """`_reached` on a few candidates, read in Python (a whole address's stage ends on one or two streets, where
    each numpy call costs more than the sums): the same arrays, values and types."""
    by_street = list(zip(*(lv.tolist() for lv in levels), strict=True))
    reached = [sum(1 for x in col if x > 0) for col in by_street]
    keep = [j for j, n in enumerate(reached) if n >= need]
    if not keep:
        return None
    sums = np.array([sum(by_street[j]) for j in keep], dtype=np.int32)
    misses = np.array([len(levels) - reached[j] for j in keep], dtype=np.int32) if may_miss else None
    return cand[keep], sums, misses


_IdsKey = tuple[tuple[int, ...], int, int, tuple[int, ...]]
_Seeded = tuple[list[tuple[npt.NDArray[np.int64], I8]], npt.NDArray[np.int64]]  # seeds' (streets, levels), candidates


def _union_sorted(parts: list[npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
    """The distinct values of sorted arrays, ascending (`np.unique` of their concatenation), merged."""
    return distinct(np.concatenate(parts))


def _among_sorted(cand: npt.NDArray[np.int64], on: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The ids of sorted `cand` that are in sorted `on` (both distinct), the smaller one looked up in the other."""
    if len(cand) == 0 or len(on) == 0:
        return cand[:0]
    small, big = (cand, on) if len(cand) <= len(on) else (on, cand)
    pos = np.minimum(big.searchsorted(small), len(big) - 1)
    out: npt.NDArray[np.int64] = small[big[pos] == small]
    return out


def _prefix_bytes(got: tuple[list[str], list[int]], n: int) -> int:
    """What one `Matcher._truncated` entry of length `n` holds, roughly: two list slots and an int object (~50
    bytes) a prefix, and a str object (49 bytes and its letters) a prefix shorter than its word (a whole word is
    the vocabulary's own string)."""
    pref, _ = got
    return 50 * len(pref) + (49 + n) * sum(1 for p in pref if len(p) == n)


def _ids_key(ids: WordIds) -> _IdsKey:
    return tuple(ids.exact), ids.plo, ids.phi, tuple(ids.fuzzy)


def _kept(cache: dict[_K, _V], key: _K, value: _V, most: int) -> _V:
    """`value` stored under `key` (the oldest entry dropped when full), its arrays made read-only."""
    while len(cache) >= most:
        cache.pop(next(iter(cache)), None)
    for arr in _arrays(value):
        arr.flags.writeable = False
    cache[key] = value
    return value


def _arrays(value: object) -> Iterator[npt.NDArray[np.generic]]:
    if isinstance(value, np.ndarray):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _arrays(v)


def harmless(w: Word) -> bool:
    """A word whose absence from the index should not count against a match: a unit designator being typed,
    or the country name."""
    if not w.complete and unit_designator_prefix(w.text):
        return True
    return w.text in _COUNTRY_WORDS


_COUNTRY_WORDS: Final = frozenset({"US", "USA", "UNITED", "STATES", "AMERICA", "CANADA", "UK", "GB", "KINGDOM",
                                   "GREAT", "BRITAIN", "ENGLAND", "SCOTLAND", "WALES"})
