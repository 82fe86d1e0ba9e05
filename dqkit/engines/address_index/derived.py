"""Derived sections: arrays of an index computed from its other arrays only (never from the input files).

The build writes them; `add_derived` adds the ones an index built before them lacks, copying it into a new file
(minutes at 100M points, against a rebuild from the input), so an installed index gains them without its input.
The reader works without them (the slower way each one replaces), so an older index answers identically; opening
never computes one (open stays a header read).

Sections (one entry of `SECTIONS` each, per dataset `d{ds}.`):

* `num_street` (int32, one per `num_order` entry): the street of each address in house-number order. A typed
  house number's addresses are one slice of `num_order`; their streets are then one slice of this column
  instead of one memory access an address (2-9 ms at the 100-400k addresses of a common number at 100M points).
* `by_prior` (int32, one per street of the dataset): the streets busiest first, the order the type-down walks
  (an argsort of every street, ~300 ms once per process at 2.6M streets).
* `letter_levels` (int8, one per street of the dataset for each of `LETTERS`, letter after letter): the level a
  one-letter word being typed ("1200 s", "10026 s d") has on each street, as the matcher marks it from the
  postings of every word starting with the letter (and of the letter itself). At 100M points a letter reaches
  most streets: marking them costs 2-9 ms a keystroke, reading the stored row nothing (+94 MB at 2.6M streets).
* `name_lacks` (uint32) and `name_size` (uint16), one per street of the dataset: the letters its name lacks and
  its length, as the standardizer's letter sieve reads them (`letter_sieve.NameSieve`; `NAME_ANY`: always kept).
  A ZIP's streets are one slice of each: a city's ~100 ZIPs are sieved from two slices each instead of decoding
  their names' bytes the first time the city is asked (~0.2 ms a made-up street first seen, 100M points).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from dqkit.engines.address_index.container import ArrayFile, Container, ContainerWriter
from dqkit.engines.address_index.letter_sieve import name_letters
from dqkit.engines.address_index.strings import StringTable
from dqkit.engines.address_index.words import (
    LEVEL_EXACT_LOCALITY,
    LEVEL_EXACT_STREET,
    LEVEL_PREFIX_LOCALITY,
    LEVEL_PREFIX_STREET,
)

PRIOR_CAP: Final = (1 << 20) - 1  # a street's prior (its addresses) is capped here: 20 bits of the ranking key
CHUNK: Final = 1 << 22  # entries computed (and copied) at a time: bounded memory whatever the index size
LETTERS: Final = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"  # the rows of `letter_levels`, in this order
_Get = Callable[[str], npt.NDArray[Any]]  # an array of the index by name (a memory map or an array in memory)
_Chunks = Iterator[npt.NDArray[Any]]


def num_street(get: _Get, ds: int) -> _Chunks:
    """`d{ds}.num_street`: `a.street[d{ds}.num_order]`, chunk by chunk."""
    street, order = get("a.street"), get(f"d{ds}.num_order")
    for c in range(0, len(order), CHUNK):
        yield np.asarray(street[order[c:c + CHUNK]], dtype=np.int32)


def by_prior(get: _Get, ds: int, streets: tuple[int, int]) -> _Chunks:
    """`d{ds}.by_prior`: the dataset's streets (local ids) busiest first (addresses, capped at PRIOR_CAP: the
    search's prior), the lower id first among equals; the type-down walk's order (an argsort of every street of
    the dataset, ~300 ms at 2.6M streets, otherwise once per process)."""
    lo, hi = streets
    pr = np.minimum(get("s.count")[lo:hi], PRIOR_CAP).astype(np.int64)
    yield np.argsort(-pr, kind="stable").astype(np.int32)


def letter_levels(get: _Get, ds: int, streets: tuple[int, int]) -> _Chunks:
    """`d{ds}.letter_levels`: for each of `LETTERS`, one row of the dataset's streets: the level of that letter
    typed as the start of a word (the words of the vocabulary starting with it: 4 in a street name, 3 in a
    locality; the letter itself as a word: 6 / 5), marked in that order (a better level over a worse one) as
    `Matcher` marks a word's postings."""
    lo, hi = streets
    vocab = StringTable(get(f"d{ds}.tok.blob"), get(f"d{ds}.tok.off"))
    ps, ps_ptr, pl, pl_ptr = (get(f"d{ds}.{n}") for n in ("ps", "ps_ptr", "pl", "pl_ptr"))
    for c in LETTERS:
        lv = np.zeros(hi - lo, dtype=np.int8)
        plo = bisect.bisect_left(vocab, c)
        phi = bisect.bisect_left(vocab, c + "\U0010ffff", plo)
        if phi > plo:
            lv[pl[pl_ptr[plo]:pl_ptr[phi]] - lo] = LEVEL_PREFIX_LOCALITY
            lv[ps[ps_ptr[plo]:ps_ptr[phi]] - lo] = LEVEL_PREFIX_STREET
            if vocab[plo] == c:
                lv[pl[pl_ptr[plo]:pl_ptr[plo + 1]] - lo] = LEVEL_EXACT_LOCALITY
                lv[ps[ps_ptr[plo]:ps_ptr[plo + 1]] - lo] = LEVEL_EXACT_STREET
        yield lv


