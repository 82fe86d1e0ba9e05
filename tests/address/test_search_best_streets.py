"""Issue 33 (keystroke p99 at national size): a house number and a street's first letter ("1236 b") is answered
from the busiest streets of the best word score first, without gathering every address that has the number, and
the number's addresses on the candidate streets are found in the number's own slice of `num_order`. Each must
give the very answer of the plain way: compared query by query, the shortcut switched off."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dqkit.contract.address import SearchRequest
from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine, number_spans
from dqkit.engines.address import search as search_mod

QUERIES = [f"{n} {c}" for n in (1, 2, 10, 12, 100, 120, 200, 1200) for c in "abcmnsw"] + ["10 ma", "100 we", "2 n"]


@pytest.mark.parametrize("seed", [demo_reference.DEFAULT_SEED, random.SystemRandom().randrange(1 << 30)])
def test_best_streets_first_same_answers(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = demo_reference.write_state(tmp_path / "state.csv.gz", rows=60_000, seed=seed)
    eng = AddressEngine.from_files([src], out=tmp_path / "state.dqidx")
    monkeypatch.setattr(search_mod, "_FEW_STREETS", 64)  # this small state: the one-letter queries pass it
    settled = 0
    orig = search_mod.Searcher._number_on_best_streets

    def counting(self: search_mod.Searcher, *a: object, **kw: object) -> object:
        nonlocal settled
        got = orig(self, *a, **kw)  # type: ignore[arg-type]
        settled += got is not None
        return got

    monkeypatch.setattr(search_mod.Searcher, "_number_on_best_streets", counting)
    fast = [repr(eng.search(SearchRequest.of(q))) for q in QUERIES]
    assert settled > 0, f"seed {seed}: the shortcut answered no query"
    monkeypatch.setattr(search_mod.Searcher, "_number_on_best_streets", lambda *a, **kw: None)
    full = [repr(eng.search(SearchRequest.of(q))) for q in QUERIES]
    for q, a, b in zip(QUERIES, fast, full, strict=True):
        assert a == b, f"seed {seed}, {q!r}"


@pytest.mark.parametrize("seed", [demo_reference.DEFAULT_SEED, random.SystemRandom().randrange(1 << 30)])
def test_number_on_streets_same_answers(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The addresses carrying the number found from the number's own slice of `num_order` (street ranges searched
    in it, or each one's street read) are those of the (street, number) key ranges searched street by street."""
    src = demo_reference.write_state(tmp_path / "state.csv.gz", rows=60_000, seed=seed)
    eng = AddressEngine.from_files([src], out=tmp_path / "state.dqidx")
    ix = eng.index
    rng = random.Random(seed)
    lines = [ix.address(a).line.lower() for a in rng.sample(range(ix.address_count), 12)]
    lines += [ix.address(int(ix.s_hi[s]) - 1).line.lower() for s in rng.sample(range(len(ix.s_lo)), 8)]  # edges
    lines += [ix.address(int(ix.s_lo[s])).line.lower() for s in rng.sample(range(len(ix.s_lo)), 8)]
    queries = [*QUERIES, *lines, *(x[:len(x) // 2 + 2] for x in lines), "1 s", "1 a", "10 m"]
    monkeypatch.setattr(search_mod, "_FEW_STREETS", 1 << 30)  # no shortcut: every candidate street
    monkeypatch.setattr(search_mod, "_KEY_STREETS", 0)  # ... through the number's slice, however few
    branches = {"spans": 0, "calls": 0}
    spans, held_on = number_spans.spans_in_held, number_spans.held_on_streets

    def counting_spans(*a: Any) -> Any:
        branches["spans"] += 1
        return spans(*a)

    def counting_calls(*a: Any) -> Any:
        branches["calls"] += 1
        return held_on(*a)

    monkeypatch.setattr(number_spans, "spans_in_held", counting_spans)
    monkeypatch.setattr(search_mod, "held_on_streets", counting_calls)
    fast = [repr(eng.search(SearchRequest.of(q))) for q in queries]

    def by_keys(held: Any, s_lo: Any, s_hi: Any, a_street: Any, streets: Any, _st: Any = None) -> tuple[Any, Any]:
        ni = int(ix.a_numint[held[0]]) if len(held) else 0
        keys = (streets << 24) | ni
        starts, ends = ix.a_key.searchsorted(keys, "left"), ix.a_key.searchsorted(keys, "right")
        lens = ends - starts
        which = np.repeat(np.arange(len(streets)), lens)
        return np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum())), which

    monkeypatch.setattr(search_mod, "held_on_streets", by_keys)
    slow = [repr(eng.search(SearchRequest.of(q))) for q in queries]
    assert branches["spans"] >= 5 and branches["calls"] - branches["spans"] >= 5, branches  # both ways taken
    for q, a, b in zip(queries, fast, slow, strict=True):
        assert a == b, f"seed {seed}, {q!r}"
