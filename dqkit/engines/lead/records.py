"""The engine's reference records: what "the number matches the database" and the match-level scores mean locally.

The vendor scores a lead against its directory of phones, names and addresses. dqkit has no such directory; an
engine is given one (a CSV of known customers, a CRM export, the synthetic `data/sample_lead_records.csv`) or
none, the default, in which case every valid number is "does not match the database" (E801, score 540).

A record is: first_name, last_name, business_name, street1, zip, phone, line_class. line_class is R
(residential), B (business), M (mixed use), C (cellular) or P (pager); blank means not said (kept as ""), and no
answer reads it as residential (issue 28, claims only from data).

SCORE_RESULT with records (`LeadRecords.score`), the phone's records first:

| the lead's phone is in the records, and against one of them | R | B | M |
|---|---|---|---|
| full name (first and last) and address (house number, street name, ZIP) | 840 | 830 | 820 |
| surname and address | 780 | 770 | 760 |
| full name only | 810 | 800 | 790 |
| surname only | 750 | 740 | 730 |
| business name and address (business leads) | 690 | 680 | 670 |
| business name only | 650 | 640 | 660 |
| address only | 630 | 620 | 610 |
| nothing | 570 | 560 | 550 |

The line class is the matching record's; where that record does not say (a blank line class), another record
of the same number that does; where none does, the code would claim a class no data gives, so the answer is 101
(data not available), whatever matched (the match still counts for S100 / S101: `LeadRecords.scored`). A business
lead is never "residential phone" from a record that does not say so. A record of line class C answers 590
(probable cellular), P 580 (probable pager), when no R, B, M or blank record holds the number. When the phone is
valid but in no record while the lead's full name and address are (the person is known, not the phone), the answer
is 850 (header data). Otherwise the phone's own code stands (`PhoneCheck.score`: 450 missing, 510 bad length or
format, 520 invalid area code, 530 prefix or ZIP mismatch, 540 unverifiable). The best match over all of
the phone's records wins. Names compare after upper-casing and dropping punctuation (a given name also matches
its initial); business names after dropping legal forms (Inc, LLC ...); streets by house number and street name
words, suffixes and directions abbreviated the USPS way.
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dqkit.contract.errors import InputError
from dqkit.contract.lead import LeadRequest, NameParser
from dqkit.engines.lead.phones import PhoneCheck, nanp_digits

COLUMNS: Final = ("first_name", "last_name", "business_name", "street1", "zip", "phone", "line_class")
_LINE_WORDS: Final = {"": "", "R": "R", "RESIDENTIAL": "R", "HOME": "R", "H": "R", "B": "B", "BUSINESS": "B",
                      "M": "M", "MIXED": "M", "MIXED USE": "M", "C": "C", "CELL": "C", "CELLULAR": "C",
                      "MOBILE": "C", "P": "P", "PAGER": "P"}
_CLASS_INDEX: Final = {"R": 0, "B": 1, "M": 2}

# (code for R, B, M) by match level, best first.
_FULL_ADDR: Final = ("840", "830", "820")
_SURNAME_ADDR: Final = ("780", "770", "760")
_FULL: Final = ("810", "800", "790")
_SURNAME: Final = ("750", "740", "730")
_BUSINESS_ADDR: Final = ("690", "680", "670")
_BUSINESS: Final = ("650", "640", "660")
_ADDRESS: Final = ("630", "620", "610")
_NOTHING: Final = ("570", "560", "550")
_LEVELS: Final = (_FULL_ADDR, _SURNAME_ADDR, _FULL, _BUSINESS_ADDR, _SURNAME, _BUSINESS, _ADDRESS, _NOTHING)
_LEVEL_OF: Final = {level: i for i, level in enumerate(_LEVELS)}
_NO_CLASS: Final = "101"  # SCORE_RESULT "data not available": a match whose line class no record says

_NON_ALNUM: Final = re.compile(r"[^A-Z0-9 ]+")
_NOT_STREET_CHAR: Final = re.compile(r"[^A-Z0-9# ]+")
_STREET_ABBR: Final = {"STREET": "ST", "AVENUE": "AVE", "AV": "AVE", "ROAD": "RD", "DRIVE": "DR", "LANE": "LN",
                       "COURT": "CT", "BOULEVARD": "BLVD", "PLACE": "PL", "TERRACE": "TER", "CIRCLE": "CIR",
                       "PARKWAY": "PKWY", "HIGHWAY": "HWY", "TRAIL": "TRL", "WAY": "WAY", "SQUARE": "SQ",
                       "NORTH": "N", "SOUTH": "S", "EAST": "E", "WEST": "W", "NORTHEAST": "NE",
                       "NORTHWEST": "NW", "SOUTHEAST": "SE", "SOUTHWEST": "SW"}
_STREET_SHORT: Final = frozenset(_STREET_ABBR.values())
_UNIT_WORDS: Final = frozenset({"APT", "APARTMENT", "UNIT", "STE", "SUITE", "FL", "FLOOR", "RM", "ROOM", "BLDG",
                                "LOT", "SPC", "TRLR", "PH", "DEPT"})
_LEGAL: Final = frozenset({"INC", "LLC", "CORP", "CO", "LTD", "INCORPORATED", "CORPORATION", "COMPANY", "LP",
                           "LLP", "PLLC", "PC", "PA", "THE"})


@dataclass(frozen=True, slots=True)
class LeadRecord:
    """One known person or business, normalised for matching."""

    first_name: str
    last_name: str
    business_name: str
    street: str  # "123 MAIN ST" -> "123 MAIN ST" (units dropped, words abbreviated)
    zip: str
    phone: str  # 10 digits, or "" when the record has no usable number
    line_class: str  # R, B, M, C or P


class LeadRecords:
    """An in-memory set of reference records, indexed by phone and by (surname, ZIP)."""

    def __init__(self, records: Iterable[LeadRecord]) -> None:
        self._records = tuple(records)
        self._by_phone: dict[str, list[LeadRecord]] = defaultdict(list)
        self._by_name_zip: dict[tuple[str, str], list[LeadRecord]] = defaultdict(list)
        self._by_address: dict[tuple[str, str], list[LeadRecord]] = defaultdict(list)
        for r in self._records:
            if r.street and r.zip:
                self._by_address[(r.zip, _street_core(r.street))].append(r)
            if r.phone:
                self._by_phone[r.phone].append(r)
            if r.last_name and r.zip:
                self._by_name_zip[(r.last_name, r.zip)].append(r)
        digest = hashlib.sha256()
        for r in sorted(self._records, key=lambda r: (r.phone, r.zip, r.last_name, r.first_name, r.street)):
            digest.update("\x1f".join((r.first_name, r.last_name, r.business_name, r.street, r.zip, r.phone,
                                       r.line_class)).encode())
            digest.update(b"\x1e")
        self.fingerprint = digest.hexdigest()[:16]

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, str]]) -> LeadRecords:
        """Records from mappings with the COLUMNS keys (missing keys are blank)."""
        return cls(_record(row) for row in rows)

    @classmethod
    def from_csv(cls, path: str | Path) -> LeadRecords:
        """Records from a CSV file with a header row naming COLUMNS (any order, case-insensitive; extra columns
        ignored). Raises InputError when the file cannot be read or lacks the phone and name columns."""
        p = Path(path)
        try:
            with p.open(newline="", encoding="utf-8-sig") as fh:
                reader = csv.DictReader(fh)
                header = {h.strip().lower(): h for h in (reader.fieldnames or [])}
                needed = {"phone", "last_name", "zip"}
                if not needed <= header.keys():
                    raise InputError(f"reference records {p}: needs the columns {', '.join(COLUMNS)}; "
                                     f"missing {', '.join(sorted(needed - header.keys()))}")
                rows: list[dict[str, str]] = [{c: str(row.get(header[c]) or "") for c in COLUMNS if c in header}
                                              for row in reader]
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise InputError(f"reference records {p} cannot be read: {exc}") from exc
        return cls.from_rows(rows)

    def __len__(self) -> int:
        return len(self._records)

    def __repr__(self) -> str:
        return f"LeadRecords({len(self._records)} records, fingerprint {self.fingerprint})"

    def line_class(self, digits: str) -> str | None:
        """The line class of the first record holding this 10-digit number, or None when no record does."""
        found = self._by_phone.get(digits)
        return found[0].line_class if found else None

    def score(self, lead: LeadRequest, name: NameParser, phone: PhoneCheck) -> str:
        """SCORE_RESULT of a lead whose name was parsed into `name` and whose first phone gave `phone`."""
        return self.scored(lead, name, phone)[0]

    def scored(self, lead: LeadRequest, name: NameParser, phone: PhoneCheck) -> tuple[str, bool]:
        """(SCORE_RESULT, whether a record of the phone matched the lead's name or address, or the lead's full name
        and address are in the records: 850). The match stands apart from the code because a match whose line
        class no record says is answered 101, which carries no match level."""
        if phone.score in ("450", "510", "520") or not phone.digits:
            return phone.score, False
        found = self._by_phone.get(phone.digits)
        if not found:
            code = self._header_or(lead, name, phone.score) if phone.score == "540" else phone.score
            return code, code == "850"
        first, last = _name_key(name.first_name), _name_key(name.last_name)
        business = _business_key(name.business_name) if name.business_name_ind == "Y" else ""
        street, zip5 = _street_key(lead.street1), lead.zip.strip()[:5]
        best = -1
        line = ""
        for rec in found:
            if rec.line_class in ("C", "P"):
                continue
            level = _LEVEL_OF[_level_of(rec, first, last, business, street, zip5)]
            if best < 0 or level < best or (level == best and not line and rec.line_class):
                best, line = level, rec.line_class
        if best < 0:  # only cellular or pager records hold the number
            return ("590" if found[0].line_class == "C" else "580"), False
        # the matching record does not say: the number's class from another record of it, if one says
        line = line or next((r.line_class for r in found if r.line_class in _CLASS_INDEX), "")
        matched = _LEVELS[best] is not _NOTHING
        if line in _CLASS_INDEX:
            return _LEVELS[best][_CLASS_INDEX[line]], matched
        cell = next((r.line_class for r in found if r.line_class in ("C", "P")), "")
        if cell:  # no record says R, B or M, one says the number is a cell phone or pager
            return ("590" if cell == "C" else "580"), matched
        return _NO_CLASS, matched

    def by_phone(self, digits: str) -> list[LeadRecord]:
        """The records holding this 10-digit number (for the reverse phone append)."""
        return list(self._by_phone.get(digits, ()))

    def address_match(self, lead: LeadRequest, name: NameParser) -> tuple[str, str]:
        """(what matched, line class) of the records at the lead's address (house number, street, ZIP):
        "full" (first and last name), "business", "surname", "none" (records there, no name matched), or
        "" when no record is at that address. The line class is the matching record's (R, B, M, C, P)."""
        street, zip5 = _street_key(lead.street1), lead.zip.strip()[:5]
        if not street or not zip5:
            return "", ""
        found = [r for r in self._by_address.get((zip5, _street_core(street)), ())
                 if _street_matches(r.street, street)]
        if not found:
            return "", ""
        first, last = _name_key(name.first_name), _name_key(name.last_name)
        business = _business_key(name.business_name) if name.business_name_ind == "Y" else ""
        best, best_class = "none", found[0].line_class
        rank = {"business": 0, "full": 1, "surname": 2, "none": 3}
        for rec in found:
            if business and rec.business_name and _business_matches(rec.business_name, business):
                what = "business"
            elif last and rec.last_name == last:
                what = "full" if _given_matches(rec.first_name, first) else "surname"
            else:
                what = "none"
            if rank[what] < rank[best]:
                best, best_class = what, rec.line_class
        return best, best_class

    def _header_or(self, lead: LeadRequest, name: NameParser, fallback: str) -> str:
        """850 when the lead's full name and address are in the records (though its phone is not)."""
        last, zip5 = _name_key(name.last_name), lead.zip.strip()[:5]
        if not last or not zip5:
            return fallback
        first, street = _name_key(name.first_name), _street_key(lead.street1)
        for rec in self._by_name_zip.get((last, zip5), ()):
            if _given_matches(rec.first_name, first) and street and _street_matches(rec.street, street):
                return "850"
        return fallback


