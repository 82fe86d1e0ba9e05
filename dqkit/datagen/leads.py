"""SYNTHETIC sample leads (`data/sample_leads.csv`) and matching reference records (`data/sample_lead_records.csv`).

Nothing here describes a real person. Given names and surnames are drawn, by their frequency, from the US Census
1990 name lists bundled with the `names` package (MIT; a development dependency, imported only here, never by
the product). ZIP / city / state triples and the area codes that serve them come from the bundled `zipcodes`
data (through `dqkit.engines.zipdata`); street names are common US street names (public facts, listed below);
house numbers, units, phone prefixes and line numbers are random with a fixed seed, so the same arguments always
write byte-identical files.

The leads come from five sources (PARTNER_ID, LEAD_SOURCE) of different quality, so that per-source audits show
something: a clean web form, an affiliate network with spoofs and invalid characters, a call center that types
FULL_NAME only, a purchased list with stale phones and missing fields, and a sweepstakes co-registration feed
full of joke names. Defects planted: spoofs of every kind E100 knows, the E200 characters, missing name / ZIP /
phone, phones of bad length or format, invalid area codes, bad prefixes, area codes from another state or
another part of the state, over-long values (E300). Values are written the ways real files carry them: phones
as "(217) 555-0142", "+1 217-555-0142", "217.555.0142" or with an extension ("x12", "ext. 12"), ZIP+4 as
"94501-1234", states by name, stray blanks and non-breaking spaces (the accessors normalize them; the wire would
not). About a quarter of the clean leads get a reference record
(exact, household member, moved, business ...), so a scoring profile gives every SCORE_RESULT level.

    python -m dqkit.datagen.leads [--rows 10000] [--seed 20240917] [--out data/sample_leads.csv]
                                  [--records-out data/sample_lead_records.csv]
"""

from __future__ import annotations

import argparse
import bisect
import csv
import itertools
import random
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

DEFAULT_ROWS: Final = 10_000
DEFAULT_SEED: Final = 20240917
DEFAULT_OUT: Final = "data/sample_leads.csv"
DEFAULT_RECORDS_OUT: Final = "data/sample_lead_records.csv"
COLUMNS: Final = ("PREFIX", "FIRST_NAME", "MIDDLE_NAME", "LAST_NAME", "SUFFIX", "FULL_NAME", "BUSINESS_NAME",
                  "ADDRESS_TYPE", "STREET1", "STREET2", "CITY", "STATE", "ZIP", "ZIPPLUS", "PHONE_TYPE",
                  "PHONE_NUMBER", "PARTNER_ID", "CLIENT_ID", "CUST_REF_NO", "LEAD_SOURCE")
RECORD_COLUMNS: Final = ("first_name", "last_name", "business_name", "street1", "zip", "phone", "line_class")


@dataclass(frozen=True)
class Source:
    """A lead source and how its leads go wrong (probabilities per lead)."""

    partner_id: str
    name: str
    share: float
    business: float
    full_name_only: float
    spoof: float
    invalid_char: float
    missing: float
    bad_phone: float
    no_phone: float
    over_long: float
    clients: tuple[str, ...]


SOURCES: Final = (
    Source("WEB01", "web form", 0.35, 0.15, 0.03, 0.010, 0.005, 0.005, 0.02, 0.03, 0.001, ("C100", "C200")),
    Source("AFF22", "affiliate network", 0.25, 0.10, 0.05, 0.060, 0.030, 0.020, 0.07, 0.05, 0.004, ("C100",)),
    Source("CALL7", "call center", 0.15, 0.25, 0.70, 0.005, 0.002, 0.010, 0.03, 0.01, 0.002, ("C200", "C300")),
    Source("LIST9", "purchased list", 0.15, 0.30, 0.10, 0.020, 0.010, 0.060, 0.20, 0.10, 0.010, ("C300",)),
    Source("SWEEP", "sweepstakes", 0.10, 0.02, 0.05, 0.220, 0.040, 0.030, 0.12, 0.05, 0.004, ("C100", "C300")),
)

