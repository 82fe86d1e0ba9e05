"""`standardize`: an address in, the seed's StandardizedAddress (section 2.3) out, every change explained.

Steps: split the input into a delivery line and a last line (one-line text is split by `lastline`); parse the
delivery line to Publication 28 parts (`parser`); reconcile city / state / ZIP with the bundled ZIP data
(`reconcile`); when a PointSource is given, match the street and house number to address points (`match`).

What is never invented: ZIP+4, carrier route, delivery point, check digit and MATCHZIPNINE come only from a
reference point that carries them (`AddressPoint.extra`); DPV, LACS (LACSCODE), census block (GEO_BLK) and
metropolitan area (GEO_MSA) have no bundled source and stay blank; SUITABLEFORDELIVERY is "F" (not matched to
a ZIP+4 record) unless a reference says otherwise.

`Standardized.valid` (the lead engine answers S102 when it is False) is True exactly when all of these hold:
  1. the delivery line parsed: a house number and a street name, or a PO box, a rural route / highway contract /
     military box, or general delivery;
  2. the last line resolved to a five-digit ZIP that the ZIP data knows (given, corrected or supplied);
  3. no status says the address was not standardized or is foreign: 57, 58, 59, 30, 23 without a new ZIP;
  4. when a reference holds the ZIP, the address was found in it: not 61, and the street exists there
     (several candidates, or a building whose unit is missing, 47, still count as found).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Final

from dqkit.contract.codes import join_address_error_status
from dqkit.contract.lead import StandardizedAddress
from dqkit.engines import deadline, zipdata
from dqkit.engines.deadline import DeadlineExceeded
from dqkit.engines.usaddr.barcode import carrier_route, check_digit, delivery_point, zip4_addon
from dqkit.engines.usaddr.last_line_memo import last_line, reconciled
from dqkit.engines.usaddr.lastline import LastLine, closest_city_in_state, parse_last_line, split_one_line
from dqkit.engines.usaddr.match import PointMatch, match_points
from dqkit.engines.usaddr.parser import ParsedLine, as_unit, parse_tokens, parse_unit
from dqkit.engines.usaddr.points import (
    EXTRA_CARRIER_ROUTE,
    EXTRA_DELIVERY_POINT,
    EXTRA_ZIP4,
    AddressPoint,
    PointSource,
)
from dqkit.engines.usaddr.pub28 import DIRECTIONALS
from dqkit.engines.usaddr.reconcile import Reconciled, reconcile
from dqkit.engines.usaddr.street import Street
from dqkit.engines.usaddr.tokens import tokenize

_NOTE_WORDS: Final = frozenset({"ATTN", "ATTENTION", "C/O", "CO", "CARE", "FAO", "DELIVER", "LEAVE"})
MAX_INPUT_CHARS: Final = 1000  # all fields together; the seed's lead address fields sum to far less
_MAX: Final = {"street": 60, "city": 28, "county": 25, "firm": 60, "name": 28, "range": 10}


@dataclass(frozen=True, slots=True)
class AddressInput:
    """An address as separate fields (every field optional; the state may be a name, the ZIP may hold +4).
    `firm` is a discrete firm (company) field: it is returned as FIRMLINE."""

    street1: str = ""
    street2: str = ""
    city: str = ""
    state: str = ""
    zip: str = ""
    zipplus: str = ""
    country: str = ""
    firm: str = ""


class MatchLevel(StrEnum):
    """How far the address was verified (for the address-validation engine's confidence)."""

    ADDRESS = "address"  # one address point (GEOMATCH 0; ADDRESS_CODE 1 only when it carries a ZIP+4)
    MULTIPLE = "multiple"  # several points fit (ADDRESS_CODE = their number)
    PREMISES = "premises"  # the building matched, its unit is missing (47) or unknown (14)
    STREET = "street"  # the street matched, the house number did not (61) or was not given
    LAST_LINE = "last_line"  # city / state / ZIP matched; no reference for the street, or the street not found
    NONE = "none"  # nothing matched (57, 58, 30, ...)


@dataclass(slots=True)
class Standardized:
    """The outcome of `standardize`.

    address:   the seed's StandardizedAddress, filled
    street:    the Publication 28 parts of the delivery line (after reference corrections)
    codes:     two-byte ADDRESS_ERROR_STATUS codes, in the order they arose
    valid:     see the module docstring (False -> the lead engine answers S102)
    corrected: parts changed from the input: "city", "state", "zip", "street" (name), "suffix",
               "directional", "unit", "box" (PO box / route form)
    added:     parts filled in where the input had none ("city", "state", "zip")
    alias:     the input city was an acceptable, not preferred, name of the ZIP
    match:     how far the address was verified (MatchLevel)
    point_id:  id of the matched address point, if any
    candidates: how many reference points fit when more than one does
    extraneous: the text removed as extraneous (status 44)
    secondary_retained: a unit was given and kept though the reference could not confirm it
    typed_street: the delivery line as parsed, before the reference corrected anything (`street` after)
    """

    address: StandardizedAddress
    street: Street
    codes: list[str]
    valid: bool
    corrected: frozenset[str] = frozenset()
    added: frozenset[str] = frozenset()
    alias: bool = False
    match: MatchLevel = MatchLevel.NONE
    point_id: str = ""
    candidates: int = 0
    extraneous: str = ""
    secondary_retained: bool = False
    notes: list[str] = field(default_factory=list)
    typed_street: Street = field(default_factory=Street)


def standardize(address: AddressInput | str, *, points: PointSource | None = None) -> Standardized:
    """Standardize a US address to Publication 28 and reconcile it with bundled ZIP data (and with address
    points when `points` is given). A one-line string is split into delivery line and last line. Never raises:
    unusable input comes back as given with status 57 (or 64 if dqkit itself failed); so does an address longer
    than MAX_INPUT_CHARS in all (no real address is), at once. Inside a server request whose deadline passed, the
    work stops with `DeadlineExceeded` (the one exception it lets through)."""
    inp = AddressInput(street1=address) if isinstance(address, str) else address
    size = (len(inp.street1) + len(inp.street2) + len(inp.city) + len(inp.state) + len(inp.zip) + len(inp.zipplus)
            + len(inp.country) + len(inp.firm))
    if size > MAX_INPUT_CHARS:
        return _unparsed(inp, "57", note=f"the address is {size} characters long; at most {MAX_INPUT_CHARS} are "
                                         "read")
    try:
        deadline.check()
        return _standardize(inp, points)
    except DeadlineExceeded:
        raise
    except Exception as exc:  # the contract is "never raises": report it as the seed's internal error
        return _unparsed(inp, "64", note=f"internal error: {type(exc).__name__}")


def _standardize(inp: AddressInput, points: PointSource | None) -> Standardized:
    lines, ll = _split(inp)
    parsed, street2, notes_removed = _delivery(lines)
    codes: list[str] = []
    if not parsed.parsed:
        return _unparsed(inp, "57", last_line=ll, parsed_street=parsed.street)
    street = parsed.street
    corrected: set[str] = set()
    if parsed.nonstandard_box:
        codes.append("05")
        corrected.add("box")
    extraneous = [*notes_removed, *parsed.extraneous]
    if extraneous:
        codes.append("44")
    if not _complete(street) or not (ll.city or ll.zip or ll.state or ll.country):
        codes.append("57")  # a street without a house number, or no last line at all: not enough information
    r = reconciled(ll, box=bool(street.po_box))  # shared with other addresses of this last line: only read
    m: PointMatch | None = None
    if points is not None and street.name and not r.foreign and not r.military:
        m, r = _match(street, ll, r, points)
        if m is not None and m.street is not None and (m.number_found or m.codes):
            street = _merge(street, m.street)
    codes.extend(c for c in r.codes if c not in codes)
    if m is not None:
        codes.extend(c for c in m.codes if c not in codes)
        corrected |= m.corrected
    corrected |= r.corrected
    level = _level(parsed, r, m)
    valid = _valid(parsed, r, m, codes)
    addr = _fill(inp, street, street2, r, m, codes, level)
    return Standardized(
        address=addr,
        street=street,
        codes=codes,
        valid=valid,
        corrected=frozenset(corrected),
        added=frozenset(r.added),
        alias=r.alias,
        match=level,
        point_id=m.point.id if m is not None and m.point is not None and level == MatchLevel.ADDRESS else "",
        candidates=m.candidates if m is not None else 0,
        extraneous=" ".join(extraneous),
        secondary_retained=bool(m is not None and "14" in m.codes),
        typed_street=parsed.street,
    )


# ---- input ---------------------------------------------------------------------------------------------


def _split(inp: AddressInput) -> tuple[list[list[str]], LastLine]:
    """The delivery-side segments (token lists) and the last line of the input."""
    t1 = tokenize(inp.street1)
    t2 = tokenize(inp.street2)
    if not (inp.city.strip() or inp.state.strip() or inp.zip.strip()):
        both = [*t1, ",", *t2] if t1 and t2 else t1 or t2
        street_toks, ll = split_one_line(both)
        if inp.country.strip() and not ll.country:
            ll.country = parse_last_line("", "", "", inp.country).country
        return _segments(street_toks), ll
    return [*_segments(t1), *_segments(t2)], last_line(inp.city, inp.state, inp.zip, inp.zipplus, inp.country)


def _segments(toks: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for t in toks:
        if t == ",":
            out.append([])
        else:
            out[-1].append(t)
    return [s for s in out if s]


def _delivery(segments: list[list[str]]) -> tuple[ParsedLine, str, list[str]]:
    """(the delivery line, the other non-address line for STREET2, removed notes) of the input segments."""
    best: ParsedLine | None = None
    best_i = -1
    deadline.check()
    parsed_all = [parse_tokens(s) for s in segments]
    for i, p in enumerate(parsed_all):
        if p.parsed and (p.street.number or p.street.po_box or p.street.rr_type or p.street.general_delivery):
            best, best_i = p, i
            break
    if best is None:
        for i, p in enumerate(parsed_all):
            if p.parsed and segments[i][0] not in _NOTE_WORDS:
                best, best_i = p, i
                break
    if best is None:
        return ParsedLine(Street()), "", []
    others: list[str] = []
    removed: list[str] = []
    street = best.street
    for i, seg in enumerate(segments):
        if i == best_i:
            continue
        if seg[0] in _NOTE_WORDS:
            removed.extend(seg)
            continue
        if seg[0] in DIRECTIONALS and not street.postdir and street.name and i == best_i + 1:
            street = replace(street, postdir=DIRECTIONALS[seg[0]])  # "1800 M ST, NW, ..."
            seg = seg[1:]
            if not seg:
                continue
        desig, unit = _unit_of(seg)
        if desig and not street.unit_desig:
            street = replace(street, unit_desig=desig, unit=unit)
            continue
        if desig:
            removed.extend(seg)  # a second unit
            continue
        others.append(" ".join(seg))
    best.street = street
    return best, " ".join(others), removed


def _unit_of(seg: list[str]) -> tuple[str, str]:
    u = as_unit(seg)
    if u is None and len(seg) == 1 and ((any(c.isdigit() for c in seg[0]) and len(seg[0]) <= 6)
                                        or len(seg[0]) == 1):
        return parse_unit(seg[0])
    return u if u is not None else ("", "")


# ---- matching ------------------------------------------------------------------------------------------


def _match(street: Street, ll: LastLine, r: Reconciled,
           points: PointSource) -> tuple[PointMatch | None, Reconciled]:
    """Match to the points, trying the last line's ZIP, then the ZIPs of the input city (as written and as
    corrected). When the address is found in another ZIP, the last line is reconciled again with that ZIP and
    status 01 (ZIP corrected from city and state)."""
    zips: list[str] = []
    if r.zip:
        zips.append(r.zip)
    zips.extend(r.city_zips)
    state = r.state or ll.state
    m = match_points(street, zips, points) if zips else None
    if m is None or not m.number_found:
        # not in the last line's ZIP: try every ZIP of the city as written and as corrected
        more = list(zips)
        for city in dict.fromkeys((ll.city, r.city)):
            if city and state:
                more.extend(zipdata.zips_for_city(closest_city_in_state(city, state) or city, state))
        if len(more) > len(zips):
            wider = match_points(street, more, points)
            if m is None or wider.number_found or (wider.street is not None and m.street is None):
                m = wider
    if m is None or not m.covered:
        return None, r
    if m.zip and m.zip != r.zip and (m.number_found or not r.zip):
        again = reconcile(LastLine(city=ll.city, state=state, zip=m.zip, country=ll.country))
        again.codes = ["01", *(c for c in again.codes if c != "01")]
        again.corrected.discard("zip")
        again.added.discard("zip")
        (again.corrected if ll.zip else again.added).add("zip")
        return m, again
    return m, r


def _merge(parsed: Street, ref: Street) -> Street:
    return Street(number=parsed.number, predir=ref.predir, name=ref.name, suffix=ref.suffix,
                  postdir=ref.postdir, unit_desig=ref.unit_desig or parsed.unit_desig,
                  unit=parsed.unit)


def _level(parsed: ParsedLine, r: Reconciled, m: PointMatch | None) -> MatchLevel:
    if m is not None and m.number_found:
        if "47" in m.codes or "14" in m.codes:
            return MatchLevel.PREMISES
        if m.candidates > 1:
            return MatchLevel.MULTIPLE
        return MatchLevel.ADDRESS
    if m is not None and m.street is not None:
        return MatchLevel.STREET
    if r.info is not None:
        return MatchLevel.LAST_LINE
    return MatchLevel.NONE


def _complete(s: Street) -> bool:
    return bool((s.number and s.name) or s.po_box or s.rr_type or s.general_delivery)


def _valid(parsed: ParsedLine, r: Reconciled, m: PointMatch | None, codes: list[str]) -> bool:
    if not _complete(parsed.street):
        return False
    if r.info is None or not r.zip:
        return False
    if any(c in codes for c in ("57", "58", "59", "30", "61", "64")):
        return False
    return not (m is not None and m.covered and not m.number_found)


# ---- output --------------------------------------------------------------------------------------------


def _fill(inp: AddressInput, street: Street, street2: str, r: Reconciled, m: PointMatch | None,
          codes: list[str], level: MatchLevel) -> StandardizedAddress:
    info = r.info
    point = m.point if m is not None and level in (MatchLevel.ADDRESS, MatchLevel.PREMISES,
                                                    MatchLevel.MULTIPLE) else None
    extra = point.extra if point is not None and level == MatchLevel.ADDRESS else {}
    zip4 = _zip4_of(extra.get(EXTRA_ZIP4, ""), street, point)
    dp = delivery_point(extra.get(EXTRA_DELIVERY_POINT, "")) if zip4 else ""
    line1 = street.line[: _MAX["street"]]
    line2 = street2[: _MAX["street"]]
    if point is not None:
        lat, lng, geomatch = _coord(point.lat, 6, 10), _coord(point.lon, 6, 11), "0"
    elif info is not None and info.lat and info.lng:
        lat, lng, geomatch = _coord(info.lat, 6, 10), _coord(info.lng, 6, 11), "5"
    else:
        lat, lng, geomatch = "", "", "7" if r.zip or r.city else "9"
    if not (lat and lng):
        lat, lng = "", ""
        geomatch = "7" if geomatch in ("0", "5") else geomatch
    if "57" in codes:
        address_code = "-99"
    elif level == MatchLevel.ADDRESS:
        # "1" says a ZIP+4 add-on was assigned (seed 000): only with one from the reference. A point without one
        # (OpenAddresses) is matched (GEOMATCH 0) with no add-on, which no code of the table says: left blank
        # rather than -1, whose meaning (delivery point validation failed) was not checked either
        address_code = "1" if zip4 else ""
    elif level in (MatchLevel.MULTIPLE, MatchLevel.PREMISES) and m is not None and m.candidates > 1:
        address_code = str(m.candidates)
    elif level == MatchLevel.PREMISES:
        address_code = ""  # the building, not one delivery point: no add-on
    elif "05" in codes and (street.po_box or street.rr_type):
        address_code = "-3"
    elif m is not None and m.covered:
        address_code = "-99"
    else:
        address_code = ""
    fips = info.county_fips if info is not None else ""
    kind = "M" if r.military else ("U" if info is not None and info.kind == "UNIQUE" else "")
    return StandardizedAddress(
        full_address=" ".join(x for x in (line1, line2) if x)[: _MAX["street"]],
        street1=line1,
        street2=line2,
        prim_range=street.number[: _MAX["range"]],
        sec_range=street.unit[: _MAX["range"]],
        prim_name=street.name[: _MAX["name"]],
        predir=street.predir,
        suffix=street.suffix,
        postdir=street.postdir,
        unit_desig=street.unit_desig,
        city=r.city[: _MAX["city"]],
        state=r.state if len(r.state) == 2 else "",
        zip=r.zip[:5],
        zipplus=zip4,
        po_box_num=street.po_box,
        rr_box_num=street.rr_box,
        rr_num=f"{street.rr_type} {street.rr_num}".strip() if street.rr_type else "",
        carrier_route=carrier_route(extra.get(EXTRA_CARRIER_ROUTE, "")),
        geo_lat=lat,
        geo_lng=lng,
        dpbc=dp,
        checkdigit=check_digit(r.zip, zip4, dp),
        address_type=street.kind,
        county=(info.county if info is not None else "")[: _MAX["county"]],
        county_code=fips[2:],
        country="US" if not r.foreign else "",
        fipscode=fips,
        address_error_status=join_address_error_status(codes),
        address_code=address_code,
        firmline=" ".join(t for t in tokenize(inp.firm) if t != ",")[: _MAX["firm"]] if inp.firm else "",
        geomatch=geomatch,
        matchzipfive="T" if r.matched and r.info is not None else "F",
        matchzipnine="T" if zip4 else "F",
        ziptype=kind,
        suitablefordelivery="F",
    )


def _zip4_of(value: str, street: Street, point: AddressPoint | None) -> str:
    """The reference's ZIP+4 add-on when it is one and belongs to the typed delivery point: four digits, not 0000
    ("ABCD" or "12" is no add-on), and, when a unit was typed, the point is that unit (a building's add-on is not
    its units' where they may have their own); "" otherwise (then ADDRESS_CODE is not 1, MATCHZIPNINE F)."""
    if not zip4_addon(value) or point is None:
        return ""
    if street.unit and _unit_id(street.unit) != _unit_id(point.unit):
        return ""
    return value


def _unit_id(unit: str) -> str:
    return "".join(c for c in unit.upper() if c.isalnum()).lstrip("0")


@functools.lru_cache(maxsize=65536)
def _coord(v: str, places: int, width: int) -> str:
    try:
        s = f"{float(v):.{places}f}"
    except ValueError:
        return ""
    return s if len(s) <= width else f"{float(v):.{max(0, places - (len(s) - width))}f}"


def _unparsed(inp: AddressInput, code: str, *, last_line: LastLine | None = None,
              parsed_street: Street | None = None, note: str = "") -> Standardized:
    """The input returned as given (upper case), with status `code` and what the last line still yields."""
    street1 = " ".join(inp.street1.upper().split())[: _MAX["street"]]
    street2 = " ".join(inp.street2.upper().split())[: _MAX["street"]]
    codes = [code]
    city, state, zip5 = inp.city.upper().strip(), inp.state.upper().strip(), inp.zip.strip()[:5]
    county = fips = lat = lng = ""
    geomatch = "9"
    matched = "F"
    if last_line is not None and code == "57":
        try:
            r = reconcile(last_line)
        except Exception:
            r = None
        if r is not None and r.info is not None:
            city, state, zip5 = r.city, r.state, r.zip
            county, fips = r.info.county[: _MAX["county"]], r.info.county_fips
            lat, lng = _coord(r.info.lat, 6, 10), _coord(r.info.lng, 6, 11)
            geomatch, matched = ("5" if lat and lng else "7"), "T"
            codes.extend(c for c in r.codes if c not in codes)
    addr = StandardizedAddress(
        full_address=" ".join(x for x in (street1, street2) if x)[: _MAX["street"]],
        street1=street1,
        street2=street2,
        city=city[: _MAX["city"]],
        state=state if len(state) == 2 else "",
        zip=zip5,
        county=county,
        county_code=fips[2:],
        fipscode=fips,
        country="US",
        geo_lat=lat,
        geo_lng=lng,
        address_error_status=join_address_error_status(codes),
        address_code="-99",
        geomatch=geomatch,
        matchzipfive=matched,
        matchzipnine="F",
        suitablefordelivery="F",
    )
    return Standardized(address=addr, street=parsed_street or Street(), codes=codes, valid=False,
                        notes=[note] if note else [])
