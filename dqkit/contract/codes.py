"""Every code table of the lead service seed (000), as data.

Each table maps a code to its meaning; the seed is the only public reference for them, so the texts follow
it closely. Extra columns that analysts pivot on (outcome class, decoded SCORE_RESULT parts) are added here,
next to the codes they describe, so that the engine, the clients, the server and the plots agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Final


class Outcome(StrEnum):
    """Outcome class of a RESULT_CODE: who has to act on it."""

    CALLER_FAULT = "caller fault"
    ACCOUNT_CONFIGURATION = "account configuration"
    SERVICE_FAULT = "service fault"
    LEAD_QUALITY = "lead quality"
    VERIFIED_NEGATIVE = "verified negative"
    SUCCESS = "success"


@dataclass(frozen=True, slots=True)
class ResultCode:
    """One row of the seed's section 7, plus its outcome class."""

    code: str
    type: str  # Message.TYPE: ERROR or STATUS
    category: str  # Message.CATEGORY: "SPOOF SOFT FAILURE" or ""
    feature: str
    condition: str
    value: str  # the gist of Message.VALUE
    outcome: Outcome


def _rc(code: str, feature: str, condition: str, value: str, outcome: Outcome, category: str = "") -> ResultCode:
    return ResultCode(code, "STATUS" if code.startswith("S") else "ERROR", category, feature, condition, value, outcome)


_O = Outcome
RESULT_CODES: Final[Mapping[str, ResultCode]] = MappingProxyType({
    rc.code: rc
    for rc in (
        _rc("E100", "Spoof", "Lead matches a database of vulgar, celebrity or joke names",
            "Record held commonly encountered offensive or spoof words", _O.LEAD_QUALITY, "SPOOF SOFT FAILURE"),
        _rc("E200", "Invalid character", "Lead contains one of the characters ^ % $ ? * > < = &",
            "Lead failed the syntax checks", _O.CALLER_FAULT),
        _rc("E300", "Parsing error", "Request is not in the correct form or does not match the schema",
            "Parsing error while processing the record", _O.CALLER_FAULT),
        _rc("E400", "Internal error", "Internal processing error", "Error with the processing of the record",
            _O.SERVICE_FAULT),
        _rc("E500", "Security", "IP address not authorized",
            "IP address not authorized; please contact your account representative", _O.ACCOUNT_CONFIGURATION),
        _rc("E501", "Security", "Invalid client ID or partner ID", "Invalid client ID or partner ID",
            _O.ACCOUNT_CONFIGURATION),
        _rc("E600", "Input validation", "Required name information missing", "Missing required name information",
            _O.CALLER_FAULT),
        _rc("E601", "Input validation", "Required address information missing",
            "Missing required address information", _O.CALLER_FAULT),
        _rc("E602", "Input validation", "Required phone information missing",
            "Missing required phone information", _O.CALLER_FAULT),
        _rc("S100", "Success", "Transaction processed", "Transaction processed successfully", _O.SUCCESS),
        _rc("S101", "No match", "Input did not match the records (match type none)",
            "Input information did not match", _O.VERIFIED_NEGATIVE),
        _rc("S102", "Address validation", "Input address not valid", "Input address not valid",
            _O.VERIFIED_NEGATIVE),
    )
})

SPOOF_CATEGORY: Final = "SPOOF SOFT FAILURE"


class MatchLevel(StrEnum):
    """What of the lead matched, the first dimension of SCORE_RESULT."""

    FULL_NAME_ADDRESS = "full name and address"
    SURNAME_ADDRESS = "surname and address"
    FULL_NAME = "full name only"
    SURNAME = "surname only"
    ADDRESS = "address only"
    BUSINESS_NAME_ADDRESS = "business name and address"
    BUSINESS_NAME = "business name"
    HEADER = "header data"
    NO_MATCH = "no match"
    NONE = ""  # the code says nothing about a match (validity and system codes)


class LineClass(StrEnum):
    """Kind of phone line (or address for the business-name codes), the second dimension."""

    RESIDENTIAL = "residential"
    BUSINESS = "business"
    MIXED_USE = "mixed use"
    NONE = ""


class Validity(StrEnum):
    """Whether the phone could be scored at all, and if not why."""

    VALID = "valid"
    CELLULAR = "probable cellular"
    PAGER = "probable pager"
    UNVERIFIABLE = "unverifiable"
    PREFIX_ZIP_MISMATCH = "prefix-ZIP mismatch"
    INVALID_AREA_CODE = "invalid area code"
    BAD_LENGTH = "incorrect length"
    MISSING = "missing"
    SYSTEM = "system"  # 100..104: the score could not be computed


