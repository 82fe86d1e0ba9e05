"""Issue 33 (keystroke p99 at national size): a house number and a street's first letter ("1236 b") is answered
from the busiest streets of the best word score first, without gathering every address that has the number. The
shortcut must give the very answer of the full path: compared query by query, the shortcut switched off."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dqkit.contract.address import SearchRequest
from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine
from dqkit.engines.address import search as search_mod

QUERIES = [f"{n} {c}" for n in (1, 2, 10, 12, 100, 120, 200, 1200) for c in "abcmnsw"] + ["10 ma", "100 we", "2 n"]


@pytest.mark.parametrize("seed", [demo_reference.DEFAULT_SEED, random.SystemRandom().randrange(1 << 30)])
def test_best_streets_first_same_answers(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = demo_reference.write_state(tmp_path / "state.csv.gz", rows=60_000, seed=seed)
    eng = AddressEngine.from_files([src], out=tmp_path / "state.dqidx")
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
