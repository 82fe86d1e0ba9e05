"""PHONE_STATUS (E800 to E810) and the phone's own SCORE_RESULT, from bundled numbering data.

Sources, prepared once into `data/nanp_numbering.msgpack` (`python -m dqkit.engines.lead.phones` regenerates it;
a process reads it in a few ms instead of 0.2 s of reading phonenumbers' metadata and geocoder files):

- `phonenumbers` metadata (libphonenumber, Apache-2.0) for the 25 regions of the North American Numbering Plan:
  which area codes exist (geographic, toll-free 8XX, premium 900, personal 5XX) and which number patterns are
  valid behind each. For the US and Canada the patterns admit any prefix 2XX-9XX; for the Caribbean and the
  Pacific territories they list the prefixes in use. dqkit adds the NANP rules the metadata leaves out: N11
  service codes (211 ... 911), 555 (directory and fictional numbers) and 950 / 958 / 959 (carrier and test
  codes) are never subscriber prefixes.
- `phonenumbers` geocoder data: the place of about 31,000 US and Canadian prefixes ("Jersey City, NJ") and the
  state or province of every geographic area code. It is read from the package's data files, NANP part only,
  without importing the whole worldwide table (which costs about 0.5 s and 100 MB).
- `zipcodes` (through `dqkit.engines.zipdata`): the area codes that serve each ZIP code and each state.

What this data cannot tell: whether a number is assigned to a subscriber, who holds it, whether it was ported,
and mobile from landline (libphonenumber answers "fixed line or mobile" for every US number). A prefix missing
from the geocoder data is not evidence of anything (it lists about a fifth of the prefixes in use), so it is
used only to confirm a number's place, never to reject it.

The statuses, checked in this order (the first failure wins):

- E808: not a 10-digit number once spaces, dots, dashes, parentheses and a leading +1 / 1 are removed;
  letters (vanity numbers) included.
- E805 / E802, invalid area code: it starts with 0 or 1, or is no NANP area code in the metadata.
- E806 / E803, prefix not in the area code: the prefix starts with 0 or 1, is N11, 555, 950, 958 or 959, or
  the number fits no pattern of its area code.
- E807 / E804, area code does not serve the ZIP: the area code is used nowhere in the ZIP's state (zipcodes
  and geocoder), is non-geographic (8XX, 900, 5XX), or the ZIP is unknown.
- E810 / E809, area code and prefix fine but not the ZIP: the area code is used in the ZIP's state but is not
  listed for the ZIP, and the geocoder does not place the prefix in one of the ZIP's cities.
- E801 / E800: the area code serves the ZIP, or the geocoder places the prefix in the ZIP's city (overlay area
  codes newer than the ZIP data).

The first code of each pair is "number matches the database", used when the number is in the engine's
`LeadRecords` (none by default, so the engine answers the "does not match" variants).

`PhoneCheck.score` is what a scoring profile answers from the phone alone: 510 bad length or format, 520 invalid
area code, 530 prefix or ZIP mismatch (E806, E807, E810 and their "matches" twins), 540 valid but not in the
records, 450 no number; for a number in the records, the record's line class decides (590 cellular, 580 pager,
else 570 / 560 / 550, no name or address match yet). `LeadRecords.score` then adds the name and address match.
"""

from __future__ import annotations

import codecs
import functools
import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

import msgspec

from dqkit._versions import installed_version
from dqkit.contract.us_states import state_code_of_name
from dqkit.engines import zipdata


class LineClasses(Protocol):
    """What the phone check needs of the records (`LeadRecords` is one): the line class a number is on, if any.
    A protocol, so that this module does not import `records`, which imports it."""

    def line_class(self, digits: str) -> str | None: ...


@dataclass(frozen=True, slots=True)
class PhoneCheck:
    """The outcome of one phone number."""

    status: str  # E800..E810 (PHONE_STATUS)
    score: str  # SCORE_RESULT code for the profile that scores instead
    digits: str  # the 10-digit NANP number, or "" when unusable


MISSING: Final = PhoneCheck("E808", "450", "")

# Status pairs: (matches the database, does not match).
_BAD_AREA: Final = ("E802", "E805")
_BAD_PREFIX: Final = ("E803", "E806")
_NOT_ZIP_AREA: Final = ("E804", "E807")
_NOT_ZIP: Final = ("E809", "E810")
_GOOD: Final = ("E800", "E801")
_SCORE_OF: Final = {"E808": "510", "E805": "520", "E802": "520", "E806": "530", "E803": "530", "E807": "530",
                    "E804": "530", "E810": "530", "E809": "530", "E801": "540", "E800": "540"}
