"""The word indexes of a built index, computed from its street table alone (step 6 of a build, and of a merge).

Per dataset: the sorted vocabulary of street and locality words, two posting lists per word (the streets having it
in their name, in their locality), and the forward index (street -> its words). Tokens are worked out once per
distinct street text and once per distinct locality (a state has millions of addresses but far fewer distinct
names), then spread over the streets with numpy, so a national table of millions of streets is indexed in
seconds and in memory proportional to its streets, never to its addresses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from dqkit.engines.address_index.countries import country
from dqkit.engines.address_index.strings import pack_strings
from dqkit.engines.address_index.tokens import street_word_forms, tokens

FIELD_STREET: Final = 1
FIELD_LOCALITY: Final = 2
# a query word's level on a street, by how it matched and which posting list holds the street (the type-down
# matcher's marks, and the stored rows of `derived.letter_levels`): a better level is a higher number
LEVEL_EXACT_STREET: Final = 6
LEVEL_EXACT_LOCALITY: Final = 5
LEVEL_PREFIX_STREET: Final = 4
LEVEL_PREFIX_LOCALITY: Final = 3
LEVEL_FUZZY_STREET: Final = 2
LEVEL_FUZZY_LOCALITY: Final = 1


def locality_tokens(iso2: str, city: str, region: str, postcode: str) -> list[str]:
    """Tokens of a street's locality: city words, region code and name, postcode (whole and in parts)."""
    out = tokens(city)
    if region:
        out.append(region)
        name = country(iso2).regions.get(region, "")
        if iso2 == "US" and not name:
            from dqkit.contract.us_states import STATES

            name = STATES.get(region, "")
        out += tokens(name)
    if postcode:
        parts = postcode.split()
        out.append("".join(parts))
        if len(parts) > 1:
            out += parts
    return out


def street_tokens(street_text: str) -> list[str]:
    out: list[str] = []
    for w in tokens(street_text):
        out += street_word_forms(w)
    return out


def word_arrays(streets: dict[str, npt.NDArray[Any]], string: Callable[[int], str], datasets: Sequence[str],
                bounds: npt.NDArray[np.int64], arrays: dict[str, npt.NDArray[Any]]) -> list[tuple[int, int]]:
    """Add the word arrays of every dataset to `arrays` (`d{ds}.tok.*`, `.ps*`, `.pl*`, and `fw.*`).

    `streets`: the sorted street columns (`s.text`, `s.city`, `s.region`, `s.postcode`, `s.ds`) as string ids;
    `string(id)` decodes one; `datasets`: the iso2 of each dataset ordinal. Returns each dataset's street range.
    The number index (`d{ds}.num_*`) is not made here: it needs the addresses (see `number_index`)."""
    s_ds = streets["s.ds"]
    n_streets = len(s_ds)
    fw_ptr = np.zeros(n_streets + 1, dtype=np.int64)
    fw_tok: list[npt.NDArray[np.int32]] = []
    fw_field: list[npt.NDArray[np.uint8]] = []
    ranges: list[tuple[int, int]] = []
    for ds, iso2 in enumerate(datasets):
        s_lo, s_hi = (int(x) for x in np.searchsorted(s_ds, [ds, ds + 1]))
        ranges.append((s_lo, s_hi))
        words, ptok, pst, pfl = _pairs(streets, string, iso2, s_lo, s_hi)
        arrays[f"d{ds}.tok.blob"], arrays[f"d{ds}.tok.off"] = pack_strings(words)
        for fld, tag in ((FIELD_STREET, "ps"), (FIELD_LOCALITY, "pl")):
            sel = pfl == fld
            t_, s_ = ptok[sel], pst[sel]
            key = np.sort((t_.astype(np.int64) << 32) | s_.astype(np.int64))
            if len(key) > 1:
                key = key[np.concatenate(([True], key[1:] != key[:-1]))]
            t_sorted = (key >> 32).astype(np.int32)
            arrays[f"d{ds}.{tag}"] = (key & 0xFFFFFFFF).astype(np.int32)
            arrays[f"d{ds}.{tag}_ptr"] = np.searchsorted(t_sorted, np.arange(len(words) + 1)).astype(np.int64)
            del key, t_sorted
        # forward index: street -> its token ids (street field first), sorted by (street, field, token)
        fkey = np.sort((pst.astype(np.int64) << 33) | ((pfl.astype(np.int64) - 1) << 32)
                       | ptok.astype(np.int64))
        fw_tok.append((fkey & 0xFFFFFFFF).astype(np.int32))
        fw_field.append(((fkey >> 32) & 1).astype(np.uint8) + 1)
        f_st = (fkey >> 33).astype(np.int64)
        del fkey
        if len(f_st):
            fw_ptr[s_lo + 1:s_hi + 1] = np.bincount(f_st - s_lo, minlength=s_hi - s_lo)
    arrays["fw.ptr"] = np.cumsum(fw_ptr)
    arrays["fw.tok"] = np.concatenate(fw_tok) if fw_tok else np.zeros(0, np.int32)
    arrays["fw.field"] = np.concatenate(fw_field) if fw_field else np.zeros(0, np.uint8)
    return ranges


