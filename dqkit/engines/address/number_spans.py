"""Where one house number sits on many candidate streets at once, without one binary search per street in the
800 MB key array (~27 random probes a street at 100M points).

`num_order` lists, per dataset, the addresses by house number and, within one number, by address id (the build
sorts stably), and addresses are sorted by street. So the addresses carrying number `n` ("held") are a short
ascending slice, and those of one street are a contiguous run of it, found by searching the street's own address
range [s_lo, s_hi) in that slice. With more candidate streets than held addresses it is cheaper to read each held
address's street and keep the candidates. Either way the addresses are every address of the candidate streets
whose leading integer is `n`, as the (street, number) key ranges give them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]


def key_ranges(a_key: I64, s_lo: I64, s_hi: I64, streets: I64, ni: int) -> tuple[I64, I64]:
    """(first address, count) of the (street, number) key `street << 24 | ni` of each of `streets` in the sorted
    key array: searched between the lowest first address and the highest end of the streets, not in the whole
    array. Keys sort by street, and street s's are exactly [s_lo[s], s_hi[s]), so every key before that window
    is below each street's key and every key after it above: the positions are those of the whole array, and
    the ~27 probes of a search there (each a page of an 800 MB array first read by this process) become a few
    in the window (a ZIP's streets are numbered together). `ni` must be in [0, 1 << 24)."""
    keys = (streets << 24) | ni
    if len(streets) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lo = int(s_lo[streets].min())
    seg = a_key[lo:int(s_hi[streets].max())]
    starts = seg.searchsorted(keys, "left")
    lens = seg.searchsorted(keys, "right") - starts
    return starts + lo, lens


def spans_in_held(held: I64, s_lo: I64, s_hi: I64, streets: I64) -> tuple[I64, I64]:
    """The addresses of `held` on each of `streets`, street by street in the order given (each street's
    addresses in id order), and for each the position of its street in `streets`."""
    a = held.searchsorted(s_lo[streets])
    lens = held.searchsorted(s_hi[streets]) - a
    total = int(lens.sum())
    which = np.repeat(np.arange(len(streets), dtype=np.int64), lens)
    return held[np.repeat(a - (np.cumsum(lens) - lens), lens) + np.arange(total)], which


def held_on_streets(held: I64, s_lo: I64, s_hi: I64, a_street: I32, streets: I64,
                    held_street: I32 | None = None) -> tuple[I64, I64]:
    """The addresses of `held` on any of `streets`, and the position of each one's street in `streets`: in the
    order of `spans_in_held` when the streets are few, else in address id order. `held_street`: the street of
    each of `held` when already read (else read from `a_street`)."""
    if len(streets) * 4 <= len(held) or len(held) == 0:
        return spans_in_held(held, s_lo, s_hi, streets)
    st = a_street[held].astype(np.int64) if held_street is None else held_street
    order = None if bool((streets[1:] > streets[:-1]).all()) else np.argsort(streets, kind="stable")
    srt = streets if order is None else streets[order]
    pos = np.minimum(srt.searchsorted(st), len(srt) - 1)
    keep = srt[pos] == st
    which = pos[keep] if order is None else order[pos[keep]]
    return held[keep], which.astype(np.int64)


def street_runs(posts: I32, most: int) -> tuple[I64, I64] | None:
    """The street ids of postings (each token's sorted, one token after another) as disjoint runs of consecutive
    ids, [first, last] each, in order: a locality's streets are numbered together, so its postings are a few
    runs and the addresses on them a few slices of any address-sorted list. None: over `most` runs."""
    p = posts.astype(np.int64)
    brk = np.flatnonzero(p[1:] - p[:-1] != 1) + 1
    if len(brk) >= most:
        return None
    first = p[np.concatenate(([0], brk))]
    last = p[np.concatenate((brk - 1, [len(p) - 1]))]
    if len(first) > 1 and not bool((first[1:] > last[:-1]).all()):  # runs of several tokens overlap: merge
        order = np.argsort(first, kind="stable")
        first, reach = first[order], np.maximum.accumulate(last[order])
        start = np.ones(len(first), dtype=bool)
        start[1:] = first[1:] > reach[:-1]
        ends = np.append(np.flatnonzero(start)[1:] - 1, len(first) - 1)
        first, last = first[start], reach[ends]
    return first, last
