"""Stage 1 fields the local engine can answer from its own data, and the rules it uses for each.

ELSResidentialAddressVerificationResult (one code, the first rule that applies wins):

- 460: no street given, or the street has no house number (status 57).
- 104: the address could not be standardized: unknown ZIP (58), territory (59), foreign (30), internal (64).
- 490: an address reference (`LeadProfile.points`) holds every street of the ZIP (`covers_completely`), and the
  street is not in it (a street the standardizer would correct to counts only when the typed words support it:
  `street_support`). A reference holding only part of the ZIP (a county sample, `--partial`) proves nothing
  about a street it lacks: 103, not checked.
- 500: the street is in the reference, the house number is not (61), in a ZIP it covers completely.
- 450: several reference points fit (ADDRESS_CODE > 1).
- 470: the ZIP disagrees with the city and state (the ZIP was corrected: 01, 23).
- 480: the city is no city of the given state (ZIP data).
- 850 840 830 / 790 780 770 / 690 680 670: a reference record (`LeadProfile.records`) at the address carries the
  lead's full name / surname / business name; residential, business or mixed use after the record's line class
  (R, B, M). A record that does not say (a blank line class, or C / P, which are of the phone, not of the
  address) proves no use of the address: 101 "unknown" (the seed has no "name match, use unknown"), never
  "residential" (issue 28).
- 590 / 580: records at the address, none with the lead's name (residential / mixed use); 101 for a business
  address or one whose use no record says (the seed has no code for them).
- 660: records given but none at the address.
- 650: the reference found the address, no records to match the name against (ADDRESS_TYPE not B), and the
  reference says which addresses are homes (`residential`; none of the installed sources does); else 101
  ("unknown"), as for a business lead (the seed has no "business address, name match unavailable").
- 103: the street was not checked ("data not available"): no reference or records, a ZIP outside every
  reference, or a street a partial reference lacks.

REVERSE_PHONE_APPEND.EXECUTION_STATUS_FLAG: A when the lead's street standardized to a valid address (no append
needed); else B when the lead has no phone number; else E when the number is not 10 NANP digits; else, with
reference records, P (the first record holding the number gives FIRST_NAME, LAST_NAME and the address; city and
state from the ZIP data) or N (no record holds it). Without records the group is left out: nothing was tried.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from dqkit.contract.lead import AppendAddress, LeadRequest, NameParser, ReversePhoneAppend
from dqkit.engines import zipdata
from dqkit.engines.usaddr import MatchLevel, Standardized

if TYPE_CHECKING:
    from dqkit.engines.lead.phones import PhoneCheck
    from dqkit.engines.lead.records import LeadRecords
    from dqkit.engines.usaddr.points import PointSource

_NOT_STANDARDIZED: Final = ("58", "59", "30", "64")
_FOUND: Final = frozenset({MatchLevel.ADDRESS, MatchLevel.PREMISES, MatchLevel.MULTIPLE})
# (residential, business, mixed use) by what matched at the address.
_NAME_CODES: Final = {"full": ("850", "840", "830"), "surname": ("790", "780", "770"),
                      "business": ("690", "680", "670"), "none": ("590", "101", "580")}
_CLASS_INDEX: Final = {"R": 0, "B": 1, "M": 2}  # a line class that says how the address is used


def reference_covers(points: PointSource | None, zip5: str) -> bool:
    """Whether an address reference is installed and holds any street of this ZIP."""
    return points is not None and bool(zip5) and bool(points.street_names(zip5))


def covers_completely(points: PointSource | None, zip5: str) -> bool:
    """Whether the reference holds every street of this ZIP, so that a street it lacks is "not found". A point
    source that does not say (a bare index, test data) holds part of it, as a sample does: "not checked"."""
    if not reference_covers(points, zip5):
        return False
    says = getattr(points, "covers_completely", None)
    return bool(says(zip5)) if callable(says) else False


def unproven_not_found(std: Standardized, points: PointSource | None) -> bool:
    """A "not found" answer (street not in the ZIP: ADDRESS_CODE -99; house number not on the street: 61) from a
    reference that does not hold every street of the ZIP: proof of nothing, so the street counts as not checked."""
    if std.valid or not (std.address.address_code == "-99" or "61" in std.codes):
        return False
    return not covers_completely(points, std.address.zip)


def street_not_in_zip(std: Standardized, points: PointSource | None) -> bool:
    """The reference was searched for the lead's street (it holds the ZIP, or the ZIPs of the city the
    standardizer tried: ADDRESS_CODE -99) and does not hold it there."""
    return (std.match == MatchLevel.LAST_LINE and bool(std.street.name) and "57" not in std.codes
            and points is not None and (std.address.address_code == "-99" or reference_covers(points, std.address.zip)))


def address_verification(lead: LeadRequest, std: Standardized | None, name: NameParser,
                         points: PointSource | None, records: LeadRecords | None) -> str:
    """ELSResidentialAddressVerificationResult of a lead (see the module table); "" without standardization."""
    if std is None:
        return ""
    codes = std.codes
    if not (lead.street1.strip() or lead.street2.strip()) or "57" in codes:
        return "460"
    if any(c in codes for c in _NOT_STANDARDIZED):
        return "104"
    covered = reference_covers(points, std.address.zip)
    complete = covered and covers_completely(points, std.address.zip)
    if complete and street_not_in_zip(std, points):
        return "490"
    if complete and "61" in codes:
        return "500"
    if covered and std.match == MatchLevel.MULTIPLE and std.candidates > 1:
        return "450"
    if "01" in codes or "23" in codes or _city_not_of_zip(lead, std.address.zip):
        return "470"
    if _city_not_in_state(lead):
        return "480"
    if records is not None:
        what, line = records.address_match(lead, name)
        if what:
            return _NAME_CODES[what][_CLASS_INDEX[line]] if line in _CLASS_INDEX else "101"
    if covered and std.match in _FOUND:
        return "650" if lead.address_type != "B" and getattr(points, "residential", False) else "101"
    if records is not None:
        return "660"
    return "103"


def _city_not_of_zip(lead: LeadRequest, zip5: str) -> bool:
    """The lead's city is a city of its state, but not a name of its ZIP (the ZIP won, status 04)."""
    from dqkit.engines.usaddr.lastline import closest_city_in_state

    info = zipdata.zip_info(zip5)
    city, state = lead.city.strip().upper(), lead.state.strip().upper()
    if info is None or not city or state != info.state:
        return False
    real = closest_city_in_state(city, state)
    return bool(real) and real != info.city and real not in info.acceptable_cities