_LINE_SCORE: Final = {"R": "570", "B": "560", "M": "550", "C": "590", "P": "580"}

_SEPARATORS: Final = str.maketrans("", "", " ()-./\t")
_NOT_SUBSCRIBER: Final = frozenset({"211", "311", "411", "511", "611", "711", "811", "911", "555", "950", "958",
                                    "959"})


def nanp_digits(number: str) -> str:
    """The 10 digits of a NANP number written in any usual way, or "" when it is not one."""
    s = number.strip().translate(_SEPARATORS)
    if s.startswith("+"):
        s = s[1:]
        if not s.startswith("1"):
            return ""  # another country code
    if not (s.isascii() and s.isdigit()):
        return ""
    if len(s) == 11 and s[0] == "1":
        s = s[1:]
    return s if len(s) == 10 else ""


def check_phone(number: str, zip5: str, *, records: LineClasses | None = None) -> PhoneCheck:
    """PHONE_STATUS and phone-alone SCORE_RESULT of `number` for a lead in ZIP `zip5`."""
    if not number.strip():
        return MISSING
    digits = nanp_digits(number)
    if not digits:
        return PhoneCheck("E808", "510", "")
    line = records.line_class(digits) if records is not None else None
    status = _status(digits, zip5.strip()[:5])[0 if line is not None else 1]
    score = _SCORE_OF[status]
    if line is not None and score == "540":
        score = _LINE_SCORE.get(line, "101")  # a record that does not say its class claims none (issue 28)
    return PhoneCheck(status, score, digits)


def _status(digits: str, zip5: str) -> tuple[str, str]:
    """The (matches, does not match) status pair of a 10-digit number for a ZIP. Only the patterns read the
    whole number; what follows reads its first six digits, so that is cached on them and the ZIP (every lead of
    a file has its own number, most share an exchange and a ZIP with others)."""
    npa, nxx = digits[:3], digits[3:6]
    n = _numbering()
    if npa[0] in "01" or npa not in n.npa_regions:
        return _BAD_AREA
    if nxx[0] in "01" or nxx in _NOT_SUBSCRIBER or not _fits_pattern(n, digits):
        return _BAD_PREFIX
    return _place_status(digits[:6], zip5)


@functools.lru_cache(maxsize=16384)
def _place_status(prefix: str, zip5: str) -> tuple[str, str]:
    """The status pair of a valid number starting with these six digits (area code and exchange) for a ZIP."""
    n = _numbering()
    npa = prefix[:3]
    info = zipdata.zip_info(zip5)
    if info is None:
        return _NOT_ZIP_AREA
    if npa in info.area_codes:
        return _GOOD
    place = _prefix_place(n, prefix)
    if place is not None and place[1] == info.state and place[0] in info.cities:
        return _GOOD
    states = zipdata.states_of_area_code(npa)
    if info.state in states or n.state_of_npa.get(npa) == info.state:
        return _NOT_ZIP
    return _NOT_ZIP_AREA


def _fits_pattern(n: _Numbering, digits: str) -> bool:
    """Whether some region of the area code takes the number (its general pattern and one of its number types'),
    the regions in their order: the first that takes it ends the search."""
    for i in n.npa_regions[digits[:3]]:
        if n.pattern(i, 0).fullmatch(digits) and n.pattern(i, 1).fullmatch(digits):
            return True
    return False


def _prefix_place(n: _Numbering, digits: str) -> tuple[str, str] | None:
    """(CITY, ST) the geocoder gives for the number's prefix (longest known prefix of 6, 5 or 4 digits)."""
    places = n.places_of(digits[:3])
    for k in (6, 5, 4):
        place = places.get(digits[:k])
        if place is not None:
            return place
    return None


# ---------------------------------------------------------------- numbering tables, prepared once

_Pattern = re.Pattern[str]
# Bump when the prepared layout or the rules that build it change.
_FORMAT: Final = 2  # 2: places grouped by area code
PREPARED_FILE: Final = Path(__file__).resolve().parent / "data" / "nanp_numbering.msgpack"


