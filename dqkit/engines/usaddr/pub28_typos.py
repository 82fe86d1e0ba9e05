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
from collections.abc import Mapping
from functools import lru_cache
from typing import Final

from dqkit.engines.usaddr.pub28 import DIRECTIONALS, SUFFIXES, UNITS

SUFFIX: Final = "suffix"
DIRECTION: Final = "direction"
UNIT: Final = "unit"
_TABLES: Final[tuple[tuple[str, Mapping[str, str]], ...]] = (
    (SUFFIX, SUFFIXES), (DIRECTION, DIRECTIONALS), (UNIT, UNITS))
_ORDINAL_LIKE: Final = re.compile(r"^(\d+)([A-Z]{1,3})$")
_DIGIT_LETTER_SWAP: Final = re.compile(r"^(\d+)([A-Z])(\d)([A-Z])$")
_ORDINAL_LETTERS: Final = frozenset("STNDRH")


def is_pub28_form(word: str) -> bool:
    """A suffix, direction or unit designator as typed (any Publication 28 spelling)."""
    return word in _FORMS


Reading = tuple[str, str]  # (kind, standard form)


def _index() -> tuple[dict[str, set[Reading]], dict[tuple[int, str], set[Reading]], dict[str, set[Reading]]]:
    """Every form; every form with letter i taken out, keyed by i (a wrong letter at i); every form with one letter
    taken out (a letter missing). One edit is then a few dictionary look-ups, not a scan of the tables."""
    forms: dict[str, set[Reading]] = {}
    wrong: dict[tuple[int, str], set[Reading]] = {}
    missing: dict[str, set[Reading]] = {}
    for kind, table in _TABLES:
        for form, std in table.items():
            forms.setdefault(form, set()).add((kind, std))
            if len(form) < 2:
                continue
            for i in range(len(form)):
                cut = form[:i] + form[i + 1:]
                wrong.setdefault((i, cut), set()).add((kind, std))
                missing.setdefault(cut, set()).add((kind, std))
    return forms, wrong, missing


_FORMS, _WRONG, _MISSING = _index()
_NONE: Final[frozenset[Reading]] = frozenset()


@lru_cache(maxsize=65536)
def pub28_typo(word: str) -> frozenset[Reading]:
    """(kind, standard form) of each Publication 28 suffix, direction or unit designator `word` may be a slip of
    (one edit: a letter doubled, missing, extra or wrong, or two neighbours swapped): empty for a valid form
    itself or a word out of reach. Several readings are normal for short words ("TR": DR, TER); the evidence
    check takes the one the candidate street has, and two real streets that both fit are Multiple matches."""
    if len(word) < 2 or not word.isalpha() or word in _FORMS:
        return _NONE
    near: set[Reading] = set(_MISSING.get(word, ()))
    for i in range(len(word)):
        cut = word[:i] + word[i + 1:]
        if len(cut) >= 2 or (i + 1 < len(word) and word[i] == word[i + 1]):  # "NN" is N doubled; "NX" is not N
            near |= _FORMS.get(cut, set())
        near |= _WRONG.get((i, cut), set())
        if i + 1 < len(word) and word[i] != word[i + 1]:
            near |= _FORMS.get(word[:i] + word[i + 1] + word[i] + word[i + 2:], set())
    return frozenset(near) if near else _NONE


def _ordinal_letters(n: int) -> str:
    if n % 100 in (11, 12, 13):
        return "TH"
    return {1: "ST", 2: "ND", 3: "RD"}.get(n % 10, "TH")


@lru_cache(maxsize=8192)
def ordinal_typo(word: str) -> str:
    """The ordinal `word` was meant to be when its letters are a slip ("24HT" -> "24TH", "11ST" -> "11TH",
    "1TS" -> "1ST"; the last digit swapped with the first letter: "1T4H" -> "14TH"), else "". Only the two
    letters are forgiven, never a digit."""
    swapped = _DIGIT_LETTER_SWAP.match(word)
    if swapped is not None:  # the digits are all there, in order: only the swap is undone, the letters must fit
        d, a, last, b = swapped.groups()
        return d + last + a + b if _ordinal_letters(int(d + last)) == a + b else ""
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
