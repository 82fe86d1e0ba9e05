"""The local lead engine: one lead in, one ELSGenericMessage out, in the order the seed prescribes.

    access (E501) -> schema (E300) -> apostrophes removed -> syntax (E200) -> required fields (E600/E601/E602)
    -> spoof (E100) -> Stage 1: name parsing, phone status or score -> address standardization (S102)
    -> success (S100) or no match (S101)

Each step that fails ends the lead with its code; nothing raises out of `verify` (an unexpected exception is
answered with E400 and the lead is not lost). Rules live in their own modules (spoof, names, phones, records);
this module only orders them and builds the message.

Required information (documented choices where the seed is silent):
- name: FULL_NAME, or FIRST_NAME and LAST_NAME; for a business lead (ADDRESS_TYPE B or a BUSINESS_NAME given)
  BUSINESS_NAME alone also counts, since the seed requires BUSINESS_NAME for business (BIS) requests.
- address: ZIP (the only address field the seed marks required).
- phone: only when the profile asks for phone verification (`LeadProfile(require_phone=True)`).
"""

from __future__ import annotations

import itertools
import os
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Literal

import msgspec

from dqkit.contract.codes import ADDRESS_ERROR_STATUSES, PHONE_STATUSES, RESULT_CODES, SCORE_RESULTS
from dqkit.contract.lead import (
    APOSTROPHE_FIELDS,
    TEXT_FIELDS,
    TEXT_VALUES,
    ELSGenericMessage,
    LeadRequest,
    Message,
    NameParser,
    Phone,
    Stage1Data,
)
from dqkit.contract.lead_wire import WireProblem, check_lead
from dqkit.engines.lead.local_fields import address_verification, reverse_phone_append, street_not_in_zip
from dqkit.engines.lead.names import parse_name
from dqkit.engines.lead.phones import PhoneCheck, check_phone
from dqkit.engines.lead.spoof import explain_spoof
from dqkit.engines.lead.spoof_list import SpoofList
from dqkit.engines.usaddr import AddressInput, Standardized, standardize
from dqkit.engines.zipdata import zip_info

if TYPE_CHECKING:
    from dqkit.engines.lead.records import LeadRecords
    from dqkit.engines.usaddr.points import PointSource

INVALID_CHARACTERS: Final = "^%$?*><=&"
# The seed's E200 set, plus characters no name or address holds, that hide or reorder text: C0/C1 controls (NUL
# included; tab, line feed and carriage return are blanks), bidi embeddings and overrides (U+202A-U+202E,
# U+2066-U+2069) and zero-width characters (U+200B-U+200D, U+2060, U+FEFF). One pattern: one scan per field.
_HIDDEN: Final = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200d\u2060\ufeff\u202a-\u202e\u2066-\u2069"
_INVALID_RE: Final = re.compile("[" + re.escape(INVALID_CHARACTERS) + _HIDDEN + "]")
# Address status codes that explain an invalid address, named in the S102 VALUE.
_INVALID_ADDRESS_CODES: Final = frozenset({"57", "58", "59", "30", "61", "23", "47", "64"})


@dataclass(frozen=True)
class LeadProfile:
    """What the engine does for every lead: the local counterpart of the vendor's account configuration.

    stage1: "phone_status" answers PHONE_STATUS/PHONE_DESC; "score" answers SCORE_RESULT/SCORE_DESC (never both).
    records: the engine's reference records; "number matches the database" and name/address scores need them.
    allowed_client_ids / allowed_partner_ids: when set, any other CLIENT_ID / PARTNER_ID gets E501.
    spoof_list: whole names of the analyst's own list (known fakes of a lead source) also get E100.
    """

    stage1: Literal["phone_status", "score"] = "phone_status"
    require_phone: bool = False
    standardize_address: bool = True
    records: LeadRecords | None = None
    points: PointSource | None = None
    allowed_client_ids: frozenset[str] | None = None
    allowed_partner_ids: frozenset[str] | None = None
    echo_input: bool = True
    spoof_list: SpoofList | None = None  # the analyst's own names to answer E100 for, beside the bundled lists

    def identity(self) -> str:
        """A stable text naming what changes answers (used in cache keys)."""
        parts = [
            f"stage1={self.stage1}",
            f"phone={int(self.require_phone)}",
            f"addr={int(self.standardize_address)}",
            f"records={self.records.fingerprint if self.records is not None else '-'}",
            f"points={getattr(self.points, 'build_id', '') or getattr(self.points, 'fingerprint', '?')}"
            if self.points is not None else "points=-",
        ]
        if self.spoof_list is not None:
            parts.append(f"spoof_list={self.spoof_list.fingerprint}")
        return ";".join(parts)