def _level_of(rec: LeadRecord, first: str, last: str, business: str, street: str,
              zip5: str) -> tuple[str, str, str]:
    """What of the lead one record of its phone matches: the (R, B, M) codes of that match level."""
    address = bool(street) and rec.zip == zip5 and _street_matches(rec.street, street)
    surname = bool(last) and rec.last_name == last
    full = surname and _given_matches(rec.first_name, first)
    if business and rec.business_name and _business_matches(rec.business_name, business):
        return _BUSINESS_ADDR if address else _BUSINESS
    if full:
        return _FULL_ADDR if address else _FULL
    if surname:
        return _SURNAME_ADDR if address else _SURNAME
    return _ADDRESS if address else _NOTHING


def _record(row: Mapping[str, str]) -> LeadRecord:
    line = _LINE_WORDS.get((row.get("line_class") or "").strip().upper())
    if line is None:
        raise InputError(f"reference record line_class {row.get('line_class')!r}: use R, B, M, C or P")
    return LeadRecord(
        first_name=_name_key(row.get("first_name") or ""),
        last_name=_name_key(row.get("last_name") or ""),
        business_name=_business_key(row.get("business_name") or ""),
        street=_street_key(row.get("street1") or ""),
        zip=(row.get("zip") or "").strip()[:5],
        phone=nanp_digits(row.get("phone") or ""),
        line_class=line,
    )


