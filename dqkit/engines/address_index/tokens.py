"""How text becomes search tokens, the same way for the index and for queries.

A token is an upper-case run of letters and digits with accents stripped; apostrophes and periods inside a word
vanish ("O'Farrell" -> OFARRELL, "N.W." -> NW), any other punctuation separates, and `#` is a token of its own
(it announces a unit). Abbreviations work both ways because the index stores each street word together with its
Publication 28 standard form and full word (AVE + AVENUE, N + NORTH, ST + SAINT), and a query word is looked up
under its own spelling and its standard form: "Avenue", "Ave", "Av" and a half-typed "Aven" all find AVE.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Final

from dqkit.engines.usaddr.pub28 import (
    DIRECTIONAL_WORDS,
    DIRECTIONALS,
    NAME_EQUIVALENTS,
    ORDINAL_WORDS,
    STATE_NAMES,
    SUFFIX_WORDS,
    SUFFIXES,
    UNITS,
)

TOKEN_RE: Final = re.compile(r"#|\d+(?:[./]\d+)+\b|[^\W_]+(?:['’.][^\W_]+)*")
_DECIMAL: Final = re.compile(r"^\d+(?:[./]\d+)+$")
_DROP = str.maketrans("", "", "'’.")

_NAME_ALIASES: Final[dict[str, str]] = {**NAME_EQUIVALENTS, **{v: k for k, v in NAME_EQUIVALENTS.items()}}
_ORDINAL_BY_NUMBER: Final[dict[str, str]] = {}
for _word, _n in ORDINAL_WORDS.items():
    _suffix = "TH" if 10 <= _n % 100 <= 20 else {1: "ST", 2: "ND", 3: "RD"}.get(_n % 10, "TH")
    _ORDINAL_BY_NUMBER[f"{_n}{_suffix}"] = _word
_NUMBER_BY_ORDINAL: Final[dict[str, str]] = {w: n for n, w in _ORDINAL_BY_NUMBER.items()}


@lru_cache(maxsize=65536)
def fold(word: str) -> str:
    """One raw word in token form: upper case, accents stripped, apostrophes and periods removed."""
    if _DECIMAL.match(word):
        return word  # a house number such as "846.5" or a fraction "1/2" keeps its separator
    w = word.upper().translate(_DROP)
    if not w.isascii():
        w = "".join(c for c in unicodedata.normalize("NFKD", w) if not unicodedata.combining(c))
    return w


def tokens(text: str) -> list[str]:
    """The tokens of `text`, in order."""
    return [fold(m.group()) for m in TOKEN_RE.finditer(text)]


def token_spans(text: str) -> list[tuple[str, int, int]]:
    """(token, start, end) of each token of `text`, positions in `text` itself (for highlighting)."""
    return [(fold(m.group()), m.start(), m.end()) for m in TOKEN_RE.finditer(text)]


@lru_cache(maxsize=65536)
def street_word_forms(word: str) -> tuple[str, ...]:
    """Every form under which the index stores one word of a street name (itself first)."""
    forms = [word]
    for table, words in ((SUFFIXES, SUFFIX_WORDS), (DIRECTIONALS, DIRECTIONAL_WORDS)):
        std = table.get(word)
        if std:
            forms += [std, words.get(std, std)]
    if word in _NAME_ALIASES:
        forms.append(_NAME_ALIASES[word])
    if word in _ORDINAL_BY_NUMBER:
        forms.append(_ORDINAL_BY_NUMBER[word])
    return tuple(dict.fromkeys(forms))


@lru_cache(maxsize=65536)
def query_word_forms(word: str) -> tuple[str, ...]:
    """The spellings a complete query word is looked up under: itself and its standard forms."""
    forms = [word]
    for table in (SUFFIXES, DIRECTIONALS, UNITS):
        std = table.get(word)
        if std:
            forms.append(std)
    if word in _NAME_ALIASES:
        forms.append(_NAME_ALIASES[word])
    if word in _NUMBER_BY_ORDINAL:
        forms.append(_NUMBER_BY_ORDINAL[word])
    state = STATE_NAMES.get(word)
    if state:
        forms.append(state)
    return tuple(dict.fromkeys(forms))


def is_unit_designator(word: str) -> bool:
    """APT, UNIT, STE, #, ... (any Publication 28 C2 spelling)."""
    return word == "#" or word in UNITS


def unit_designator_prefix(word: str) -> bool:
    """True when `word` could be the start of a unit designator being typed ("AP", "SUI")."""
    return word == "#" or any(u.startswith(word) for u in _UNIT_WORDS_SORTED)


_UNIT_WORDS_SORTED: Final = tuple(sorted(UNITS))
