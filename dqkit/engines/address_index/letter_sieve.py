"""A cheap necessary test before an edit-distance scan: the letters a word holds.

Typo matching compares a word with thousands of words (a national vocabulary has ~4,000 words of one first letter
and near length; a made-up street name is compared with two such sets, ~0.3 ms), and the standardizer looks a
street name up among every street name of each ZIP of the city (decoding and keying ~90 names a ZIP the first
time, ~0.25 ms). Each edit brings in at most one letter and takes out at most one (an insertion brings, a deletion
takes, a substitution both, a transposition neither: Damerau-Levenshtein's and OSA's alike), so a word within k
edits of another holds at most k letters the other lacks, lacks at most k it holds, and differs in length by at
most k. Letters are folded into 32 bits (the byte & 31: A-Z apart, digits share bits with letters), which only
lets more words through. A few numpy calls keep the words worth the exact distance; those are then scanned as
before, in their order, so the answer is the scan's. Words that are not ASCII always pass (their letters are not
folded).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from dqkit.engines.address_index.strings import StringTable

U32 = npt.NDArray[np.uint32]
U16 = npt.NDArray[np.uint16]
_SEPARATORS = (32, 45)  # space and hyphen: a street name's key drops them (usaddr.match.name_key)


def letter_mask(s: str) -> int:
    """The folded letters of `s` as a 32-bit mask; -1 when `s` is not ASCII."""
    m = 0
    for ch in s:
        o = ord(ch)
        if o >= 128:
            return -1
        m |= 1 << (o & 31)
    return m


def _masks(words: Sequence[str], drop_separators: bool) -> tuple[U32, npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """(masks, not ASCII, letters counted) of each word, in one pass of numpy over the joined bytes."""
    n = len(words)
    data = "".join(words).encode()
    if len(data) == sum(map(len, words)):
        lens = np.fromiter(map(len, words), dtype=np.int64, count=n)
    else:
        lens = np.fromiter((len(w.encode()) for w in words), dtype=np.int64, count=n)
    return masks_of_bytes(np.frombuffer(data, dtype=np.uint8), lens, drop_separators)


def masks_of_bytes(b: npt.NDArray[np.uint8], lens: npt.NDArray[np.int64],
                   drop_separators: bool = False) -> tuple[U32, npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """(masks, not ASCII, letters counted) of the strings laid end to end in `b` with byte lengths `lens`;
    `drop_separators`: spaces and hyphens neither set a bit nor count."""
    n = len(lens)
    masks = np.zeros(n, dtype=np.uint32)
    wide = np.zeros(n, dtype=bool)
    counted = np.zeros(n, dtype=np.int64)
    full = np.flatnonzero(lens > 0)
    if len(full) == 0:
        return masks, wide, counted
    starts = (np.cumsum(lens) - lens)[full]
    keep = np.ones(len(b), dtype=bool)
    if drop_separators:
        keep = (b != _SEPARATORS[0]) & (b != _SEPARATORS[1])
    bits = np.where(keep, np.left_shift(np.uint32(1), (b & 31).astype(np.uint32)), np.uint32(0)).astype(np.uint32)
    masks[full] = np.bitwise_or.reduceat(bits, starts)
    wide[full] = np.maximum.reduceat(b, starts) >= 128
    counted[full] = np.add.reduceat(keep.astype(np.int64), starts)
    return masks, wide, counted


@dataclass(frozen=True, slots=True)
class LetterSieve:
    """Words (consecutive ids from `first`) with their lengths and folded letters, to list those that may be within
    k edits of a word: near length and near letters. The letters are held shortest word first, so that only the
    words of near length are read (a slice), their ids then put back in order."""

    words: npt.NDArray[np.object_]  # in id order
    masks: U32  # shortest word first (then in id order)
    wide: npt.NDArray[np.bool_] | None  # not ASCII, in `masks` order: always kept (None: every word is ASCII)
    at: npt.NDArray[np.int64]  # each of `masks`' word's place in `words`
    cut: list[int]  # cut[n]: how many words are shorter than n characters, n = 0 .. the longest + 1
    first: int

    @classmethod
    def of(cls, words: Sequence[str], first: int) -> LetterSieve:
        masks, wide, nbytes = _masks(words, drop_separators=False)
        held = np.empty(len(words), dtype=object)
        held[:] = words
        lens = np.fromiter(map(len, words), dtype=np.int64, count=len(words)) if wide.any() else nbytes
        order = np.argsort(lens, kind="stable")
        cut = np.searchsorted(lens[order], np.arange(int(lens.max(initial=0)) + 2)).tolist()
        return cls(held, masks[order], wide[order] if wide.any() else None, order.astype(np.int64), cut, first)

    def near(self, word: str, k: int) -> tuple[list[str], list[int]] | None:
        """The words, and their ids, in id order, at most `k` characters longer or shorter than `word` whose letters
        allow `k` edits: every word within `k` edits of it, and a few more. None: `word` is not ASCII."""
        q = letter_mask(word)
        if q < 0:
            return None
        n, cut = len(word), self.cut
        lo, hi = cut[min(max(n - k, 0), len(cut) - 1)], cut[min(n + k + 1, len(cut) - 1)]
        m = self.masks[lo:hi]
        near = (np.bitwise_count(m & np.uint32(~q & 0xFFFFFFFF)) <= k) & (np.bitwise_count(~m & np.uint32(q)) <= k)
        if self.wide is not None:
            near |= self.wide[lo:hi]
        at = np.sort(self.at[lo:hi][near])
        return self.words[at].tolist(), (at + self.first).tolist()


_AMPERSAND_BIT: Final = 1 << (ord("&") & 31)
NAME_ANY: Final = 0xFFFF  # a name's size in `name_letters` when it is always kept (not ASCII, or that long)


def name_letters(table: StringTable, ids: npt.NDArray[np.int64]) -> tuple[U32, U16]:
    """(lacks, size) of the names `ids`, as `NameSieve` reads them from their bytes: the letters each lacks, and
    its length less spaces and hyphens (`NAME_ANY` for a name always kept): the index's derived sections
    `name_lacks` / `name_size` (`derived.py`), one per street."""
    masks, wide, letters = masks_of_bytes(*table.joined(ids), drop_separators=True)
    size = np.where(wide | (letters >= NAME_ANY), NAME_ANY, letters).astype(np.uint16)
    return ~(masks | np.uint32(_AMPERSAND_BIT)), size


@dataclass(frozen=True, slots=True)
class NameSieve:
    """The street names of one ZIP (string ids, ascending) as the standardizer keys them (`usaddr.match.name_key`:
    spaces and hyphens dropped, SAINT -> ST, AND -> &, ...), to hand it only the names that may be within `limit`
    edits of a key. Built from the names' bytes without decoding them. A key's letters are the name's, less spaces
    and hyphens, some of them dropped by the word equivalences, plus & (AND): so a key within `limit` edits of a
    name's key holds at most `limit` letters the name (with &) lacks, and the name holds at least the key's length
    less `limit` letters."""

    ids: npt.NDArray[np.int64]
    lacks: U32  # the letters the name lacks (its letters: spaces and hyphens apart, and &)
    letters: npt.NDArray[np.int64]  # the name's length less its spaces and hyphens: its key is no longer
    wide: npt.NDArray[np.bool_]  # not ASCII: always kept

    @classmethod
    def of(cls, table: StringTable, ids: npt.NDArray[np.int64]) -> NameSieve:
        return sieves_of(table, [ids])[0]

    def __len__(self) -> int:
        return len(self.ids)


def sieves_of(table: StringTable, groups: list[npt.NDArray[np.int64]]) -> list[NameSieve]:
    """The sieves of several ZIPs' names (`groups`: each ZIP's string ids), read in one pass over their bytes."""
    ids = np.concatenate(groups) if len(groups) > 1 else groups[0]
    masks, wide, letters = masks_of_bytes(*table.joined(ids), drop_separators=True)
    lacks = ~(masks | np.uint32(_AMPERSAND_BIT))
    out = []
    at = 0
    for g in groups:
        b = at + len(g)
        out.append(NameSieve(ids[at:b], lacks[at:b], letters[at:b], wide[at:b]))
        at = b
    return out


class ZipLetters:
    """The derived sections' letters (`name_letters` of each street: `lacks`, `size`, indexed like `s_name`) of the
    streets of some ZIPs (street ranges [lo, hi) of `spans`), laid end to end once: `near` gives what `near_names`
    gives from the ZIPs' `NameSieve`s (the same test on the same letters, read on the streets' slices instead of
    the names' bytes), for as many keys and limits as asked (a validation asks limit 0, then its typo limit)."""

    __slots__ = ("_lacks", "_names", "_s_name", "_size", "_spans")

    def __init__(self, s_name: npt.NDArray[np.int32], lacks: U32, size: U16, spans: list[tuple[int, int]]) -> None:
        self._s_name, self._spans = s_name, spans
        one = len(spans) == 1
        self._lacks = lacks[spans[0][0]:spans[0][1]] if one else np.concatenate([lacks[lo:hi] for lo, hi in spans])
        self._size = size[spans[0][0]:spans[0][1]] if one else np.concatenate([size[lo:hi] for lo, hi in spans])

    def near(self, key: str, limit: int) -> list[npt.NDArray[np.int64]]:
        """For each span, the distinct name ids, ascending, of its streets whose name may have a key within `limit`
        edits of `key`; every name when `key` is not ASCII."""
        spans, s_name = self._spans, self._s_name
        q = letter_mask(key)
        if q < 0:
            return [distinct(s_name[lo:hi]) for lo, hi in spans]
        sz = self._size
        need = min(max(len(key) - limit, 0), NAME_ANY)
        at = np.flatnonzero(((np.bitwise_count(self._lacks & np.uint32(q)) <= limit) & (sz >= need)) | (sz == NAME_ANY))
        out = [np.zeros(0, np.int64)] * len(spans)
        if len(at) == 0:
            return out
        lens = np.array([hi - lo for lo, hi in spans], dtype=np.int64)
        ends = np.cumsum(lens)
        shift = np.array([lo for lo, _ in spans], dtype=np.int64) - (ends - lens)  # laid end to end -> street
        which = np.searchsorted(ends, at, side="right")
        names = s_name[at + shift[which]]
        cut = [0, *(np.flatnonzero(which[1:] != which[:-1]) + 1).tolist(), len(at)]
        for a, b in itertools.pairwise(cut):
            out[int(which[a])] = distinct(names[a:b])
        return out