def _pairs(streets: dict[str, npt.NDArray[Any]], string: Callable[[int], str], iso2: str, s_lo: int,
           s_hi: int) -> tuple[list[str], npt.NDArray[np.int32], npt.NDArray[np.int32], npt.NDArray[np.uint8]]:
    """The sorted vocabulary of streets [s_lo, s_hi) and their (word rank, street, field) pairs, street by street
    (each street's name words, then its locality words)."""
    text = np.asarray(streets["s.text"][s_lo:s_hi], dtype=np.int64)
    loc = np.stack([np.asarray(streets[k][s_lo:s_hi], dtype=np.int64)
                    for k in ("s.city", "s.region", "s.postcode")], axis=1) if s_hi > s_lo else \
        np.zeros((0, 3), np.int64)
    vocab: dict[str, int] = {}

    def word_ids(words: list[str]) -> list[int]:
        out = []
        for w in dict.fromkeys(words):
            i = vocab.get(w)
            if i is None:
                i = vocab[w] = len(vocab)
            out.append(i)
        return out

    u_text, text_inv = np.unique(text, return_inverse=True)
    text_toks = [word_ids(street_tokens(string(int(t)))) for t in u_text.tolist()]
    u_loc, loc_inv = np.unique(loc, axis=0, return_inverse=True)
    loc_toks = [word_ids(locality_tokens(iso2, string(int(c)), string(int(r)), string(int(p))))
                for c, r, p in u_loc.tolist()]
    words = sorted(vocab)
    vrank = np.empty(len(words), dtype=np.int32)
    vrank[np.asarray([vocab[w] for w in words], dtype=np.int64)] = np.arange(len(words), dtype=np.int32)
    st_tok, st_n = _spread(text_toks, np.asarray(text_inv).reshape(-1))
    lc_tok, lc_n = _spread(loc_toks, np.asarray(loc_inv).reshape(-1))
    # interleave per street: its street-field words, then its locality words
    n = s_hi - s_lo
    per = st_n + lc_n
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(per, out=start[1:])
    total = int(start[-1])
    ptok = np.empty(total, dtype=np.int32)
    pfl = np.empty(total, dtype=np.uint8)
    st_pos = _positions(start[:-1], st_n)
    lc_pos = _positions(start[:-1] + st_n, lc_n)
    ptok[st_pos], pfl[st_pos] = vrank[st_tok], FIELD_STREET
    ptok[lc_pos], pfl[lc_pos] = vrank[lc_tok], FIELD_LOCALITY
    pst = np.repeat(np.arange(s_lo, s_hi, dtype=np.int32), per)
    return words, ptok, pst, pfl


def _spread(lists: list[list[int]], which: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int32],
                                                                        npt.NDArray[np.int64]]:
    """The concatenation of lists[which[0]], lists[which[1]], ... and the length of each."""
    lens = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    flat = np.fromiter((v for x in lists for v in x), dtype=np.int32, count=int(lens.sum()))
    ptr = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    n = lens[which]
    return flat[_positions(ptr[:-1][which], n)], n


def _positions(starts: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """starts[0] + 0..counts[0]-1, starts[1] + 0..counts[1]-1, ...: the indexes of consecutive runs."""
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    run_start = np.repeat(np.cumsum(counts) - counts, counts)
    return np.repeat(starts, counts) + (np.arange(total, dtype=np.int64) - run_start)


def number_index(numint: npt.NDArray[np.int32], a_lo: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32]]:
    """(`num_order`, `num_sorted`) of one dataset's addresses held in memory: their ids by house number (stable)."""
    order = np.argsort(numint, kind="stable").astype(np.int64)
    return order + a_lo, numint[order]
