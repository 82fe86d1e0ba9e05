"""Lead fields as people write them -> the form the service's schema takes (seed 000 section 2.1).

One place, used by the accessors and `dqkit verify` (through `lead_columns.lead_from_row`) and by the HTTP clients
before they encode a request. The wire itself stays strict: a request that arrives already encoded at
`dqkit serve` is checked against the seed's lengths (E300) as it is, never rewritten.

What is changed, and nothing else:
- every field: surrounding whitespace and non-breaking / zero-width-free blanks (U+00A0, U+2007, U+202F, tabs)
  removed, inner runs of blanks made one space;
- PHONE_NUMBER: "(217) 555-0142", "+1 217-555-0142", "217.555.0142", "1-217-555-0142" -> "2175550142";
  an extension written "x12", "ext. 12", "extension 12" or "#12" after the number goes to PHONE_EXTENSION
  (when that field is empty); "+44 20 7946 0958", "011 44 20 7946 0958", "0044 20 7946 0958" ->
  PHONE_COUNTRY_CODE "44", PHONE_NUMBER "2079460958" (libphonenumber reads the country code); "001 408 555 0142" ->
  "4085550142".
  "(000) 523-4412" and "000-523-4412" -> "0005234412" (ten digits are a domestic number, never an exit code);
  any other run of digits and punctuation is sent as its digits, so every way of writing a number gets one answer.
  A number that is none of these (vanity letters, "n/a") is kept as written, so the engine answers E808 for it;
- ZIP "94501-1234" / "945011234" -> ZIP "94501", ZIPPLUS "1234"; a ZIP that lost its leading zeros in a
  numeric column ("2134") is padded back to five digits;
- STATE: a state, district or territory name ("California", "new york", "Washington D.C.") -> its USPS code.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec

from dqkit.contract.lead import TEXT_FIELDS, TEXT_VALUES, Attribute, LeadRequest, Phone
from dqkit.contract.us_states import state_code_of_name

_BLANKS: Final = re.compile(r"[\s\u00a0\u2007\u202f]+")
# the marker never follows a letter: the X of a vanity number ("555-BOX9") is a letter of it, not an extension
_EXTENSION: Final = re.compile(
    r"^(?P<num>.*?\d.*?)\s*(?:,|;)?\s*(?<![A-Za-z])(?:x|ext\.?|extn\.?|extension|#)\s*(?P<ext>\d{1,6})$",
    re.IGNORECASE)
_PHONE_PUNCT: Final = str.maketrans("", "", " ()-./\u2010\u2011\u2012\u2013\u2014")
_ZIP9: Final = re.compile(r"^(\d{5})(?:[-\s]?(\d{4}))?$")


def clean_text(value: str) -> str:
    """Surrounding blanks (also non-breaking spaces) removed, inner runs of blanks made one space."""
    if not value or (value.isprintable() and value[0] != " " and value[-1] != " " and "  " not in value):
        return value  # already clean: the common case (a non-breaking space or a tab is not printable)
    return _BLANKS.sub(" ", value).strip()


def split_phone(text: str) -> tuple[str, str, str]:
    """(number, extension, country code) of a phone as written; the number as written when it is no number.

    A number written with its country code ("+44 20 ...", the US exit code "011 44 20 ...", the "00 44 20 ..." /
    "001 408 ..." most other countries dial) is read by `phonenumbers` (libphonenumber's country codes and lengths);
    a domestic one is 10 digits, or 11 with a leading 1."""
    raw = clean_text(text)
    if not raw:
        return "", "", ""
    ext = ""
    # every way of writing an extension has an x or a #: without one the regex (~15 us a phone, its lazy groups
    # retried at every place) cannot match
    m = _EXTENSION.match(raw) if "x" in raw or "X" in raw or "#" in raw else None
    if m:
        raw, ext = m.group("num").strip(), m.group("ext")
    compact = raw.translate(_PHONE_PUNCT)
    if not (compact.isascii() and compact.removeprefix("+").isdigit()):
        return raw, ext, ""  # letters (vanity numbers), "n/a": kept, the engine answers E808
    if compact.isdigit() and len(compact) == 10:  # domestic, whatever its first digits: "(000) 523-4412" has no
        # "00" exit code
        return compact, ext, ""
    if compact.isdigit() and len(compact) == 11 and compact[0] == "1":
        return compact[1:], ext, ""
    exit_code = next((p for p in _EXIT_CODES if compact.startswith(p)), "")
    if exit_code:
        return _international(compact[len(exit_code):], compact, ext)
    return compact, ext, ""  # digits of no known length: sent as digits, one answer however they were written


# How a number written with its country code starts: "+", the US exit code, the exit code of most other countries.
_EXIT_CODES: Final = ("+", "011", "00")


def _international(digits: str, raw: str, ext: str) -> tuple[str, str, str]:
    """(national number, extension, country code) of the digits after an exit code; NANP numbers without a country
    code, as the domestic forms; the number as written when libphonenumber reads no country code there."""
    if len(digits) == 11 and digits[0] == "1":
        return digits[1:], ext, ""  # +1 and ten digits: what libphonenumber answers (tested), without its import
    import phonenumbers  # only for numbers written with another country code: no import cost for the usual ones

    try:
        parsed = phonenumbers.parse("+" + digits, None)
    except phonenumbers.NumberParseException:
        return raw, ext, ""
    national: str = phonenumbers.national_significant_number(parsed)  # Italy's leading 0 kept
    if parsed.country_code == 1:
        return (national, ext, "") if len(national) == 10 else (raw, ext, "")
    return national, ext, str(parsed.country_code)


def state_code(value: str) -> str:
    """A state written as a name -> its USPS code; anything else as given."""
    v = clean_text(value)
    if len(v) <= 2:
        return v.upper() if v.isalpha() else v
    return state_code_of_name(v) or v


def split_zip(zip_: str, zipplus: str) -> tuple[str, str]:
    """(ZIP, ZIPPLUS): nine digits split, a ZIP that lost its leading zeros padded."""
    z = clean_text(zip_)
    m = _ZIP9.match(z)
    if m:
        return m.group(1), zipplus or (m.group(2) or "")
    if z.isdigit() and 3 <= len(z) < 5:
        return z.zfill(5), zipplus
    return z, zipplus


def normalize_phone(p: Phone) -> Phone:
    number, ext, country = split_phone(p.phone_number)
    return Phone(
        phone_type=clean_text(p.phone_type).upper(),
        phone_number=number,
        phone_extension=clean_text(p.phone_extension) or ext,
        phone_country_code=clean_text(p.phone_country_code) or country,
    )


def normalize_lead(lead: LeadRequest) -> LeadRequest:
    """The lead with the fields people write freely put in the schema's form (see the module docstring)."""
    changes: dict[str, object] = {}
    if not _all_clean(TEXT_VALUES(lead)):
        for name in TEXT_FIELDS:
            value: str = getattr(lead, name)
            cleaned = clean_text(value)
            if cleaned != value:
                changes[name] = cleaned
    state = state_code(str(changes.get("state", lead.state)))
    if state != lead.state:
        changes["state"] = state
    zip_, zipplus = split_zip(str(changes.get("zip", lead.zip)), str(changes.get("zipplus", lead.zipplus)))
    if zip_ != lead.zip:
        changes["zip"] = zip_
    if zipplus != lead.zipplus:
        changes["zipplus"] = zipplus
    phones = tuple(normalize_phone(p) for p in lead.phones)
    if phones != lead.phones:
        changes["phones"] = tuple(p for p in phones if p.phone_number or p.phone_extension or p.phone_type
                                  or p.phone_country_code)
    attrs = tuple(Attribute(clean_text(a.name), clean_text(a.value)) for a in lead.attributes)
    if attrs != lead.attributes:
        changes["attributes"] = attrs
    return msgspec.structs.replace(lead, **changes) if changes else lead




def _all_clean(values: tuple[str, ...]) -> bool:
    """Whether `clean_text` leaves every value as it is by its first test (printable, no blank at either end, no two
    blanks together), tested on the values joined by "|" at once: a value that fails it puts a blank next to a "|",
    at either end, or two together into the joined text, or a character that is not printable. False also for some
    clean values ("a | b"): they are then cleaned one by one, as always."""
    try:
        joined = "|".join(values)
    except TypeError:  # a value that is no text: each is looked at on its own, as always
        return False
    return (joined.isprintable() and "  " not in joined and "| " not in joined and " |" not in joined
            and joined[:1] != " " and joined[-1:] != " ")