@dataclass(frozen=True, slots=True)
class ScoreCode:
    """A SCORE_RESULT code decoded into the parts analysts pivot on."""

    code: str
    meaning: str
    match_level: MatchLevel
    line_class: LineClass
    validity: Validity


def _scores() -> dict[str, ScoreCode]:
    ml, lc, v = MatchLevel, LineClass, Validity
    rows: list[tuple[str, str, MatchLevel, LineClass, Validity]] = []
    triples = [
        (("840", "830", "820"), "full name and address", ml.FULL_NAME_ADDRESS, "phone"),
        (("780", "770", "760"), "surname and address", ml.SURNAME_ADDRESS, "phone"),
        (("810", "800", "790"), "full name only", ml.FULL_NAME, "phone"),
        (("750", "740", "730"), "surname only", ml.SURNAME, "phone"),
        (("630", "620", "610"), "address only", ml.ADDRESS, "phone"),
        (("690", "680", "670"), "business name and address", ml.BUSINESS_NAME_ADDRESS, "phone"),
        (("570", "560", "550"), "no match to name or address", ml.NO_MATCH, "phone"),
    ]
    for codes, what, level, noun in triples:
        for code, cls in zip(codes, (lc.RESIDENTIAL, lc.BUSINESS, lc.MIXED_USE), strict=True):
            rows.append((code, f"{what}, {cls.value} {noun}", level, cls, v.VALID))
    rows += [
        ("850", "header data", ml.HEADER, lc.NONE, v.VALID),
        ("650", "business name, residential address", ml.BUSINESS_NAME, lc.RESIDENTIAL, v.VALID),
        ("640", "business name, business address", ml.BUSINESS_NAME, lc.BUSINESS, v.VALID),
        ("660", "business name, mixed-use phone", ml.BUSINESS_NAME, lc.MIXED_USE, v.VALID),
        ("590", "probable cellular phone", ml.NONE, lc.NONE, v.CELLULAR),
        ("580", "probable pager", ml.NONE, lc.NONE, v.PAGER),
        ("540", "phone unverifiable, not in database", ml.NONE, lc.NONE, v.UNVERIFIABLE),
        ("530", "prefix-ZIP mismatch", ml.NONE, lc.NONE, v.PREFIX_ZIP_MISMATCH),
        ("450", "phone missing, search information not received", ml.NONE, lc.NONE, v.MISSING),
        ("520", "invalid area code", ml.NONE, lc.NONE, v.INVALID_AREA_CODE),
        ("510", "phone of incorrect length", ml.NONE, lc.NONE, v.BAD_LENGTH),
        ("100", "matching records exceed the maximum defined in the profile", ml.NONE, lc.NONE, v.SYSTEM),
        ("101", "data not available", ml.NONE, lc.NONE, v.SYSTEM),
        ("102", "test not in profile", ml.NONE, lc.NONE, v.SYSTEM),
        ("103", "unknown message code", ml.NONE, lc.NONE, v.SYSTEM),
        ("104", "not able to score due to invalid data", ml.NONE, lc.NONE, v.SYSTEM),
    ]
    return {r[0]: ScoreCode(*r) for r in rows}


SCORE_RESULTS: Final[Mapping[str, ScoreCode]] = MappingProxyType(_scores())

PHONE_STATUSES: Final[Mapping[str, str]] = MappingProxyType({
    "E800": "Valid area code and number matches the database",
    "E801": "Valid area code, number does not match the database",
    "E802": "Invalid area code, number matches the database",
    "E803": "Prefix does not match area code, number matches the database",
    "E804": "Area code does not match ZIP, number matches the database",
    "E805": "Invalid area code, number does not match the database",
    "E806": "Prefix does not match area code, number does not match the database",
    "E807": "Area code does not match ZIP, number does not match the database",
    "E808": "Invalid telephone format",
    "E809": "Area code and prefix match but not the ZIP, number matches the database",
    "E810": "Area code and prefix match but not the ZIP, number does not match the database",
})

