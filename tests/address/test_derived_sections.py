"""Derived sections of an index (`derived.py`, issue 33): the build writes them (one pass and runs merged), an index
built before them gains them with `add_derived` / `dqkit index upgrade` (the same arrays, array by array, as the
build writes), and an index without them answers exactly as one with them (the reader falls back). The typed-down
queries take the ways the stored `num_street` column replaces: a number's streets read for the word tiers, the
combine on the number's streets, a number alone."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dqkit.cli import main as cli
from dqkit.contract.address import SearchRequest
from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine
from dqkit.engines.address import matching as matching_mod
from dqkit.engines.address import search as search_mod
from dqkit.engines.address.query import parse_query
from dqkit.engines.address_index import build_index
from dqkit.engines.address_index.compare import array_differences
from dqkit.engines.address_index.container import Container, write_container
from dqkit.engines.address_index.derived import LETTERS, SECTIONS, add_derived, missing
from dqkit.engines.address_index.letter_sieve import NAME_ANY, NameSieve
from dqkit.engines.address_index.strings import StringTable


def _without_derived(src: Path, out: Path) -> Path:
    """`src` as an index built before the derived sections: the same arrays and metadata, less those."""
    c = Container(src)
    derived = tuple(f".{name}" for name in SECTIONS)
    write_container(out, {k: np.asarray(a) for k, a in c.arrays.items() if not k.endswith(derived)}, c.meta)
    return out


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("derived")
    return demo_reference.write_state(d / "state.csv.gz", rows=30_000, seed=demo_reference.DEFAULT_SEED)


def test_build_writes_them_and_upgrade_adds_the_same_arrays(state: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    built = build_index([state], tmp_path / "built.dqidx").path
    c = Container(built)
    assert np.array_equal(c["d0.num_street"], c["a.street"][c["d0.num_order"]])
    ds = c.meta["datasets"][0]
    prior = np.minimum(c["s.count"][ds["street_lo"]:ds["street_hi"]], search_mod._PRIOR_CAP).astype(np.int64)
    assert np.array_equal(c["d0.by_prior"], np.argsort(-prior, kind="stable"))  # the search's own order
    # each street's name letters: its name's, as a ZIP's sieve reads them from the name's bytes
    table = StringTable(c["str.blob"], c["str.off"])
    sieve = NameSieve.of(table, np.arange(len(table), dtype=np.int64))
    names = c["s.name"][ds["street_lo"]:ds["street_hi"]]
    assert c["d0.name_lacks"].dtype == np.uint32 and c["d0.name_size"].dtype == np.uint16
    assert np.array_equal(c["d0.name_lacks"], sieve.lacks[names])
    assert np.array_equal(c["d0.name_size"], np.where(sieve.wide[names], NAME_ANY, sieve.letters[names]))
    assert missing(built) == []
    old = _without_derived(built, tmp_path / "old.dqidx")
    every = ["d0.num_street", "d0.by_prior", "d0.letter_levels", "d0.name_lacks", "d0.name_size"]
    assert missing(old) == every
    assert add_derived(old, tmp_path / "upgraded.dqidx") == every
    assert array_differences(built, tmp_path / "upgraded.dqidx") == []
    assert Container(tmp_path / "upgraded.dqidx").meta == c.meta  # the build id too: keys stay valid
    # built in runs and merged (a memory budget far below the input): the same section
    merged = build_index([state], tmp_path / "merged.dqidx", memory=6_000_000, workers=1)
    assert merged.runs > 1
    for name in every:
        assert np.array_equal(Container(merged.path)[name], c[name])
        assert Container(merged.path)[name].dtype == c[name].dtype == SECTIONS[name[3:]][0]
    # in place, as `dqkit index upgrade INDEX` does; `dqkit index info` says what an index lacks
    assert cli(["index", "info", str(old)]) == 0
    assert "lacks d0.num_street, d0.by_prior, d0.letter_levels, d0.name_lacks, d0.name_size" in \
        capsys.readouterr().out
    assert cli(["index", "upgrade", str(old)]) == 0
    assert "added d0.num_street, d0.by_prior, d0.letter_levels, d0.name_lacks, d0.name_size" in \
        capsys.readouterr().out
    assert array_differences(built, old) == []
    assert cli(["index", "upgrade", str(old)]) == 0  # nothing left to add
    assert cli(["index", "info", str(old)]) == 0
    said = capsys.readouterr().out
    assert "nothing to add" in said and "lacks" not in said


def _queries(eng: AddressEngine, seed: int) -> list[str]:
    ix = eng.index
    rng = random.Random(seed)
    out = [f"{n} {w}" for n in (1, 2, 10, 12, 100, 120, 200) for w in ("s", "m", "ma", "s m", "w ma", "main s", "oak")]
    out += [f"{n} {c}" for n in (1, 12, 120) for c in "abcdefghijklmnopqrstuvwxyz0123456789"]  # one letter typed
    out += [f"{c} {d}" for c in "nsew" for d in "abcmpz"]
    out += [str(n) for n in (1, 2, 10, 12, 100, 120, 200, 1200, 3)]
    for a in rng.sample(range(ix.address_count), 25):
        r = ix.address(a)
        line = f"{r.line} {r.street.city} {r.street.postcode}".lower()
        out += [line[:n] for n in range(1, len(line) + 1, 2)]  # typed down
    return out


@pytest.mark.parametrize("seed", [demo_reference.DEFAULT_SEED, random.SystemRandom().randrange(1 << 30)])
def test_an_index_without_them_answers_the_same(state: Path, seed: int, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    built = build_index([state], tmp_path / "built.dqidx").path
    old = _without_derived(built, tmp_path / "old.dqidx")
    monkeypatch.setattr(search_mod, "_TIER_STREETS", 0)  # this small state: the national ways are taken
    monkeypatch.setattr(search_mod, "_HELD_KEPT", 1)  # a number's streets read again, not kept
    sliced = {"column": 0}
    real_held = search_mod.Searcher.held_of

    def held(self: search_mod.Searcher, ds: Any, ni: int, h: Any) -> Any:
        if (ds.ordinal, ni) not in self._held and self.matcher(ds).tk.num_street is not None:
            sliced["column"] += 1
        return real_held(self, ds, ni, h)

    monkeypatch.setattr(search_mod.Searcher, "held_of", held)
    with_col, without = AddressEngine.open(built), AddressEngine.open(old)
    assert without.index.tokens(0).num_street is None and without.index.tokens(0).by_prior is None
    ds = with_col.index.datasets[0]  # the busiest streets' order: stored, or worked out by the searcher
    assert np.array_equal(with_col.searcher._by_prior(ds), without.searcher._by_prior(ds))
    queries = _queries(with_col, seed)
    fast = [repr(with_col.search(SearchRequest.of(q))) for q in queries]
    assert sliced["column"] >= 20, sliced
    slow = [repr(without.search(SearchRequest.of(q))) for q in queries]
    for q, a, b in zip(queries, fast, slow, strict=True):
        assert a.replace(str(built), "") == b.replace(str(old), ""), f"seed {seed}: {q!r}"


def test_a_number_alone_ranked_by_one_packed_key_as_by_lexsort(state: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A house number alone: its addresses ranked by one packed integer key (exact number, prior, address id)
    give the order of the three-key lexsort (taken when address ids do not fit the key: forced here)."""
    path = build_index([state], tmp_path / "built.dqidx").path
    queries = [str(n) for n in range(1, 130)] + ["1200", "1236", "2", "10 ", "12 ", "100 ", "3a", "12a"]
    packed = [repr(AddressEngine.open(path).search(SearchRequest.of(q))) for q in queries]
    monkeypatch.setattr(search_mod, "_ADDR_BITS", 1)  # every address id over the key: the lexsort
    eng = AddressEngine.open(path)
    for q, a in zip(queries, packed, strict=True):
        assert repr(eng.search(SearchRequest.of(q))) == a, q


