"""Issue 33 (first-seen postcodes at national size): `StringTable.find` starts its binary search inside the block
that every 256th string's first 8 bytes give (`_block`). Its answers must be those of the whole binary search:
tables of varied strings (many sharing their first 8 bytes or more, short ones, empty, not ASCII), every string
of them and strings just beside them."""

from __future__ import annotations

import bisect
import random

import pytest

from dqkit.engines.address_index import strings as strings_mod
from dqkit.engines.address_index.strings import StringTable, pack_strings


def _table(words: list[str]) -> StringTable:
    ordered = sorted(set(words), key=lambda w: w.encode())
    return StringTable(*pack_strings(ordered))


def _words(rng: random.Random, n: int) -> list[str]:
    stems = ["", "A", "MAIN", "MAINSTREE", "MAINSTREET", "123456789", "ÉCOLE", "ZZZZZZZZ", "\x01", "A\x00B"]
    out = []
    for _ in range(n):
        tail = "".join(rng.choice("ABZ09É \x00") for _ in range(rng.randrange(0, 5)))
        out.append(rng.choice(stems) + tail)
    return out


@pytest.mark.parametrize("seed", [1, 2, random.SystemRandom().randrange(1 << 30)])
@pytest.mark.parametrize("n", [0, 1, 64, 65, 3000])
def test_find_is_the_full_binary_search(seed: int, n: int) -> None:
    rng = random.Random(seed)
    table = _table(_words(rng, n))
    keys = [w.encode() for w in table]
    assert keys == sorted(keys)
    asked = list(table) + _words(rng, 500) + [w + "\x00" for w in list(table)[:50]] + [w[:-1] for w in table if w]
    for s in asked:
        key = s.encode()
        i = bisect.bisect_left(keys, key)
        want = i if i < len(keys) and keys[i] == key else -1
        assert table.find(s) == want, (s, want)
        assert StringTable(table._blob, table._off).find(s) == want  # a fresh table: not from find's own memory


def test_find_reads_a_block_not_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table([f"{i:07d}" for i in range(100_000)])
    lo, hi = table._block(b"0054321")
    assert hi - lo <= 2 * strings_mod._STRIDE and lo <= 54321 < hi
    assert table.find("0054321") == 54321 and table.find("0054321x") == -1
