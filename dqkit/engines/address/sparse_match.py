"""Word levels on a few candidate streets instead of one byte per street of the dataset (issue 33).

At national size (2.6M streets) a per-street level array costs ~1 ms a word to clear, mark and scan, whatever
the query; a keystroke of four words paid that three times over (once per unit reading). A street can only be an
answer when enough words reach it: in the strict AND the most selective word must, and when r words may miss,
one of any r + 1 words must (a street missing r + 1 of them misses too many). So the candidates are the union of
the postings of the r + 1 most selective words, and every word's level is read on those streets only, through the
forward index (street -> tokens). The levels are the ones `Matcher.match_word` marks (the best of exact, prefix
and typo, street field above locality), so the answers are those of the dense path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from dqkit.engines.address_index.build import FIELD_STREET
from dqkit.engines.address_index.store import ReferenceIndex, TokenIndex

I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]

FEW_STREETS: Final = 8  # forward levels of exact words on up to this many streets ...
_FEW_ENTRIES: Final = 128  # ... holding up to this many forward entries: read in Python (see `_few_levels`)
# the levels of matching.py, repeated here to keep this module free of it (matching imports this one)
_EXACT = (6, 5)  # (street field, locality field)
_PREFIX = (4, 3)
_FUZZY = (2, 1)


@dataclass(slots=True)
class WordIds:
    """The vocabulary one word reaches at one stage of matching: exact ids, a prefix id range, typo ids."""

    exact: list[int]
    plo: int
    phi: int
    fuzzy: list[int]

    @property
    def any(self) -> bool:
        return bool(self.exact) or self.phi > self.plo or bool(self.fuzzy)


def posting_size(tk: TokenIndex, ids: WordIds) -> int:
    """How many postings (street and locality fields) the word's ids hold: the cost of gathering them."""
    ps, pl = tk.ps_ptr, tk.pl_ptr
    n = int(ps[ids.phi] - ps[ids.plo] + pl[ids.phi] - pl[ids.plo]) if ids.phi > ids.plo else 0
    for lst in (ids.exact, ids.fuzzy):
        if len(lst) <= 8:  # a word's few forms: plain integers (`item`) beat numpy's scalars and calls
            n += sum(ps.item(i + 1) - ps.item(i) + pl.item(i + 1) - pl.item(i) for i in lst)
        else:
            a = np.asarray(lst, dtype=np.int64)
            n += int((ps[a + 1] - ps[a]).sum() + (pl[a + 1] - pl[a]).sum())
    return n


def posting_levels(tk: TokenIndex, ids: WordIds, street_lo: int) -> tuple[I64, I8]:
    """The streets (sorted local ids) the word reaches, straight from its posting lists, with its best level on
    each: what `match_word` marks in a full array, without the array."""
    if not ids.fuzzy and ids.phi <= ids.plo and len(ids.exact) == 1:
        one = _one_field(tk, ids.exact[0], street_lo)
        if one is not None:
            return one
    return _merged_levels(tk, ids, street_lo)


def _merged_levels(tk: TokenIndex, ids: WordIds, street_lo: int) -> tuple[I64, I8]:
    """`posting_levels` from every posting list the word's ids reach, merged: the best level per street."""
    parts: list[npt.NDArray[np.int32]] = []
    levels: list[int] = []
    if ids.fuzzy:
        parts += [_gather(tk.pl, tk.pl_ptr, ids.fuzzy), _gather(tk.ps, tk.ps_ptr, ids.fuzzy)]
        levels += [_FUZZY[1], _FUZZY[0]]
    if ids.phi > ids.plo:
        parts += [tk.pl[tk.pl_ptr[ids.plo]:tk.pl_ptr[ids.phi]], tk.ps[tk.ps_ptr[ids.plo]:tk.ps_ptr[ids.phi]]]
        levels += [_PREFIX[1], _PREFIX[0]]
    if ids.exact:
        parts += [_gather(tk.pl, tk.pl_ptr, ids.exact), _gather(tk.ps, tk.ps_ptr, ids.exact)]
        levels += [_EXACT[1], _EXACT[0]]
    if not parts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int8)
    streets = np.concatenate(parts).astype(np.int64)
    lv = np.repeat(np.array(levels, dtype=np.int64), [len(x) for x in parts])
    key = streets * 8 + (7 - lv)  # sorted: by street, then best level first
    key.sort()
    first = np.ones(len(key), dtype=bool)
    first[1:] = (key[1:] >> 3) != (key[:-1] >> 3)
    key = key[first]
    return (key >> 3) - street_lo, (7 - (key & 7)).astype(np.int8)


