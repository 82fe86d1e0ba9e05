"""Issue 33 (national size): every stage of matching (the strict AND, typos, one or two words missing) runs on the
candidate streets the most selective words reach instead of one byte per street of the dataset. The answers must
be those of the per-street arrays: keystrokes and validations (clean, a typo, a made-up street, a wrong ZIP)
compared one by one, the sparse path forced on a small state and switched off."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from dqkit.contract.address import SearchRequest
from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine, matching


def _texts(eng: AddressEngine, rng: random.Random, n: int) -> list[str]:
    ix = eng.index
    out = []
    for a in rng.sample(range(ix.address_count), n):
        r = ix.address(a)
        s = r.street
        out.append(f"{r.line}, {s.city}, {s.region} {s.postcode}".lower())
    return out


def _slip(text: str, rng: random.Random) -> str:
    i = rng.randrange(len(text) - 1)
    return text[:i] + text[i + 1] + text[i] + text[i + 2:]


@pytest.mark.parametrize("seed", [demo_reference.DEFAULT_SEED, random.SystemRandom().randrange(1 << 30)])
def test_sparse_stages_same_answers(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = demo_reference.write_state(tmp_path / "state.csv.gz", rows=40_000, seed=seed)
    eng = AddressEngine.from_files([src], out=tmp_path / "state.dqidx")
    rng = random.Random(seed)
    full = _texts(eng, rng, 40)
    keystrokes = [t[:k] for t in full[:12] for k in range(3, min(30, len(t)) + 1)]
    keystrokes += [_slip(t, rng)[:k] for t in full[12:18] for k in range(6, len(t) + 1, 3)]
    keystrokes += ["1 s", "12 m", "200 w 5", "main st", "s", "oak"]
    made = [t.replace(t.split()[1], "quodarfen", 1) for t in full[:10]]
    validations = full + [_slip(t, rng) for t in full] + made + [t[:-5] + "00000" for t in full[:10]]

    def answers() -> list[str]:
        return [repr(eng.search(SearchRequest.of(q))) for q in keystrokes] + \
               [repr(eng.validate(SearchRequest.of(v))) for v in validations]

    monkeypatch.setattr(matching, "_SPARSE_MIN_STREETS", 0)
    monkeypatch.setattr(matching, "_SPARSE_RATIO", 1)
    monkeypatch.setattr(matching, "_SEED_MAX", 1 << 30)
    taken: dict[tuple[int, bool], int] = {}
    real = matching.Matcher._sparse_stage

    def spy(self: matching.Matcher, words: Any, ids: Any, may_miss: int, fuzzy: bool, *rest: Any) -> Any:
        got = real(self, words, ids, may_miss, fuzzy, *rest)
        if not isinstance(got, matching._Dense):
            taken[may_miss, fuzzy] = taken.get((may_miss, fuzzy), 0) + 1
        return got

    monkeypatch.setattr(matching.Matcher, "_sparse_stage", spy)
    sparse = answers()
    assert {(0, False), (0, True), (1, True)} <= set(taken), taken  # every kind of stage ran sparse
    monkeypatch.setattr(matching.Matcher, "_sparse_stage", lambda *a, **kw: matching._DENSE)
    dense = answers()
    for q, a, b in zip(keystrokes + validations, sparse, dense, strict=True):
        assert a == b, f"seed {seed}: {q!r}"