# ------------------------------------------------------------------ vocabulary (public facts)

STREET_NAMES: Final = (
    "Main", "Oak", "Pine", "Maple", "Cedar", "Elm", "Washington", "Lake", "Hill", "Park", "Walnut", "Spring",
    "Ridge", "Church", "Willow", "Mill", "Sunset", "Railroad", "Jackson", "Cherry", "Center", "Highland",
    "Johnson", "Franklin", "Lincoln", "Madison", "Jefferson", "Adams", "Meadow", "Dogwood", "Hickory", "Poplar",
    "Sycamore", "Birch", "Chestnut", "Locust", "Magnolia", "Holly", "Laurel", "Spruce", "Cypress", "Orchard",
    "Valley", "River", "Forest", "Grove", "Lakeview", "Hillside", "Riverside", "Woodland", "Fairview",
    "Pleasant", "Prospect", "Union", "School", "College", "Market", "Bridge", "Water", "Front", "High",
    "Broad", "State", "Court", "King", "Broadway", "Evergreen", "Greenwood", "Wildwood", "Kensington",
    "Windsor", "Cambridge", "Oxford", "Hampton", "Colonial", "Liberty", "Monroe", "Harrison", "Grant",
    "Taylor", "Wilson", "Cleveland", "Garfield", "Kennedy", "Roosevelt", "Smith", "Brown", "Davis", "Miller",
    "Clark", "Lewis", "Walker", "Green", "Baker", "Nelson", "Carter", "Mitchell", "Summit", "Crescent",
    "Creekside", "Fox", "Deer", "Eagle", "Quail", "Cardinal", "Robin", "Bayview", "Ocean", "Beach", "Harbor",
    "Mission", "Vista", "Sierra", "Mesa", "Canyon", "Belmont", "Beverly", "Glenwood", "Hawthorne", "Ivy",
    "Lilac", "Rose", "Heather", "Sage", "Hollow", "Glen", "Brook", "Stonebridge", "Old Mill", "Country Club",
    "Airport", "Depot", "Station", "Commerce", "Industrial", "Technology", "University",
)
NUMBERED: Final = tuple(f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
                        for n in range(1, 41))
SUFFIXES: Final = ("St", "Ave", "Rd", "Dr", "Ln", "Ct", "Way", "Blvd", "Pl", "Cir", "Ter", "Pkwy")
SUFFIX_WEIGHTS: Final = (26, 18, 12, 16, 8, 6, 5, 3, 3, 2, 2, 1)
SUFFIX_WORDS: Final = {"St": "Street", "Ave": "Avenue", "Rd": "Road", "Dr": "Drive", "Ln": "Lane", "Ct": "Court",
                       "Blvd": "Boulevard", "Pl": "Place", "Cir": "Circle", "Ter": "Terrace", "Pkwy": "Parkway",
                       "Way": "Way"}
INDUSTRIES: Final = ("Plumbing", "Roofing", "Electric", "Construction", "Landscaping", "Auto Repair", "Dental",
                     "Insurance", "Realty", "Consulting", "Accounting", "Bakery", "Cleaning Services",
                     "Heating and Cooling", "Painting", "Flooring", "Trucking", "Marketing", "Law Group",
                     "Medical Supply", "Pet Care", "Fitness", "Design Studio", "Hardware", "Florist")
LEGAL_FORMS: Final = ("LLC", "Inc", "Inc.", "Co", "Corp", "LLC", "", "", "Group", "and Sons")
BUSINESS_WORDS: Final = ("Premier", "Reliable", "Summit", "Golden", "Blue Ridge", "Advanced", "Allied",
                         "Heritage", "Pioneer", "Evergreen", "Keystone", "Liberty", "Northstar", "Capital",
                         "Coastal", "Frontier", "Precision", "Superior", "Sterling", "Tri County")