def _name_letters(get: _Get, streets: tuple[int, int], part: int) -> _Chunks:
    """`name_lacks` (part 0) or `name_size` (part 1) of the dataset's streets, chunk by chunk: each chunk's
    distinct names read once from the string table's bytes (`letter_sieve.name_letters`)."""
    lo, hi = streets
    names, table = get("s.name"), StringTable(get("str.blob"), get("str.off"))
    for c in range(lo, hi, CHUNK):
        ids, inverse = np.unique(np.asarray(names[c:min(c + CHUNK, hi)], dtype=np.int64), return_inverse=True)
        yield name_letters(table, ids)[part][inverse]


# name (after `d{ds}.`) -> (dtype, its length: "streets", "letters" (a row of streets per letter) or the d{ds}
# array it follows, the chunks of its values)
SECTIONS: Final[dict[str, tuple[Any, str, Callable[[_Get, int, tuple[int, int]], _Chunks]]]] = {
    "num_street": (np.int32, "num_order", lambda get, ds, _: num_street(get, ds)),
    "by_prior": (np.int32, "streets", by_prior),
    "letter_levels": (np.int8, "letters", letter_levels),
    "name_lacks": (np.uint32, "streets", lambda get, _, streets: _name_letters(get, streets, 0)),
    "name_size": (np.uint16, "streets", lambda get, _, streets: _name_letters(get, streets, 1)),
}


def specs(ranges: list[tuple[int, int]], length: Callable[[str], int]) -> dict[str, tuple[Any, tuple[int, ...]]]:
    """Every derived section's (dtype, shape): `ranges`, each dataset's street range; `length(name)`, the length
    of an array of the index."""
    def size(ds: int, lo: int, hi: int, follows: str) -> int:
        if follows in ("streets", "letters"):
            return (hi - lo) * (len(LETTERS) if follows == "letters" else 1)
        return length(f"d{ds}.{follows}")

    return {f"d{ds}.{name}": (dtype, (size(ds, lo, hi, follows),))
            for ds, (lo, hi) in enumerate(ranges) for name, (dtype, follows, _) in SECTIONS.items()}


def sections(ranges: list[tuple[int, int]], get: _Get) -> Iterator[tuple[str, _Chunks]]:
    """(name, chunks of its values) of every derived section, in `specs` order."""
    for ds, span in enumerate(ranges):
        for name, (_, _, make) in SECTIONS.items():
            yield f"d{ds}.{name}", make(get, ds, span)


def computed(ranges: list[tuple[int, int]], get: _Get) -> dict[str, npt.NDArray[Any]]:
    """Every derived section whole, for a build that holds its arrays in memory."""
    dtypes = {name: dtype for name, (dtype, _, _) in SECTIONS.items()}
    return {name: np.concatenate([np.zeros(0, dtypes[name.split(".", 1)[1]]), *chunks])
            for name, chunks in sections(ranges, get)}


def street_ranges(meta: dict[str, Any]) -> list[tuple[int, int]]:
    """Each dataset's street range, from an index's metadata."""
    return [(int(d["street_lo"]), int(d["street_hi"])) for d in meta.get("datasets", [])]


def missing(path: str | Path) -> list[str]:
    """The derived sections the index at `path` lacks (an index built before them)."""
    return list(_lacking(Container(path)))


def _lacking(c: Container) -> dict[str, tuple[Any, tuple[int, ...]]]:
    """(dtype, shape) of each derived section the open index `c` lacks."""
    return {k: v for k, v in specs(street_ranges(c.meta), lambda name: len(c[name])).items() if k not in c.arrays}


def add_derived(src: str | Path, out: str | Path) -> list[str]:
    """Write to `out` the index `src` with every derived section it lacks added (its arrays and metadata, the
    build id included, otherwise as they are: the same answers, keys and references); returns the names added.
    `out` may be `src` (the new file replaces it when complete). Memory: a few chunks, whatever the index size."""
    c = Container(src)
    ranges = street_ranges(c.meta)
    add = _lacking(c)
    shapes: dict[str, tuple[Any, tuple[int, ...]]] = {k: (a.dtype, a.shape) for k, a in c.arrays.items()}
    with ContainerWriter(out, {**shapes, **add}, c.meta) as w, ArrayFile(src) as af:
        for name in c.arrays:  # read with pread: the pages passed do not stay in this process's resident set
            for i in range(0, af.length(name), CHUNK * 4):
                w.put(name, af.read(name, i, i + CHUNK * 4))
        for name, chunks in sections(ranges, c.__getitem__):
            if name in add:
                for part in chunks:
                    w.put(name, part)
        w.close()
    return list(add)