def _city_not_in_state(lead: LeadRequest) -> bool:
    from dqkit.engines.usaddr.lastline import closest_city_in_state

    city, state = lead.city.strip(), lead.state.strip().upper()
    if not city or len(state) != 2 or zipdata.zip_info(lead.zip.strip()[:5]) is None:
        return False
    try:
        return not closest_city_in_state(city.upper(), state)
    except KeyError:
        return False


def reverse_phone_append(lead: LeadRequest, std: Standardized | None, first: PhoneCheck | None,
                         records: LeadRecords | None) -> ReversePhoneAppend | None:
    """REVERSE_PHONE_APPEND of a lead (see the module docstring); None when no append was tried."""
    if std is not None and std.valid and (lead.street1.strip() or lead.street2.strip()):
        return ReversePhoneAppend(execution_status_flag="A")
    if first is None:
        return ReversePhoneAppend(execution_status_flag="B")
    if not first.digits:
        return ReversePhoneAppend(execution_status_flag="E")
    if records is None:
        return None
    found = records.by_phone(first.digits)
    if not found:
        return ReversePhoneAppend(execution_status_flag="N")
    rec = found[0]
    info = zipdata.zip_info(rec.zip)
    address = AppendAddress(street1=rec.street, city=info.city if info else "", state=info.state if info else "",
                            zip=rec.zip) if rec.street or rec.zip else None
    return ReversePhoneAppend(execution_status_flag="P", first_name=rec.first_name[:15],
                              last_name=rec.last_name[:20], address=address)
