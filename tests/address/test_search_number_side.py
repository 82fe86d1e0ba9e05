"""Issue 33 (keystroke p99 at national size): a house number and several words typed down ("490 west l",
"10294 glenolhurst ln u") whose words are too common for the sparse stage are combined on the streets holding
the number first (`Matcher.match`'s `within`), instead of on every street of the country; the streets of a
number's addresses are read once for the next keystrokes (`Searcher.held_of`). It must give the very answer of
the full path: compared query by query with a fresh engine that has the way switched off, on a state small enough
to build in a test (every stage of a small state takes the per-street arrays, so the way is taken on every
multi-word query with a number), with queries whose stage is found on the number's streets, ones where it is not
(the number on other streets only: "house number not found"), and ones where a word misses (a relaxed stage)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from dqkit.contract.address import SearchRequest
from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine, matching
from dqkit.engines.address import search as search_mod


def _queries(eng: AddressEngine, seed: int) -> list[str]:
    ix = eng.index
    rng = random.Random(seed)
    out = [f"{n} {w}" for n in (1, 2, 10, 12, 100, 120, 200, 1200) for w in ("s m", "n ma", "w m", "e a", "main s",
                                                                             "oak st a", "s main st 2", "park av")]
    addrs = rng.sample(range(ix.address_count), 30)
    for a, other in zip(addrs, reversed(addrs), strict=True):
        r, o = ix.address(a), ix.address(other)
        line = f"{r.line} {r.street.city} {r.street.postcode}".lower()
        out += [line[:n] for n in range(len(str(r.number)) + 2, len(line) + 1, 2)]  # typed down
        out += [f"{o.number} {r.street.text}".lower(),  # a number of another street: not on this one
                f"{r.number} {r.street.text} {o.street.city}".lower(),  # a city the street is not in: one word misses
                f"{r.number} {r.street.text} a".lower(), f"{r.number} {r.street.text} 1".lower()]
    return out


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("seed", [demo_reference.DEFAULT_SEED, random.SystemRandom().randrange(1 << 30)])
def test_number_side_same_answers(seed: int, sparse: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`sparse`: the sparse stage taken too (the thresholds lowered for this state), which reads the other words on
    the candidates that hold the number first (`Matcher._on_streets`)."""
    src = demo_reference.write_state(tmp_path / "state.csv.gz", rows=40_000, seed=seed)
    path = tmp_path / "state.dqidx"
    eng = AddressEngine.from_files([src], out=path)
    queries = _queries(eng, seed)
    ways = {"within": 0, "kept": 0, "full": 0, "sparse on": 0, "sparse all": 0}
    real_combine = matching.Matcher._combine
    real_on = matching.Matcher._on_streets

    def counting_on(self: matching.Matcher, *a: Any) -> Any:
        got = real_on(self, *a)
        ways["sparse on" if got is not None else "sparse all"] += 1
        return got

    monkeypatch.setattr(matching.Matcher, "_on_streets", counting_on)
    if sparse:
        monkeypatch.setattr(matching, "_SPARSE_MIN_STREETS", 0)
        monkeypatch.setattr(matching, "_SPARSE_RATIO", 1)
        monkeypatch.setattr(matching, "_SEED_MAX", 2048)  # ... the common words still on per-street arrays
        monkeypatch.setattr(matching, "_WITHIN_READ", 1 << 30)

    def counting(self: matching.Matcher, *a: Any, **kw: Any) -> Any:
        got = real_combine(self, *a, **kw)
        if kw.get("on") is not None:
            ways["within" if got is not None else "full"] += 1
        return got

    real_held = search_mod.Searcher.held_of

    def held(self: search_mod.Searcher, ds: Any, ni: int, h: Any) -> Any:
        ways["kept"] += (ds.ordinal, ni) in self._held
        return real_held(self, ds, ni, h)

    monkeypatch.setattr(matching.Matcher, "_combine", counting)
    monkeypatch.setattr(search_mod.Searcher, "held_of", held)
    monkeypatch.setattr(search_mod, "_HELD_KEPT", 2)  # small enough to drop old numbers too
    with monkeypatch.context() as mp:
        mp.setattr(search_mod, "_TIER_STREETS", 0)  # this small state: the way is taken
        fast = [repr(eng.search(SearchRequest.of(q))) for q in queries]
    if sparse:  # the number's candidates qualify, or not (then every candidate is read)
        assert ways["sparse on"] >= len(queries) // 10 and ways["sparse all"] > 0 and ways["kept"] > 0, ways
    else:  # the number's streets qualify, or not (then every street is combined)
        assert ways["within"] >= len(queries) // 4 and ways["full"] > 0 and ways["kept"] > 0, ways
        assert ways["sparse on"] + ways["sparse all"] == 0, ways
    ways.update({"within": 0, "full": 0, "sparse on": 0, "sparse all": 0})
    off = AddressEngine.open(path)  # nothing kept from the run above
    full = [repr(off.search(SearchRequest.of(q))) for q in queries]
    assert not any(ways[w] for w in ("within", "full", "sparse on", "sparse all")), ways
    for q, a, b in zip(queries, fast, full, strict=True):
        assert a == b, f"seed {seed}: {q!r}"