TITLES: Final = ("Owner", "CEO", "CFO", "President", "Office Manager", "VP of Sales", "Director", "Partner")
PREFIXES: Final = ("Mr", "Mr.", "Mrs", "Mrs.", "Ms", "Ms.", "Dr", "Dr.", "Miss")
NAME_SUFFIXES: Final = ("Jr", "Jr.", "Sr", "II", "III", "IV")

# Spoofs as lead forms receive them (kind, first, last); "" fields are left to the template.
SPOOF_PEOPLE: Final = (
    ("fictional", "Mickey", "Mouse"), ("fictional", "Donald", "Duck"), ("fictional", "Homer", "Simpson"),
    ("fictional", "Bart", "Simpson"), ("fictional", "Harry", "Potter"), ("fictional", "Luke", "Skywalker"),
    ("fictional", "Bugs", "Bunny"), ("fictional", "Fred", "Flintstone"), ("fictional", "Peter", "Parker"),
    ("fictional", "Bruce", "Wayne"), ("fictional", "Santa", "Claus"), ("fictional", "Sponge Bob", "Squarepants"),
    ("fictional", "Darth", "Vader"), ("fictional", "Scooby", "Doo"), ("fictional", "Tony", "Stark"),
    ("celebrity", "Donald", "Trump"), ("celebrity", "Barack", "Obama"), ("celebrity", "Taylor", "Swift"),
    ("celebrity", "Elvis", "Presley"), ("celebrity", "Kim", "Kardashian"), ("celebrity", "Elon", "Musk"),
    ("celebrity", "Oprah", "Winfrey"), ("celebrity", "Brad", "Pitt"), ("celebrity", "Abraham", "Lincoln"),
    ("placeholder", "John", "Doe"), ("placeholder", "Jane", "Doe"), ("placeholder", "Test", "Test"),
    ("placeholder", "Test", "User"), ("placeholder", "First", "Last"), ("placeholder", "Asdf", "Asdf"),
    ("placeholder", "None", "None"), ("placeholder", "Xxx", "Xxx"), ("placeholder", "Joe", "Blow"),
    ("placeholder", "Fname", "Lname"), ("placeholder", "Testing", "Smith"), ("placeholder", "Unknown", "Jones"),
    ("keyboard", "Qwerty", "Asdf"), ("keyboard", "Asdfgh", "Jkl"), ("keyboard", "Zxcv", "Bnm"),
    ("keyboard", "Sdfg", "Hjkl"), ("keyboard", "Hjkhjk", "Dfgdfg"),
    ("repeated", "Aaaa", "Bbbb"), ("repeated", "Xxxxx", "Yyyy"), ("repeated", "Jjjjj", "Smith"),
    ("prank", "Ben", "Dover"), ("prank", "Mike", "Hunt"), ("prank", "Hugh", "Jass"), ("prank", "Seymour", "Butts"),
    ("prank", "Amanda", "Hugginkiss"), ("prank", "Phil", "McCracken"), ("prank", "Dixie", "Normous"),
    ("vulgar", "Fuk", "You"), ("vulgar", "Sh1t", "Head"), ("vulgar", "Biatch", "Jones"), ("vulgar", "Dumbass", "Lee"),
    ("vulgar", "Mike", "Fuuuck"), ("vulgar", "F.u.c.k", "Off"), ("vulgar", "Eat", "Sh!t"), ("vulgar", "Kiss", "MyAss"),
    ("vulgar", "Pussy", "Cat"), ("vulgar", "Jack", "Ass"), ("vulgar", "Poop", "Face"), ("vulgar", "Whore", "Smith"),
)
SPOOF_STREETS: Final = ("123 Fake St", "742 Evergreen Terrace", "221B Baker Street", "4 Privet Drive",
                        "1313 Mockingbird Lane", "123 Sesame Street", "None", "asdf", "Test", "N/A")
SPOOF_BUSINESSES: Final = ("Dunder Mifflin", "Wayne Enterprises", "Stark Industries", "Acme Fuk Co", "Test Company",
                           "Initech", "Krusty Krab", "Los Pollos Hermanos")
