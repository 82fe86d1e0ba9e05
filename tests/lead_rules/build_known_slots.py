"""Rewrites dqkit/engines/lead/wordlists/names_known.bin as the open-addressing table is_known reads
(spoof_model.known_slots, issue 32 part 3: one or two array reads where a binary search took six or seven), from
the hashes the file holds: the sorted array build_name_model.py wrote before session 7, or a table of this layout
(then the same bytes, or a new size after KNOWN_SLOT_BITS changes). No other input: same sources and licences as
the file. build_name_model.py writes this layout itself.

Run: `.venv/bin/python tests/lead_rules/build_known_slots.py`.
"""

from __future__ import annotations

import array
import sys

from dqkit.engines.lead import spoof_model

PATH = spoof_model.WORDLISTS / "names_known.bin"


def held(data: bytes) -> list[int]:
    """The hashes of names_known.bin's bytes, whichever layout: a table has a flag slot after a power of two."""
    table = array.array("I")
    table.frombytes(data)
    if sys.byteorder == "big":
        table.byteswap()
    n = len(table) - 1
    if n > 0 and n & (n - 1) == 0 and table[-1] in (0, 1):  # a table: its hashes, and 0 when the flag says so
        return [h for h in table[:-1] if h] + ([0] if table[-1] else [])
    assert list(table) == sorted(set(table)), "neither a table nor sorted hashes"
    return list(table)


def main() -> None:
    hashes = held(PATH.read_bytes())
    slots = spoof_model.known_slots(hashes)
    if sys.byteorder == "big":
        slots.byteswap()
    PATH.write_bytes(slots.tobytes())
    print(f"names_known.bin: {len(hashes)} hashes in {len(slots) - 1} slots")


if __name__ == "__main__":
    main()