def _one_field(tk: TokenIndex, i: int, street_lo: int) -> tuple[I64, I8] | None:
    """`posting_levels` of one exact token held in one field only (a ZIP, most street names): its posting list is
    the answer as it is (sorted and without repeats: `words.word_arrays` writes it so), the one field's level on
    each. None when the token is in both fields (the general path picks the better level per street)."""
    s_lo, s_hi = tk.ps_ptr.item(i), tk.ps_ptr.item(i + 1)
    l_lo, l_hi = tk.pl_ptr.item(i), tk.pl_ptr.item(i + 1)
    if s_hi > s_lo and l_hi > l_lo:
        return None
    post, lo, hi, level = (tk.ps, s_lo, s_hi, _EXACT[0]) if s_hi > s_lo else (tk.pl, l_lo, l_hi, _EXACT[1])
    return post[lo:hi].astype(np.int64) - street_lo, np.full(hi - lo, level, dtype=np.int8)


def levels_at(tk: TokenIndex, ids: WordIds, cand: I64, street_lo: int) -> I8:
    """The word's levels on the sorted local streets `cand` (0 where it misses): `levels_on` of its
    `posting_levels`, for a word of exact tokens only read by looking the candidates up in each token's posting
    lists as they are (sorted: `words.word_arrays`), the locality's level first and the street's over it (the best
    level a street has, as `posting_levels` keeps it)."""
    if ids.fuzzy or ids.phi > ids.plo or not ids.exact:
        return levels_on(*posting_levels(tk, ids, street_lo), cand)
    at = cand + street_lo
    out = np.zeros(len(cand), dtype=np.int8)
    for post, ptr, level in ((tk.pl, tk.pl_ptr, _EXACT[1]), (tk.ps, tk.ps_ptr, _EXACT[0])):
        for i in ids.exact:
            lo, hi = ptr.item(i), ptr.item(i + 1)
            if hi > lo:
                got = post[lo:hi]
                out[got[np.minimum(got.searchsorted(at), hi - lo - 1)] == at] = level
    return out


def levels_on(streets: I64, levels: I8, cand: I64) -> I8:
    """A word's levels (on its sorted `streets`) read on the sorted candidates `cand`: 0 where it misses."""
    if streets is cand or len(streets) == 0:
        return levels if streets is cand else np.zeros(len(cand), dtype=np.int8)
    pos = np.minimum(streets.searchsorted(cand), len(streets) - 1)
    return np.where(streets[pos] == cand, levels[pos], 0).astype(np.int8)


def _gather(post: npt.NDArray[np.int32], ptr: I64, ids: list[int]) -> npt.NDArray[np.int32]:
    """The postings of token `ids`, one after the other."""
    if len(ids) == 1:
        return post[ptr[ids[0]]:ptr[ids[0] + 1]]
    if len(ids) <= 8:
        return np.concatenate([post[ptr[i]:ptr[i + 1]] for i in ids])
    a = np.asarray(ids, dtype=np.int64)
    start = ptr[a]
    lens = ptr[a + 1] - start
    total = int(lens.sum())
    if total == 0:
        return post[:0]
    return post[np.repeat(start - (np.cumsum(lens) - lens), lens) + np.arange(total)]


def _few_levels(ix: ReferenceIndex, bounds: list[tuple[int, int]], words: list[WordIds]) -> list[I8]:
    """`forward_levels` on a few streets (their forward entries `bounds`) of words that reach exact tokens only:
    the entries read one by one (a whole address typed leaves one or two candidate streets of ~10 entries, where
    numpy's per-call cost is most of the work), the best level per street as the array path gives it."""
    exact = [frozenset(ids.exact) for ids in words]
    out = [[0] * len(bounds) for _ in words]
    for j, (a, b) in enumerate(bounds):
        for t, f in zip(ix.fw_tok[a:b].tolist(), ix.fw_field[a:b].tolist(), strict=True):
            for k, ex in enumerate(exact):
                if t in ex:
                    lv = _EXACT[0] if f == FIELD_STREET else _EXACT[1]
                    if lv > out[k][j]:
                        out[k][j] = lv
    return [np.array(row, dtype=np.int8) for row in out]