INVALID_TEXTS: Final = (
    ("BUSINESS_NAME", "{last} & Sons"), ("BUSINESS_NAME", "A&B {industry}"), ("LAST_NAME", "{last}*"),
    ("FIRST_NAME", "{first}?"), ("STREET1", "{street} <rear>"), ("STREET2", "Apt #5 = back"),
    ("CITY", "{city}?"), ("FIRST_NAME", "Jo$e"), ("FULL_NAME", "{first} & {first2} {last}"),
    ("BUSINESS_NAME", "50% Off {industry}"), ("LAST_NAME", "{last}^"), ("STREET1", "{street} > side door"),
)
_NOT_SUBSCRIBER: Final = frozenset({"211", "311", "411", "511", "611", "711", "811", "911", "555", "950", "958",
                                    "959"})
_INVALID_AREA_CODES: Final = ("123", "099", "199", "000", "911", "411", "555", "999", "011")
_TERRITORIES: Final = frozenset({"AS", "GU", "MP", "PR", "VI", "FM", "MH", "PW", "AA", "AE", "AP"})


# ------------------------------------------------------------------ sampling helpers


class _Weighted:
    """Draw from a list by weight, with a precomputed cumulative table (fast and deterministic)."""

    def __init__(self, items: Sequence[str], weights: Sequence[float]) -> None:
        self.items = list(items)
        self.cum = list(itertools.accumulate(weights))

    def draw(self, rng: random.Random) -> str:
        return self.items[bisect.bisect_right(self.cum, rng.random() * self.cum[-1])]


def _census(name: str) -> _Weighted:
    """A Census 1990 name list of the `names` package (NAME, frequency %, cumulative %, rank)."""
    import names  # development dependency: sample generation only

    path = Path(names.__file__).resolve().parent / name
    items: list[str] = []
    weights: list[float] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) >= 2:
            items.append(parts[0])
            weights.append(max(float(parts[1]), 0.0005))
    return _Weighted(items, weights)


@dataclass(frozen=True)
class _Zip:
    zip: str
    city: str
    state: str
    area_codes: tuple[str, ...]
    other_state_codes: tuple[str, ...]  # area codes of the state that do not serve this ZIP


def _zip_pool() -> list[_Zip]:
    from dqkit.engines import zipdata

    t = zipdata.tables()
    pool: list[_Zip] = []
    for z in sorted(t.by_zip.values(), key=lambda z: z.zip):
        if z.kind != "STANDARD" or not z.active or z.country != "US" or z.state in _TERRITORIES:
            continue
        if not z.area_codes:
            continue
        state_codes = t.area_codes_by_state.get(z.state, frozenset())
        pool.append(_Zip(z.zip, z.city, z.state, tuple(sorted(z.area_codes)),
                         tuple(sorted(state_codes - z.area_codes))))
    return pool


def _state_names() -> dict[str, str]:
    from dqkit.contract.us_states import STATE_CODES

    out: dict[str, str] = {}
    for name, code in STATE_CODES.items():
        out.setdefault(code, name.title().replace(" Of ", " of "))
    return out


_STATE_NAMES: Final = _state_names()


def _title(word: str) -> str:
    """Census names are upper case; write them as people do (McDonald, O'Neil -> Oneil stays plain)."""
    w = word.capitalize()
    if w.startswith("Mc") and len(w) > 3:
        w = "Mc" + w[2:].capitalize()
    return w


def _case(rng: random.Random, text: str) -> str:
    r = rng.random()
    if r < 0.08:
        return text.upper()
    if r < 0.12:
        return text.lower()
    return text


# ------------------------------------------------------------------ the generator


@dataclass
class GeneratedLead:
    """One sample lead: its CSV row, the defect planted (or "" for a clean lead) and its ZIP facts."""

    row: dict[str, str]
    defect: str
    zip: _Zip
    phone_digits: str = ""
    is_business: bool = False
    record_rows: list[dict[str, str]] = field(default_factory=list)