class _Prepared(msgspec.Struct, frozen=True):
    """What `_build` reads from phonenumbers, written out: `python -m dqkit.engines.lead.phones` regenerates it
    (used only when made from the installed phonenumbers version, else built once and kept in the user cache)."""

    key: str  # _source_key(): the layout and the phonenumbers version
    regions: list[tuple[str, str]]  # (general pattern, pattern of every number type) per NANP region
    npa_regions: dict[str, list[int]]  # valid area code -> indexes of the regions whose patterns apply
    # "201" -> {"201200" (NPA + 0..3 digits) -> ("JERSEY CITY", "NJ")}: by area code, so a process decodes the
    # places of the area codes its numbers have (decoding all 31,000 cost 10-28 ms of 10 leads in a new process)
    places: dict[str, dict[str, tuple[str, str]]]
    state_of_npa: dict[str, str]  # "650" -> "CA" (US and territories; Canadian provinces by abbreviation)


class _Shipped(msgspec.Struct, frozen=True):
    """`_Prepared` as a process reads it: each area code's places left encoded until a number asks for them."""

    key: str
    regions: list[tuple[str, str]]
    npa_regions: dict[str, list[int]]
    places: dict[str, msgspec.Raw]
    state_of_npa: dict[str, str]


class _Numbering:
    """The NANP numbering tables; a region's pattern is compiled the first time a number reaches it (each costs
    0.5-2 ms, and many area codes list all 25 regions: compiling them all cost 16 ms of 10 leads in a new process)."""

    def __init__(self, prepared: _Prepared | _Shipped) -> None:
        self.npa_regions = prepared.npa_regions
        self.state_of_npa = prepared.state_of_npa
        self._regions = prepared.regions
        self._compiled: dict[tuple[int, int], _Pattern] = {}
        self._places: dict[str, dict[str, tuple[str, str]] | msgspec.Raw] = dict(prepared.places)

    def places_of(self, npa: str) -> dict[str, tuple[str, str]]:
        """The geocoder's places of an area code's prefixes, decoded the first time a number asks."""
        found = self._places.get(npa)
        if found is None:
            return {}
        if isinstance(found, msgspec.Raw):
            found = self._places[npa] = msgspec.msgpack.decode(found, type=dict[str, tuple[str, str]])
        return found

    @property
    def places(self) -> dict[str, tuple[str, str]]:
        """Every prefix's place (all area codes decoded): for tests and tools, not the per-number path."""
        return {k: v for npa in sorted(self._places) for k, v in self.places_of(npa).items()}

    def pattern(self, region: int, which: int) -> _Pattern:
        """A region's general pattern (which=0) or the pattern of all its number types (which=1), compiled."""
        found = self._compiled.get((region, which))
        if found is None:
            found = self._compiled[(region, which)] = re.compile(self._regions[region][which])
        return found


_PROBE_PREFIXES: Final = ("234", "345", "456", "567", "678", "789", "892", "923", "202", "301", "412", "520",
                          "634", "747", "856", "968", "210", "399", "488", "599", "655", "777", "876", "987")


def _source_key() -> str:
    return f"{_FORMAT}-{installed_version('phonenumbers')}"


def _build() -> _Prepared:
    """The tables from phonenumbers' metadata and geocoder data (about 0.2 s)."""
    import phonenumbers
    from phonenumbers import PhoneMetadata

    regions: list[tuple[str, str]] = []
    for region in phonenumbers.COUNTRY_CODE_TO_REGION_CODE[1]:
        md = PhoneMetadata.metadata_for_region(region)
        if md is None or md.general_desc is None or not md.general_desc.national_number_pattern:
            continue
        descs = (md.fixed_line, md.mobile, md.toll_free, md.premium_rate, md.shared_cost, md.personal_number,
                 md.voip, md.pager, md.uan, md.voicemail)
        kinds = [d.national_number_pattern for d in descs if d is not None and d.national_number_pattern]
        if kinds:
            regions.append((md.general_desc.national_number_pattern, "|".join(f"(?:{k})" for k in kinds)))
    compiled = [(re.compile(g), re.compile(t)) for g, t in regions]
    geo = _nanp_geodata()
    places: dict[str, dict[str, tuple[str, str]]] = {}
    state_of_npa: dict[str, str] = {}
    for key, desc in geo.items():
        if len(key) == 3:
            st = state_code_of_name(desc)
            if st:
                state_of_npa[key] = st
            elif ", " in desc:  # one-city area codes: "New York, NY"
                state_of_npa[key] = desc.rsplit(", ", 1)[1].upper()
        if ", " in desc:
            city, st = desc.rsplit(", ", 1)
            places.setdefault(key[:3], {})[key] = (city.upper(), st.upper())
    known_prefixes: dict[str, list[str]] = {}
    for key in geo:
        if len(key) > 3:
            known_prefixes.setdefault(key[:3], []).append(key)
    npa_regions: dict[str, list[int]] = {}
    for npa in (f"{a}{b}{c}" for a in "23456789" for b in "0123456789" for c in "0123456789"):
        relevant = [i for i, r in enumerate(compiled) if r[0].fullmatch(npa + "2345678")]
        if not relevant:
            continue
        # An area code exists when some number behind it is valid: try spread prefixes, then the geocoded ones
        # (the Caribbean patterns admit only the prefixes in use).
        probes = [npa + p + "1234" for p in _PROBE_PREFIXES]
        probes += [k + "2345678"[: 10 - len(k)] for k in known_prefixes.get(npa, [])[:40]]
        if any(compiled[i][0].fullmatch(d) and compiled[i][1].fullmatch(d) for d in probes for i in relevant):
            npa_regions[npa] = relevant
    return _Prepared(key=_source_key(), regions=regions, npa_regions=npa_regions, places=places,
                     state_of_npa=state_of_npa)