def _name_key(text: str) -> str:
    return " ".join(_NON_ALNUM.sub(" ", text.upper().replace("'", "")).split())


def _given_matches(known: str, given: str) -> bool:
    """Same given name, or an initial of it."""
    if not known or not given:
        return False
    if known == given:
        return True
    return (len(known) == 1 or len(given) == 1) and known[0] == given[0]


def _business_key(text: str) -> str:
    words = _NON_ALNUM.sub(" ", text.upper().replace("'", "").replace("&", " AND ")).split()
    return " ".join(w for w in words if w not in _LEGAL)


def _business_matches(known: str, given: str) -> bool:
    if known == given:
        return True
    from rapidfuzz import fuzz  # a runtime dependency; imported on the first business comparison

    return bool(fuzz.token_set_ratio(known, given) >= 90)


def _street_key(text: str) -> str:
    """House number and street words, abbreviated; units and everything after them dropped."""
    words = _NOT_STREET_CHAR.sub(" ", text.upper().replace("#", " # ")).split()
    out: list[str] = []
    for w in words:
        if w in _UNIT_WORDS or w == "#":
            break
        out.append(_STREET_ABBR.get(w, w))
    return " ".join(out)


def _street_core(street: str) -> str:
    """House number and the first street-name word that is not a suffix or direction (the index key)."""
    words = street.split()
    core = [w for w in words[1:] if w not in _STREET_SHORT]
    return f"{words[0]} {core[0] if core else ''}" if words else ""


def _street_matches(known: str, given: str) -> bool:
    """Same house number and the same street name (suffix and direction may be missing on one side)."""
    if known == given:
        return True
    k, g = known.split(), given.split()
    if not k or not g or k[0] != g[0]:
        return False
    core_k = [w for w in k[1:] if w not in _STREET_SHORT]
    core_g = [w for w in g[1:] if w not in _STREET_SHORT]
    return bool(core_k) and core_k == core_g
