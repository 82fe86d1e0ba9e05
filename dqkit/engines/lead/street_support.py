"""A lead's street, standardized against an address reference, only when the typed words support it.

The standardizer corrects a misspelt street name to the one reference name within a small edit distance of it,
and a suffix or direction to the one the reference has at that number. That is right for "1600 Pensylvania Ave"
and wrong for "556 Riven Pl" (made up) becoming "556 IRVEN CT": the lead would get S100 with a street the person
never wrote, a confident wrong answer. So the street the standardizer landed on is read against the typed words
with the address engine's own evidence rules (`dqkit.engines.address.evidence.street_evidence`: every name word
typed exactly, in a Publication 28 form or within the typo budget; no contradicting suffix or direction; no stray
word; the typed ZIP or city is the street's). When they do not support it, the answer is what the standardizer
says of a street the reference does not hold in a ZIP it covers: the typed street in Publication 28 form, not
valid, ADDRESS_CODE -99 (the lead engine then answers S102, "street ... not found in ZIP ...", and
ELSResidentialAddressVerificationResult 490).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re
from collections.abc import Sequence
from typing import Final

import msgspec

from dqkit.engines import zipdata
from dqkit.engines.address.evidence import Evidence, street_evidence
from dqkit.engines.address.firm_lines import set_aside
from dqkit.engines.address.query import Query, parse_query
from dqkit.engines.address_index.store import StreetRow
from dqkit.engines.lead.local_fields import covers_completely, unproven_not_found
from dqkit.engines.usaddr import AddressInput, MatchLevel, Standardized, standardize
from dqkit.engines.usaddr.parser import parse_street
from dqkit.engines.usaddr.points import AddressPoint, PointSource
from dqkit.engines.usaddr.pub28_typos import UNIT, ordinal_typo, pub28_typo
from dqkit.engines.usaddr.street_forms import (
    CORRECTED,
    check_form,
    city_forms_of,
    facts_of_points,
    leading_number,
)

# Levels at which the standardizer's street came from the reference (the name may have been corrected).
_WORD: Final = re.compile(r"[A-Za-z0-9]+")
_MAX_READINGS: Final = 8
_FROM_REFERENCE: Final = frozenset({MatchLevel.ADDRESS, MatchLevel.PREMISES, MatchLevel.MULTIPLE, MatchLevel.STREET})


def standardize_supported(inp: AddressInput, points: PointSource) -> Standardized:
    """`standardize(inp, points=points)`, with a reference street the typed words do not support replaced by
    "street not found in the ZIP" (see the module docstring); a "not found" from a reference that holds only
    part of the ZIP proves nothing, so that answer is the one without a reference (street not checked)."""
    std = standardize(inp, points=points)
    if std.match not in _FROM_REFERENCE or not std.street.name:
        # "WEBSTER SRTEET", "CLAY TS": each reading of a slip tried; taken when it lands on a reference street the
        # typed words support, and only when every reading that does names the same street
        found = [again for read in _slip_readings(inp)
                 if (again := standardize(read, points=points)).match in _FROM_REFERENCE and again.street.name
                 and supported(inp, again, points)]
        if found and len({(f.street.street, f.address.zip) for f in found}) == 1:
            return found[0]
    elif not supported(inp, std, points):
        std = not_found(inp, std)
    return standardize(inp) if unproven_not_found(std, points) else std


def _slip_readings(inp: AddressInput) -> list[AddressInput]:
    """STREET1 / STREET2 with the words that are slips of a suffix, direction or ordinal ("Srteet", "Norht", "TS",
    "24ht") written as each of their readings (at most `_MAX_READINGS` combinations); none when no word is one.
    A reading is only a candidate: `supported` then reads the words as typed against the street it lands on."""
    fields = (inp.street1, inp.street2)
    slips: list[tuple[int, int, int, list[str]]] = []  # (field, start, end, readings)
    for f, text in enumerate(fields):
        for m in _WORD.finditer(text):
            word = m.group().upper()
            readings = sorted({std for kind, std in pub28_typo(word) if kind != UNIT} | ({ordinal_typo(word)} - {""}))
            if readings:
                slips.append((f, m.start(), m.end(), readings))
    out: list[AddressInput] = []
    for combo in itertools.islice(itertools.product(*(r for *_, r in slips)), _MAX_READINGS) if slips else ():
        texts = list(fields)
        for (f, a, b, _), reading in sorted(zip(slips, combo, strict=True), key=lambda x: -x[0][1]):
            texts[f] = texts[f][:a] + reading + texts[f][b:]
        out.append(dataclasses.replace(inp, street1=texts[0], street2=texts[1]))
    return out


def supported(inp: AddressInput, std: Standardized, points: PointSource) -> bool:
    """Whether the typed words name the street `std` holds, in the typed locality (the evidence rules)."""
    zip5 = std.address.zip
    s = std.street
    last_line = f"{inp.state.strip()} {inp.zip.strip()}".strip()
    text = ", ".join(x for x in (_delivery_line(inp), inp.city.strip(), last_line) if x)
    typed_zip = "".join(c for c in inp.zip if c.isdigit())[:5]
    typed_zip = typed_zip if len(typed_zip) == 5 else ""
    on_street = points.points_on_street(zip5, s.name)  # read once: the street's city and its units
    row = StreetRow(id=-1, dataset=-1, predir=s.predir, name=s.name, suffix=s.suffix, postdir=s.postdir,
                    text=s.street, city=_city_of(on_street, zip5), region=std.address.state, postcode=zip5,
                    lo=0, hi=0)
    info = zipdata.zip_info(typed_zip) if typed_zip else None
    aliases = info.acceptable_cities if info is not None else ()
    q = parse_query(text.rstrip() + " ")
    if _supports(street_evidence("US", row, q, typed_zip, aliases), row, on_street, s.number, points):
        return True
    return _drop_unit_words(q, on_street, s.number) and \
        _supports(street_evidence("US", row, q, typed_zip, aliases), row, on_street, s.number, points)


def _supports(ev: Evidence, row: StreetRow, on_street: Sequence[AddressPoint], number: str,
              points: PointSource) -> bool:
    """The evidence passes, or fails only on a typed suffix or direction that the street-form rule corrects (the
    rule validate and the standardizer use: `dqkit.engines.usaddr.street_forms`)."""
    if ev.ok or not ev.form_only:
        return ev.ok
    whole = covers_completely(points, row.postcode)
    got = check_form(ev.typed_form, (row.predir, row.suffix, row.postdir), facts_of_points(on_street, number),
                     leading_number(number), complete=whole,
                     city_forms=None if whole else functools.partial(city_forms_of, points, row.postcode, row.name,
                                                                       on_street))
    # a misspelt name and a changed suffix or direction are two guesses, not one (as validate)
    return got.verdict == CORRECTED and not (ev.name_edits and any(not c.endswith(" added") for c in got.changes))


def _delivery_line(inp: AddressInput) -> str:
    """The part of STREET1 / STREET2 that holds the street, as the standardizer picks it: the first
    comma-separated segment with a house number and a street name. A firm, "ATTN ..." or "c/o" line, beside it or
    in front of it in the same field ("Attn: Billing 34260 Cronin Ter"), is set aside by the address engine's own
    rule (`firm_lines.set_aside`), and a suite line is no word of the street."""
    segments, _ = set_aside([seg.strip() for f in (inp.street1, inp.street2) for seg in f.split(",") if seg.strip()])
    for seg in segments:
        s = parse_street(seg)
        if s.number and s.name:
            return seg
    return ", ".join(segments)


def _drop_unit_words(q: Query, on_street: Sequence[AddressPoint], number: str) -> bool:
    """Drop the first word (or two) typed after the street that spell a unit of the building at this number
    ("KIELY BLVD E" where 966 KIELY BLVD has unit E; "RD N-3" for unit N3): its unit, not a direction the street
    lacks. Only asked when the words as typed do not support the street ("AVENUE B" keeps its B). True when a
    word was dropped."""
    units = {_unit_key(p.unit) for p in on_street if p.number == number and p.unit}
    if not units:
        return False
    words = q.words
    for i in range(len(words)):
        for j in (i + 1, i + 2):
            run = words[i:j]
            if len(run) == j - i and all(w.maybe_unit for w in run) and \
                    _unit_key("".join(w.text for w in run)) in units:
                del words[i:j]
                return True
    return False


def _unit_key(unit: str) -> str:
    return "".join(c for c in unit.upper() if c.isalnum()).lstrip("0")


def not_found(inp: AddressInput, std: Standardized) -> Standardized:
    """The standardizer's own answer for a street the reference does not hold in the ZIPs it searched (rule 4 of
    `Standardized.valid`): the typed address standardized without the reference, not valid, ADDRESS_CODE -99."""
    plain = standardize(inp)
    note = f"the reference's street {std.street.street} in {std.address.zip} is not the typed street"
    level = plain.match if plain.match == MatchLevel.NONE else MatchLevel.LAST_LINE
    return dataclasses.replace(plain, valid=False, match=level,
                               address=msgspec.structs.replace(plain.address, address_code="-99"),
                               notes=[*plain.notes, note])


def _city_of(on_street: Sequence[AddressPoint], zip5: str) -> str:
    """The city the reference gives the street (its first point's), else the ZIP's city."""
    if on_street and on_street[0].city:
        return on_street[0].city
    info = zipdata.zip_info(zip5)
    return info.city if info is not None else ""
