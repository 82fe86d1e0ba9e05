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
from functools import lru_cache
from typing import Final

from dqkit.engines.address_index.tokens import is_unit_designator, query_word_forms, token_spans
from dqkit.engines.usaddr.pub28 import DIRECTIONALS, SUFFIXES, UNITS, UNITS_WITHOUT_NUMBER
from dqkit.engines.usaddr.pub28_typos import UNIT, is_pub28_form, ordinal_typo, pub28_typo

_ORDINAL: Final = re.compile(r"^\d+(ST|ND|RD|TH)$")
_UNIT_VALUE: Final = re.compile(r"^(\d{1,4}[A-Z]?|[A-Z]\d{0,3}|\d{1,4}-?[A-Z])$")
_GB_UNIT_WORDS: Final = frozenset({"FLAT"})
_STATE_DESIGNATORS: Final = frozenset({"FL", "AP"})  # Publication 28 unit designators that are also state codes


@dataclass(slots=True)
class Word:
    """One word to find. `complete` False means the person is still typing it (prefix match)."""

    text: str
    complete: bool
    forms: tuple[str, ...]
    maybe_unit: bool = False  # a short value right after the street: a unit when it matches no word

    @property
    def fixes(self) -> tuple[str, ...]:
        """What the word may be a slip of (a suffix, a direction, an ordinal, a swap); read only for a word no
        street has, so worked out only then (most words of most queries are found as typed)."""
        return word_fixes(self.text) if self.complete else ()


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
    number_forms: tuple[str, ...] = ()  # the spellings a reference may hold the typed number under (exact level)

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
    text = text.replace("½", " 1/2")
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
        designator = not q.unit and \
            (is_unit_designator(t) or (t in _GB_UNIT_WORDS and i == 0)
             or (seen_word and i + 1 < n and _designator_slip(t, toks[i + 1]))) and \
            UNITS.get(t, t) not in UNITS_WITHOUT_NUMBER and not _state_not_unit(toks, i)
        if designator and (complete or t == "#") and (seen_word or i == 0 or t == "#"):
            if i + 1 < n:
                took = _unit_value(text, spans, i + 1)
                q.unit_desig = _designator(t)
                q.unit = "-".join(toks[i + 1:i + 1 + took])
                q.unit_complete = not (i + took == n - 1 and ends_open)
                q.unit_marker = True
                i += 1 + took
                continue
            if seen_word or q.number:
                q.unit_desig = _designator(t)
                q.unit_marker = True
                i += 1
                continue
        if not q.number and not seen_word and _zip5(t) and complete and i + 2 < n and \
                toks[i + 1].isdigit() and not toks[i + 2][:1].isdigit() and not q.words:
            q.words.append(Word(t, True, (t,)))  # a ZIP typed first ("02139 77 massachusetts"): the number follows
            i += 1
            continue
        if not q.number and not seen_word and t[:1].isdigit() and not (_ORDINAL.match(t) and complete):
            took = _house_number(text, spans, i, ends_open, q) if complete or i + 1 < n else 1
            if took == 1:
                q.number = t
                q.number_forms = number_forms(t) if complete else ()
            q.number_complete = complete if took == 1 else not (i + took == n and ends_open)
            i += took
            continue
        if seen_word and q.words and _zip5(q.words[-1].text) and t.isdigit() and \
                (len(t) == 4 or (not complete and len(t) < 4)):
            i += 1  # the ZIP+4 add-on ("95112-1234"): the reference holds 5-digit ZIPs, and it is never a unit
            continue
        maybe_unit = bool(seen_word and not q.unit and _UNIT_VALUE.match(t) and not _zip5(t))
        if len(q.words) >= MAX_WORDS:
            break
        q.words.append(Word(t, complete, query_word_forms(t) if complete else (t,), maybe_unit))
        seen_word = True
        i += 1
    # A unit value typed before the number ("FLAT 4, 10 Downing St") is handled above; a number typed after
    # the unit ("APT 4 1200 MAIN") too, because the number rule only looks at the first numeric token.
    return q



def _unit_value(text: str, spans: list[tuple[str, int, int]], i: int) -> int:
    """How many tokens the unit value at `i` takes: two when a hyphen alone joins it to a short value ("H-370",
    "12-B": one identifier, written as the reference may write it without the hyphen, "H370"), else one."""
    if i + 1 < len(spans) and text[spans[i][2]:spans[i + 1][1]] == "-" and len(spans[i + 1][0]) <= 5 and \
            not _zip5(spans[i + 1][0]):
        return 2
    return 1