def _field_values(lead: LeadRequest) -> list[tuple[str, str]]:
    """Every (FIELD, value) of a lead that the syntax check reads, in seed order."""
    out = [(name.upper(), getattr(lead, name)) for name in _SCALAR_FIELDS]
    for p in lead.phones:
        out += [("PHONE_NUMBER", p.phone_number), ("PHONE_EXTENSION", p.phone_extension),
                ("PHONE_COUNTRY_CODE", p.phone_country_code)]
    for a in lead.attributes:
        out += [("ATTRIBUTE_NAME", a.name), ("ATTRIBUTE_VALUE", a.value)]
    return out


_SCALAR_FIELDS: Final = TEXT_FIELDS


def _all_text(lead: LeadRequest) -> str:
    """Every value `_field_values` gives, one a line: the syntax check searches it once, and field by field only
    when it holds a character it refuses (none is a line break, so joining them finds nothing new)."""
    parts: list[str] = list(TEXT_VALUES(lead))
    for p in lead.phones:
        parts += (p.phone_number, p.phone_extension, p.phone_country_code)
    for a in lead.attributes:
        parts += (a.name, a.value)
    return "\n".join(parts)


@dataclass
class LeadEngine:
    """Verifies leads in-process. Thread-safe: it holds no per-lead state."""

    profile: LeadProfile = field(default_factory=LeadProfile)

    def __post_init__(self) -> None:
        self._tx_prefix = os.urandom(4).hex().upper()
        self._tx_counter = itertools.count(1)
        self._standardize = _standardizer() if self.profile.standardize_address else None
        _ENGINES[id(self)] = self

    @property
    def name(self) -> str:
        return f"local-lead[{self.profile.identity()}]"

    def _transaction_id(self) -> str:
        return f"{self._tx_prefix}{next(self._tx_counter):010d}"

    def error_message(self, code: str, value: str = "", lead: LeadRequest | None = None) -> ELSGenericMessage:
        """An answer carrying result code `code` (E-codes), with VALUE = the seed's gist plus `value`."""
        rc = RESULT_CODES[code]
        text = f"{rc.value}: {value}" if value else rc.value
        return ELSGenericMessage(
            transaction_id=self._transaction_id(),
            message=Message(type=rc.type, result_code=code, value=text, category=rc.category),
            input_data=lead if self.profile.echo_input else None,
        )

    def reject(self, problem: WireProblem) -> ELSGenericMessage:
        """The answer to a request that could not be read (see `dqkit.contract.lead_wire.decode_lead`)."""
        return self.error_message(problem.code, problem.value)

    def verify(self, lead: LeadRequest) -> ELSGenericMessage:
        """Verify one lead. Never raises: an internal failure is answered with E400."""
        try:
            return self._verify(lead)
        except Exception as exc:  # the engine's promise: every lead gets an answer
            return self.error_message("E400", f"{type(exc).__name__}: {exc}", lead)

    def _verify(self, lead: LeadRequest) -> ELSGenericMessage:
        p = self.profile
        if p.allowed_client_ids is not None and lead.client_id not in p.allowed_client_ids:
            return self.error_message("E501", f"CLIENT_ID {lead.client_id!r} is not known", lead)
        if p.allowed_partner_ids is not None and lead.partner_id and lead.partner_id not in p.allowed_partner_ids:
            return self.error_message("E501", f"PARTNER_ID {lead.partner_id!r} is not known", lead)
        problem = check_lead(lead)
        if problem is not None:
            return self.error_message(problem.code, problem.value, lead)
        echo = lead  # InputData echoes the input as received
        lead = _strip_apostrophes(lead)
        for name, value in _field_values(lead) if _INVALID_RE.search(_all_text(lead)) else ():
            m = _INVALID_RE.search(value)
            if m:
                ch = m.group()
                if ch in INVALID_CHARACTERS:
                    return self.error_message("E200", f"invalid character {ch!r} in {name} {value!r}"
                                              + _KEEP_HINT.get(ch, ""), echo)
                return self.error_message("E200", f"invalid character {_code_point(ch)} in {name}", echo)
        missing = self._missing(lead)
        if missing:
            return self.error_message(missing, "", echo)
        spoof = explain_spoof(lead)
        if spoof is None and self.profile.spoof_list is not None:
            spoof = self.profile.spoof_list.match(lead)
        if spoof is not None:  # the value, its field and why (rule, word, scores), for an analyst to overrule
            return self.error_message("E100", spoof.answer_value(), echo)
        return self._stage1(lead, echo)

    def _missing(self, lead: LeadRequest) -> str:
        has_person = bool(lead.full_name.strip()) or bool(lead.first_name.strip() and lead.last_name.strip())
        is_business = lead.address_type == "B" or bool(lead.business_name.strip())
        if not has_person and not (is_business and lead.business_name.strip()):
            return "E600"
        if not lead.zip.strip():
            return "E601"
        if self.profile.require_phone and not any(ph.phone_number.strip() for ph in lead.phones):
            return "E602"
        return ""

    def _stage1(self, lead: LeadRequest, echo: LeadRequest) -> ELSGenericMessage:
        p = self.profile
        name = parse_name(lead)
        zip5 = lead.zip.strip()[:5]
        checks = [_check(ph, zip5, p.records) for ph in lead.phones if ph.phone_number.strip()]
        stage1 = Stage1Data(name_parser=name, phone_number=[c.digits for c in checks if c.digits][:2])
        matched = False  # a record of the phone matched the lead's name or address (or header data)
        if p.records is not None and checks:
            score, matched = p.records.scored(lead, name, checks[0])
        else:
            score = checks[0].score if checks else "450"
        stage1.residential_phone_verification_result = score
        if p.stage1 == "score":
            stage1.score_result, stage1.score_desc = score, SCORE_RESULTS[score].meaning
        elif checks:
            stage1.phone_status = checks[0].status
            stage1.phone_desc = PHONE_STATUSES[checks[0].status]
        code = "S101" if p.records is not None and not _matched_records(lead, name, matched, p.records) else "S100"
        standardized = None
        outcome = None
        value = ""
        if self._standardize is not None:
            outcome = self._standardize(lead, p.points)
            standardized = outcome.address
            if lead.street1.strip() or lead.street2.strip():
                if not outcome.valid:
                    code = "S102"
                    value = "; ".join(f"{c} {ADDRESS_ERROR_STATUSES.get(c, '')}" for c in outcome.codes
                                      if c in _INVALID_ADDRESS_CODES)
                    if not value and street_not_in_zip(outcome, p.points):
                        value = (f"street {outcome.street.name} not found in ZIP {standardized.zip} "
                                 "of the installed address reference")
            elif zip_info(zip5) is None:  # no street given: the lead is judged on its ZIP alone
                code, value = "S102", f"58 {ADDRESS_ERROR_STATUSES['58']}"
        stage1.residential_address_verification_result = address_verification(lead, outcome, name, p.points,
                                                                               p.records)
        stage1.reverse_phone_append = reverse_phone_append(lead, outcome, checks[0] if checks else None,
                                                           p.records)
        rc = RESULT_CODES[code]
        return ELSGenericMessage(
            transaction_id=self._transaction_id(),
            message=Message(type=rc.type, result_code=code, value=f"{rc.value}: {value}" if value else rc.value),
            input_data=echo if p.echo_input else None,
            standardized_address=standardized,
            stage1_data=stage1,
        )


