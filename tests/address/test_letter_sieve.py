"""Issue 33 (validate speed at national size): typo matching of a complete word scans only the vocabulary words
whose letters allow k edits (`letter_sieve`). The sieve must never drop a word the scan would find, and typo
matching through it must give the very ids, in the same order, as the scan of every word of near length."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from rapidfuzz import process
from rapidfuzz.distance import OSA

from dqkit.contract.address import SearchRequest
from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine, matching
from dqkit.engines.address.query import Word
from dqkit.engines.address_index.letter_sieve import LetterSieve, NameSieve, letter_mask, near_names

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'&"
_SEEDS = [7, random.SystemRandom().randrange(1 << 30)]


def _edited(w: str, rng: random.Random, k: int) -> str:
    t = list(w)
    for _ in range(k):
        op, i = rng.randrange(4), rng.randrange(len(t))
        if op == 0:
            t[i] = rng.choice(_ALPHABET)
        elif op == 1 and len(t) > 1:
            del t[i]
        elif op == 2:
            t.insert(i, rng.choice(_ALPHABET + "ÉÑ"))
        elif i + 1 < len(t):
            t[i], t[i + 1] = t[i + 1], t[i]
    return "".join(t)


@pytest.mark.parametrize("seed", _SEEDS)
def test_sieve_keeps_every_word_within_k_edits(seed: int) -> None:
    rng = random.Random(seed)
    words = ["".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    words += [_edited(w, rng, rng.randint(0, 3)) for w in words[:1500]]  # near neighbours, some not ASCII
    sieve = LetterSieve.of(words, 0)
    masks = np.array([letter_mask(w) for w in words], dtype=np.int64)  # -1: not ASCII
    lens = np.array([len(w) for w in words], dtype=np.int64)
    dropped = 0
    for q in [*rng.sample(words, 300), *(_edited(w, rng, 2) for w in rng.sample(words, 300))]:
        for k in (1, 2):
            near = sieve.near(q, k)
            if near is None:
                assert letter_mask(q) < 0
                continue
            kept, kept_ids = near
            assert kept_ids == sorted(kept_ids) and kept == [words[i] for i in kept_ids]
            assert all(abs(len(w) - len(q)) <= k for w in kept)
            # exactly the words of near length whose letters allow k edits (or not ASCII), whatever the layout
            qm = letter_mask(q)
            brings = np.bitwise_count((masks & ~qm) & 0xFFFFFFFF)
            takes = np.bitwise_count((~masks & qm) & 0xFFFFFFFF)
            want = np.flatnonzero((np.abs(lens - len(q)) <= k) & ((masks < 0) | ((brings <= k) & (takes <= k))))
            assert kept_ids == want.tolist(), (q, k)
            within = [j for _, _, j in process.extract(q, words, scorer=OSA.distance, score_cutoff=k, limit=None)]
            assert set(within) <= set(kept_ids), (q, k)
            dropped += len(words) - len(kept_ids)
    assert dropped > 0  # it does sieve


@pytest.mark.parametrize("seed", _SEEDS)
def test_typo_matching_through_the_sieve_is_the_scan(seed: int, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    src = demo_reference.write_state(tmp_path / "state.csv.gz", rows=20_000, seed=seed)
    eng = AddressEngine.from_files([src], out=tmp_path / "state.dqidx")
    ix = eng.index
    ds = ix.datasets[0]
    rng = random.Random(seed)
    sieved, scanned = matching.Matcher(ix, ds), matching.Matcher(ix, ds)
    vocab = [w for w in sieved.tk.words if len(w) >= matching.MIN_FUZZY_LEN and w.isalpha()]
    queries = [_edited(w, rng, rng.randint(0, 3)) for w in rng.sample(vocab, min(600, len(vocab)))]
    queries += ["QUODARFEN", "BRAVENTOL", "MISSKITUM", "PELGORZAN"]
    found = 0
    for q in queries:
        k = matching.max_typos(q)
        if k == 0 or len(q) < 2:
            continue
        w = Word(q, True, (q,), False)
        monkeypatch.setattr(matching, "_SIEVE_MIN", 0)  # read when a first letter's words are first gathered
        got = sieved._fuzzy_ids(w, k)
        monkeypatch.setattr(matching, "_SIEVE_MIN", 1 << 30)
        assert got == scanned._fuzzy_ids(w, k), q
        found += bool(got)
    assert found > 100
    assert any(v is not None for v in sieved._sieves.values())
    assert all(v is None for v in scanned._sieves.values())
    # and whole answers: a made-up street and a one-letter slip in the street, validated both ways
    texts = []
    for a in rng.sample(range(ix.address_count), 30):
        r = ix.address(a)
        s = r.street
        texts.append(f"{r.line}, {s.city}, {s.region} {s.postcode}")
    validations = [t.replace(t.split()[1], "Quodarfen", 1) for t in texts] + \
                  [t.replace(t.split()[1], _edited(t.split()[1], rng, 1), 1) for t in texts]

    def answers(sieve_min: int) -> list[str]:
        monkeypatch.setattr(matching, "_SIEVE_MIN", sieve_min)
        e = AddressEngine.open(tmp_path / "state.dqidx")
        return [repr(e.validate(SearchRequest.of(v))) for v in validations]

    assert answers(0) == answers(1 << 30)


class _NoSieve:
    """The index as a point source that cannot sieve: the standardizer decodes and keys every name of a ZIP."""

    def __init__(self, index: object) -> None:
        self.index = index

    def street_names(self, zip5: str) -> object:
        return self.index.street_names(zip5)  # type: ignore[attr-defined]

    def points_on_street(self, zip5: str, name: str) -> object:
        return self.index.points_on_street(zip5, name)  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", _SEEDS)
def test_standardizer_street_lookup_through_the_name_sieve_is_the_full_lookup(seed: int, tmp_path: Path) -> None:
    from dqkit.engines import zipdata
    from dqkit.engines.usaddr.match import match_points, name_key
    from dqkit.engines.usaddr.street import Street

    src = demo_reference.write_state(tmp_path / "state.csv.gz", rows=20_000, seed=seed)
    eng = AddressEngine.from_files([src], out=tmp_path / "state.dqidx")
    ix = eng.index
    plain = _NoSieve(ix)
    rng = random.Random(seed)
    found = fixed = 0
    for a in rng.sample(range(ix.address_count), 150):
        r = ix.address(a)
        s = r.street
        zips = [s.postcode, *zipdata.zips_for_city(s.city, s.region)[:6]]
        name = s.name
        typed = [name, _edited(name, rng, 1), _edited(name, rng, 2), name.replace(" ", "-"), name.replace(" ", ""),
                 f"SAINT {name}", f"ST {name}", f"{name} AND OAK", f"MOUNT {name[:4]}", name[:3], "QUODARFEN",
                 _edited(name, rng, 1) + "É"]
        for n in typed:
            st = Street(number=r.number, predir=s.predir, name=n, suffix=s.suffix, postdir=s.postdir)
            got = match_points(st, zips, ix)
            assert got == match_points(st, zips, plain), (n, zips)  # type: ignore[arg-type]
            found += got.number_found
            fixed += "20" in got.codes
    assert found > 150 and fixed > 20  # names found as typed and corrected, both ways alike
    # the names kept for (ZIPs, key, limit) are remembered: asked in any order, the answer of fresh sieves
    zip5 = ix.address(0).street.postcode
    sv = ix._sieves([zip5])[0]
    assert len(sv) == len(ix.street_names(zip5)) > 0
    city = ix.address(0).street
    zip_lists = [[zip5], [zip5, *zipdata.zips_for_city(city.city, city.region)[:5]], ["00000", zip5]]
    keys = [name_key(n) for n in ix.street_names(zip5)[:15]]
    keys += [_edited(k, rng, 1) for k in keys] + ["QUODARFEN", ""]
    asked = [(z, k, limit) for z in range(3) for k in keys for limit in (0, 1, 2)] * 2
    rng.shuffle(asked)
    for z, k, limit in asked:
        zips = zip_lists[z]
        fresh = near_names(ix.strings, [NameSieve.of(ix.strings, s.ids) for s in ix._sieves(zips)], k, limit)
        assert ix.street_name_candidates(zips, k, limit) == fresh, (zips, k, limit)
        assert all(set(got) <= set(ix.street_names(z)) for got, z in zip(fresh, zips, strict=True))
    assert any(len(ix.street_name_candidates([zip5], k, 0)[0]) < len(sv) for k in keys)  # type: ignore[index]