class _Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.male = _census("dist.male.first")
        self.female = _census("dist.female.first")
        self.last = _census("dist.all.last")
        self.zips = _zip_pool()
        self.sources = _Weighted([s.partner_id for s in SOURCES], [s.share for s in SOURCES])
        self.by_id = {s.partner_id: s for s in SOURCES}
        all_codes = sorted({c for z in self.zips for c in z.area_codes})
        self.all_codes = all_codes
        self.state_codes: dict[str, frozenset[str]] = {}
        for z in self.zips:
            self.state_codes[z.state] = self.state_codes.get(z.state, frozenset()) | frozenset(z.area_codes)

    # -- pieces

    def first_name(self) -> str:
        return _title((self.male if self.rng.random() < 0.5 else self.female).draw(self.rng))

    def last_name(self) -> str:
        return _title(self.last.draw(self.rng))

    def street(self) -> str:
        rng = self.rng
        r = rng.random()
        number = str(rng.randint(1, 99) if r < 0.3 else rng.randint(100, 9999) if r < 0.9 else rng.randint(10000,
                                                                                                      29999))
        name = rng.choice(NUMBERED) if rng.random() < 0.12 else rng.choice(STREET_NAMES)
        suffix = rng.choices(SUFFIXES, SUFFIX_WEIGHTS)[0]
        if rng.random() < 0.15:
            suffix = SUFFIX_WORDS[suffix]
        pre = rng.choice(("N", "S", "E", "W", "North", "West")) + " " if rng.random() < 0.1 else ""
        return f"{number} {pre}{name} {suffix}"

    def unit(self, business: bool) -> str:
        rng = self.rng
        if business:
            return rng.choice(("Ste", "Suite", "Unit", "Fl")) + f" {rng.randint(1, 30) * 10 + rng.randint(0, 9)}"
        style = rng.random()
        if style < 0.5:
            return f"Apt {rng.randint(1, 40)}{rng.choice(('', '', 'A', 'B', 'C'))}"
        if style < 0.8:
            return f"Unit {rng.randint(1, 300)}"
        return f"# {rng.randint(1, 30)}"

    def phone_digits(self, z: _Zip) -> str:
        npa = self.rng.choice(z.area_codes)
        return npa + self.prefix() + f"{self.rng.randint(0, 9999):04d}"

    def prefix(self) -> str:
        while True:
            nxx = str(self.rng.randint(200, 999))
            if nxx not in _NOT_SUBSCRIBER:
                return nxx

    def write_phone(self, digits: str) -> str:
        a, b, c = digits[:3], digits[3:6], digits[6:]
        rng = self.rng
        text = rng.choices((f"{a}-{b}-{c}", digits, f"{a}.{b}.{c}", f"({a}){b}{c}", f"1{digits}", f"{a} {b} {c}",
                            f"({a}) {b}-{c}", f"+1 {a}-{b}-{c}", f"+1 ({a}) {b}-{c}", f"1-{a}-{b}-{c}"),
                           (20, 12, 8, 5, 3, 5, 30, 8, 4, 5))[0]
        if rng.random() < 0.04:  # an office line with an extension
            text += rng.choice((" x", " ext. ", " ext ", " #", ", extension ")) + str(rng.randint(2, 4999))
        return text

    def messy(self, row: dict[str, str]) -> None:
        """How exported files arrive: ZIP+4 in the ZIP column, state names, blanks and non-breaking spaces."""
        rng = self.rng
        if rng.random() < 0.06 and len(row["ZIP"]) == 5 and row["ZIP"].isdigit():
            row["ZIP"] = f"{row['ZIP']}-{rng.randint(1, 9999):04d}"
        if rng.random() < 0.05 and row["STATE"] in _STATE_NAMES:
            name = _STATE_NAMES[row["STATE"]]
            row["STATE"] = name.upper() if rng.random() < 0.3 else name
        for col in ("FIRST_NAME", "LAST_NAME", "CITY", "STREET1"):
            if row[col] and rng.random() < 0.02:
                row[col] = rng.choice((" ", "\u00a0", "  ")) + row[col] + rng.choice((" ", "\u00a0", ""))

    def business_name(self, last: str, z: _Zip) -> str:
        rng = self.rng
        industry = rng.choice(INDUSTRIES)
        style = rng.random()
        if style < 0.4:
            head = last
        elif style < 0.6:
            head = z.city.title()
        else:
            head = rng.choice(BUSINESS_WORDS)
        form = rng.choice(LEGAL_FORMS)
        return " ".join(p for p in (head, industry, form) if p)[:50]

    # -- one lead

    def lead(self, n: int) -> GeneratedLead:
        rng = self.rng
        src = self.by_id[self.sources.draw(rng)]
        z = rng.choice(self.zips)
        business = rng.random() < src.business
        first, last = self.first_name(), self.last_name()
        row = dict.fromkeys(COLUMNS, "")
        middle = ""
        if rng.random() < 0.3:
            middle = rng.choice("ABCDEFGHIJKLMNPRSTW") if rng.random() < 0.7 else self.first_name()
        row.update(PARTNER_ID=src.partner_id, LEAD_SOURCE=src.name, CLIENT_ID=rng.choice(src.clients),
                   CUST_REF_NO=f"{src.partner_id[:2]}{n:07d}", CITY=_case(rng, z.city.title()), STATE=z.state,
                   ZIP=z.zip, ADDRESS_TYPE="B" if business else ("H" if rng.random() < 0.8 else ""))
        street = self.street()
        if rng.random() < 0.12 or (business and rng.random() < 0.4):
            unit = self.unit(business)
            if rng.random() < 0.3 and len(street) + len(unit) < 34:
                street = f"{street} {unit}"
            else:
                row["STREET2"] = unit
        if rng.random() < 0.03:
            street = f"PO Box {rng.randint(1, 9999)}"
            row["STREET2"] = ""
        row["STREET1"] = _case(rng, street)
        if rng.random() < src.full_name_only:
            row["FULL_NAME"] = self.full_name_text(first, middle, last)
        else:
            row.update(FIRST_NAME=_case(rng, first), MIDDLE_NAME=middle, LAST_NAME=_case(rng, last))
            if rng.random() < 0.08:
                row["PREFIX"] = rng.choice(PREFIXES)
            if rng.random() < 0.04:
                row["SUFFIX"] = rng.choice(NAME_SUFFIXES)
        if business:
            row["BUSINESS_NAME"] = self.business_name(last, z)
            if row["FULL_NAME"] and rng.random() < 0.3:  # "Jane Roe, CFO, Acme Inc"
                row["FULL_NAME"] = f"{first} {last}, {rng.choice(TITLES)}, {row['BUSINESS_NAME']}"[:50]
                row["BUSINESS_NAME"] = ""
        digits = self.phone_digits(z)
        row["PHONE_NUMBER"] = self.write_phone(digits)
        row["PHONE_TYPE"] = ("B" if business else "H") if rng.random() < 0.85 else ""
        lead = GeneratedLead(row, "", z, digits, business)
        self.plant_defect(lead, src, first, last)
        self.messy(row)
        return lead

    def full_name_text(self, first: str, middle: str, last: str) -> str:
        rng = self.rng
        mid = f" {middle}" if middle else ""
        style = rng.random()
        if style < 0.6:
            text = f"{first}{mid} {last}"
        elif style < 0.8:
            text = f"{last}, {first}{mid}"
        elif style < 0.9:
            text = f"{rng.choice(PREFIXES)} {first}{mid} {last}"
        else:
            text = f"{first}{mid} {last} {rng.choice(NAME_SUFFIXES)}"
        return _case(rng, text)[:50]

    def plant_defect(self, lead: GeneratedLead, src: Source, first: str, last: str) -> None:
        rng = self.rng
        row = lead.row
        r = rng.random()
        edges = itertools.accumulate((src.spoof, src.invalid_char, src.missing, src.bad_phone, src.no_phone,
                                      src.over_long))
        kind = next((k for k, edge in zip(("spoof", "invalid", "missing", "phone", "nophone", "long"), edges,
                                          strict=True) if r < edge), "")
        if kind == "spoof":
            lead.defect = self.plant_spoof(row)
        elif kind == "invalid":
            target, template = rng.choice(INVALID_TEXTS)
            value = template.format(first=first, first2=self.first_name(), last=last, city=row["CITY"],
                                    street=row["STREET1"], industry=rng.choice(INDUSTRIES))
            if target == "FULL_NAME":
                row.update(FIRST_NAME="", MIDDLE_NAME="", LAST_NAME="", PREFIX="", SUFFIX="")
            row[target] = value[:35] if target in ("STREET1", "STREET2") else value[:28 if target == "CITY" else 30]
            lead.defect = f"invalid:{target}"
        elif kind == "missing":
            what = rng.choice(("zip", "zip", "last", "name"))
            if what == "zip":
                row["ZIP"] = ""
            elif what == "last":
                row.update(LAST_NAME="", FULL_NAME="", BUSINESS_NAME="")
            else:
                row.update(FIRST_NAME="", MIDDLE_NAME="", LAST_NAME="", FULL_NAME="", BUSINESS_NAME="", PREFIX="",
                           SUFFIX="")
            lead.defect = f"missing:{what}"
        elif kind == "phone":
            lead.defect = self.plant_bad_phone(lead)
        elif kind == "nophone":
            row.update(PHONE_NUMBER="", PHONE_TYPE="")
            lead.phone_digits = ""
            lead.defect = "missing:phone"
        elif kind == "long":
            row["STREET1"] = f"{rng.randint(10000, 99999)} North Martin Luther King Junior Boulevard"
            lead.defect = "long:STREET1"

    def plant_spoof(self, row: dict[str, str]) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.08:
            row["STREET1"] = rng.choice(SPOOF_STREETS)
            return "spoof:street"
        if r < 0.13 and row["BUSINESS_NAME"]:
            row["BUSINESS_NAME"] = rng.choice(SPOOF_BUSINESSES)
            return "spoof:business"
        kind, f, la = rng.choice(SPOOF_PEOPLE)
        if row["FULL_NAME"] or rng.random() < 0.15:
            row.update(FIRST_NAME="", MIDDLE_NAME="", LAST_NAME="", PREFIX="", SUFFIX="",
                       FULL_NAME=f"{f} {la}" if rng.random() < 0.8 else f"{la}, {f}")
        else:
            row.update(FIRST_NAME=_case(rng, f), MIDDLE_NAME="", LAST_NAME=_case(rng, la))
        return f"spoof:{kind}"

    def plant_bad_phone(self, lead: GeneratedLead) -> str:
        rng = self.rng
        row, z, digits = lead.row, lead.zip, lead.phone_digits
        what = rng.choice(("short", "long", "letters", "area", "prefix", "state", "state", "zip", "zip"))
        if what == "short":
            row["PHONE_NUMBER"] = digits[: rng.randint(6, 9)]
        elif what == "long":
            row["PHONE_NUMBER"] = digits + str(rng.randint(0, 9))
        elif what == "letters":
            row["PHONE_NUMBER"] = rng.choice(("555-CALL-NOW", "none", "n/a", "call me", f"{digits[:3]}-ABC-DEFG"))
        elif what == "area":
            row["PHONE_NUMBER"] = rng.choice(_INVALID_AREA_CODES) + digits[3:]
        elif what == "prefix":
            row["PHONE_NUMBER"] = digits[:3] + rng.choice(("555", "911", "411", "011", "123")) + digits[6:]
        elif what == "state":
            others = [c for c in self.all_codes if c not in self.state_codes.get(z.state, frozenset())]
            row["PHONE_NUMBER"] = rng.choice(others) + digits[3:]
        elif z.other_state_codes:
            row["PHONE_NUMBER"] = rng.choice(z.other_state_codes) + digits[3:]
        else:
            what = "state"
            others = [c for c in self.all_codes if c not in self.state_codes.get(z.state, frozenset())]
            row["PHONE_NUMBER"] = rng.choice(others) + digits[3:]
        lead.phone_digits = row["PHONE_NUMBER"] if row["PHONE_NUMBER"].isdigit() else ""
        return f"phone:{what}"

    # -- reference records

    def records_for(self, lead: GeneratedLead) -> list[dict[str, str]]:
        """Reference records for a clean lead (about a quarter of them), with every match level."""
        rng = self.rng
        row = lead.row
        if lead.defect or not lead.phone_digits or rng.random() > 0.27:
            return []
        first, last = row["FIRST_NAME"], row["LAST_NAME"]
        if not last and row["FULL_NAME"]:
            from dqkit.engines.lead.names import parse_full_name

            parsed = parse_full_name(row["FULL_NAME"])
            first, last = parsed.first_name.title(), parsed.last_name.title()
        street, zip5 = row["STREET1"].strip(" \u00a0"), row["ZIP"][:5]
        business = row["BUSINESS_NAME"]
        line = rng.choices(("R", "M", "C", "P"), (78, 6, 15, 1))[0]
        if lead.is_business:
            line = rng.choices(("B", "M"), (80, 20))[0]
        level = rng.choices(("exact", "household", "moved", "surname", "address", "none", "header"),
                            (55, 10, 10, 6, 6, 5, 8))[0]
        if level == "household":
            first = self.first_name()
        elif level == "moved":
            street = self.street()
        elif level == "surname":
            first, street = self.first_name(), self.street()
        elif level == "address":
            first, last, business = self.first_name(), self.last_name(), ""
        elif level == "none":
            first, last, street, business = self.first_name(), self.last_name(), self.street(), ""
        phone = lead.phone_digits
        if level == "header":  # the person is known, under another number
            phone = self.phone_digits(lead.zip)
        return [dict(first_name=first, last_name=last, business_name=business, street1=street, zip=zip5,
                     phone=phone, line_class=line)]


