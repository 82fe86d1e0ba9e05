"""Issue 33 part 2, session 6 (made-up streets at 100M): the shortcuts of a made-up street's validation give what
the general paths give. Two name words written apart are read joined only when the joined word is in the search
vocabulary (`Validator._may_hold`): the answers with and without that test, on street names split in two, made-up
streets and real addresses of multi-word cities, fixed and fresh seed; and the fact it rests on, every word of
every street name in its dataset's vocabulary. A city's ZIPs' distinct street names are read in one pass
(`store.distinct_names`): `np.unique` of each ZIP's streets, on the index and on made-up arrays."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from dqkit.contract.address import SearchRequest
from dqkit.engines.address import AddressEngine
from dqkit.engines.address.validate import Validator
from dqkit.engines.address_index.store import distinct_names
from dqkit.engines.address_index.tokens import tokens

STATE_ROWS = 20_000  # the `state` fixture's size (conftest.py)


def _texts(eng: AddressEngine, rng: random.Random, n: int) -> list[str]:
    """Addresses of the index with a name word split in two ("DEL MAR" for DELMAR), made up, or as they are."""
    ix = eng.index
    out = []
    for a in rng.sample(range(ix.address_count), n):
        r = ix.address(a)
        s = r.street
        words = s.name.split()
        long = [j for j, w in enumerate(words) if len(w) >= 4 and w.isalpha()]
        kind = rng.choice(("split", "split", "made", "same"))
        if kind == "split" and long:
            j = rng.choice(long)
            cut = rng.randrange(2, len(words[j]) - 1)
            words[j] = f"{words[j][:cut]} {words[j][cut:]}"
        elif kind == "made":
            words = ["".join(rng.choice(("KA", "LO", "MI", "RA", "TE", "SU", "NO", "VI")) for _ in range(3))]
        street = " ".join(p for p in (s.predir, " ".join(words), s.suffix, s.postdir) if p)
        city = s.city if rng.random() < 0.8 else ""
        out.append(", ".join(p for p in (f"{r.number} {street}", city, f"{s.region} {s.postcode}") if p))
    return out


def _answers(eng: AddressEngine, texts: list[str]) -> list[str]:
    """Each answer with its note (what was read joined is said there)."""
    return [f"{got!r} {got.note}" for got in (eng.validate(SearchRequest.of(t)) for t in texts)]


def _compare(eng: AddressEngine, texts: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    fast = _answers(eng, texts)
    with monkeypatch.context() as m:
        m.setattr(Validator, "_may_hold", lambda self, ds, word: True)
        slow = _answers(eng, texts)
    for t, f, s in zip(texts, fast, slow, strict=True):
        assert f == s, t
    return sum("read as" in f for f in fast)


def test_every_street_name_word_is_in_the_vocabulary(state: tuple[AddressEngine, int]) -> None:
    eng, _ = state
    ix = eng.index
    for ds in ix.datasets:
        tk = ix.tokens(ds.ordinal)
        for s in range(ds.street_lo, ds.street_hi):
            for w in tokens(ix.street(s).name):
                assert tk.find(w) >= 0, (s, ix.street(s).name, w)


def test_joined_names_only_where_the_vocabulary_has_them(state: tuple[AddressEngine, int],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    eng, seed = state
    rng = random.Random(seed)
    texts = _texts(eng, rng, 150)
    joined = _compare(eng, texts, monkeypatch)
    assert joined >= 5, joined  # split names were read joined, by both paths


def test_joined_names_on_openaddresses(oa_engine: AddressEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(33)
    texts = ["921 Del Mar St, Alameda, CA 94501", "921 Mar St, Alameda, CA 94501", *_texts(oa_engine, rng, 120)]
    assert _compare(oa_engine, texts, monkeypatch) >= 1


def test_distinct_names_are_each_ranges_unique(state: tuple[AddressEngine, int]) -> None:
    eng, seed = state
    ix = eng.index
    rng = random.Random(seed)
    ds = ix.datasets[0]
    postcodes = sorted({ix.street(s).postcode for s in range(ds.street_lo, ds.street_hi)})
    repeated = 0
    for _ in range(300):
        zips = rng.sample(postcodes, rng.randrange(1, min(8, len(postcodes)) + 1)) + ["00000"] * rng.randrange(2)
        rng.shuffle(zips)
        spans = [ix.streets_in_postcode(ds, z) for z in zips]
        want = [np.unique(ix.s_name[lo:hi]).astype(np.int64) for lo, hi in spans]
        got = distinct_names(ix.s_name, spans)
        assert [g.tolist() for g in got] == [w.tolist() for w in want], zips
        assert all(g.dtype == np.int64 for g in got)
        repeated += sum(hi - lo > len(w) for (lo, hi), w in zip(spans, want, strict=True))
    assert repeated > 0  # names held by several streets of a ZIP (two suffixes) were met
    # made-up name columns: ranges sorted, with repeats, empty, and unsorted (read by np.unique)
    for _ in range(500):
        col = np.asarray([rng.randrange(30) for _ in range(60)], dtype=np.int32)
        spans = []
        for _ in range(rng.randrange(0, 6)):
            lo = rng.randrange(0, 60)
            hi = rng.randrange(lo, min(60, lo + 12) + 1)
            if rng.random() < 0.8:
                col[lo:hi] = np.sort(col[lo:hi])
            spans.append((lo, hi))
        got = distinct_names(col, spans)
        assert [g.tolist() for g in got] == [np.unique(col[lo:hi]).tolist() for lo, hi in spans], (col, spans)


def _typo(text: str, rng: random.Random) -> str:
    """One swap of two neighbouring letters of the street part (the benchmark's one-swap kind)."""
    street, _, rest = text.partition(",")
    at = [j for j in range(len(street) - 1) if street[j].isalpha() and street[j + 1].isalpha()]
    if not at:
        return text
    j = rng.choice(at)
    return f"{street[:j]}{street[j + 1]}{street[j]}{street[j + 2:]},{rest}"


def test_near_names_from_the_name_sections_answer_as_the_byte_sieves(state: tuple[AddressEngine, int],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The standardizer's names near a typed one, read from the derived `name_lacks` / `name_size` slices of the
    ZIPs' streets (`letter_sieve.ZipLetters`), give the validations the names' bytes give (each ZIP's sieve:
    an index built before the sections): made-up, split, typo'd and real streets, with and without the city."""
    from dqkit.engines.address_index.letter_sieve import ZipLetters

    eng, seed = state
    ix = eng.index
    assert ix._name_lacks is not None and ix._name_size is not None
    rng = random.Random(seed)
    texts = _texts(eng, rng, 150)
    texts += [_typo(t, rng) for t in texts[:100]]
    read = {"slices": 0}
    real = ZipLetters.near

    def counted(self: ZipLetters, key: str, limit: int) -> object:
        read["slices"] += 1
        return real(self, key, limit)

    monkeypatch.setattr(ZipLetters, "near", counted)
    fast = _answers(eng, texts)
    assert read["slices"] >= 100, read  # the sections were read (a made-up street asks twice or more)
    slow_eng = AddressEngine.open(ix.path)
    monkeypatch.setattr(slow_eng.index, "_name_lacks", None)
    monkeypatch.setattr(slow_eng.index, "_name_size", None)
    before = read["slices"]
    slow = _answers(slow_eng, texts)
    assert read["slices"] == before  # the byte sieves only
    for t, f, s in zip(texts, fast, slow, strict=True):
        assert f == s, t


def test_near_names_from_the_name_sections_when_us_is_not_the_first_dataset(ref_files: dict[str, Path],
                                                                           tmp_path: Path) -> None:
    """The name sections are the US dataset's own (indexed from its first street): with other countries before it
    in the index, and ZIPs the index lacks asked among those it holds, the names are those of the byte sieves."""
    from dqkit.engines.address_index.letter_sieve import near_names
    from dqkit.engines.usaddr.match import name_key

    engine = AddressEngine.from_files([ref_files["ca"], ref_files["gb"], ref_files["us"]], out=tmp_path / "i.dqidx")
    ix = engine.index
    us = next(d for d in ix.datasets if d.iso2 == "US")
    assert us.street_lo > 0 and ix._name_lacks is not None  # CA and GB come first
    zips = ["00000", "19106", "62701", "99999", "62704", "01103", "62702"]
    keys = [name_key(ix.street(s).name) for s in range(us.street_lo, us.street_hi)]
    keys += [k[:-1] + "Q" for k in keys] + ["QUODARFEN", "", "ÉLAN"]
    for lists in ([zips[0]], zips, zips[1:3], [zips[3], zips[1]]):
        for k in keys:
            for limit in (0, 1, 2):
                want = near_names(ix.strings, ix._sieves(lists), k, limit)
                assert ix.street_name_candidates(lists, k, limit) == want, (lists, k, limit)
    got = engine.validate(SearchRequest.of("1200 Quodarfen St, Springfield, IL 62701"))
    assert got.result.confidence == "Verified place"
