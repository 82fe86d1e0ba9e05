"""Typed words one slip away from a Publication 28 form: "Aev", "Srteet", "Norht", "Raod", "tS", "Aptt", "24ht".

People mistype the short words of an address as often as the name, and a suffix or direction lost to one swapped
letter used to cost the whole address. A word is read as the form it was meant to be only when it is not itself a
valid form ("Pl" typed for a street that is a "Ln" is a contradiction, never a typo). One
edit counts: a letter doubled ("Stt", "Avve"), two neighbours swapped ("Aev", "tS", "Norht", "Raod"), a letter
missing, extra or wrong ("Stret", "Sreet", "Dsr"). A short word has several readings ("TR": DR or TER).

What is read here is only a reading: the evidence check (`dqkit.engines.address.evidence`) accepts one only when
it is the form the candidate street itself has, so a misread word can cost a match, never create one.
Ordinals keep their digits and forgive the two letters ("24ht", "1ts", "11st" -> 24TH, 1ST, 11TH).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Final

from rapidfuzz.distance import OSA

from dqkit.engines.usaddr.pub28 import DIRECTIONALS, SUFFIXES, UNITS

SUFFIX: Final = "suffix"
DIRECTION: Final = "direction"
UNIT: Final = "unit"
_TABLES: Final[tuple[tuple[str, Mapping[str, str]], ...]] = (
    (SUFFIX, SUFFIXES), (DIRECTION, DIRECTIONALS), (UNIT, UNITS))
_ORDINAL_LIKE: Final = re.compile(r"^(\d+)([A-Z]{1,3})$")
_ORDINAL_LETTERS: Final = frozenset("STNDRH")


def is_pub28_form(word: str) -> bool:
    """A suffix, direction or unit designator as typed (any Publication 28 spelling)."""
    return any(word in table for _, table in _TABLES)


def _undoubled(word: str) -> Iterable[str]:
    for i in range(len(word) - 1):
        if word[i] == word[i + 1]:
            yield word[:i] + word[i + 1:]


def _swapped(word: str) -> Iterable[str]:
    for i in range(len(word) - 1):
        if word[i] != word[i + 1]:
            yield word[:i] + word[i + 1] + word[i] + word[i + 2:]


def _standards(candidates: Iterable[str]) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for c in candidates:
        for kind, table in _TABLES:
            std = table.get(c)
            if std:
                out.add((kind, std))
    return out


@lru_cache(maxsize=8192)
def pub28_typo(word: str) -> frozenset[tuple[str, str]]:
    """(kind, standard form) of each Publication 28 suffix, direction or unit designator `word` may be a slip of
    (one edit: a letter doubled, missing, extra or wrong, or two neighbours swapped): empty for a valid form
    itself or a word out of reach. Several readings are normal for short words ("TR": DR, TER); the evidence
    check takes the one the candidate street has, and two real streets that both fit are Multiple matches."""
    if len(word) < 2 or not word.isalpha() or is_pub28_form(word):
        return frozenset()
    near = _standards(_undoubled(word)) | _standards(_swapped(word))
    for kind, table in _TABLES:
        for form, std in table.items():
            if abs(len(form) - len(word)) <= 1 and len(form) >= 2 and OSA.distance(word, form, score_cutoff=1) <= 1:
                near.add((kind, std))
    return frozenset(near)


def _ordinal_letters(n: int) -> str:
    if n % 100 in (11, 12, 13):
        return "TH"
    return {1: "ST", 2: "ND", 3: "RD"}.get(n % 10, "TH")


@lru_cache(maxsize=8192)
def ordinal_typo(word: str) -> str:
    """The ordinal `word` was meant to be when its letters are a slip ("24HT" -> "24TH", "11ST" -> "11TH",
    "1TS" -> "1ST"), else "". Only the two letters are forgiven, never a digit."""
    m = _ORDINAL_LIKE.match(word)
    if m is None or not set(m.group(2)) <= _ORDINAL_LETTERS:
        return ""
    digits, letters = m.groups()
    right = _ordinal_letters(int(digits))
    if letters == right:
        return ""
    if len(letters) == 1 and letters not in right:
        return ""
    return digits + right