# Every engine of this process, so that a forked worker (`dqkit verify --workers`) gives its engines their own
# transaction-id prefix: a worker's counter goes on from the parent's, its ids must not repeat the parent's.
_ENGINES: weakref.WeakValueDictionary[int, LeadEngine] = weakref.WeakValueDictionary()


def _new_prefixes_after_fork() -> None:
    for engine in list(_ENGINES.values()):
        engine._tx_prefix = os.urandom(4).hex().upper()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_prefixes_after_fork)

_US_COUNTRY_CODES: Final = frozenset({"", "1", "+1", "US", "USA", "CA", "CAN"})


def _check(phone: Phone, zip5: str, records: LeadRecords | None) -> PhoneCheck:
    """The phone's status; a number of another country (PHONE_COUNTRY_CODE) is no NANP number: E808."""
    if phone.phone_country_code.strip().upper() not in _US_COUNTRY_CODES:
        return PhoneCheck("E808", "510", "")
    return check_phone(phone.phone_number, zip5, records=records)


def _matched_records(lead: LeadRequest, name: NameParser, by_phone: bool, records: LeadRecords) -> bool:
    """Whether the lead matched the reference records (S101 when not, seed section 7: "match type none"):
    its phone is in a record that also carries its name or address, or its name and address are in a record
    (header data, 850) (`by_phone`, from `LeadRecords.scored`), or a record at its address carries its name."""
    return by_phone or records.address_match(lead, name)[0] in ("full", "surname", "business")


