"""Match a parsed delivery line to address points of a PointSource.

The street is looked up by name in each candidate ZIP (the last line's ZIP first, then the other ZIPs of its
city): exact name, then the same name up to spelling variants (SAINT / ST, ordinal words), then the one name
within a small edit distance (status 20). Among the points of that street with the input's house number, the
directionals and suffix choose by the street-form rule shared with validate (`street_forms`): corrected to the
reference's when the typed form is not in the ZIP and one form holds the number (46, 45); several points when the
typed street exists too and may hold the number (two readings); the typed street when it exists and the number is
on another form only there. The unit chooses among a building's units (47 when units exist and none was given, 14
when the given unit is not in the reference). A number the street does not have is 61.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from dqkit.engines.usaddr.points import AddressPoint, PointSource
from dqkit.engines.usaddr.pub28 import NAME_EQUIVALENTS
from dqkit.engines.usaddr.street import Street
from dqkit.engines.usaddr.street_forms import (
    AMBIGUOUS,
    CORRECTED,
    REFUSED,
    SAME,
    Form,
    check_form,
    city_forms_of,
    facts_of_points,
    leading_number,
)


@dataclass(slots=True)
class PointMatch:
    """What the reference said about one delivery line."""

    covered: bool = False  # the reference holds at least one of the ZIPs asked
    zip: str = ""  # the ZIP where the street was found
    street: Street | None = None  # the input street as the reference spells it (when the street was found)
    point: AddressPoint | None = None  # the unique point (or the building's first point for 47 / 14)
    candidates: int = 0  # how many points fit when more than one does
    number_found: bool = False
    codes: list[str] = field(default_factory=list)  # 20 45 46 47 14 61
    corrected: set[str] = field(default_factory=set)  # "street", "suffix", "directional", "unit"

    @property
    def unique(self) -> bool:
        return self.point is not None and self.candidates <= 1 and "47" not in self.codes


@functools.lru_cache(maxsize=65536)  # every street name of a state-sized reference: its ZIPs share names
def name_key(name: str) -> str:
    """A street name in a form that ignores spelling variants: "SAINT JAMES" = "ST JAMES", "MT HOOD" =
    "MOUNT HOOD"; spaces and hyphens ignored ("MACARTHUR" = "MAC ARTHUR")."""
    return "".join(NAME_EQUIVALENTS.get(w, w) for w in name.replace("-", " ").split())


def _find_name(names: Sequence[str], name: str, *, fuzzy: bool) -> tuple[str, bool]:
    """(reference name, corrected?) of `name` among a ZIP's `names`; ("", False) when none fits. Without
    `fuzzy` only the same name or a spelling variant counts; with it, the one name within a small edit
    distance that has the same digits ("70TH" never becomes "90TH")."""
    if not names:
        return "", False
    if not fuzzy:
        if name in names:
            return name, False
        same = _keys_of(tuple(names)).get(name_key(name), ())
        return (same[0], True) if len(same) == 1 else ("", False)
    key = name_key(name)
    if len(key) < 4:
        return "", False
    digits = _digits(key)
    keys = _key_list(tuple(names))
    limit = 1 if len(key) < 8 else 2
    best = [b for b in process.extract(key, keys, scorer=DamerauLevenshtein.distance, score_cutoff=limit,
                                       limit=3) if _digits(b[0]) == digits]
    if not best or (len(best) > 1 and best[1][1] == best[0][1]):
        return "", False
    return names[best[0][2]], True


@functools.lru_cache(maxsize=4096)
def _keys_of(names: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """name_key -> the names of one ZIP that have it (computed once per ZIP's name list)."""
    out: dict[str, list[str]] = {}
    for n in names:
        out.setdefault(name_key(n), []).append(n)
    return {k: tuple(v) for k, v in out.items()}


@functools.lru_cache(maxsize=4096)
def _key_list(names: tuple[str, ...]) -> list[str]:
    return [name_key(n) for n in names]


def _digits(s: str) -> str:
    return "".join(c for c in s if c.isdigit())


def _unit_key(unit: str) -> str:
    return unit.replace("-", "").replace(" ", "").lstrip("0") or unit


def match_points(street: Street, zips: list[str], source: PointSource) -> PointMatch:
    """Look `street` up in `zips` (in order; the first is the last line's ZIP). Never raises on odd input."""
    out = PointMatch()
    if not street.name:
        return out
    street_only: PointMatch | None = None  # the street exists but not the number: remember the first
    wanted = list(dict.fromkeys(z for z in zips if z))
    # a source that can tell from the names' letters which of a ZIP's names may be close enough hands only those
    # to _find_name (`street_name_candidates`: at national size, ~90 names a ZIP decoded and keyed spared)
    held_of = getattr(source, "street_names_held", None)
    near_of = getattr(source, "street_name_candidates", None)
    held = held_of(wanted) if callable(held_of) and wanted else None
    names_of: dict[str, Sequence[str]] = {}

    def names(zip5: str) -> Sequence[str]:
        got = names_of.get(zip5)
        if got is None:
            got = names_of[zip5] = source.street_names(zip5)
        return got

    out.covered = any(n > 0 for n in held) if held is not None else any(names(z) for z in wanted)
    says = getattr(source, "covers_completely", None)
    key = name_key(street.name)
    for fuzzy in (False, True):  # the name as written in any ZIP before a corrected name in the first
        limit = (1 if len(key) < 8 else 2) if fuzzy else 0  # as _find_name allows
        near = near_of(wanted, key, limit) if callable(near_of) and held is not None else None
        for j, zip5 in enumerate(wanted):
            # every name _find_name could pick, in the ZIP's order: its answer
            name, name_fixed = _find_name(names(zip5) if near is None else near[j], street.name, fuzzy=fuzzy)
            if not name:
                continue
            complete = bool(says(zip5)) if callable(says) else False
            on = source.points_on_street(zip5, name)
            city = None if complete else functools.cache(functools.partial(city_forms_of, source, zip5, name, on))
            m = _on_street(street, name, name_fixed, on, complete, city)
            m.covered, m.zip = True, zip5
            if m.number_found:
                return m
            if street_only is None:
                street_only = m
    return street_only or out


def _on_street(street: Street, name: str, name_fixed: bool, points: Sequence[AddressPoint],
               complete: bool = False, city: Callable[[], set[Form]] | None = None) -> PointMatch:
    m = PointMatch(street=replace(street, name=name))
    if name_fixed:
        m.codes.append("20")
        m.corrected.add("street")
    if not street.number:
        m.candidates = len({p.number for p in points})
        return m
    at_number = [p for p in points if p.number == street.number]
    if not at_number:
        m.codes.append("61")
        return m
    # directionals and suffix: the street-form rule on the forms that hold the number
    variants = {(p.street.predir, p.street.suffix, p.street.postdir) for p in at_number}
    chosen, several = _choose_variant(street, variants, points, complete, city)
    if chosen is None and not several:  # the typed street exists in the ZIP, and not with this number
        m.codes.append("61")
        return m
    m.number_found = True
    if chosen is None:
        m.candidates = max(several, 2)
        m.point = at_number[0]
        return m
    predir, suffix, postdir = chosen
    if (predir, postdir) != (street.predir, street.postdir):
        m.codes.append("46")
        m.corrected.add("directional")
    if suffix != street.suffix:
        m.codes.append("45")
        m.corrected.add("suffix")
    m.street = replace(street, name=name, predir=predir, suffix=suffix, postdir=postdir)
    building = [p for p in at_number if (p.street.predir, p.street.suffix, p.street.postdir) == chosen]
    _choose_unit(m, street, building)
    return m


def _choose_variant(street: Street, variants: set[Form], points: Sequence[AddressPoint],
                    complete: bool, city: Callable[[], set[Form]] | None = None) -> tuple[Form | None, int]:
    """The one (predir, suffix, postdir) of the reference holding the number that the input names (as typed, a
    suffix completed, or corrected by the street-form rule), and 0; or None and how many readings fit (several
    forms, or the typed street and another form: two readings); None and 0 when the rule refuses every form
    (the typed street exists in the ZIP, without this number)."""
    typed = (street.predir, street.suffix, street.postdir)
    if typed in variants:
        return typed, 0
    facts = facts_of_points(points, street.number)
    number = leading_number(street.number)
    checks = {v: check_form(typed, v, facts, number, complete=complete, city_forms=city) for v in sorted(variants)}
    readings = {f for v, c in checks.items() if c.verdict != REFUSED for f in (v, *c.others)}
    for verdict in (SAME, CORRECTED):
        fits = [v for v, c in checks.items() if c.verdict == verdict]
        if len(fits) == 1 and not any(c.verdict == AMBIGUOUS for c in checks.values()):
            return fits[0], 0
        if fits:
            return None, len(readings)
    return None, len(readings)


def _choose_unit(m: PointMatch, street: Street, building: list[AddressPoint]) -> None:
    units = {_unit_key(p.unit): p for p in building if p.unit}
    base = [p for p in building if not p.unit]
    if street.unit:
        hit = units.get(_unit_key(street.unit))
        if hit is not None:
            m.point = hit
            desig = hit.street.unit_desig
            if desig and desig != "#" and desig != street.unit_desig and m.street is not None:
                m.street = replace(m.street, unit_desig=desig)
            return
        m.point = base[0] if base else building[0]
        if units:
            m.codes.append("14")  # the building has units, but not this one: the unit is kept as given
        return
    if base:
        m.point = base[0]  # repeated rows of one address are one address
        return
    m.point = building[0]
    m.candidates = len(units)
    m.codes.append("47")
