"""A lead made ready to send, the way a careful integrator would: one place, used by the HTTP client before it
encodes a request and by the local backend before its engine answers, so both answer the same lead.

    lead as read -> normalize_lead (phones as digits, ZIP+4 split, state names as codes, blanks trimmed)
                 -> a unit typed at the end of STREET1 moved to STREET2 when STREET1 is longer than the seed allows
                 -> a street still too long: its suffix and directional words abbreviated (Publication 28)
                 -> free-text fields cut to the seed's lengths (section 2.1) at a word boundary when one is near
                 -> the wire: JSON unless the lead holds a character JSON cannot carry (the seed's E300 for '"' or
                    '&'), then XML, or form data when XML cannot carry it either (control characters)

Why: a request the vendor cannot read is still a billed answer (E300). "1533 Martin Luther King Jr Way Apt R 3"
is 38 characters; sent as typed it is E300 "STREET1 is longer than 35 characters", sent as STREET1 "1533 Martin
Luther King Jr Way" and STREET2 "Apt R 3" it is an address. `Barnes & Associates` on the JSON wire is E300; on
XML it is read, and answered by the vendor's own rules (E200 for the '&').

Codes are never cut (ZIP, STATE, ADDRESS_TYPE, PHONE_TYPE, PHONE_NUMBER): a wrong code stays wrong and is
answered E300, since cutting it could make a different, valid one. `PreparedLead.changes` says in words what
differs from what was read (the phone's punctuation and the trimming of blanks are not changes of content and are
not listed); surfaces show it in the `sent` column.

`answer_as_sent` is how a local engine answers a lead "as the vendor would get it": encoded on the chosen wire and
decoded by the same codec the server uses, so a wire that cannot carry a value gives the wire's answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Literal

import msgspec

from dqkit.contract.lead import FIELD_MAX_LENGTH, ELSGenericMessage, LeadRequest
from dqkit.contract.lead_input import normalize_lead
from dqkit.contract.lead_wire import JSON_RESERVED, RequestFormat, decode_lead, encode_lead
from dqkit.engines.usaddr.pub28 import DIRECTIONALS, SUFFIXES, UNITS, UNITS_WITHOUT_NUMBER

if TYPE_CHECKING:
    from dqkit.engines.lead.engine import LeadEngine

Wire = RequestFormat | Literal["auto"]
# Bump when the preparation changes what is sent: it is part of the client's cache namespace.
PREPARE_VERSION: Final = 1
# Fields cut to the seed's length (free text). Codes are left as they are (see the module docstring).
_CUT_FIELDS: Final = ("PREFIX", "FIRST_NAME", "MIDDLE_NAME", "LAST_NAME", "SUFFIX", "FULL_NAME", "BUSINESS_NAME",
                      "STREET1", "STREET2", "CITY")
_STREET_MAX: Final = FIELD_MAX_LENGTH["STREET1"] or 35
# A unit at the end of a street: a C2 designator (APT, SUITE, STE, UNIT, ...) with its number (one or two short
# tokens: "Apt R 3", "Ste 200", "Unit 4B"), "#" with its number, or a designator that takes none ("Rear", "Lowr").
_NUMBERED: Final = sorted((w for w, std in UNITS.items() if std not in UNITS_WITHOUT_NUMBER), key=len, reverse=True)
_BARE: Final = sorted((w for w, std in UNITS.items() if std in UNITS_WITHOUT_NUMBER), key=len, reverse=True)
_UNIT_AT_END: Final = re.compile(
    r"(?:,\s*|\s+)(?P<unit>(?:(?:" + "|".join(_NUMBERED) + r")\.?\s*#?\s*|#\s*)"
    r"[A-Z0-9][A-Z0-9-]{0,7}(?:\s+[A-Z0-9][A-Z0-9-]{0,3})?|(?:" + "|".join(_BARE) + r"))\s*$",
    re.IGNORECASE)
# Characters XML 1.0 cannot hold at all (not even escaped): the form wire carries them (percent-encoded).
_NOT_XML: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True, slots=True)
class PreparedLead:
    """What is sent for one lead: the lead, the wire (None: answered in-process, no wire) and what changed."""

    lead: LeadRequest
    fmt: RequestFormat | None
    changes: tuple[str, ...] = ()

    @property
    def note(self) -> str:
        """The `sent` column: "" when what is sent is what was read."""
        return "; ".join(self.changes)


def _text_fields(lead: LeadRequest) -> list[str]:
    out = [getattr(lead, f) for f in LeadRequest.__struct_fields__ if f not in ("phones", "attributes")]
    for p in lead.phones:
        out += [p.phone_type, p.phone_number, p.phone_extension, p.phone_country_code]
    for a in lead.attributes:
        out += [a.name, a.value]
    return out


def json_cannot_carry(lead: LeadRequest) -> str:
    """The first character of the lead the JSON wire refuses (the seed: '"' and '&' are E300 there), or ""."""
    for value in _text_fields(lead):
        for ch in JSON_RESERVED:
            if ch in value:
                return ch
    return ""


def choose_wire(lead: LeadRequest, wire: Wire) -> tuple[RequestFormat, str]:
    """The wire to send `lead` on, and why when it is not the one asked for ("" otherwise). A pinned wire
    ("json", "xml", "form") is always used: its answer, E300 included, is what the user asked for."""
    if wire != "auto":
        return wire, ""
    ch = json_cannot_carry(lead)
    if not ch:
        return "json", ""
    if any(_NOT_XML.search(v) for v in _text_fields(lead)):
        return "form", f"sent as form data: JSON cannot carry {ch!r} and XML cannot carry a control character"
    return "xml", f"sent as XML: JSON cannot carry {ch!r}"


def move_unit(street1: str, street2: str) -> tuple[str, str, str] | None:
    """(STREET1, STREET2, the unit) with a unit typed at the end of a too-long STREET1 moved to STREET2 (before
    what STREET2 holds, when both fit), or None when there is nothing to move or the result would not fit."""
    if len(street1) <= _STREET_MAX:
        return None
    m = _UNIT_AT_END.search(street1)
    if m is None:
        return None
    head = street1[: m.start()].rstrip(" ,")
    if len(head.split()) < 2:  # "100 Lot 5": what is left must still be a street (a number and a name)
        return None
    unit = m.group("unit").strip()
    line2 = f"{unit} {street2}".strip() if street2 else unit
    if len(line2) > (FIELD_MAX_LENGTH["STREET2"] or 35):
        return None  # a head still too long is abbreviated or cut next
    return head, line2, unit


def abbreviate_street(street: str, limit: int = _STREET_MAX) -> str:
    """A too-long street with its suffix and directionals written as Publication 28 abbreviates them ("Boulevard"
    -> "BLVD", "North" -> "N"), only until it fits: the last word (the suffix, or a post-directional and the
    suffix before it) and the word after the house number (a pre-directional); then, if still too long, the name
    words that have a standard short form ("Junior" -> "JR", "Saint" -> "ST"). Other words of the name ("Long
    Street Name") are never touched."""
    words = street.split(" ")
    places = [len(words) - 1, len(words) - 2, 1] if len(words) > 2 else []
    for i in dict.fromkeys(places):
        if len(" ".join(words)) <= limit:
            break
        key = words[i].upper().rstrip(".,")
        short = DIRECTIONALS.get(key) if i in (1, len(words) - 1) else None
        short = short or (SUFFIXES.get(key) if i >= len(words) - 2 else None)
        if short and len(short) < len(words[i]):
            words[i] = short
    for i in range(len(words) - 1, 0, -1):  # then name words with a standard short form ("Junior" -> "JR")
        if len(" ".join(words)) <= limit:
            break
        short = _NAME_WORDS.get(words[i].upper().rstrip(".,"))
        if short:
            words[i] = short
    return " ".join(words)


# Words of street names written short in Publication 28's standardized names (never "AND": '&' is an E200 character).
_NAME_WORDS: Final = {"JUNIOR": "JR", "SENIOR": "SR", "SAINT": "ST", "MOUNT": "MT", "FORT": "FT", "DOCTOR": "DR"}


def _cut(value: str, limit: int) -> str:
    """`value` cut to `limit` characters, at the last blank when one is in the last third, never mid-blank."""
    cut = value[:limit]
    blank = cut.rfind(" ")
    if blank >= limit * 2 // 3 and value[limit : limit + 1] != " ":
        cut = cut[:blank]
    return cut.rstrip()


def prepare_lead(lead: LeadRequest, wire: Wire | None = "auto") -> PreparedLead:
    """The lead as it is sent (see the module docstring). `wire`: "auto" (JSON, else a wire that can carry the
    lead), a pinned wire, or None for an in-process engine (no wire)."""
    lead = normalize_lead(lead)
    if wire is None and _fits(lead):  # nothing to move, abbreviate or cut (`move_unit` reads no shorter STREET1)
        return PreparedLead(lead, None, ())
    changes: list[str] = []
    edits: dict[str, str] = {}
    moved = move_unit(lead.street1, lead.street2)
    if moved is not None:
        edits["street1"], edits["street2"], unit = moved
        changes.append(f"unit {unit!r} moved from STREET1 to STREET2 (STREET1 holds at most {_STREET_MAX} "
                       "characters)")
    for field in _CUT_FIELDS:
        name = field.lower()
        value: str = edits.get(name, getattr(lead, name))
        limit = FIELD_MAX_LENGTH[field]
        if limit is not None and len(value) > limit and field in ("STREET1", "STREET2"):
            short = abbreviate_street(value, limit)
            if short != value:
                edits[name] = value = short
                changes.append(f"{field} abbreviated to fit {limit} characters: {short!r}")
        if limit is not None and len(value) > limit:
            edits[name] = _cut(value, limit)
            changes.append(f"{field} cut to {limit} characters: {edits[name]!r}")
    if edits:
        lead = msgspec.structs.replace(lead, **edits)
    if wire is None:
        return PreparedLead(lead, None, tuple(changes))
    fmt, why = choose_wire(lead, wire)
    if why:
        changes.append(why)
    return PreparedLead(lead, fmt, tuple(changes))


_CUT_LIMITS: Final = tuple((f.lower(), FIELD_MAX_LENGTH[f] or 0) for f in _CUT_FIELDS)


def _fits(lead: LeadRequest) -> bool:
    """Whether every free-text field is within the seed's length, STREET1 within `move_unit`'s too: then
    `prepare_lead` changes nothing but what normalize_lead does."""
    return len(lead.street1) <= _STREET_MAX and all(len(getattr(lead, name)) <= limit for name, limit in _CUT_LIMITS)


def note_in_process(lead: LeadRequest) -> str:
    """`prepare_lead(lead, None).note` (the `sent` column of an in-process engine), without preparing the lead
    again when no free-text field is longer than the seed allows: normalize_lead only trims blanks in those
    fields, never lengthens them, so nothing is then moved, abbreviated or cut and there is nothing to say."""
    if _fits(lead):
        return ""
    return prepare_lead(lead, None).note


def answer_as_sent(engine: LeadEngine, prepared: PreparedLead) -> ELSGenericMessage:
    """The local engine's answer to the prepared lead as the server would read it from its wire (the wire's own
    E300 included); in-process (no wire) the engine answers the lead itself."""
    if prepared.fmt is None:
        return engine.verify(prepared.lead)
    body, content_type = encode_lead(prepared.lead, prepared.fmt)
    decoded = decode_lead(body, content_type)
    if isinstance(decoded, LeadRequest):
        return engine.verify(decoded)
    return engine.reject(decoded)
