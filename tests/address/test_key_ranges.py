"""Issue 33 (first-seen addresses at national size): a house number's (street, number) key ranges are searched
in the window the candidate streets' addresses span (`number_spans.key_ranges`), not in the whole key array. The
ranges must be the whole array's: random sets of one to sixteen streets (neighbours and streets far apart), house
numbers held, not held, 0 and the largest, on a generated state."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from dqkit.datagen import demo_reference
from dqkit.engines.address import AddressEngine
from dqkit.engines.address.number_spans import key_ranges
from dqkit.engines.address_index.reader import NUMINT_MAX, numint


@pytest.mark.parametrize("seed", [demo_reference.DEFAULT_SEED, random.SystemRandom().randrange(1 << 30)])
def test_key_ranges_are_the_whole_arrays(seed: int, tmp_path: Path) -> None:
    src = demo_reference.write_state(tmp_path / "state.csv.gz", rows=20_000, seed=seed)
    ix = AddressEngine.from_files([src], out=tmp_path / "state.dqidx").index
    rng = random.Random(seed)
    n = ix.street_count
    found = 0
    for _ in range(600):
        first = rng.randrange(n)
        size = rng.randint(1, 16)
        if rng.random() < 0.5:  # neighbours (a ZIP's streets), else anywhere
            streets = np.arange(first, min(first + size, n), dtype=np.int64)
        else:
            streets = np.array(rng.sample(range(n), min(size, n)), dtype=np.int64)
        a = rng.randrange(int(ix.s_lo[first]), int(ix.s_hi[first]))
        ni = rng.choice([numint(ix.number_text(a)), 0, NUMINT_MAX, rng.randrange(1, 30000)])
        keys = (streets << 24) | ni
        want_starts = ix.a_key.searchsorted(keys, "left")
        want_lens = ix.a_key.searchsorted(keys, "right") - want_starts
        starts, lens = key_ranges(ix.a_key, ix.s_lo, ix.s_hi, streets, ni)
        assert np.array_equal(lens, want_lens) and np.array_equal(starts[lens > 0], want_starts[lens > 0]), ni
        assert np.array_equal(starts, want_starts), ni
        found += int(lens.sum() > 0)
    assert found >= 40  # the held numbers were found (94 of 600 with the default seed)
    assert len(key_ranges(ix.a_key, ix.s_lo, ix.s_hi, np.zeros(0, dtype=np.int64), 5)[0]) == 0
