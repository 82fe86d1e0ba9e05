"""Issue 33 (validate at national size): `sparse_match.forward_levels` reads consecutive candidate streets as one
slice of the forward index and a word's levels as the largest of (entry is of the kind) x (kind's base + in the
street field). Its levels must be those of marking kind by kind in order (typo, prefix, exact: each later one
overwriting), over the gathered entries: random sets of streets (consecutive, in order, shuffled, far apart) and
words of every kind, on a generated state."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine, sparse_match
from dqkit.engines.address.sparse_match import WordIds, forward_levels
from dqkit.engines.address_index.build import FIELD_STREET
from dqkit.engines.address_index.store import ReferenceIndex


def _marked(ix: ReferenceIndex, streets: npt.NDArray[np.int64], words: list[WordIds]) -> list[npt.NDArray[np.int8]]:
    """The levels as forward_levels marked them before: every street's entries gathered, kinds marked in order."""
    fa, fb = ix.fw_ptr[streets], ix.fw_ptr[streets + 1]
    lens = fb - fa
    starts = np.cumsum(lens) - lens
    at = np.repeat(fa - starts, lens) + np.arange(int(lens.sum()))
    ent = ix.fw_tok[at]
    in_street = ix.fw_field[at] == FIELD_STREET
    out = []
    for ids in words:
        lvl = np.zeros(len(ent), dtype=np.int8)
        for kind, sel in ((sparse_match._FUZZY, np.isin(ent, ids.fuzzy)),
                          (sparse_match._PREFIX, (ent >= ids.plo) & (ent < ids.phi)),
                          (sparse_match._EXACT, np.isin(ent, ids.exact))):
            lvl[sel] = np.where(in_street[sel], *kind)
        out.append(np.maximum.reduceat(lvl, starts))
    return out


def test_street_level_is_locality_level_plus_one() -> None:
    assert all(s == loc + 1 for s, loc in (sparse_match._EXACT, sparse_match._PREFIX, sparse_match._FUZZY))


@pytest.mark.parametrize("seed", [demo_reference.DEFAULT_SEED, random.SystemRandom().randrange(1 << 30)])
def test_forward_levels_are_the_marks(seed: int, tmp_path: Path) -> None:
    src = demo_reference.write_state(tmp_path / "state.csv.gz", rows=20_000, seed=seed)
    ix = AddressEngine.from_files([src], out=tmp_path / "state.dqidx").index
    rng = random.Random(seed)
    n, vocab = ix.street_count, len(ix.tokens(0).words)
    consecutive = 0
    for _ in range(400):
        first, size = rng.randrange(n), rng.randint(1, 300)
        streets = np.arange(first, min(first + size, n), dtype=np.int64)
        shape = rng.randrange(4)
        if shape == 1 and len(streets) > 2:  # the same span, out of order
            streets = streets[rng.sample(range(len(streets)), len(streets))]
        elif shape == 3 and len(streets) > 3:  # ... its first and last in place
            middle = streets[1:-1].tolist()
            rng.shuffle(middle)
            streets = np.array([int(streets[0]), *middle, int(streets[-1])], dtype=np.int64)
        elif shape == 2:
            streets = np.unique(np.array(rng.sample(range(n), min(size, n)), dtype=np.int64))
        consecutive += int(bool((np.diff(streets) == 1).all()))
        # words: tokens these streets hold (so that they match), others, prefix ranges, 0-9 typo ids
        held = ix.fw_tok[int(ix.fw_ptr[int(streets.min())]):int(ix.fw_ptr[int(streets.max()) + 1])].tolist()
        words = []
        for _ in range(rng.randint(1, 5)):
            pick = [*rng.sample(held, min(3, len(held))), *rng.sample(range(vocab), 3)]
            exact = sorted(set(rng.sample(pick, rng.randint(0, 2))))
            typos = rng.sample(pick, rng.randint(0, 6)) + rng.sample(range(vocab), rng.randint(0, 4))
            fuzzy = [i for i in dict.fromkeys(typos) if i not in exact]
            plo = rng.randrange(vocab)
            phi = plo + rng.choice([0, 0, 1, rng.randint(1, 500)])
            if not exact and not fuzzy and phi == plo:
                exact = [pick[0]]
            words.append(WordIds(exact, plo, min(phi, vocab), fuzzy))
        got = forward_levels(ix, streets, words)
        assert got is not None
        want = _marked(ix, streets, words)
        assert len(got) == len(want)
        assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(got, want, strict=True))
    assert consecutive >= 60  # ~100 of 400 draws
