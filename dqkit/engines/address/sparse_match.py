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

import numpy as np
import numpy.typing as npt

from dqkit.engines.address_index.build import FIELD_STREET
from dqkit.engines.address_index.store import ReferenceIndex, TokenIndex

I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]

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
        if len(lst) <= 8:  # a word's few forms: plain integers beat numpy's call overhead
            n += sum(int(ps[i + 1] - ps[i] + pl[i + 1] - pl[i]) for i in lst)
        else:
            a = np.asarray(lst, dtype=np.int64)
            n += int((ps[a + 1] - ps[a]).sum() + (pl[a + 1] - pl[a]).sum())
    return n


def posting_levels(tk: TokenIndex, ids: WordIds, street_lo: int) -> tuple[I64, I8]:
    """The streets (sorted local ids) the word reaches, straight from its posting lists, with its best level on
    each: what `match_word` marks in a full array, without the array."""
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


def _among(ent: npt.NDArray[np.int32], ids: list[int]) -> npt.NDArray[np.bool_]:
    """Which entries are one of token `ids`: a few tokens (a word's forms, a typo's few matches) one comparison
    each, which beats np.isin's sort."""
    if len(ids) > 4:
        return np.isin(ent, np.asarray(ids, dtype=ent.dtype))
    sel: npt.NDArray[np.bool_] = ent == ids[0]
    for other in ids[1:]:
        sel |= ent == other
    return sel


def forward_levels(ix: ReferenceIndex, streets: I64, words: list[WordIds]) -> list[I8] | None:
    """Each word's level on each of `streets` (global ids), read from the forward index. None when a street has
    no forward entry (then `np.maximum.reduceat` would not give its level; the caller takes the dense path).

    Consecutive streets (a ZIP's, the usual candidates) read one slice of the forward index. A token's level is
    its kind's locality level plus one in the street field (6 / 5, 4 / 3, 2 / 1), and of an entry's kinds the
    best wins, as `match_word` marks them (exact over prefix over typo): so a word's levels are the largest of
    (entry is of the kind) x (kind's base + in street), kind by kind."""
    if len(streets) and int(streets[-1]) - int(streets[0]) == len(streets) - 1 and \
            bool((np.diff(streets) == 1).all()):  # consecutive, in order
        s0 = int(streets[0])
        ptr = ix.fw_ptr[s0:s0 + len(streets) + 1]
        lo, hi = int(ptr[0]), int(ptr[-1])
        if not np.diff(ptr).all():
            return None
        starts = ptr[:-1] - lo
        ent = ix.fw_tok[lo:hi]
        in_street = ix.fw_field[lo:hi] == FIELD_STREET
    else:
        fa, fb = ix.fw_ptr[streets], ix.fw_ptr[streets + 1]
        lens = fb - fa
        if len(lens) == 0 or not lens.all():
            return None
        starts = np.cumsum(lens) - lens
        at = np.repeat(fa - starts, lens) + np.arange(int(lens.sum()))
        ent = ix.fw_tok[at]
        in_street = ix.fw_field[at] == FIELD_STREET
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