def distinct(ids: npt.NDArray[np.int32] | npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The distinct values of `ids`, ascending, as int64: `np.unique` without its overhead, and a merge when `ids`
    is a few sorted runs laid end to end (a stable sort of sorted runs is numpy's timsort: ~20x cheaper than
    `np.unique`'s hashing at 30k values, 2.6 ms)."""
    a = np.sort(ids.astype(np.int64), kind="stable")
    return a[np.concatenate(([True], a[1:] != a[:-1]))] if len(a) > 1 else a


def near_names(table: StringTable, sieves: list[NameSieve], key: str, limit: int) -> list[tuple[str, ...]]:
    """For each ZIP's sieve, its names (in id order) whose key may be within `limit` edits of `key` (0: the same
    key): every one that is, and a few more; all of them when `key` is not ASCII."""
    q = letter_mask(key)
    if q < 0:
        return [tuple(table.many(s.ids.tolist())) for s in sieves]
    one = len(sieves) == 1
    lacks = sieves[0].lacks if one else np.concatenate([s.lacks for s in sieves])
    letters = sieves[0].letters if one else np.concatenate([s.letters for s in sieves])
    wide = sieves[0].wide if one else np.concatenate([s.wide for s in sieves])
    ids = sieves[0].ids if one else np.concatenate([s.ids for s in sieves])
    at = np.flatnonzero(((np.bitwise_count(lacks & np.uint32(q)) <= limit) & (letters >= len(key) - limit)) | wide)
    names = table.many(ids[at].tolist())
    if one:
        return [tuple(names)]
    bounds = np.cumsum([0, *(len(s) for s in sieves)])
    cut = np.searchsorted(at, bounds).tolist()
    return [tuple(names[cut[j]:cut[j + 1]]) for j in range(len(sieves))]
