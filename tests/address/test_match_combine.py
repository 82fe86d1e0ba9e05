"""Issue 33 (keystrokes at 100M points): two ways the matcher combines words cheaper, each with the answer of the
plain way. The candidates of a stage where words may miss are the union of the seeds' sorted streets (a merge, not
`np.unique`'s hashing); the strict AND on a typed number's streets reads each word's levels only on the streets
the words before it left standing (not on all of them): the same streets, order and sums as the AND on every
street restricted to those."""

from __future__ import annotations

import random

import numpy as np
import pytest

from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine, matching
from dqkit.engines.address.query import parse_query


@pytest.mark.parametrize("seed", [7, random.SystemRandom().randrange(1 << 30)])
def test_union_of_sorted_streets_is_np_unique(seed: int) -> None:
    rng = np.random.default_rng(seed)
    cases = [[np.zeros(0, np.int64), np.arange(3, dtype=np.int64)], [np.arange(5, dtype=np.int64)] * 2]
    for _ in range(200):
        top = int(rng.integers(1, 5_000))
        parts = [np.unique(rng.integers(0, top, int(rng.integers(0, 3_000)))).astype(np.int64)
                 for _ in range(int(rng.integers(2, 4)))]
        cases.append(parts)
    for parts in cases:
        got = matching._union_sorted([p.copy() for p in parts])
        want = np.unique(np.concatenate(parts))
        assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.fixture(scope="module")
def eng(tmp_path_factory: pytest.TempPathFactory) -> AddressEngine:
    d = tmp_path_factory.mktemp("combine")
    src = demo_reference.write_state(d / "state.csv.gz", rows=30_000, seed=demo_reference.DEFAULT_SEED)
    return AddressEngine.from_files([src], out=d / "state.dqidx")


@pytest.mark.parametrize("seed", [11, random.SystemRandom().randrange(1 << 30)])
def test_and_on_some_streets_is_the_and_restricted_to_them(eng: AddressEngine, seed: int) -> None:
    ds = eng.index.datasets[0]
    m = eng.searcher.matcher(ds)
    rng = random.Random(seed)
    texts = ["s m", "n main s", "w 5", "e p", "oak st", "st", "main st apt", "ave s", "13th st", "dr", "w ma"]
    for a in rng.sample(range(eng.index.address_count), 40):
        r = eng.index.address(a)
        line = f"{r.street.text} {r.street.city}".lower()
        texts += [line[:k] for k in range(2, len(line) + 1, 3)]
    compared = nonempty = 0
    for text in texts:
        q = parse_query(text)
        if not q.words:
            continue
        hits = [m.match_word(w) for w in q.words]
        full = m._combine(hits, [])
        for share in (0.02, 0.2, 0.7, 1.0):
            on = np.flatnonzero(np.random.default_rng(rng.randrange(1 << 30)).random(m.n) < share).astype(np.int64)
            got = m._combine(hits, [], on=on)
            compared += 1
            if full is None:
                assert got is None, text
                continue
            inside = np.isin(full.streets - ds.street_lo, on)
            if not inside.any():
                assert got is None, (text, share)
                continue
            nonempty += 1
            assert got is not None, (text, share)
            assert got.streets.dtype == full.streets.dtype and got.scores.dtype == full.scores.dtype
            assert np.array_equal(got.streets, full.streets[inside]), (text, share)
            assert np.array_equal(got.scores, full.scores[inside]), (text, share)
            assert got.max_score == full.max_score and got.fuzzy == full.fuzzy
            assert [w.text for w in got.dropped] == [w.text for w in full.dropped]
    assert compared > 300 and nonempty > 150, (compared, nonempty)