def generate(rows: int = DEFAULT_ROWS, seed: int = DEFAULT_SEED) -> Iterator[GeneratedLead]:
    """The sample leads, in order, each with its planted defect and its reference records."""
    gen = _Generator(seed)
    for n in range(1, rows + 1):
        lead = gen.lead(n)
        lead.record_rows = gen.records_for(lead)
        yield lead


def write(out: str | Path = DEFAULT_OUT, records_out: str | Path | None = DEFAULT_RECORDS_OUT,
          rows: int = DEFAULT_ROWS, seed: int = DEFAULT_SEED) -> tuple[Path, Path | None]:
    """Write the sample leads CSV (and the reference records CSV unless `records_out` is None)."""
    out_path = Path(out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    records: list[dict[str, str]] = []
    with out_path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        for lead in generate(rows, seed):
            w.writerow(lead.row)
            records += lead.record_rows
    rec_path = None
    if records_out is not None:
        rec_path = Path(records_out)
        rec_path.parent.mkdir(parents=True, exist_ok=True)
        with rec_path.open("w", newline="", encoding="utf-8") as fh:
            rw = csv.DictWriter(fh, fieldnames=RECORD_COLUMNS, lineterminator="\n")
            rw.writeheader()
            rw.writerows(records)
    return out_path, rec_path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m dqkit.datagen.leads", description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=int, default=DEFAULT_ROWS, help=f"number of leads (default {DEFAULT_ROWS})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed (default {DEFAULT_SEED})")
    p.add_argument("--out", default=DEFAULT_OUT, help=f"leads CSV (default {DEFAULT_OUT})")
    p.add_argument("--records-out", default=DEFAULT_RECORDS_OUT,
                   help=f"reference records CSV (default {DEFAULT_RECORDS_OUT}); '-' to skip")
    args = p.parse_args(argv)
    if args.rows < 1:
        p.error("--rows must be at least 1")
    leads, recs = write(args.out, None if args.records_out == "-" else args.records_out, args.rows, args.seed)
    print(f"wrote {args.rows} synthetic leads to {leads}" + (f" and reference records to {recs}" if recs else ""),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
