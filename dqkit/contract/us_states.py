"""USPS codes and names of the states, DC, the territories and the military "states" (Publication 28, appendix B).

A code table as data, in the contract layer: the US standardizer reads it, the normalization of lead input (state
names written out become codes) and the phone check (the geocoder's state names) too, so one name means one state
everywhere. Why not the `us` package: it lacks 7 of these 63 codes (FM, MH, PW, UM and the military AA, AE, AP),
which Publication 28 addresses carry, and importing it (with jellyfish) costs about 30 ms at `import dqkit`; on the
56 it has, its names are these (tests/contract/test_us_states.py compares them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

STATES: Final[Mapping[str, str]] = MappingProxyType({
    "AL": "ALABAMA", "AK": "ALASKA", "AZ": "ARIZONA", "AR": "ARKANSAS", "CA": "CALIFORNIA", "CO": "COLORADO",
    "CT": "CONNECTICUT", "DE": "DELAWARE", "DC": "DISTRICT OF COLUMBIA", "FL": "FLORIDA", "GA": "GEORGIA",
    "HI": "HAWAII", "ID": "IDAHO", "IL": "ILLINOIS", "IN": "INDIANA", "IA": "IOWA", "KS": "KANSAS",
    "KY": "KENTUCKY", "LA": "LOUISIANA", "ME": "MAINE", "MD": "MARYLAND", "MA": "MASSACHUSETTS",
    "MI": "MICHIGAN", "MN": "MINNESOTA", "MS": "MISSISSIPPI", "MO": "MISSOURI", "MT": "MONTANA",
    "NE": "NEBRASKA", "NV": "NEVADA", "NH": "NEW HAMPSHIRE", "NJ": "NEW JERSEY", "NM": "NEW MEXICO",
    "NY": "NEW YORK", "NC": "NORTH CAROLINA", "ND": "NORTH DAKOTA", "OH": "OHIO", "OK": "OKLAHOMA",
    "OR": "OREGON", "PA": "PENNSYLVANIA", "RI": "RHODE ISLAND", "SC": "SOUTH CAROLINA", "SD": "SOUTH DAKOTA",
    "TN": "TENNESSEE", "TX": "TEXAS", "UT": "UTAH", "VT": "VERMONT", "VA": "VIRGINIA", "WA": "WASHINGTON",
    "WV": "WEST VIRGINIA", "WI": "WISCONSIN", "WY": "WYOMING",
    "AS": "AMERICAN SAMOA", "GU": "GUAM", "MP": "NORTHERN MARIANA ISLANDS", "PR": "PUERTO RICO",
    "VI": "VIRGIN ISLANDS", "UM": "UNITED STATES MINOR OUTLYING ISLANDS",
    "FM": "FEDERATED STATES OF MICRONESIA", "MH": "MARSHALL ISLANDS", "PW": "PALAU",
    "AA": "ARMED FORCES AMERICAS", "AE": "ARMED FORCES EUROPE", "AP": "ARMED FORCES PACIFIC",
})

# More ways people write a state name in a lead file (besides the names above and the codes).
_NAME_VARIANTS: Final = {"WASHINGTON DC": "DC", "WASHINGTON D C": "DC", "US VIRGIN ISLANDS": "VI", "D C": "DC"}
# The traditional abbreviations (GPO and AP style: "Calif.", "Mass.", "Penn.", "N.Y."), as a lead's STATE field holds
# them; compared without their dots. Only for a whole STATE field: inside a one-line address "Miss" or "Wash" may be
# a street word, so the standardizer does not read them.
_ABBREVIATIONS: Final = {
    "ALA": "AL", "ARIZ": "AZ", "ARK": "AR", "CALIF": "CA", "CAL": "CA", "COLO": "CO", "CONN": "CT", "DEL": "DE",
    "FLA": "FL", "ILL": "IL", "IND": "IN", "KAN": "KS", "KANS": "KS", "MASS": "MA", "MICH": "MI", "MINN": "MN",
    "MISS": "MS", "MONT": "MT", "NEB": "NE", "NEBR": "NE", "NEV": "NV", "N H": "NH", "N J": "NJ", "N M": "NM",
    "N MEX": "NM", "N Y": "NY", "N C": "NC", "N D": "ND", "N DAK": "ND", "OKLA": "OK", "ORE": "OR", "OREG": "OR",
    "PENN": "PA", "PENNA": "PA", "R I": "RI", "S C": "SC", "S D": "SD", "S DAK": "SD", "TENN": "TN", "TEX": "TX",
    "WASH": "WA", "W VA": "WV", "WIS": "WI", "WISC": "WI", "WYO": "WY", "P R": "PR",
}

# Upper-case name (and the variants) -> code.
STATE_CODES: Final[Mapping[str, str]] = MappingProxyType(
    {**{name: code for code, name in STATES.items()}, **_NAME_VARIANTS, **_ABBREVIATIONS})

_NOT_LETTERS: Final = re.compile(r"[^A-Z ]+")


def state_code_of_name(name: str) -> str:
    """The USPS code of a state written out in any case and punctuation ("Washington D.C." -> "DC"), else ""."""
    return STATE_CODES.get(" ".join(_NOT_LETTERS.sub(" ", name.upper()).split()), "")