ADDRESS_ERROR_STATUSES: Final[Mapping[str, str]] = MappingProxyType({
    "00": "Default highrise or rural route address (matched to a default delivery record)",
    "01": "No match in 5-digit ZIP; ZIP corrected using city/state",
    "02": "ZIP add-on not found; replaced with the correct add-on",
    "04": "City name corrected",
    "05": "PO box, rural route or highway contract address standardized from a non-standard form",
    "06": "Street number not a precise match in the street range (extra characters retained)",
    "07": "Address non-deliverable; no add-on assigned (delivery point validation failed)",
    "08": "Secondary number not a precise match in the secondary range (extra characters retained)",
    "09": "Delivery point alternate address",
    "10": "City is in several counties; the preferred county is returned",
    "11": "No match; failed multi-component rule; the number of near matches is the absolute value of the "
          "return code",
    "12": "All highrise records returned; first result is the certified address; a string of Z follows the last "
          "result",
    "13": "Military address",
    "14": "Street address with appended apartment number that could not be resolved; secondary number retained",
    "15": "No match; near matches placed in results; the end of results is ten Z characters; always appears "
          "with 99",
    "16": "Preferred city name used",
    "18": "Delivery point validation false positive; ZIP+4 assignment stops until the module is re-enabled; "
          "each later call returns 21",
    "19": "No match; address found in the early-warning database",
    "20": "Street name modified",
    "21": "Delivery point validation processing already stopped (see 18); the data provider must restart the "
          "module",
    "22": "Locatable-address conversion processing already stopped (see 24); the data provider must restart "
          "the module",
    "23": "No match; no correlation between city and unique ZIP; 5-digit ZIP deleted",
    "24": "Locatable-address conversion false positive; ZIP+4 assignment stops until re-enabled; each later "
          "call returns 22",
    "30": "Foreign address",
    "31": "Geocoder files missing or corrupt",
    "40": "Multiple matches; incorrect post-directional; candidates returned",
    "41": "Multiple matches; incorrect pre-directional; candidates returned",
    "42": "Multiple matches; incorrect street suffix; candidates returned",
    "43": "ZIP is PO box or rural route only; matched to a box, route or general delivery record",
    "44": "Apparent extraneous information removed",
    "45": "Street suffix modified",
    "46": "Street directional modified",
    "47": "Address requires an apartment/suite number; none input",
    "48": "Multiple matches; would resolve with a pre-directional",
    "49": "Multiple matches; would resolve with a post-directional",
    "50": "Multiple matches; would resolve with a street suffix",
    "51": "Address does not require apartment/suite; none input",
    "52": "Address does not require apartment/suite; incorrect secondary input provided",
    "57": "Address not standardized; not enough information",
    "58": "Address not standardized; invalid ZIP",
    "59": "Address not standardized; belongs to a US territory",
    "60": "Verification database expired; delivery-point and conversion processing disabled; the data expires "
          "105 days after its build date",
    "61": "House number not on street",
    **{f"{n:02d}": "Internal processing error" for n in range(64, 82)},
})


def split_address_error_status(status: str) -> list[str]:
    """Split the 30-character ADDRESS_ERROR_STATUS into its two-byte codes (blanks dropped)."""
    s = status.strip()
    return [s[i : i + 2] for i in range(0, len(s) - 1, 2) if s[i : i + 2].strip()]


def join_address_error_status(codes: list[str]) -> str:
    """Pack two-byte codes into the 30-character field (at most 15 codes, in order, without repeats)."""
    seen: list[str] = []
    for c in codes:
        if c not in seen:
            seen.append(c)
    return "".join(seen[:15])


ADDRESS_CODES: Final[Mapping[str, str]] = MappingProxyType({
    "1": "Match found; four-digit ZIP add-on assigned",
    ">1": "Several possible results, no exact match; the value is the number of results",
    "<0": "Several possible results only when the error status contains 11; the absolute value is the number "
          "of results",
    "-1": "With error status 07: delivery point validation failed; five-digit ZIP returned",
    "-3": "With error status 05: PO box, rural route or highway contract; street name normalized though no "
          "match found",
    "-99": "No match; the original input is returned",
})


def address_code_meaning(value: str) -> str:
    """Meaning of an ADDRESS_CODE value, including the open ranges (> 1, < 0) of the table."""
    v = value.strip()
    if v in ADDRESS_CODES:
        return ADDRESS_CODES[v]
    try:
        n = int(v)
    except ValueError:
        return ""
    if n > 1:
        return ADDRESS_CODES[">1"]
    if n < 0:
        return ADDRESS_CODES["<0"]
    return ""


GEOMATCH: Final[Mapping[str, str]] = MappingProxyType({
    "0": "Matched at address level",
    "1": "9-digit centroid match",
    "4": "7-digit centroid match",
    "5": "5-digit centroid match",
    "7": "No centroid match",
    "8": "Not matched at address level",
    "9": "Both options tried, no match",
})

ADDRESS_TYPES: Final[Mapping[str, str]] = MappingProxyType({
    "F": "Firm",
    "G": "General Delivery",
    "H": "Highrise",
    "P": "PO Box",
    "R": "Rural Route/Highway Contract",
    "S": "Street",
})

# The lead request's ADDRESS_TYPE / PHONE_TYPE (section 2.1): one letter on the form, words in JSON and XML.
LEAD_LOCATION_TYPES: Final[Mapping[str, str]] = MappingProxyType({"H": "Home", "B": "Business"})