def _zip5(t: str) -> bool:
    """A five-digit token: a ZIP (a ZIP+4 is two tokens, "95112" and "1234")."""
    return len(t) == 5 and t.isdigit()


def _state_not_unit(toks: list[str], i: int) -> bool:
    """FL (floor) and AP are also state codes: before a ZIP ("Tampa FL 33647") or as the last word ("Tampa FL")
    they are the state, never a unit "FL 33647"."""
    if toks[i] not in _STATE_DESIGNATORS or i == 0:
        return False
    return i + 1 == len(toks) or _zip5(toks[i + 1])


@lru_cache(maxsize=65536)
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


def _designator_slip(t: str, nxt: str) -> bool:
    """A unit designator typed with one slip ("Aptt 5", "Unti 5", "Suiet 200"), after the street, before a value."""
    if len(t) < 3 or not _UNIT_VALUE.match(nxt):
        return False
    slips = pub28_typo(t)
    return len(slips) == 1 and next(iter(slips))[0] == UNIT


def _designator(t: str) -> str:
    if t in UNITS:
        return UNITS[t]
    slip = pub28_typo(t)
    return next(iter(slip))[1] if len(slip) == 1 else t


_FRACTIONS: Final = frozenset({"1/2", "1/4", "3/4", "1/3", "2/3"})
_LETTER_NUMBER: Final = re.compile(r"^(\d+)-?([A-Z])$")
_HALF: Final = re.compile(r"^(\d+)(?:\.5| 1/2|-1/2|1/2)$")


@lru_cache(maxsize=16384)
def number_forms(number: str) -> tuple[str, ...]:
    """The ways one house number is written, the typed one first: "2653 1/2" / "2653-1/2" / "2653.5",
    "2653A" / "2653-A" / "2653 A"; the reference's own spelling is the one that matches."""
    forms = [number]
    m = _HALF.match(number)
    if m:
        n = m.group(1)
        forms += [f"{n} 1/2", f"{n}-1/2", f"{n}1/2", f"{n}.5"]
    m = _LETTER_NUMBER.match(number)
    if m:
        n, letter = m.groups()
        forms += [f"{n}{letter}", f"{n}-{letter}", f"{n} {letter}"]
    parts = number.split(" ", 1)
    if len(parts) == 2 and parts[1] in _FRACTIONS:
        forms += [f"{parts[0]}-{parts[1]}", f"{parts[0]}{parts[1]}"]
    return tuple(dict.fromkeys(forms))


def _house_number(text: str, spans: list[tuple[str, int, int]], i: int, ends_open: bool, q: Query) -> int:
    """Read the house number starting at token `i` with what belongs to it: a fraction ("2653 1/2",
    "2653-1/2"), a letter ("2653-A", "2653 A Main St", not "12 B St" where B is the street), the second half of
    a hyphenated number ("123-45", Queens; also a range "3780-3790"). Sets `q.number` (as typed, one space or
    hyphen) and `q.number_forms`; returns how many tokens it took."""
    t = spans[i][0]
    if i + 1 >= len(spans) or not t.isdigit():
        return 1
    nxt, start, _ = spans[i + 1]
    if i + 1 == len(spans) - 1 and ends_open:
        return 1  # still being typed
    gap = text[spans[i][2]:start]
    after = spans[i + 2][0] if i + 2 < len(spans) else ""
    if nxt in _FRACTIONS and gap.strip() in ("", "-"):
        q.number = f"{t} {nxt}"
    elif gap.strip() == "-" and (nxt.isdigit() or (len(nxt) == 1 and nxt.isalpha())):
        q.number = f"{t}-{nxt}"
    elif gap.strip() == "" and gap and len(nxt) == 1 and nxt.isalpha() and nxt not in DIRECTIONALS and \
            (after[:1].isalpha() or _ORDINAL.match(after)) and not _street_type_closes(text, spans, i + 2):
        q.number = f"{t}{nxt}"  # "2653 A Meridian Ave": not "12 B St", where B is the street's name
    else:
        return 1
    q.number_forms = number_forms(q.number)
    return 2


def _street_type_closes(text: str, spans: list[tuple[str, int, int]], j: int) -> bool:
    """Token `j` is a street type ending the street ("12 B St", "12 C Ts, Hayward"): the letter before it is
    the street's name, not part of the house number."""
    t = spans[j][0]
    if t in SUFFIXES:  # unless another type follows ("12 D Park Way": PARK is the name)
        return j + 1 >= len(spans) or (spans[j + 1][0] not in SUFFIXES and not pub28_typo(spans[j + 1][0]))
    rest = text[spans[j][2]:].lstrip()
    return bool(pub28_typo(t)) and (not rest or rest[0] == ",")
