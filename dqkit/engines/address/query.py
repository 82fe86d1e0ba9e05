"""What a person typed, read as an address in progress: house number, unit, and the words to look up.

Reading is lenient and positional, the way type-down works: a leading number is the house number; a unit
designator (APT, UNIT, STE, #, FLAT ...) takes the token after it as the unit; every other token is a word to
find in the index (street, locality, region or postcode: "ZIP anywhere" is just a word that matches the postcode
field). The last word is a prefix unless the text ends with a separator; a short number right after the street
may be a bare unit ("1200 Main St 4") and is marked so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from dqkit.engines.reference.tokens import is_unit_designator, query_word_forms, token_spans
from dqkit.engines.usaddr.pub28 import UNITS, UNITS_WITHOUT_NUMBER
from dqkit.engines.usaddr.pub28_typos import UNIT, is_pub28_form, ordinal_typo, pub28_typo

_ORDINAL: Final = re.compile(r"^\d+(ST|ND|RD|TH)$")
_UNIT_VALUE: Final = re.compile(r"^(\d{1,4}[A-Z]?|[A-Z]\d{0,3}|\d{1,4}-?[A-Z])$")
_GB_UNIT_WORDS: Final = frozenset({"FLAT"})


@dataclass(slots=True)
class Word:
    """One word to find. `complete` False means the person is still typing it (prefix match)."""

    text: str
    complete: bool
    forms: tuple[str, ...]
    maybe_unit: bool = False  # a short value right after the street: a unit when it matches no word
    fixes: tuple[str, ...] = ()  # what the word may be a slip of (a suffix, a direction, an ordinal, a swap)


@dataclass(slots=True)
class Query:
    raw: str
    number: str = ""
    number_complete: bool = True
    words: list[Word] = field(default_factory=list)
    unit_desig: str = ""
    unit: str = ""
    unit_complete: bool = True
    unit_marker: bool = False  # a designator was typed: the person is heading for a unit

    @property
    def empty(self) -> bool:
        return not (self.number or self.words or self.unit)

    @property
    def typed_chars(self) -> int:
        return len(self.raw.strip())


MAX_CHARS: Final = 200  # an address is shorter; longer input is cut, so no request can cost more than this
MAX_WORDS: Final = 16


def parse_query(text: str) -> Query:
    """Split `text` into house number, unit and words (see the module docstring)."""
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS].rsplit(" ", 1)[0] + " "
    spans = token_spans(text)
    q = Query(raw=text)
    if not spans:
        return q
    ends_open = spans[-1][2] == len(text)  # no separator after the last token: it is being typed
    n = len(spans)
    toks = [s[0] for s in spans]
    i = 0
    seen_word = False
    while i < n:
        t = toks[i]
        last = i == n - 1
        complete = not (last and ends_open)
        designator = (is_unit_designator(t) or (t in _GB_UNIT_WORDS and i == 0)
                      or _designator_slip(t, toks[i + 1] if i + 1 < n else "", seen_word)) and \
            UNITS.get(t, t) not in UNITS_WITHOUT_NUMBER and not q.unit
        if designator and (complete or t == "#") and (seen_word or i == 0 or t == "#"):
            if i + 1 < n:
                q.unit_desig = _designator(t)
                q.unit = toks[i + 1]
                q.unit_complete = not (i + 1 == n - 1 and ends_open)
                q.unit_marker = True
                i += 2
                continue
            if seen_word or q.number:
                q.unit_desig = _designator(t)
                q.unit_marker = True
                i += 1
                continue
        if not q.number and not seen_word and len(t) == 5 and t.isdigit() and complete and i + 2 < n and \
                toks[i + 1].isdigit() and not toks[i + 2][:1].isdigit() and not q.words:
            q.words.append(Word(t, True, (t,)))  # a ZIP typed first ("02139 77 massachusetts"): the number follows
            i += 1
            continue
        if not q.number and not seen_word and t[:1].isdigit() and not (_ORDINAL.match(t) and complete):
            q.number = t
            q.number_complete = complete
            # "12 A Main St" / "12 1/2": a lone letter or fraction glued to the number stays a word; keep simple
            i += 1
            continue
        maybe_unit = bool(seen_word and not q.unit and _UNIT_VALUE.match(t) and not (t.isdigit() and len(t) == 5))
        if len(q.words) >= MAX_WORDS:
            break
        q.words.append(Word(t, complete, query_word_forms(t) if complete else (t,), maybe_unit,
                            word_fixes(t) if complete else ()))
        seen_word = True
        i += 1
    # A unit value typed before the number ("FLAT 4, 10 Downing St") is handled above; a number typed after
    # the unit ("APT 4 1200 MAIN") too, because the number rule only looks at the first numeric token.
    return q



def word_fixes(t: str) -> tuple[str, ...]:
    """The spellings a complete word may be a slip of: a suffix or direction one slip away ("AEV" -> AVE), the
    ordinal its two letters meant ("24HT" -> 24TH), or, for a three-letter name word, each adjacent swap ("ELE" ->
    LEE, EEL). Only readings: `evidence.street_evidence` accepts one only when the candidate street has it."""
    out = [std for kind, std in sorted(pub28_typo(t)) if kind != UNIT]
    ordinal = ordinal_typo(t)
    if ordinal:
        out.append(ordinal)
    if len(t) == 3 and t.isalpha() and not is_pub28_form(t):
        out += [t[:i] + t[i + 1] + t[i] + t[i + 2:] for i in (0, 1) if t[i] != t[i + 1]]
    return tuple(dict.fromkeys(f for f in out if f != t))


def _designator_slip(t: str, nxt: str, seen_word: bool) -> bool:
    """A unit designator typed with one slip ("Aptt 5", "Unti 5", "Suiet 200"), after the street, before a value."""
    return seen_word and len(t) >= 3 and bool(_UNIT_VALUE.match(nxt)) and \
        any(kind == UNIT for kind, _ in pub28_typo(t)) and len(pub28_typo(t)) == 1


def _designator(t: str) -> str:
    if t in UNITS:
        return UNITS[t]
    slip = pub28_typo(t)
    return next(iter(slip))[1] if len(slip) == 1 else t