def write_prepared(path: Path | None = None) -> Path:
    """Build the tables from the installed phonenumbers and write them where the package ships them."""
    target = path or PREPARED_FILE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(msgspec.msgpack.encode(_build(), order="sorted"))
    return target


def _read(path: Path, key: str, kind: type[_Prepared] | type[_Shipped] = _Prepared) -> _Prepared | _Shipped | None:
    """The tables of a prepared file made for this key, decoded whole (`_Prepared`) or as a process reads them
    (`_Shipped`); None when absent, unreadable or made for another phonenumbers."""
    try:
        prepared = msgspec.msgpack.decode(path.read_bytes(), type=kind)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return prepared if prepared.key == key else None


def _cache_file(key: str) -> Path | None:
    try:
        import platformdirs

        return Path(platformdirs.user_cache_dir("dqkit")) / f"nanp-{key}.msgpack"
    except Exception:  # no cache is a slower start, never a failure
        return None


@functools.cache
def _numbering() -> _Numbering:
    """The tables: shipped prepared (a few ms), else from the user cache, else built (and cached)."""
    try:
        key = _source_key()
    except Exception:  # phonenumbers' version unknown: build, never fail
        return _Numbering(_build())
    prepared = _read(PREPARED_FILE, key, _Shipped)
    cache = _cache_file(key)
    if prepared is None and cache is not None:
        prepared = _read(cache, key, _Shipped)
    if prepared is None:
        prepared = _build()
        if cache is not None:
            try:
                cache.parent.mkdir(parents=True, exist_ok=True)
                tmp = cache.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_bytes(msgspec.msgpack.encode(prepared, order="sorted"))
                os.replace(tmp, cache)
            except OSError:
                pass
    return _Numbering(prepared)


_GEO_LINE: Final = re.compile(r"^\s*'1(\d{3,6})':\{'en': (?:u\()?'((?:[^'\\]|\\.)*)'", re.MULTILINE)


def _nanp_geodata() -> dict[str, str]:
    """NANP entries of the phonenumbers geocoder ("201200" -> "Jersey City, NJ"), country code dropped.

    Read from the package's generated data files (sorted by prefix, so the NANP entries come first) instead of
    importing `phonenumbers.geodata`, which loads every country; falls back to that import if the files are not
    laid out as expected."""
    spec = importlib.util.find_spec("phonenumbers")
    out: dict[str, str] = {}
    if spec is not None and spec.submodule_search_locations:
        folder = Path(next(iter(spec.submodule_search_locations))) / "geodata"
        files = sorted(folder.glob("data*.py"), key=lambda p: int(p.stem[4:] or 0))
        for path in files:
            found = _GEO_LINE.findall(path.read_text(encoding="utf-8"))
            if not found:
                if out:
                    break
                continue
            for key, text in found:
                out[key] = codecs.decode(text, "unicode_escape") if "\\" in text else text
    if len(out) < 1000:  # unexpected layout: take the slow, sure way
        from phonenumbers import geodata

        out = {k[1:]: v["en"] for k, v in geodata.GEOCODE_DATA.items() if k.startswith("1") and "en" in v}
    return out


if __name__ == "__main__":  # regenerate the prepared tables after upgrading phonenumbers
    print(write_prepared())
