"""Issue 33 (serve --workers 2 at 100M points: memory bounded whatever clients type): typo matching of a word
being typed keeps each (first letter, length)'s distinct prefixes of the vocabulary, and type-down kept reaching
more of them keystroke after keystroke (157 MB for all of them at national size). They are now kept up to
`matching.TRUNC_CACHE_BYTES`, the least recently used dropped: many different keystrokes with typos, the budget
lowered for a small state, must stay under it and give the answers of a matcher that keeps them all."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from dqkit.contract.address import SearchRequest
from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine, matching

_BUDGET = 40_000  # bytes: a few (letter, length) entries of this state


def _keystrokes(ix: object, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for addr in rng.sample(range(ix.address_count), 40):  # type: ignore[attr-defined]
        r = ix.address(addr)  # type: ignore[attr-defined]
        line = f"{r.line}, {r.street.city}".lower()
        i = rng.randrange(len(line))  # a slip in most addresses: typo matching of the word being typed
        texts.append(line[:i] + rng.choice("qxzj") + line[i + 1:])
    return [t[:k] for t in texts for k in range(3, len(t) + 1)]


@pytest.mark.parametrize("seed", [demo_reference.DEFAULT_SEED, random.SystemRandom().randrange(1 << 30)])
def test_typed_prefixes_kept_within_budget(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = demo_reference.write_state(tmp_path / "state.csv.gz", rows=40_000, seed=seed)
    eng = AddressEngine.from_files([src], out=tmp_path / "state.dqidx")
    keystrokes = _keystrokes(eng.index, seed)
    monkeypatch.setattr(matching, "TRUNC_CACHE_BYTES", _BUDGET, raising=False)
    m = eng.searcher.matcher(eng.index.datasets[0])
    seen: set[tuple[str, int]] = set()
    most = 0
    answers = []
    for q in keystrokes:
        answers.append(repr(eng.search(SearchRequest.of(q))))
        seen |= set(m._trunc)
        # each kept prefix holds at least a list slot of each list and an int object (~50 bytes)
        most = max(most, 50 * sum(len(pref) for pref, _ in m._trunc.values()))
    assert most <= _BUDGET, most
    assert len(seen) > len(m._trunc), "no entry was dropped: the budget was not reached"
    monkeypatch.setattr(matching, "TRUNC_CACHE_BYTES", 1 << 40, raising=False)
    fresh = AddressEngine.open(tmp_path / "state.dqidx")
    for q, a in zip(keystrokes, answers, strict=True):
        assert repr(fresh.search(SearchRequest.of(q))) == a, f"seed {seed}: {q!r}"
    kept = fresh.searcher.matcher(fresh.index.datasets[0])._trunc
    assert len(kept) == len(seen), "the unbounded matcher should keep every entry"
