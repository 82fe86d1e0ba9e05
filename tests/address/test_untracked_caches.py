"""Issue 33 part 2 (validate of addresses a process meets for the first time): the caches validate fills as it meets
new streets hold nothing the cyclic garbage collector visits. Each street met added a row (an lru_cache entry whose
key holds the index) and its casings, and every full collection visited them all: at 100M, after the bench's
keystrokes and 2,900 validations, ~1.0M references and a 48 ms pause, paid by the first-seen addresses that grew
them. The rows, the vocabulary and the casings now sit in untracked containers; they are bounded, and answer as
the uncached code does."""

from __future__ import annotations

import gc
import random

import pytest

from dqkit.engines.address import AddressEngine, layout
from dqkit.engines.address_index import store


def _fresh_row(eng: AddressEngine, s: int) -> store.StreetRow:
    ix = eng.index
    saved = dict(ix._streets)
    ix._streets.clear()
    try:
        return ix.street(s)
    finally:
        ix._streets.clear()
        ix._streets.update(saved)


def test_street_rows_are_untracked_and_the_same_as_read_afresh(engine: AddressEngine) -> None:
    ix = engine.index
    rows = [ix.street(s) for s in range(ix.street_count)]
    assert rows and ix.street_count > 10
    for s, row in enumerate(rows):
        assert not gc.is_tracked(row), row
        assert row == _fresh_row(engine, s) and row.id == s
        assert ix.street(s) is row  # kept: the second read is the cached row
    gc.collect()
    assert not gc.is_tracked(ix._streets)  # a dict of untracked rows: never visited by a collection


def test_street_rows_are_bounded(engine: AddressEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    ix = engine.index
    monkeypatch.setattr(store, "_STREETS_MAX", 5)
    ix._streets.clear()
    try:
        rng = random.Random(33)
        for s in rng.sample(range(ix.street_count), min(40, ix.street_count)):
            row = ix.street(s)
            assert len(ix._streets) <= 5
            assert row.id == s and row == _fresh_row(engine, s)
    finally:
        ix._streets.clear()


def test_vocabulary_is_an_untracked_tuple(engine: AddressEngine) -> None:
    tk = engine.index.tokens(0)
    words = tk.words
    gc.collect()
    assert isinstance(words, tuple) and not gc.is_tracked(words)
    assert list(words) == tk.vocab.all()
    assert words == tuple(sorted(words))  # prefix_range bisects it


TEXTS = ["1620 S LOOP RD APT 4B", "MCDONALD AVE", "O'NEIL-SMITH WAY", "21ST ST NW", "PO BOX 12", "", "C/O ACME",
         "MCA", "4-1200 RUE SAINT-DENIS", "ST. JOHN'S"]


def _uncached(text: str) -> str:
    return " ".join(layout._cased_word(w) for w in text.split(" "))  # each word cased afresh


def test_casings_are_untracked_bounded_and_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(7)
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-' "
    texts = TEXTS + ["".join(rng.choice(letters) for _ in range(rng.randrange(1, 18))) for _ in range(300)]
    expected = [_uncached(t) for t in texts]
    layout._text_cased.clear()
    layout._word_cased.clear()
    for t, e in zip(texts, expected, strict=True):
        assert layout.mixed_case(t) == e, t
    assert [layout.mixed_case(t) for t in texts] == expected  # read back from the caches
    gc.collect()
    assert not gc.is_tracked(layout._text_cased) and not gc.is_tracked(layout._word_cased)
    monkeypatch.setattr(layout, "_CASE_CACHE_MAX", 7)
    layout._text_cased.clear()
    layout._word_cased.clear()
    for t, e in zip(texts, expected, strict=True):
        assert layout.mixed_case(t) == e, t
        assert len(layout._text_cased) <= 7 and len(layout._word_cased) <= 7
    assert layout.mixed_case("1620 S LOOP RD APT 4B") == "1620 S Loop Rd Apt 4B"
    assert layout.mixed_case("MCDONALD AVE") == "McDonald Ave" and layout.mixed_case("21ST ST NW") == "21st St NW"