def _among(ent: npt.NDArray[np.int32], ids: list[int]) -> npt.NDArray[np.bool_]:
    """Which entries are one of token `ids`: a few tokens (a word's forms, a typo's few matches) one comparison
    each, which beats np.isin's sort."""
    if len(ids) > 4:
        return np.isin(ent, np.asarray(ids, dtype=ent.dtype))
    sel: npt.NDArray[np.bool_] = ent == ids[0]
    for other in ids[1:]:
        sel |= ent == other
    return sel


Entries = tuple[npt.NDArray[np.int32], npt.NDArray[np.bool_], I64]


def forward_entries(ix: ReferenceIndex, streets: I64) -> Entries | None:
    """The forward index entries of `streets` (global ids), one street after the other: their tokens, whether each
    is in the street field, and where each street's entries start. None when a street has no forward entry (then
    `np.maximum.reduceat` would not give its level; the caller takes the dense path). Reading them is most of
    `forward_levels`' cost (one memory access a street), so callers asking again for the same streets keep them.
    Consecutive streets (a ZIP's: most candidate sets of a validation) are one slice of the forward index."""
    if len(streets) and int(streets[-1]) - int(streets[0]) == len(streets) - 1 and \
            bool((np.diff(streets) == 1).all()):  # consecutive, in order
        s0 = int(streets[0])
        ptr = ix.fw_ptr[s0:s0 + len(streets) + 1]
        lo, hi = int(ptr[0]), int(ptr[-1])
        if not np.diff(ptr).all():
            return None
        return ix.fw_tok[lo:hi], ix.fw_field[lo:hi] == FIELD_STREET, ptr[:-1] - lo
    fa, fb = ix.fw_ptr[streets], ix.fw_ptr[streets + 1]
    lens = fb - fa
    if len(lens) == 0 or not lens.all():
        return None
    starts = np.cumsum(lens) - lens
    at = np.repeat(fa - starts, lens) + np.arange(int(lens.sum()))
    return ix.fw_tok[at], ix.fw_field[at] == FIELD_STREET, starts


def entry_levels(entries: Entries, words: list[WordIds]) -> list[I8]:
    """Each word's level on each street of `entries` (see `forward_entries`). A token's level is its kind's
    locality level plus one in the street field (6 / 5, 4 / 3, 2 / 1), and of an entry's kinds the best wins, as
    `match_word` marks them (exact over prefix over typo): so a word's levels are the largest of (entry is of the
    kind) x (kind's base + in street), kind by kind (a product and a maximum, not a gather and a scatter)."""
    ent, in_street, starts = entries
    street_bit = in_street.view(np.int8)
    bases: dict[int, I8] = {}  # a kind's locality level + in street, per entry (shared by the words)
    out: list[I8] = []
    for ids in words:
        lvl: I8 | None = None
        for base, sel in ((_FUZZY[1], _among(ent, ids.fuzzy) if ids.fuzzy else None),
                          (_PREFIX[1], (ent >= ids.plo) & (ent < ids.phi) if ids.phi > ids.plo else None),
                          (_EXACT[1], _among(ent, ids.exact) if ids.exact else None)):
            if sel is None:
                continue
            b = bases.get(base)
            if b is None:
                b = bases[base] = street_bit + np.int8(base)
            got = sel.view(np.int8) * b
            lvl = got if lvl is None else np.maximum(lvl, got)
        out.append(np.maximum.reduceat(np.zeros(len(ent), dtype=np.int8) if lvl is None else lvl, starts))
    return out


def forward_levels(ix: ReferenceIndex, streets: I64, words: list[WordIds]) -> list[I8] | None:
    """Each word's level on each of `streets` (global ids), read from the forward index. None when a street has
    no forward entry (see `forward_entries`)."""
    if len(streets) <= FEW_STREETS and not any(ids.fuzzy or ids.phi > ids.plo for ids in words):
        ptr = ix.fw_ptr
        bounds = [(ptr.item(s), ptr.item(s + 1)) for s in streets.tolist()]
        if not bounds or any(a == b for a, b in bounds):
            return None
        if sum(b - a for a, b in bounds) <= _FEW_ENTRIES:
            return _few_levels(ix, bounds, words)
    entries = forward_entries(ix, streets)
    return None if entries is None else entry_levels(entries, words)