# How to keep a value the service refuses for one of its characters (its E200 rule stays).
_KEEP_HINT: Final = {"&": "; the service refuses '&' in every field: write 'and' (\"Zhang and Co\", \"AT and T\")",
                     "%": "; the service refuses '%' in every field: write 'percent'"}


def _code_point(ch: str) -> str:
    """"U+202E RIGHT-TO-LEFT OVERRIDE": a character that cannot be shown, named."""
    import unicodedata

    return f"U+{ord(ch):04X} {unicodedata.name(ch, 'CONTROL CHARACTER')}"


def _strip_apostrophes(lead: LeadRequest) -> LeadRequest:
    changes = {f: getattr(lead, f).replace("'", "") for f in APOSTROPHE_FIELDS if "'" in getattr(lead, f)}
    return msgspec.structs.replace(lead, **changes) if changes else lead


def _standardizer() -> Callable[[LeadRequest, PointSource | None], Standardized]:
    """The US standardizer's entry point adapted to a lead; with an address reference, through the evidence
    check of `street_support` (never S100 with a street the typed words do not name)."""

    def run(lead: LeadRequest, points: PointSource | None) -> Standardized:
        street1, street2, firms = firm_set_aside(lead.street1, lead.street2)
        inp = AddressInput(street1=street1, street2=street2, city=lead.city, state=lead.state,
                           zip=lead.zip, zipplus=lead.zipplus, country=lead.country,
                           firm=lead.business_name if lead.address_type == "B" or lead.business_name else firms)
        if points is None:
            return standardize(inp)
        # imported with a reference only: the address matcher's query reading is 0.1 s of imports a run without
        # one never uses
        from dqkit.engines.lead.street_support import standardize_supported

        return standardize_supported(inp, points)

    return run


def firm_set_aside(street1: str, street2: str) -> tuple[str, str, str]:
    """(STREET1, STREET2, firm) with a firm line typed in front of the street ("Acme Inc, 5770 Balboa Dr", as CRM
    exports write a business address) set aside by the address engine's own rule (`firm_lines.set_aside`, what
    validate does): it is the FIRMLINE, not a second street line ("5770 BALBOA DR ACME INC"). Attention and
    care-of lines stay where they were typed (the standardizer reports them as notes, code 44); without a firm
    line the fields are returned as they are."""
    parts = [p for p in (street1, street2) if p.strip()]
    if not parts or parts[0].lstrip()[:1].isdigit():
        return street1, street2, ""  # the house number first: no firm line in front (and 0.15 s of imports saved)
    from dqkit.engines.address.firm_lines import set_aside

    kept, org = set_aside(parts)
    if not org.firms:
        return street1, street2, ""
    lines = [*kept, *org.attention]
    return lines[0] if lines else "", ", ".join(lines[1:]), ", ".join(org.firms)
