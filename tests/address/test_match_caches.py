"""Issue 33 (keystroke p99 at national size): type-down keeps what the matcher worked out for the last keystrokes
(the sparse stage's candidate streets by seed words, the other words' levels on them, the per-street arrays of
the most common words), so the readings of one keystroke and the next keystroke do not read them again. Kept
arrays are read-only, and the answers must be those of a matcher that keeps nothing: every prefix of addresses
typed in order, compared one by one, the sizes that switch the caches on lowered for a small state."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from dqkit.contract.address import SearchRequest
from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine, matching, sparse_match


@pytest.mark.parametrize("seed", [demo_reference.DEFAULT_SEED, random.SystemRandom().randrange(1 << 30)])
def test_kept_stages_same_answers(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = demo_reference.write_state(tmp_path / "state.csv.gz", rows=40_000, seed=seed)
    eng = AddressEngine.from_files([src], out=tmp_path / "state.dqidx")
    ix = eng.index
    rng = random.Random(seed)
    texts = []
    for addr in rng.sample(range(ix.address_count), 14):
        r = ix.address(addr)
        texts.append(f"{r.line} apt 2, {r.street.city}, {r.street.region} {r.street.postcode}".lower())
    keystrokes = [t[:k] for t in texts for k in range(3, len(t) + 1)] + ["1 s", "12 m", "200 w 5", "100 n main st a"]
    monkeypatch.setattr(matching, "_SPARSE_MIN_STREETS", 0)  # this small state: the sparse stage and the caches
    monkeypatch.setattr(matching, "_SPARSE_RATIO", 1)
    monkeypatch.setattr(matching, "_SEED_MAX", 64)  # ... the common words on per-street arrays
    monkeypatch.setattr(matching, "_DENSE_CACHE_POSTINGS", 0)
    monkeypatch.setattr(matching, "_SEED_CACHE", 4)  # ... small enough to drop old entries too
    monkeypatch.setattr(matching, "_LEVELS_CACHE", 8)
    monkeypatch.setattr(matching, "_DENSE_CACHE", 3)
    reads = {"n": 0}
    real_fw = sparse_match.forward_levels

    def counting(*a: Any) -> Any:
        reads["n"] += 1
        return real_fw(*a)

    monkeypatch.setattr(matching, "forward_levels", counting)
    answers = [repr(eng.search(SearchRequest.of(q))) for q in keystrokes]
    m = eng.searcher.matcher(ix.datasets[0])
    assert m._seeds and m._levels and m._dense, "nothing was kept"
    assert not next(iter(m._dense.values())).flags.writeable
    reads_kept, reads["n"] = reads["n"], 0
    real_match = matching.Matcher.match
    monkeypatch.setattr(matching.Matcher, "match", lambda self, q, remember=False, within=None: real_match(self, q))
    fresh = [repr(eng.search(SearchRequest.of(q))) for q in keystrokes]
    assert reads_kept < reads["n"], (reads_kept, reads["n"])  # the kept levels spared forward-index reads
    for q, a, b in zip(keystrokes, answers, fresh, strict=True):
        assert a == b, f"seed {seed}: {q!r}"

