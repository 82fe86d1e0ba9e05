"""Issue 31 part 3 (clean validate back): the exact fast paths of a whole address's matching give what the general
paths give. A word held in one field only is read straight from its posting list; exact words on a few streets
are read from the forward index in Python; the strict AND narrows its candidates by the other words' postings
before reading the rest, and sums a few streets' levels in Python; one street's numbered addresses come from two
plain binary searches; grouping reads addresses a chunk at a time; a text that starts with a house number and goes
on is no place without reading further. Each is compared with its general path on a small state (random tokens,
streets and words; addresses validated clean, misspelt, made up, with a wrong ZIP, and typed down) or on varied
input, fixed and fresh seeds."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from dqkit.contract.address import SearchRequest
from dqkit.engines.address import AddressEngine, matching, search, sparse_match
from dqkit.engines.address.sparse_match import WordIds

STATE_ROWS = 40_000  # the `state` fixture's size (conftest.py)


def test_one_field_postings_are_the_merged_levels(state: tuple[AddressEngine, int]) -> None:
    eng, seed = state
    tk = eng.index.tokens(0)
    rng = random.Random(seed)
    one = both = 0
    for i in rng.sample(range(len(tk.words)), min(3000, len(tk.words))):
        ids = WordIds([i], 0, 0, [])
        fast = sparse_match.posting_levels(tk, ids, 0)
        slow = sparse_match._merged_levels(tk, ids, 0)
        assert [a.dtype for a in fast] == [a.dtype for a in slow], tk.words[i]
        assert np.array_equal(fast[0], slow[0]) and np.array_equal(fast[1], slow[1]), tk.words[i]
        if sparse_match._one_field(tk, i, 0) is None:
            both += 1
        else:
            one += 1
    assert one and both, (one, both)  # tokens of one field (the fast path) and of both (the merged one) were met


def test_levels_at_are_the_posting_levels_read_on_the_candidates(state: tuple[AddressEngine, int]) -> None:
    eng, seed = state
    tk = eng.index.tokens(0)
    rng = random.Random(seed)
    n = eng.index.street_count
    both = 0
    for i in rng.sample(range(len(tk.words)), min(2000, len(tk.words))):
        ids = WordIds(sorted({i, *(rng.randrange(len(tk.words)) for _ in range(rng.choice((0, 0, 1, 2))))}), 0, 0, [])
        both += sparse_match._one_field(tk, i, 0) is None
        own = sparse_match.posting_levels(tk, ids, 0)[0].tolist()
        cand = np.unique(np.array([rng.choice(own) if own and rng.random() < 0.5 else rng.randrange(n)
                                   for _ in range(rng.randrange(1, 60))], dtype=np.int64))
        fast = sparse_match.levels_at(tk, ids, cand, 0)
        slow = sparse_match.levels_on(*sparse_match.posting_levels(tk, ids, 0), cand)
        assert fast.dtype == slow.dtype and np.array_equal(fast, slow), tk.words[i]
    assert both  # tokens in street names and localities both were read


def test_place_only_sets_addresses_aside_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    from dqkit.engines.address import place

    texts = ["306 kelly st, sperry, ok 74073", "306 kelly st sperry ok 74073 usa", "12 b st, united states of america",
             "95124", "San Jose, CA 95124", "1 usa", "12 main st us", "10 downing st, u s a", "2 a b c d e f g h i",
             "4 united states of america", "123 4567", "New York, NY", "12 Main St, Springfield, IL, U.S.A.",
             "12345 56789 a b c d", "1a b c d e f", "x 1 2 3 4 5 6", "300 Main St Apt 4, Boston MA 02116",
             "95124 united states", "95124, United States of America", "02116 u s a"]
    fast = [place.place_only(t) for t in texts]
    monkeypatch.setattr(place, "_COUNTRY_MOST", 1000)  # no early answer: every text read to the end
    assert fast == [place.place_only(t) for t in texts]
    assert fast[3] is not None and fast[0] is None and fast[-1] is not None and fast[-2] is not None


def test_few_streets_forward_levels_are_the_array_path(state: tuple[AddressEngine, int],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    eng, seed = state
    ix = eng.index
    rng = random.Random(seed)
    n_tok = len(ix.tokens(0).words)
    cases = []
    for _ in range(1500):
        streets = np.unique(np.array([rng.randrange(ix.street_count) for _ in range(rng.randrange(1, 9))],
                                     dtype=np.int64))
        own = ix.fw_tok[ix.fw_ptr[streets[0]]:ix.fw_ptr[streets[-1] + 1]].tolist()
        words = [WordIds(sorted({rng.choice(own) if rng.random() < 0.8 else rng.randrange(n_tok)
                                 for _ in range(rng.randrange(0, 3))}), 0, 0, [])
                 for _ in range(rng.randrange(1, 6))]
        cases.append((streets, words))
    taken = {"n": 0}
    real = sparse_match._few_levels

    def spy(*a: Any) -> Any:
        taken["n"] += 1
        return real(*a)

    monkeypatch.setattr(sparse_match, "_few_levels", spy)
    fast = [sparse_match.forward_levels(ix, s, w) for s, w in cases]
    assert taken["n"] > len(cases) // 2, taken  # most cases took the Python path
    monkeypatch.setattr(sparse_match, "FEW_STREETS", 0)
    for (s, w), got in zip(cases, fast, strict=True):
        want = sparse_match.forward_levels(ix, s, w)
        assert (got is None) == (want is None)
        if got is not None and want is not None:
            assert len(got) == len(want)
            for a, b in zip(got, want, strict=True):
                assert a.dtype == b.dtype and np.array_equal(a, b), (s, w)


def test_numbered_on_one_street_is_the_array_path(state: tuple[AddressEngine, int]) -> None:
    eng, seed = state
    ix = eng.index
    rng = random.Random(seed)
    found = 0
    for _ in range(2000):
        a = rng.randrange(ix.address_count)
        s, ni = int(ix.a_street[a]), int(ix.a_numint[a]) + rng.choice((0, 0, 1))
        other = np.array([s, rng.randrange(ix.street_count)], dtype=np.int64)
        one = search.numbered_on(ix, other[:1], ni)
        two = search.numbered_on(ix, other, ni)
        assert one[0].dtype == two[0].dtype and one[1].dtype == two[1].dtype
        assert np.array_equal(one[0], two[0][two[1] == 0]) and not one[1].any()
        found += bool(len(one[0]))
    assert found > 1000


def test_few_streets_reached_as_the_array_path() -> None:
    rng = random.Random(31)
    for _ in range(3000):
        n = rng.randrange(0, 9)
        cand = np.array(sorted(rng.sample(range(1000), n)), dtype=np.int64)
        levels = [np.array([rng.choice((0, 0, 1, 2, 3, 4, 5, 6)) for _ in range(n)], dtype=np.int8)
                  for _ in range(rng.randrange(1, 7))]
        may_miss = rng.choice((0, 0, 1, 2))
        need = max(1, len(levels) - may_miss)
        fast = matching._few_streets(cand, levels, need, may_miss)
        slow = matching._reached(cand, levels, need, may_miss)
        assert (fast is None) == (slow is None)
        if fast is not None and slow is not None:
            for a, b in zip(fast, slow, strict=True):
                assert (a is None) == (b is None)
                if a is not None and b is not None:
                    assert a.dtype == b.dtype and np.array_equal(a, b)


def _texts(eng: AddressEngine, rng: random.Random, n: int) -> list[str]:
    ix = eng.index
    out = []
    for a in rng.sample(range(ix.address_count), n):
        r = ix.address(a)
        out.append(f"{r.line}, {r.street.city}, {r.street.region} {r.street.postcode}".lower())
    return out


def _slip(text: str, rng: random.Random) -> str:
    i = rng.randrange(len(text) - 1)
    return text[:i] + text[i + 1] + text[i] + text[i + 2:]


def test_narrowed_and_chunked_answers_are_the_general_paths(state: tuple[AddressEngine, int],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    eng, seed = state
    rng = random.Random(seed + 1)
    full = _texts(eng, rng, 60)
    with_unit = [t.replace(",", " apt 2,", 1) for t in full[:15]]
    validations = full + with_unit + [_slip(t, rng) for t in full[:30]] + \
        [t.replace(t.split()[1], "quodarfen", 1) for t in full[:10]] + [t[:-5] + "00000" for t in full[:10]]
    keystrokes = [t[:k] for t in full[:6] for k in range(3, len(t) + 1)] + ["1 s", "12 m", "200 w 5"]
    monkeypatch.setattr(matching, "_SPARSE_MIN_STREETS", 0)  # this small state: the sparse stages
    monkeypatch.setattr(matching, "_SPARSE_RATIO", 1)
    monkeypatch.setattr(matching, "FEW_STREETS", 1)  # ... narrowed down to one street where the words allow
    narrowed = {"n": 0}
    real = matching.Matcher._narrowed

    def spy(self: matching.Matcher, *a: Any) -> Any:
        out = real(self, *a)
        narrowed["n"] += len(out) < len(a[-1])
        return out

    def answers() -> list[str]:
        return [repr(eng.validate(SearchRequest.of(v))) for v in validations] + \
            [repr(eng.search(SearchRequest.of(q))) for q in keystrokes]

    monkeypatch.setattr(matching.Matcher, "_narrowed", spy)
    fast = answers()
    assert narrowed["n"] > len(full) // 2, narrowed  # the strict AND of most clean addresses was narrowed
    monkeypatch.setattr(matching.Matcher, "_narrowed", lambda self, *a: a[-1])
    monkeypatch.setattr(search, "_GROUP_CHUNK", 1)  # an address at a time, as before the chunks
    slow = answers()
    for q, a, b in zip(validations + keystrokes, fast, slow, strict=True):
        assert a == b, f"seed {seed}: {q!r}"