ZIPTYPES: Final[Mapping[str, str]] = MappingProxyType({
    "M": "Military",
    "U": "Unique (institution, university or large firm)",
    "": "Ordinary ZIP or none assigned",
})

EXECUTION_STATUS_FLAGS: Final[Mapping[str, str]] = MappingProxyType({
    "A": "Transaction already has a standardized address, no append needed",
    "B": "Phone number empty",
    "E": "Invalid phone number (not 10 digits)",
    "P": "Append successful",
    "N": "Append unsuccessful",
})

RESIDENTIAL_ADDRESS_VERIFICATION: Final[Mapping[str, str]] = MappingProxyType({
    "100": "Standardization database expired",
    "101": "Unknown",
    "102": "Matching records exceed the profile maximum",
    "103": "Data not available",
    "104": "Not able to score due to invalid data",
    "450": "Address ambiguous",
    "460": "Incomplete or blank address",
    "470": "City/state ZIP mismatch",
    "480": "City/state mismatch",
    "490": "Road name and city/ZIP mismatch",
    "500": "House number not found on street",
    "580": "No match to name, mixed-use address",
    "590": "No match to name, residential address",
    "650": "Address residential, name match unavailable",
    "660": "Address unverifiable, not in the database",
    "670": "Business name match, mixed-use address",
    "680": "Business name match, business address",
    "690": "Business name match, residential address",
    "770": "Surname match, mixed-use address",
    "780": "Surname match, business address",
    "790": "Surname match, residential address",
    "830": "Full name match, mixed-use address",
    "840": "Full name match, business address",
    "850": "Full name match, residential address",
})

HIGH_RISK_FLAGS: Final[Mapping[str, str]] = MappingProxyType({
    "Y": "A high risk business was identified",
    "N": "None found",
    "U": "Unknown",
})

MATCH_TYPES: Final[Mapping[str, str]] = MappingProxyType({
    "E": "Median level",
    "F": "Household level",
    "I": "Person level",
    "N": "No match",
})

LINKAGE_RECORD_TYPES: Final[Mapping[str, str]] = MappingProxyType({
    "1": "Ultimate Parent",
    "2": "Parent/Headquarters",
    "3": "Subsidiary",
    "4": "Branch",
})

MATCHZIP_FLAGS: Final[Mapping[str, str]] = MappingProxyType({"T": "Matched", "F": "Not matched"})

BUSINESS_NAME_IND: Final[Mapping[str, str]] = MappingProxyType({
    "Y": "Identified as a business record",
    "N": "Not a business record",
})

# Every table by the seed's name, for documentation, tests and `dqkit codes`.
TABLES: Final[Mapping[str, Mapping[str, object]]] = MappingProxyType({
    "RESULT_CODE": RESULT_CODES,
    "SCORE_RESULT": SCORE_RESULTS,
    "PHONE_STATUS": PHONE_STATUSES,
    "ADDRESS_ERROR_STATUS": ADDRESS_ERROR_STATUSES,
    "ADDRESS_CODE": ADDRESS_CODES,
    "GEOMATCH": GEOMATCH,
    "ADDRESS_TYPE": ADDRESS_TYPES,
    "ZIPTYPE": ZIPTYPES,
    "EXECUTION_STATUS_FLAG": EXECUTION_STATUS_FLAGS,
    "ELSResidentialAddressVerificationResult": RESIDENTIAL_ADDRESS_VERIFICATION,
    "Match_Type": MATCH_TYPES,
    "LinkageRecordType": LINKAGE_RECORD_TYPES,
    "HighRisk": HIGH_RISK_FLAGS,
    "MATCHZIP": MATCHZIP_FLAGS,
    "BUSINESS_NAME_IND": BUSINESS_NAME_IND,
})


def meanings(table: str) -> Mapping[str, str]:
    """Every code of `table` -> `meaning(table, code)`; `meanings(table).get(code, "")` is `meaning(table, code)`
    for any code (the tables are fixed), in one look-up. Not for ADDRESS_CODE, whose open ranges no table lists."""
    if table == "ADDRESS_CODE":
        raise ValueError("ADDRESS_CODE meanings cover open ranges: use address_code_meaning")
    found = _MEANINGS.get(table)
    if found is None:
        found = _MEANINGS[table] = MappingProxyType({code: meaning(table, code) for code in TABLES[table]})
    return found


_MEANINGS: dict[str, Mapping[str, str]] = {}


def meaning(table: str, code: str) -> str:
    """The meaning of `code` in the seed table `table`, or "" when unknown."""
    if table == "ADDRESS_CODE":
        return address_code_meaning(code)
    entry = TABLES[table].get(code)
    if entry is None:
        return ""
    if isinstance(entry, ResultCode):
        return entry.value
    if isinstance(entry, ScoreCode):
        return entry.meaning
    return str(entry)
