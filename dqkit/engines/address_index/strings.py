"""Tables of strings stored as one UTF-8 blob plus offsets, read straight from the memory map.

Strings of a pool are sorted at build time, so an id is also a rank: ids compare like the strings, `bisect` finds
a string (or a prefix range) in about twenty probes, and sorting rows by id sorts them by text.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import Any, overload

import numpy as np
import numpy.typing as npt


def pack_strings(strings: Iterable[str]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[Any]]:
    """(blob, offsets) of `strings` in the given order; offsets has len(strings)+1 entries."""
    encoded = [s.encode() for s in strings]
    lengths = np.fromiter((len(b) for b in encoded), dtype=np.int64, count=len(encoded))
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    dtype = np.uint32 if offsets[-1] < 2**32 else np.uint64
    blob = np.frombuffer(b"".join(encoded), dtype=np.uint8) if encoded else np.zeros(0, np.uint8)
    return blob, offsets.astype(dtype)


_STRIDE = 256  # find(): one string in this many sampled (`StringTable._block`)


def _heads(blob: npt.NDArray[np.uint8], starts: npt.NDArray[np.int64],
           ends: npt.NDArray[np.int64]) -> npt.NDArray[np.uint64]:
    """The first 8 bytes of the strings [starts, ends) of `blob`, zero-padded, as big-endian integers."""
    out = np.zeros(len(starts), dtype=np.uint64)
    for j in range(8):
        at = starts + j
        has = at < ends
        byte = np.zeros(len(starts), dtype=np.uint64)
        byte[has] = blob[at[has]]
        out |= byte << np.uint64(8 * (7 - j))
    return out


class StringTable(Sequence[str]):
    """Read-only sequence of strings over (blob, offsets) arrays, with a small decode cache."""

    __slots__ = ("_blob", "_bmv", "_cache", "_found", "_heads", "_n", "_off", "_omv")

    def __init__(self, blob: npt.NDArray[np.uint8], offsets: npt.NDArray[Any]) -> None:
        self._blob = blob
        self._off = offsets
        self._n = max(len(offsets) - 1, 0)
        self._cache: dict[int, str] = {}
        self._found: dict[str, int] = {}  # find() answers, for the postcodes and names asked again and again
        self._heads: list[int] | None = None  # see _block
        # plain memoryviews: indexing one gives a Python int, slicing one bytes, at a fraction of numpy's cost
        self._bmv = np.ascontiguousarray(blob).data.cast("B")
        self._omv = np.ascontiguousarray(offsets).data

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> list[str]: ...

    def __getitem__(self, i: int | slice) -> str | list[str]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        s = self._cache.get(i)
        if s is None:
            if i < 0:
                i += self._n
            if not 0 <= i < self._n:
                raise IndexError(i)
            s = str(self._bmv[self._omv[i]:self._omv[i + 1]], "utf-8")
            if len(self._cache) < 200_000:
                self._cache[i] = s
        return s

    def all(self) -> list[str]:
        """Every string, decoded in one pass (for the fuzzy matcher's vocabulary)."""
        text = self._blob.tobytes().decode()
        if text.isascii():
            off = self._off.tolist()
            return [text[off[k]:off[k + 1]] for k in range(self._n)]
        return [self[k] for k in range(self._n)]

    def many(self, ids: list[int]) -> list[str]:
        """The strings of several ids (decode-cached)."""
        get = self._cache.get
        return [s if (s := get(i)) is not None else self[i] for i in ids]

    def range(self, lo: int, hi: int) -> list[str]:
        """Strings lo..hi-1, decoded with one call (uncached: for tables read in runs, like point ids)."""
        if hi <= lo:
            return []
        off = self._off[lo:hi + 1].tolist()
        base = off[0]
        raw = self._blob[base:off[-1]].tobytes()
        if raw.isascii():
            text = raw.decode()
            return [text[off[k] - base:off[k + 1] - base] for k in range(hi - lo)]
        return [raw[off[k] - base:off[k + 1] - base].decode() for k in range(hi - lo)]

    def joined(self, ids: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
        """The UTF-8 bytes of strings `ids` laid end to end, and each one's length in bytes (not decoded)."""
        starts = self._off[ids].astype(np.int64)
        lens = self._off[ids + 1].astype(np.int64) - starts
        total = int(lens.sum())
        if total == 0:
            return np.zeros(0, dtype=np.uint8), lens
        at = np.repeat(starts - (np.cumsum(lens) - lens), lens) + np.arange(total, dtype=np.int64)
        return np.asarray(self._blob[at], dtype=np.uint8), lens

    def find(self, s: str) -> int:
        """Id of `s` in a sorted table, or -1: a binary search over the UTF-8 bytes (whose order is the strings'),
        answers remembered (a search reads ~20 strings)."""
        k = self._found.get(s)
        if k is not None:
            return k
        key = s.encode()
        blob, off = self._bmv, self._omv
        lo, hi = self._block(key)
        while lo < hi:
            mid = (lo + hi) // 2
            if blob[off[mid]:off[mid + 1]].tobytes() < key:
                lo = mid + 1
            else:
                hi = mid
        k = lo if lo < self._n and blob[off[lo]:off[lo + 1]].tobytes() == key else -1
        if len(self._found) < 200_000:
            self._found[s] = k
        return k

    def _block(self, key: bytes) -> tuple[int, int]:
        """[lo, hi) of the ids among which `key` would sort, from every `_STRIDE`th string's first 8 bytes (read
        once, when the table is first searched): a search then reads ~7 strings, not ~20. A string's first 8
        bytes, zero-padded, as a big-endian integer never decrease as the strings increase, so a sample whose
        integer is below the key's sorts before the key, one above it after."""
        if self._n <= _STRIDE:
            return 0, self._n
        heads = self._heads
        if heads is None:
            heads = self._heads = _heads(self._blob, self._off[:self._n:_STRIDE].astype(np.int64),
                                         self._off[1:self._n + 1:_STRIDE].astype(np.int64)).tolist()
        k = int.from_bytes(key[:8].ljust(8, b"\0"), "big")
        below = bisect.bisect_left(heads, k)  # a list of ints: bisect beats numpy's call on one value
        upto = bisect.bisect_right(heads, k, below)
        return max(below - 1, 0) * _STRIDE, min(upto * _STRIDE, self._n)

    def prefix_range(self, prefix: str) -> tuple[int, int]:
        """[lo, hi) of the ids whose string starts with `prefix`, in a sorted table."""
        lo = bisect.bisect_left(self, prefix)
        hi = bisect.bisect_left(self, prefix + "\U0010ffff", lo)
        return lo, hi
