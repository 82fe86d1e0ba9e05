"""Which word beginnings a vulgar reading of the sound-alike rule may start (issue 32, speed): prepared here so
that the name model skips that rule for most words with one set look-up.

The rule reads a word (`spoof_model._vulgar_sound`) and looks the reading up, whole or by its head
(`_vulgar_compound`), or by its consonants in a word of 6+ letters (a skeleton). Every rewrite of the reading but
one is local, so the reading of a word's first four letters, its last letter dropped, is how the word's reading
starts (a letter at the end may change or go: ph, oo, ee, an h before a vowel, a doubled letter); the one global
rewrite, v = u in a word without vowels, is not told this way (such a word is always read; in any other word a v
reads as itself, and so it does in the heads: `local_sound`). A reading can fit only when that start and some
vulgar reading are one the other's head, or, for 6+ letters, when the start's consonants head some skeleton.
`vulgar_heads.txt` lists the heads of three and four lower-case ASCII letters for which that holds (made by
tests/lead_rules/build_vulgar_heads.py; test_spoof_model.py checks it against `may_start`); any other head is
computed here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Final

HEAD_LETTERS: Final = 4
_NO_VOWELS: Final = str.maketrans("", "", "aeiouy")


def local_sound(head: str, sound: Callable[[str], str]) -> str:
    """The reading of a word's head with its v read as a v, as in a word with a vowel: the reading's one global
    rewrite (v = u in a word without vowels) kept out by a capital V, which no rewrite reads."""
    return sound(head.replace("v", "V")).replace("V", "v") if "v" in head else sound(head)


def may_start(head: str, sound: Callable[[str], str], vulgar: Mapping[str, str], starts: Collection[str],
              skeletons: Collection[str]) -> tuple[bool, bool]:
    """(whether a word of 3-5 letters, whether one of 6+) that begins with `head`, and is no word of v and
    consonants alone, may read as a vulgar word. `starts`: every head of every key of `vulgar` (`vulgar_starts`)."""
    start = local_sound(head, sound)[:-1]
    if len(start) < 2:
        return True, True
    joined = start in starts or any(start[:j] in vulgar for j in range(2, len(start)))
    consonants = start.translate(_NO_VOWELS)
    return joined, joined or any(k.startswith(consonants) for k in skeletons)


def vulgar_starts(vulgar: Collection[str]) -> frozenset[str]:
    return frozenset(k[:j] for k in vulgar for j in range(1, len(k) + 1))


def read(path: Path) -> tuple[frozenset[str], frozenset[str]]:
    """(heads a word of 3-5 letters may start a reading with, heads one of 6+ may): the prepared file."""
    short: frozenset[str] = frozenset()
    long_only: frozenset[str] = frozenset()
    for line in path.read_text(encoding="utf-8").splitlines():
        kind, _, rest = line.partition("\t")
        if kind == "short":
            short = frozenset(rest.split())
        elif kind == "long":
            long_only = frozenset(rest.split())
    return short, short | long_only