def test_letter_levels_are_the_marked_levels(state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-letter word being typed: its levels on every street are the stored row of `letter_levels` (a view of
    the index, nothing marked), equal to the levels marked from its postings (the index without the section),
    letter by letter."""
    built = build_index([state], tmp_path / "built.dqidx").path
    old = _without_derived(built, tmp_path / "old.dqidx")
    engines = [AddressEngine.open(p) for p in (built, old)]
    new_m, old_m = (e.searcher.matcher(e.index.datasets[0]) for e in engines)
    assert old_m.tk.letter_levels is None and new_m.tk.letter_levels is not None
    marked = {"n": 0}
    real_mark = matching_mod.Matcher._mark

    def mark(*args: Any, **kw: Any) -> None:
        marked["n"] += 1
        real_mark(*args, **kw)

    monkeypatch.setattr(matching_mod.Matcher, "_mark", staticmethod(mark))
    seen = 0
    for c in LETTERS:
        w = parse_query("main " + c.lower()).words[-1]
        ids_new, ids_old = new_m.word_ids(w), old_m.word_ids(w)
        if not ids_new.any:
            continue
        seen += 1
        marked["n"] = 0
        got = new_m.word_levels(w, ids_new)
        assert marked["n"] == 0, c  # the stored row, not marked
        assert np.shares_memory(got, new_m.tk.letter_levels), c
        want = old_m.word_levels(w, ids_old)
        assert marked["n"] > 0, c
        assert got.dtype == want.dtype and np.array_equal(got, want), c
    assert seen >= 20
    w = parse_query("s ").words[0]  # a complete word: its own forms, marked
    marked["n"] = 0
    assert np.array_equal(new_m.word_levels(w, new_m.word_ids(w)), old_m.word_levels(w, old_m.word_ids(w)))
    assert marked["n"] > 0
