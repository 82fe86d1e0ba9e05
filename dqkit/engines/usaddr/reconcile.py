"""Reconcile a last line (city, state, ZIP) with the bundled ZIP data and say what changed, with the seed's codes.

    04 city name corrected (misspelt, abbreviated, or not a name of the ZIP)
    16 preferred city name used (the input was an acceptable alias of the ZIP)
    01 ZIP corrected or supplied from city and state (a unique ZIP, or the one the address points decide)
    23 city and a unique ZIP (a firm's own ZIP) do not correlate: the ZIP is deleted
    58 invalid ZIP (unknown and not recoverable from city and state)
    59 US territory; 30 foreign address; 13 military (APO / FPO / DPO, AA / AE / AP)
    10 the city lies in several counties: the ZIP's (preferred) county is returned

When the city names a different city of the state than the ZIP does, the ZIP is trusted (city corrected, 04)
unless an address-point reference finds the street in one of the city's own ZIPs; `city_zips` carries those
candidates to the matcher for that reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dqkit.engines import zipdata
from dqkit.engines.usaddr.lastline import (
    LastLine,
    city_key,
    closest_city,
    closest_city_in_state,
    zip_city_keys,
)
from dqkit.engines.usaddr.pub28 import MILITARY_CITIES, MILITARY_STATES, TERRITORIES

_MILITARY_ZIP3 = {"AA": ("340",), "AE": tuple(f"0{n}" for n in range(90, 99)),
                  "AP": ("962", "963", "964", "965", "966")}


@dataclass(slots=True)
class Reconciled:
    """The last line after reconciliation."""

    city: str = ""
    state: str = ""
    zip: str = ""
    zip4: str = ""
    info: zipdata.ZipInfo | None = None  # the ZIP record the last line matched
    city_zips: tuple[str, ...] = ()  # ZIPs of the input city, when the ZIP is missing, wrong or in doubt
    codes: list[str] = field(default_factory=list)
    corrected: set[str] = field(default_factory=set)  # "city", "state", "zip" changed from the input
    added: set[str] = field(default_factory=set)  # "city", "state", "zip" filled in where the input had none
    alias: bool = False  # the input city was an acceptable (not preferred) name of the ZIP
    military: bool = False
    territory: bool = False
    foreign: bool = False
    input_city_matched: bool = False  # the input city is a USPS name of the final ZIP (before corrections)
    box: bool = False  # the delivery line is a PO box: prefer PO-box ZIPs when choosing one for a city

    @property
    def matched(self) -> bool:
        """MATCHZIPFIVE: the last line matched a city / ZIP record."""
        return self.info is not None or bool(self.city_zips)


def reconcile(ll: LastLine, *, box: bool = False) -> Reconciled:
    """Check `ll` against the ZIP data (`box`: the delivery line is a PO box); never raises."""
    r = Reconciled(city=ll.city, state=ll.state, zip=ll.zip, zip4=ll.zip4, box=box)
    if ll.country and ll.country != "US":
        r.foreign = True
        r.codes.append("30")
        return r
    city, state, zip5 = ll.city, ll.state, ll.zip
    if city in MILITARY_CITIES or state in MILITARY_STATES:
        r.military = True
    info = zipdata.zip_info(zip5) if len(zip5) == 5 and zip5.isdigit() else None
    if info is not None and info.kind == "MILITARY":
        r.military = True
    if r.military:
        _military(r, info)
        return r
    if info is not None:
        _with_zip(r, info)
    else:
        _without_zip(r, bad_zip=bool(zip5))
    if r.info is not None:
        _finish(r, r.info)
    if r.state in TERRITORIES:
        r.territory = True
        r.codes.append("59")
    return r


def _military(r: Reconciled, info: zipdata.ZipInfo | None) -> None:
    r.codes.append("13")
    if info is not None:
        r.info = info
        if r.state != info.state:
            (r.corrected if r.state else r.added).add("state")
            r.state = info.state
        if r.city != info.city:
            (r.corrected if r.city else r.added).add("city")
            r.city = info.city
    elif r.zip:
        ranges = _MILITARY_ZIP3.get(r.state, ())
        if not r.zip.startswith(ranges):
            r.codes.append("58")


def _set_city(r: Reconciled, name: str, code: str) -> None:
    if r.city == name:
        return
    if r.city:
        r.corrected.add("city")
        if code and code not in r.codes:
            r.codes.append(code)
    else:
        r.added.add("city")
    r.city = name


def _with_zip(r: Reconciled, info: zipdata.ZipInfo) -> None:
    city, state = r.city, r.state
    ckey = city_key(city)
    names = zip_city_keys(info.zip)
    if state and state != info.state:
        # the ZIP is of another state: the city and state win if they name a real city there
        if city and zipdata.zips_for_city(closest_city_in_state(city, state) or city, state):
            _from_city(r, bad_zip=True)
            return
        r.corrected.add("state")
        r.state = info.state
    elif not state:
        r.added.add("state")
        r.state = info.state
    r.info = info
    if not city:
        _set_city(r, info.city, "")
        return
    if ckey in names:
        r.input_city_matched = True
        name = names[ckey]
        if name != info.city:
            r.alias = True
            _set_city(r, info.city, "16")
        else:
            _set_city(r, info.city, "04")  # "MT VIEW" -> "MOUNTAIN VIEW"
        return
    near = closest_city(city, list(info.cities))
    if near:
        r.input_city_matched = True
        if near != info.city:
            r.alias = True
        _set_city(r, info.city, "04")
        return
    # the city is not a name of this ZIP: is it another city of the state?
    other = closest_city_in_state(city, r.state)
    other_zips = zipdata.zips_for_city(other, r.state) if other else ()
    if other_zips:
        if info.kind == "UNIQUE":
            r.codes.append("23")
            r.corrected.add("zip")
            r.zip, r.info = "", None
            r.city = other if other != city else city
            _from_city(r, bad_zip=False, code_if_unique="01")
            return
        r.city_zips = other_zips  # the matcher may find the street there instead
    _set_city(r, info.city, "04")


def _without_zip(r: Reconciled, *, bad_zip: bool) -> None:
    _from_city(r, bad_zip=bad_zip)


def _from_city(r: Reconciled, *, bad_zip: bool, code_if_unique: str = "01") -> None:
    """The ZIP is missing or wrong: find it from city and state."""
    state = r.state
    if not state or not r.city:
        if bad_zip:
            r.codes.append("58")
        return
    name = closest_city_in_state(r.city, state)
    zips = zipdata.zips_for_city(name, state) if name else ()
    if not zips:
        if bad_zip:
            r.codes.append("58")
        return
    if name != r.city:
        r.city = name
        r.corrected.add("city")
        r.codes.append("04")
    want = "PO BOX" if r.box else "STANDARD"  # a street address is not delivered to a PO-box-only ZIP
    kinds = {z: i.kind for z in zips if (i := zipdata.zip_info(z)) is not None}
    usable = (tuple(z for z in zips if kinds.get(z) == want)
              or tuple(z for z in zips if kinds.get(z) not in ("UNIQUE", None)) or zips)
    r.city_zips = usable
    if len(usable) == 1:
        if r.zip:
            r.corrected.add("zip")
        else:
            r.added.add("zip")
        r.zip = usable[0]
        r.info = zipdata.zip_info(usable[0])
        r.input_city_matched = True
        if code_if_unique:
            r.codes.append(code_if_unique)
        if r.info is not None:
            preferred = r.info.city
            if preferred != r.city:
                r.alias = True
                r.city = preferred
                r.codes.append("16")
    elif bad_zip:
        r.codes.append("58")  # several ZIPs: only the address points can tell which (then 01 replaces 58)


def _finish(r: Reconciled, info: zipdata.ZipInfo) -> None:
    counties = zipdata.counties_for_city(info.city, info.state)
    if len(counties) > 1 and "10" not in r.codes:
        r.codes.append("10")

