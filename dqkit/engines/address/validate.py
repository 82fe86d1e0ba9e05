"""Validate: one whole address in, one verdict out (confidence, what was corrected, match type, the address).

US input goes through the standardizer (`dqkit.engines.usaddr.standardize`) with this index as its point
source: it parses to Publication 28, reconciles city / state / ZIP with the ZIP data and matches the house number
to the reference, naming every correction. When it cannot place the address (a street typo beyond its reach, a
wrong city with no ZIP), the search matcher is asked too, with its typo tolerance and word dropping; the better
verdict wins. Other countries use the search matcher alone.

Precision first: every verdict that names a street (Verified match, Interaction required, Premises partial,
Street partial) must pass the evidence check of `evidence.py` (the typed words support that street in the typed
locality, the number is on it); two readings that pass equally well are Multiple matches; when none passes, the
answer is Verified place (the typed ZIP or city, with the near streets as suggestions) or No matches.

Confidence: Verified match (one address), Interaction required (one address, but only after heavy repair, or with
a typed suffix or direction corrected from a reference that holds only part of the area: `street_forms`),
Premises partial (building found, unit missing or unknown), Street partial (street found, house number missing or
not on it), Multiple matches, Verified place (only the locality), No matches, Insufficient search terms (blank).
`match_confidence` is high for a verified match whose street and number needed no repair, medium for other
single answers, none otherwise.

What was typed is never replaced by something else unsaid: a typed unit the reference does not list at the building
stays the typed unit (Premises partial, the listed units as suggestions; with no unit data Premises partial too, the
typed unit on the address lines and a note "unit ... not checked", so that no filter on confidence counts an
unchecked unit verified), a typed ZIP the answer does not keep is named in the note, and a typed street the
reference does not hold is named in the note with the ZIP and the reference it was looked for in. Input that names
only a place (a ZIP, a city and state) is answered as the place (`place.py`).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from dqkit.contract.address import (
    Address,
    Confidence,
    MatchConfidence,
    MatchType,
    SearchRequest,
    Suggestion,
    ValidationDetail,
    ValidationResult,
)
from dqkit.engines import deadline
from dqkit.engines.address.covered import CoveredPoints
from dqkit.engines.address.evidence import Evidence, street_evidence
from dqkit.engines.address.firm_lines import Organization, set_aside, with_organization
from dqkit.engines.address.layout import country_name, delivery_lines, locality_lines, mixed_case, seven_lines
from dqkit.engines.address.matching import LEVEL_FUZZY_LOCALITY, LEVEL_FUZZY_STREET
from dqkit.engines.address.place import place_only
from dqkit.engines.address.query import Query, parse_query
from dqkit.engines.address.search import ADDRESS, BUILDING, NUMBER_EXACT, RANGE, Found, Item, Searcher
from dqkit.engines.address.typed_postcode import typed_postcode
from dqkit.engines.address_index.countries import country
from dqkit.engines.address_index.reader import numint
from dqkit.engines.address_index.store import DatasetInfo, ReferenceIndex, StreetRow
from dqkit.engines.address_index.tokens import tokens
from dqkit.engines.usaddr.pub28 import DIRECTIONALS, SUFFIXES, UNITS
from dqkit.engines.usaddr.street_forms import (
    AMBIGUOUS,
    CORRECTED,
    REFUSED,
    SAME,
    Form,
    FormCheck,
    FormFacts,
    check_form,
)

if TYPE_CHECKING:
    from dqkit.engines.usaddr.standardize import Standardized

_CANDIDATES: Final = 4  # search suggestions weighed against the typed words
# verdicts that name one building: a typed unit must be one of its units or be kept as typed
_BUILDING_CLAIMS: Final = frozenset({Confidence.VERIFIED_MATCH, Confidence.INTERACTION_REQUIRED,
                                     Confidence.PREMISES_PARTIAL})
_STREET_CLAIMS: Final = frozenset({*_BUILDING_CLAIMS, Confidence.STREET_PARTIAL})
_JOIN_WORDS: Final = 4  # name words written apart are looked for among the first words typed (after the number)
_FORM_WORDS: Final = frozenset({*SUFFIXES, *DIRECTIONALS, *UNITS})  # never half of a joined name word
_ONE_POINT: Final = frozenset({Confidence.VERIFIED_MATCH, Confidence.INTERACTION_REQUIRED})  # one delivery point
_BARE_UNIT: Final = re.compile(r"^\d{1,4}[A-Z]?$")
_RANK: Final[dict[str, int]] = {
    Confidence.VERIFIED_MATCH: 9, Confidence.INTERACTION_REQUIRED: 8, Confidence.PREMISES_PARTIAL: 7,
    Confidence.MULTIPLE_MATCHES: 6, Confidence.STREET_PARTIAL: 5, Confidence.VERIFIED_STREET: 4,
    Confidence.VERIFIED_PLACE: 3, Confidence.NO_MATCHES: 0,
}


@dataclass(slots=True)
class Verdict:
    confidence: str
    item: Item | None
    detail: ValidationDetail
    heavy_repair: bool = False  # street name or house number had to be repaired
    retained_unit: str = ""
    alternatives: list[Item] | None = None
    place_postcode: str = ""  # Verified place: the typed postcode found in the reference
    place_street: int = -1  # Verified place: a street of the typed city (its locality is the place)
    place_text: tuple[str, str, str] | None = None  # Verified place from ZIP data alone: city, state, ZIP
    unit_note: str = ""  # what the answer says about the typed unit
    form_note: str = ""  # a suffix or direction corrected, or two streets that fit (`street_forms`)
    # a typed suffix or direction corrected from a reference holding part of the area: why it is not Verified
    # (the typed street, and the ZIP or city where the reference lacks it); None when not so
    form_unsure: tuple[str, str] | None = None


# The suggestions of a list of items (a building's units, candidate streets), as the engine writes them.
SuggestionsOf = Callable[[DatasetInfo, list[Item]], list[Suggestion]]
KeyOf = Callable[[DatasetInfo, Item], str]


class Validator:
    """Validate over one index; `key_of` and `suggestions_of` are the engine's own (keys are signed per index)."""

    def __init__(self, index: ReferenceIndex, searcher: Searcher, key_of: KeyOf, suggestions_of: SuggestionsOf,
                 ) -> None:
        self.ix = index
        self.searcher = searcher
        self.key_of = key_of
        self.suggestions_of = suggestions_of

    def validate(self, ds: DatasetInfo, request: SearchRequest, reference_id: str = "",
                 complete: Callable[[str], bool] | None = None) -> tuple[ValidationResult, str]:
        """The verdict on one address and its note (what was not checked or had to change; "" when nothing).
        `complete(postcode)`: whether the reference holds every street there (else a street it lacks is "not
        checked", not "not found"); None: it does wherever it holds any."""
        parts = [p.strip() for p in request.components.unspecified if p and p.strip()]
        parts, org = set_aside(parts) if ds.iso2 == "US" else (parts, Organization())
        text = ", ".join(parts)
        if not text or not any(t.isalnum() for t in text):
            return ValidationResult(confidence=Confidence.INSUFFICIENT_SEARCH_TERMS, match_type=MatchType.BLANK,
                                    match_confidence=MatchConfidence.NONE), ""
        typed_pc = self._typed_postcode(ds, text)
        if ds.iso2 == "US":
            place = place_only(text)
            if place is not None:
                return ValidationResult(
                    confidence=Confidence.VERIFIED_PLACE, validation_detail=place.detail(),
                    match_type=_match_type(Confidence.VERIFIED_PLACE, bool(place.zip)),
                    match_confidence=MatchConfidence.MEDIUM, address=place.address()), ""
        q = parse_query(text.rstrip() + " ")  # read once: search, the standardizer's check and the unit use it
        verdict = self._by_search(ds, text, typed_pc, q, complete, text_pc=typed_pc)
        if ds.iso2 == "US" and verdict.confidence in (Confidence.VERIFIED_PLACE, Confidence.NO_MATCHES):
            joined = self._joined_name(ds, text, typed_pc, q, complete)
            if joined is not None:
                verdict, q = joined
        std: Standardized | None = None
        if ds.iso2 == "US" and verdict.confidence != Confidence.VERIFIED_MATCH:
            by_std, std = self._by_standardizer(ds, text, q, complete)
            if by_std is not None and _RANK.get(by_std.confidence, 0) > _RANK.get(verdict.confidence, 0) and \
                    not _picks_one_of(verdict, by_std):
                verdict = by_std
        verdict = self._unit_checked(ds, verdict, self._with_bare_unit(verdict, q))
        result = self._result(ds, verdict, bool(typed_pc))
        note = self._note(ds, verdict, result, typed_pc, std, reference_id or "installed", complete)
        return (with_organization(result, org) if org else result), note

    def _joined_name(self, ds: DatasetInfo, text: str, typed_pc: str, q: Query,
                     complete: Callable[[str], bool] | None) -> tuple[Verdict, Query] | None:
        """No street fits the words as typed: two name words written apart that the reference writes as one
        ("Mac Arthur Blvd" for MACARTHUR BLVD, "La Salle" for LASALLE) are read joined, each adjacent pair of
        the first name words once; the street found is answered only when it holds the joined word, and the
        reading is flagged and said (the name as typed is not the reference's)."""
        words = [w.text for w in q.words[:_JOIN_WORDS]]
        for a, b in itertools.pairwise(words):
            if not (a.isalpha() and b.isalpha()) or a in _FORM_WORDS or b in _FORM_WORDS:
                continue
            if not self._may_hold(ds, a + b):
                continue  # no street has the joined word: the reading below would find none that holds it
            pattern = re.compile(rf"\b{re.escape(a)}[\s.]+{re.escape(b)}\b", re.IGNORECASE)
            joined_text, n = pattern.subn(a + b, text, count=1)
            if not n:
                continue
            jq = parse_query(joined_text.rstrip() + " ")
            v = self._by_search(ds, joined_text, typed_pc, jq, complete)
            if v.confidence not in _STREET_CLAIMS or v.item is None or \
                    (a + b) not in tokens(self.ix.street(v.item.street).name):
                continue
            v.detail.street_corrected = True
            said = f"street name {a} {b} read as {a + b}"
            v.form_note = f"{v.form_note}; {said}" if v.form_note else said
            return v, jq
        return None

    def _may_hold(self, ds: DatasetInfo, word: str) -> bool:
        """Whether a street of the dataset may have `word` among its name words: the search vocabulary holds every
        word of every street's text (a made-up street's city read joined, "LOSANGELES", is in none: no search)."""
        return self.searcher.matcher(ds).tk.find(word) >= 0

    # -- the typed unit ----------------------------------------------------------------------------------
    def _with_bare_unit(self, v: Verdict, q: Query) -> Query:
        """A number typed after the street without a designator ("2653 Meridian Ave 12") that the answer's street
        and locality do not hold is a unit typed as "# 12" (Publication 28's form for an unnamed designator): kept
        and checked like one, not dropped without a word."""
        if q.unit or v.item is None:
            return q
        maybe = [w.text for w in q.words if w.maybe_unit and _BARE_UNIT.match(w.text)]
        if not maybe or self._unit_typed(v, q):  # no short value typed after the street (most addresses)
            return q
        s = self.ix.street(v.item.street)
        known = {*tokens(s.text), *tokens(s.city), *tokens(s.postcode)}
        bare = [t for t in maybe if t not in known]
        if len(bare) != 1:
            return q
        return replace(q, unit=bare[0], unit_desig="#", unit_marker=True)

    def _unit_typed(self, v: Verdict, q: Query) -> bool:
        """Whether the answer's own unit is in the typed text, however it was read ("3127 Mabel St R 2": unit R 2;
        "M 203": unit M203; "R APT": unit R APT, though APT reads as a designator)."""
        if v.item is None or v.item.kind != ADDRESS or not self.ix.has_unit(v.item.lo):
            return False
        if v.item.unit_level == 2:
            return True
        unit = self.ix.strings[int(self.ix.a_unit[v.item.lo])]
        toks = tokens(q.raw)
        for t in tokens(q.number):  # the house number is not a unit: some county rows carry it as the unit too
            if t in toks:           # ("2754 ... Apt 4A" against a row whose UNIT is 2754)
                toks.remove(t)
        return any(_same_unit(unit, p) for p in (*toks, *(a + b for a, b in itertools.pairwise(toks))))

    def _unit_is_place(self, v: Verdict, q: Query) -> bool:
        """Whether the "unit" read from the text is the answer's own city and state ("Tutor Key, KY": KEY is a
        Publication 28 designator, KY the state), not a unit that was typed."""
        assert v.item is not None
        s = self.ix.street(v.item.street)
        place = {*tokens(s.city), *tokens(s.region), *tokens(s.postcode)}
        return bool(q.unit_desig) and q.unit_desig.upper() in place and all(t in place for t in tokens(q.unit))

    def _unit_checked(self, ds: DatasetInfo, v: Verdict, q: Query) -> Verdict:
        """A typed unit is one the reference lists at the building, or it is kept as typed: never another one."""
        if not q.unit or v.item is None or v.item.kind == RANGE or v.confidence not in _BUILDING_CLAIMS:
            return v
        if self._unit_typed(v, q) or self._unit_is_place(v, q):
            return v
        ix = self.ix
        typed = " ".join(p for p in (q.unit_desig, q.unit) if p)
        b_lo, b_hi = ix.building(v.item.lo)
        listed = [a for a in range(b_lo, b_hi) if ix.has_unit(a)]
        same = [a for a in listed if _same_unit(ix.strings[int(ix.a_unit[a])], q.unit)]
        if v.item.kind == ADDRESS and v.item.lo in same:
            return v
        if len(same) == 1 and v.confidence != Confidence.PREMISES_PARTIAL:
            a = same[0]
            return Verdict(v.confidence, Item(ADDRESS, v.item.street, a, a + 1, number_level=NUMBER_EXACT),
                           v.detail, v.heavy_repair)
        if same:
            return v
        v.detail.secondary_num_retained = True
        if listed:
            building = Item(BUILDING, v.item.street, b_lo, b_hi, number_level=NUMBER_EXACT)
            units = [Item(ADDRESS, v.item.street, a, a + 1, number_level=NUMBER_EXACT) for a in listed]
            n = len(listed)
            return Verdict(Confidence.PREMISES_PARTIAL, building, v.detail, v.heavy_repair, typed,
                           alternatives=units,
                           unit_note=f"unit {typed} is not one the reference lists at this address "
                                     f"({n} unit{'s' if n > 1 else ''} listed)")
        v.retained_unit = typed
        v.unit_note = f"unit {typed} not checked: the reference lists no units at this address"
        if v.confidence in (Confidence.VERIFIED_MATCH, Confidence.INTERACTION_REQUIRED):
            # the building is verified, the unit is not: a filter on confidence must not count it verified (issue
            # 29); Premises partial is the vendors' word for "premises found, sub-premises not verified"
            v.confidence = Confidence.PREMISES_PARTIAL
        return v

    # -- the search matcher ------------------------------------------------------------------------------
    def _by_search(self, ds: DatasetInfo, text: str, typed_pc: str, typed: Query,
                   complete: Callable[[str], bool] | None = None, *, text_pc: str | None = None) -> Verdict:
        """The search matcher's verdict on `text` (`typed_pc`: the postcode typed in the address validated;
        `text_pc`: the one of `text` itself when known, else read again from it)."""
        deadline.check()
        found = self.searcher.search(ds, text.rstrip() + " ", _CANDIDATES, query=typed)
        if not found.items:
            return Verdict(Confidence.NO_MATCHES, None, ValidationDetail())
        q = found.query
        ev, forms = self._evidence_of(ds, q, typed_pc, {it.street for it in found.items}, complete)
        # only streets the typed words support can be answered; the best supported reading first
        good = [it for it in found.items if ev[it.street].ok]
        if not good:
            # streets whose name fits but whose suffix, direction or locality does not: offered, never claimed
            near = [it for it in found.items if ev[it.street].near]
            place = self._place(ds, found, typed_pc)
            if near and place.confidence == Confidence.VERIFIED_PLACE:
                place.alternatives = near
            elif near and not any(ev[it.street].locality_typed for it in near):
                top = near[0]
                several = Verdict(Confidence.MULTIPLE_MATCHES, top, self._detail(ds, text, found, top, text_pc),
                                  True, alternatives=near)
                several.form_note = self._not_corrected(near, forms)
                return several
            place.form_note = self._not_corrected(near, forms)
            return place
        best = max(ev[it.street].rank for it in good)
        good = [it for it in good if ev[it.street].rank == best]
        top = max(good, key=lambda it: it.rank)
        detail = self._detail(ds, text, found, top, text_pc)
        form = forms.get(top.street)
        if form is not None and form.verdict == AMBIGUOUS:
            return self._two_readings(ds, top, detail, form, typed_pc)
        changes = [*(form.changes if form is not None and form.verdict == CORRECTED else ()),
                   *((ev[top.street].direction_moved,) if ev[top.street].direction_moved else ())]
        if changes:
            detail.street_corrected = True
        form_note = "; ".join(changes)
        v = self._street_verdict(ds, found, typed_pc, ev, good, top, detail)
        if form_note and v.item is not None and v.item.street == top.street and v.confidence in _STREET_CLAIMS:
            v.form_note = form_note
            if form is not None and form.verdict == CORRECTED and form.partial:
                self._less_sure(ds, v, ev[top.street], typed_pc)
        if v.confidence == Confidence.STREET_PARTIAL and v.item is not None and q.number:
            return self._number_elsewhere(ds, v, ev[v.item.street], q, typed_pc, complete)
        return v

    def _street_verdict(self, ds: DatasetInfo, found: Found, typed_pc: str, ev: dict[int, Evidence],
                        good: list[Item], top: Item, detail: ValidationDetail) -> Verdict:
        """The verdict on the supported streets `good` (best `top`): address, building, street or several."""
        q = found.query
        heavy = bool(found.match and (found.match.fuzzy or detail.street_corrected))
        same = [it for it in good if it.number_level == top.number_level and it.unit_level == top.unit_level
                and not (it.kind == BUILDING and it is not top and it.lo <= top.lo < it.hi)]
        if top.kind == ADDRESS and not q.unit and self.ix.has_unit(top.lo) and q.number and \
                top.number_level == NUMBER_EXACT:
            if len({it.street for it in same}) > 1:
                return Verdict(Confidence.MULTIPLE_MATCHES, top, detail, heavy, alternatives=same)
            b_lo, b_hi = self.ix.building(top.lo)
            top = Item(BUILDING, top.street, b_lo, b_hi, number_level=top.number_level, word_score=top.word_score)
            return Verdict(Confidence.PREMISES_PARTIAL, top, detail, heavy)
        if top.kind == ADDRESS and top.number_level == NUMBER_EXACT and q.number:
            if len(same) > 1 and not (q.unit and top.unit_level == 2
                                      and all(it.street == top.street for it in same)):
                return Verdict(Confidence.MULTIPLE_MATCHES, top, detail, heavy, alternatives=same)
            retained = ""
            if q.unit and top.unit_level != 2:
                retained = " ".join(p for p in (q.unit_desig, q.unit) if p)
                detail.secondary_num_retained = True
            conf = Confidence.INTERACTION_REQUIRED if heavy and self._many_repairs(detail) else \
                Confidence.VERIFIED_MATCH
            return Verdict(conf, top, detail, heavy, retained)
        if top.kind == BUILDING and q.number and top.number_level == NUMBER_EXACT and not found.number_missing:
            if len(same) > 1:
                return Verdict(Confidence.MULTIPLE_MATCHES, top, detail, heavy, alternatives=same)
            if q.unit:
                detail.secondary_num_retained = True
            return Verdict(Confidence.PREMISES_PARTIAL, top, detail, heavy,
                           " ".join(p for p in (q.unit_desig, q.unit) if p))
        streets = list(dict.fromkeys(it.street for it in good))
        if not all(not ev[x].name_edits or (ev[x].zip_ok and q.number) for x in streets):
            # a corrected name without the house number on it needs a typed number and the typed ZIP to be named
            # ("same as billing" is not "N SAGE CIR"): else it is offered only
            place = self._place(ds, found, typed_pc)
            if place.confidence == Confidence.VERIFIED_PLACE:
                place.alternatives = good
            return place
        if len(streets) > 1:
            alts = [it for it in good if it.kind != ADDRESS or not q.number] or good
            return Verdict(Confidence.MULTIPLE_MATCHES, top, detail, heavy, alternatives=alts)
        if top.kind == ADDRESS and q.number:  # another number on the one supported street
            s = top.street
            top = Item(RANGE, s, int(self.ix.s_lo[s]), int(self.ix.s_hi[s]))
        return Verdict(Confidence.STREET_PARTIAL, top, detail, heavy)

    def _evidence_of(self, ds: DatasetInfo, q: Query, typed_pc: str, streets: set[int],
                     complete: Callable[[str], bool] | None = None) -> tuple[dict[int, Evidence], dict[int, FormCheck]]:
        """The evidence for each street, and, where the typed suffix or direction is not the street's, the verdict
        of the street-form rule (`street_forms`): a street it refuses is offered only, one it corrects or finds
        one of two readings passes (ranked below a street typed as it is)."""
        aliases = self._aliases(ds, typed_pc)
        ev = {s: street_evidence(ds.iso2, self.ix.street(s), q, typed_pc, aliases) for s in streets}
        forms: dict[int, FormCheck] = {}
        for s, e in ev.items():
            if not (e.form_only or (e.ok and e.direction_completed)):
                continue
            fc = self._form_check(ds, self.ix.street(s), e, q, typed_pc, complete)
            if fc.verdict == CORRECTED and e.name_edits and any(not c.endswith(" added") for c in fc.changes):
                fc = FormCheck(REFUSED)  # a misspelt name and a changed suffix or direction: two guesses, not one
            forms[s] = fc
            if fc.verdict == REFUSED:
                e.ok, e.near = False, True
            elif fc.verdict != SAME:
                e.ok, e.near = True, False
                e.completed += 1 + len(fc.changes)
        return ev, forms

    def _less_sure(self, ds: DatasetInfo, v: Verdict, e: Evidence, typed_pc: str) -> None:
        """A typed suffix or direction corrected from a reference that holds part of the area (`street_forms`):
        the typed street may be one it lacks (1511 MONTEVAL LN beside 1511 MONTEVAL PL), so one match, less sure:
        Interaction required, never Verified match, and the note says what it could not rule out."""
        assert v.item is not None
        s = self.ix.street(v.item.street)
        t_pre, t_suf, t_post = e.typed_form
        pre, suf, post = s.predir, s.suffix, s.postdir
        if t_pre or t_post:
            pre, post = t_pre, t_post
        typed = " ".join(p for p in (pre, s.name, t_suf or suf, post) if p)
        where = f"{'ZIP' if ds.iso2 == 'US' else 'postcode'} {s.postcode}" if typed_pc else s.city
        v.form_unsure = (typed, where)
        v.heavy_repair = True
        if v.confidence == Confidence.VERIFIED_MATCH:
            v.confidence = Confidence.INTERACTION_REQUIRED

    def _not_corrected(self, near: list[Item], forms: dict[int, FormCheck]) -> str:
        """What a partial reference kept the street-form rule from correcting: the street that would fit, the
        change, and why it was not made (see `street_forms`: a correction says the typed street is not there)."""
        for it in near:
            fc = forms.get(it.street)
            if fc is not None and fc.partial and fc.changes:
                return (f"{self.ix.street(it.street).text} would fit with {'; '.join(fc.changes)}, not made: the "
                        "reference holds only part of the area, so the street as typed may be one it lacks")
        return ""

    def form_of(self, ds: DatasetInfo, street: int, q: Query, typed_pc: str,
                complete: Callable[[str], bool] | None = None) -> FormCheck | None:
        """The street-form rule's verdict on street `street` read as the street typed in `q`, exactly as validate
        weighs it (None where the typed form is the street's own): search asks it before a Verified match."""
        return self._evidence_of(ds, q, typed_pc, {street}, complete)[1].get(street)

    def readings(self, ds: DatasetInfo, street: int, form: FormCheck, typed_pc: str,
                 number_forms: tuple[str, ...] = ()) -> list[Item]:
        """The other real readings of an AMBIGUOUS form check on `street`, as items: the address or building at
        the typed number where a reading holds it (any of `number_forms`), else the reading's street groups."""
        ix = self.ix
        s = ix.street(street)
        num_ids = [i for f in number_forms if f and (i := ix.strings.find(f)) >= 0]
        out: list[Item] = []
        for pc in self._locality(ds, s, typed_pc):
            for t in ix.streets_named(ds, pc, s.name):
                row = ix.street(t)
                if t == street or (row.predir, row.suffix, row.postdir) not in form.others:
                    continue
                at = next((a for a in range(row.lo, row.hi) if int(ix.a_number[a]) in num_ids), -1)
                if at >= 0:
                    b_lo, b_hi = ix.building(at)
                    out.append(Item(ADDRESS if b_hi - b_lo == 1 else BUILDING, t, b_lo, b_hi,
                                    number_level=NUMBER_EXACT))
                else:
                    out += self.searcher.street_groups(t)
        return out

    def _form_check(self, ds: DatasetInfo, s: StreetRow, e: Evidence, q: Query, typed_pc: str,
                    complete: Callable[[str], bool] | None) -> FormCheck:
        """The street-form rule for street `s` read as the typed street: every form of its name in the locality
        (its postcode; with no postcode typed, or another one, the postcodes of its city as well)."""
        ix = self.ix
        postcodes = self._locality(ds, s, typed_pc)
        num_ids = [i for f in (q.number_forms or (q.number,)) if f and (i := ix.strings.find(f)) >= 0]
        facts: dict[Form, FormFacts] = {}
        for pc in postcodes:
            for t in ix.streets_named(ds, pc, s.name):
                row = ix.street(t)
                f = (row.predir, row.suffix, row.postdir)
                nums = ix.a_number[row.lo:row.hi]
                has = any(bool((nums == i).any()) for i in num_ids)
                ni = ix.a_numint[row.lo:row.hi]
                lo, hi = int(ni.min()), int(ni.max())
                prev = facts.get(f)
                if prev is not None:
                    has, lo, hi = has or prev.has_number, min(lo, prev.lo), max(hi, prev.hi)
                facts[f] = FormFacts(has, lo, hi)
        whole = all(complete(pc) for pc in postcodes) if complete is not None else True
        number = numint(q.number) if q.number[:1].isdigit() else 0
        return check_form(e.typed_form, (s.predir, s.suffix, s.postdir), facts, number, complete=whole,
                          city_forms=None if whole else functools.partial(self._city_forms, ds, s, postcodes))

    def _city_forms(self, ds: DatasetInfo, s: StreetRow, postcodes: list[str]) -> set[Form]:
        """Every form of street `s`'s name in its whole city (`postcodes` and every ZIP of its city, whichever
        city a street of them names): what a correction from a partial reference asks of the typed form."""
        ix = self.ix
        where = list(postcodes)
        if ds.iso2 == "US":
            from dqkit.engines import zipdata

            where += [z for z in zipdata.zips_for_city(s.city, s.region) if z not in where]
        out: set[Form] = set()
        for pc in where:
            for t in ix.streets_named(ds, pc, s.name):
                row = ix.street(t)
                out.add((row.predir, row.suffix, row.postdir))
        return out

    def _number_elsewhere(self, ds: DatasetInfo, v: Verdict, e: Evidence, q: Query, typed_pc: str,
                          complete: Callable[[str], bool] | None) -> Verdict:
        """The typed street holds no such number, another form of its name in the locality does (696 W SUNSET
        BLVD typed, 696 on SUNSET BLVD): when the street-form rule finds both readings real, Multiple matches
        listing both; else the Street partial as it is."""
        assert v.item is not None
        ix = self.ix
        s = ix.street(v.item.street)
        num_ids = [i for f in (q.number_forms or (q.number,)) if f and (i := ix.strings.find(f)) >= 0]
        if not num_ids:
            return v
        holders: list[Item] = []
        names: list[str] = []
        for t in (t for pc in self._locality(ds, s, typed_pc) for t in ix.streets_named(ds, pc, s.name)):
            row = ix.street(t)
            if t == v.item.street:
                continue
            at = [a for a in range(row.lo, row.hi) if int(ix.a_number[a]) in num_ids]
            if not at:
                continue
            fc = self._form_check(ds, row, e, q, typed_pc, complete)
            if fc.verdict != AMBIGUOUS:
                continue
            b_lo, b_hi = ix.building(at[0])
            holders.append(Item(ADDRESS if b_hi - b_lo == 1 else BUILDING, t, b_lo, b_hi, number_level=NUMBER_EXACT))
            names.append(f"{ix.number_text(at[0])} {row.text}")
        if not holders:
            return v
        out = Verdict(Confidence.MULTIPLE_MATCHES, v.item, v.detail, True, alternatives=[v.item, *holders])
        out.form_note = (f"two streets fit the typed street, neither verified: {s.text} as typed (no number "
                         f"{q.number} on it in the reference); {' and '.join(names)} also fit"
                         f"{'s' if len(names) == 1 else ''}")
        return out

    def _locality(self, ds: DatasetInfo, s: StreetRow, typed_pc: str) -> list[str]:
        """Where the other forms of street `s`'s name are looked for: its postcode when that was typed, else the
        postcodes of its city too (US)."""
        postcodes = [s.postcode]
        if ds.iso2 == "US" and typed_pc.replace(" ", "") != s.postcode.replace(" ", ""):
            from dqkit.engines import zipdata

            postcodes += [z for z in zipdata.zips_for_city(s.city, s.region) if z != s.postcode]
        return postcodes

    def _two_readings(self, ds: DatasetInfo, top: Item, detail: ValidationDetail, form: FormCheck,
                      typed_pc: str) -> Verdict:
        """The typed street and another form of its name both fit (SUNSET BLVD typed, 752 on W SUNSET BLVD, and
        SUNSET BLVD in the ZIP too): Multiple matches listing both, verifying neither."""
        ix = self.ix
        s = ix.street(top.street)
        others: list[Item] = []
        names: list[str] = []
        for pc in self._locality(ds, s, typed_pc):
            for t in ix.streets_named(ds, pc, s.name):
                row = ix.street(t)
                if (row.predir, row.suffix, row.postdir) in form.others and t != top.street:
                    others += self.searcher.street_groups(t)
                    names.append(row.text if pc == s.postcode else f"{row.text} ({pc})")
        changed = "; ".join(form.changes)
        why = f"{s.text} fits" + (f" ({changed})" if changed else "")
        also = f"{' and '.join(dict.fromkeys(names))} also fit{'s' if len(set(names)) == 1 else ''}"
        v = Verdict(Confidence.MULTIPLE_MATCHES, top, detail, True, alternatives=[top, *others])
        v.form_note = f"two streets fit the typed street, neither verified: {why}; {also}"
        return v

    def _aliases(self, ds: DatasetInfo, postcode: str) -> tuple[str, ...]:
        return _alias_cities(postcode) if ds.iso2 == "US" and postcode else ()

    def _postcode_held(self, ds: DatasetInfo, postcode: str) -> bool:
        lo, hi = self.ix.streets_in_postcode(ds, postcode)
        return hi > lo

    def _place(self, ds: DatasetInfo, found: Found, typed_pc: str) -> Verdict:
        """No typed street is supported: Verified place when the typed ZIP (or the typed city) is in the
        reference, else No matches. No street, number or key is claimed."""
        if typed_pc and self._postcode_held(ds, typed_pc):
            return Verdict(Confidence.VERIFIED_PLACE, None, ValidationDetail(), place_postcode=typed_pc)
        q = found.query
        for it in found.items:
            s = self.ix.street(it.street)
            city = tokens(s.city)
            if city and all(t in {w.text for w in q.words} for t in city):
                return Verdict(Confidence.VERIFIED_PLACE, None, ValidationDetail(), place_postcode="",
                               place_street=it.street)
        return Verdict(Confidence.NO_MATCHES, None, ValidationDetail())

    @staticmethod
    def _many_repairs(d: ValidationDetail) -> bool:
        return sum((d.street_corrected, d.city_name_corrected, d.zip_code_corrected, d.state_corrected,
                    d.primary_number_corrected)) >= 3

    def _detail(self, ds: DatasetInfo, text: str, found: Found, top: Item, typed_pc: str | None = None,
                ) -> ValidationDetail:
        """Which parts of the typed address differ from the reference street the search landed on (`typed_pc`:
        the postcode typed in `text`, read from it when None)."""
        d = ValidationDetail()
        m = found.match
        if m is None:
            return d
        s = self.ix.street(top.street)
        i = top.street - ds.street_lo
        facts = country(ds.iso2)
        if typed_pc is None:
            typed_pc = self._typed_postcode(ds, text)
        if typed_pc and typed_pc.replace(" ", "") != s.postcode.replace(" ", ""):
            d.zip_code_corrected = True
        levels = [h.level(i) for h in m.hits]
        missed_here = [h.word for h, lv in zip(m.hits, levels, strict=True) if h.hit and lv == 0]
        # the street's and city's words, read only when a word needs them (none does when every word was found)
        street_words = set(tokens(s.text)) if LEVEL_FUZZY_LOCALITY in levels or m.dropped or missed_here else set()
        city_words = set(tokens(s.city)) if m.dropped or missed_here else set()
        for h, lv in zip(m.hits, levels, strict=True):
            if lv == LEVEL_FUZZY_STREET:  # a typo in the street name
                d.street_corrected = True
            if lv == LEVEL_FUZZY_LOCALITY and h.word.text not in street_words:  # a typo in the locality
                d.city_name_corrected = True
        dropped_early = False
        for w in [*m.dropped, *missed_here]:
            t = w.text
            if _is_postcode_word(ds.iso2, t):
                continue  # counted above
            if t in facts.region_codes or _us_state(ds.iso2, t):
                code = facts.region_codes.get(t) or _us_state(ds.iso2, t)
                if code and code != s.region:
                    d.state_corrected = True
                continue
            if t in _IGNORED_WORDS:
                continue
            if w.complete and (t in street_words or t in city_words):
                continue
            if self._alias_city(ds, s.postcode, t):
                d.city_name_alias_matched = True
            elif self._before_locality(found, w):
                dropped_early = True
            else:
                d.city_name_corrected = True
        if dropped_early:
            # a word left out of the first half is the street's only when the typed street is not the answer's
            # ("2653 Meridian Ave, Los Gatos, CA 95124": the street is as typed, the city was wrong)
            if ds.iso2 == "US" and _typed_street_is(text, s):
                d.city_name_corrected = True
            else:
                d.street_corrected = True
        return d

    def _before_locality(self, found: Found, w: object) -> bool:
        words = found.query.words
        try:
            pos = words.index(w)  # type: ignore[arg-type]
        except ValueError:
            return False
        return pos < max(1, len(words) // 2)

    def _alias_city(self, ds: DatasetInfo, postcode: str, word: str) -> bool:
        if ds.iso2 != "US":
            return False
        from dqkit.engines import zipdata

        info = zipdata.zip_info(postcode)
        return bool(info and any(word in c.split() for c in info.acceptable_cities))

    @staticmethod
    def _typed_postcode(ds: DatasetInfo, text: str) -> str:
        return typed_postcode(ds.iso2, text)

    # -- the standardizer (US) ---------------------------------------------------------------------------
    def _by_standardizer(self, ds: DatasetInfo, text: str, q: Query, complete: Callable[[str], bool] | None = None,
                         ) -> tuple[Verdict | None, Standardized]:
        """The standardizer's verdict (None when it has none) and its reading of the typed address (`q`: the
        search's reading of the same text)."""
        deadline.check()
        from dqkit.engines.usaddr.standardize import standardize

        st = standardize(text, points=self.ix if complete is None else CoveredPoints(self.ix, complete))
        return self._std_verdict(ds, text, st, q, complete), st

    def _std_verdict(self, ds: DatasetInfo, text: str, st: Standardized, q: Query,
                     complete: Callable[[str], bool] | None = None) -> Verdict | None:
        from dqkit.engines.usaddr.standardize import MatchLevel

        if st.match == MatchLevel.NONE:
            return None
        detail = _detail_from_standardized(st)
        zip5 = st.address.zip
        item = self._item_of(ds, st, zip5)
        form_note = ""
        if item is not None and st.match in (MatchLevel.ADDRESS, MatchLevel.PREMISES, MatchLevel.STREET):
            typed_pc = self._typed_postcode(ds, text)
            ev, forms = self._evidence_of(ds, q, typed_pc, {item.street}, complete)
            if not ev[item.street].ok:
                return None  # the standardizer's street is not the typed one (or not in the typed locality)
            form = forms.get(item.street)
            if form is not None and form.verdict == AMBIGUOUS:
                return None  # two readings: the search's verdict lists both
            changes = [*(form.changes if form is not None and form.verdict == CORRECTED else ()),
                       *((ev[item.street].direction_moved,) if ev[item.street].direction_moved else ())]
            if changes:
                detail.street_corrected = True
                form_note = "; ".join(changes)
            if q.number_forms and self.ix.number_text(item.lo) not in q.number_forms and item.kind != RANGE:
                return None  # "3780 A Webster St" is not 3780: a number form the reference lacks is kept as typed
        v = self._std_level_verdict(ds, st, item, detail, bool(form_note))
        if v is not None and form_note and v.confidence in _STREET_CLAIMS:
            v.form_note = form_note
            if item is not None and form is not None and form.verdict == CORRECTED and form.partial:
                self._less_sure(ds, v, ev[item.street], typed_pc)
        return v

    def _std_level_verdict(self, ds: DatasetInfo, st: Standardized, item: Item | None, detail: ValidationDetail,
                           form_corrected: bool) -> Verdict | None:
        """The verdict for the standardizer's match level (its street already checked against the typed words)."""
        from dqkit.engines.usaddr.standardize import MatchLevel

        if st.match == MatchLevel.ADDRESS and item is not None and item.kind == ADDRESS:
            heavy = "street" in st.corrected or form_corrected
            conf = Confidence.INTERACTION_REQUIRED if heavy and self._many_repairs(detail) else \
                Confidence.VERIFIED_MATCH
            return Verdict(conf, item, detail, heavy, st.street.secondary if st.secondary_retained else "")
        if st.match == MatchLevel.MULTIPLE:
            return Verdict(Confidence.MULTIPLE_MATCHES, item, detail)
        if st.match == MatchLevel.PREMISES and item is not None:
            return Verdict(Confidence.PREMISES_PARTIAL, item, detail, form_corrected, st.street.secondary)
        if st.match == MatchLevel.STREET and item is not None:
            return Verdict(Confidence.STREET_PARTIAL, item, detail, form_corrected)
        if st.match == MatchLevel.LAST_LINE:
            a = st.address
            if a.zip and self._postcode_held(ds, a.zip):
                return Verdict(Confidence.VERIFIED_PLACE, None, detail, place_postcode=a.zip)
            return Verdict(Confidence.VERIFIED_PLACE, None, detail, place_text=(a.city, a.state, a.zip))
        return None

    def _item_of(self, ds: DatasetInfo, st: Standardized, zip5: str) -> Item | None:
        """The reference item the standardizer landed on: the address, its building, or its street."""
        ix = self.ix
        s_parts = st.street
        for s in ix.streets_named(ds, zip5, s_parts.name):
            row = ix.street(s)
            if (row.predir, row.suffix, row.postdir) != (s_parts.predir, s_parts.suffix, s_parts.postdir):
                continue
            same_number = [a for a in range(row.lo, row.hi) if ix.number_text(a) == s_parts.number]
            if not same_number:
                continue
            exact = [a for a in same_number if ix.strings[int(ix.a_unit[a])] == s_parts.unit]
            if st.point_id:
                exact = [a for a in exact if ix.source_ids[a] == st.point_id] or exact
            if exact and (len(exact) == 1 or not s_parts.unit) and \
                    (len(same_number) == 1 or s_parts.unit or not ix.has_unit(exact[0])):
                return Item(ADDRESS, s, exact[0], exact[0] + 1, number_level=NUMBER_EXACT)
            b_lo, b_hi = ix.building(same_number[0])
            return Item(BUILDING if b_hi - b_lo > 1 else ADDRESS, s, b_lo, b_hi, number_level=NUMBER_EXACT)
        for s in ix.streets_named(ds, zip5, s_parts.name):
            return Item(RANGE, s, int(ix.s_lo[s]), int(ix.s_hi[s]))
        return None

    # -- the answer --------------------------------------------------------------------------------------
    def _result(self, ds: DatasetInfo, v: Verdict, with_postcode: bool) -> ValidationResult:
        conf = v.confidence
        key = self.key_of(ds, v.item) if v.item is not None else ""
        address: Address | None = None
        if v.item is not None:
            row = self.ix.address(v.item.lo)
            address = seven_lines(ds.iso2, row)
            if v.item.kind != ADDRESS:
                address = self._partial_address(ds, v, address)
            elif v.retained_unit and not row.unit:
                self._with_unit(ds, address, row.number, row.street.text, v.retained_unit)
            if ds.iso2 == "US" and (v.retained_unit or v.item.kind != ADDRESS or conf not in _ONE_POINT):
                # a ZIP+4 is one delivery point's: not a kept unit's (the building's is not its unit's), nor a
                # building's, a street's or one of several candidates' (the first row's add-on is not theirs)
                address.postal_code = address.postal_code[:5]
            if conf == Confidence.MULTIPLE_MATCHES:
                self._shared_locality(address, v.alternatives or [v.item])
        if conf == Confidence.VERIFIED_PLACE and v.item is None:
            address = self._place_address(ds, v)
        suggestions = []
        if (conf in (Confidence.MULTIPLE_MATCHES, Confidence.PREMISES_PARTIAL, Confidence.STREET_PARTIAL) and
                v.item is not None) or (conf == Confidence.VERIFIED_PLACE and v.alternatives):
            items = v.alternatives or ([v.item] if v.item is not None else [])
            suggestions = self.suggestions_of(ds, items[:7])
        return ValidationResult(
            global_address_key=key,
            confidence=conf,
            validation_detail=v.detail if conf != Confidence.NO_MATCHES else None,
            match_type=_match_type(conf, with_postcode),
            match_confidence=_match_confidence(conf, v),
            address=address,
            suggestions=suggestions,
        )

    def _shared_locality(self, address: Address, items: list[Item]) -> None:
        """Multiple matches: the postal code and locality only when every candidate shares them (no guess)."""
        streets = [self.ix.street(it.street) for it in items]
        if len({s.postcode for s in streets}) > 1:
            address.postal_code = ""
        if len({(s.city, s.region) for s in streets}) > 1:
            address.locality, address.region = "", ""

    def _with_unit(self, ds: DatasetInfo, address: Address, number: str, street: str, unit: str) -> None:
        """The typed unit kept on the delivery line(s), where the country's layout puts it."""
        desig, _, value = unit.rpartition(" ")
        lines = delivery_lines(ds.iso2, number, street, desig, value)[:3]
        lines += [""] * (3 - len(lines))
        if "street_address" in country(ds.iso2).upper_fields:
            lines = [x.upper() for x in lines]
        address.address_line_1, address.address_line_2, address.address_line_3 = lines

    def _note(self, ds: DatasetInfo, v: Verdict, result: ValidationResult, typed_pc: str,
              std: Standardized | None, rid: str, complete: Callable[[str], bool] | None = None) -> str:
        """The answer's note, read from the answer itself: what it kept unchecked, what it changed, what it did
        not find and where it looked."""
        notes = [f"{v.unit_note} (reference {rid})"] if v.unit_note else []
        if v.form_note:
            notes.append(f"{v.form_note} (reference {rid})")
        if v.form_unsure is not None and result.confidence in _STREET_CLAIMS:
            typed, where = v.form_unsure
            notes.append(f"{typed} is not in {where} of reference {rid}, which holds only part of the area: the "
                         "street as typed may be one it lacks, so the corrected address is not verified")
        conf = result.confidence
        a = result.address
        zip_word = "ZIP" if ds.iso2 == "US" else "postcode"
        answer_pc = (a.postal_code[:5] if ds.iso2 == "US" else a.postal_code) if a is not None else ""
        if conf in _STREET_CLAIMS and typed_pc and answer_pc and \
                typed_pc.replace(" ", "") != answer_pc.replace(" ", ""):
            notes.append(f"typed {zip_word} {typed_pc} corrected to {answer_pc} by reference {rid}")
        if conf in (Confidence.VERIFIED_PLACE, Confidence.NO_MATCHES):
            notes += self._street_note(ds, a, typed_pc or answer_pc, std, rid, complete)
        return "; ".join(notes)

    def _street_note(self, ds: DatasetInfo, a: Address | None, where: str, std: Standardized | None, rid: str,
                     complete: Callable[[str], bool] | None) -> list[str]:
        """What a place-only answer says of the typed street: "not found" only where the reference holds every
        street and not that one; "not checked" where it holds part of the area (or none of it); and never "not
        found" of a street the reference holds there (named as typed, not as the standardizer corrected it)."""
        zip_word = "ZIP" if ds.iso2 == "US" else "postcode"
        if where and not self._postcode_held(ds, where):
            return [f"street not checked: reference {rid} holds no addresses in {zip_word} {where}"]
        typed = _typed_street_parts(std)
        if typed is None:
            return []
        street = " ".join(p for p in typed if p)
        if where:
            places, label = [where], f"{zip_word} {where}"
        elif a is not None and a.locality and ds.iso2 == "US":
            from dqkit.engines import zipdata

            places = [z for z in zipdata.zips_for_city(a.locality.upper(), a.region) if self._postcode_held(ds, z)]
            label = a.locality
        else:
            places, label = [], ""
        if any(self._holds(ds, pc, typed) for pc in places):
            return [f"street {street} is in {label} of reference {rid}, but the typed address was not verified on "
                    "it"]
        if places and (complete is None or all(complete(pc) for pc in places)):
            return [f"street {street} not found in {label} of reference {rid}"]
        if places:
            return [f"street {street} not checked: reference {rid} holds only part of {label}"]
        return [f"street {street} not checked: no ZIP or city of reference {rid} was typed"]

    def _holds(self, ds: DatasetInfo, postcode: str, typed: tuple[str, str, str, str]) -> bool:
        """Whether the reference holds the typed street in `postcode` (a suffix or direction not typed: any)."""
        predir, name, suffix, postdir = typed
        for t in self.ix.streets_named(ds, postcode, name):
            row = self.ix.street(t)
            if all(not want or want == got for want, got in ((predir, row.predir), (suffix, row.suffix),
                                                               (postdir, row.postdir))):
                return True
        return False

    def _place_address(self, ds: DatasetInfo, v: Verdict) -> Address | None:
        """A Verified place: the locality lines of the typed postcode (or city), no street."""
        if v.place_text is not None:
            city, region, postcode = v.place_text
            return Address(locality=mixed_case(city), region=region, postal_code=postcode,
                           country=country_name(ds.iso2))
        s = v.place_street
        if v.place_postcode:
            lo, hi = self.ix.streets_in_postcode(ds, v.place_postcode)
            s = lo if hi > lo else -1
        if s < 0:
            return None
        first = self.ix.street(int(self.ix.a_street[int(self.ix.s_lo[s])]))  # its first address's street (s)
        # the typed postcode, or none: a city of several postcodes named by its first street would be a guess
        return locality_lines(ds.iso2, first, self.ix.street(s).postcode if v.place_postcode else "")

    def _partial_address(self, ds: DatasetInfo, v: Verdict, full: Address) -> Address:
        """A building or street verdict: the lines as far as they are known (no unit / no house number)."""
        assert v.item is not None
        ix = self.ix
        s = ix.street(v.item.street)
        if v.item.kind == BUILDING and v.retained_unit:
            self._with_unit(ds, full, ix.number_text(v.item.lo), s.text, v.retained_unit)
            return full
        line = " ".join(p for p in (ix.number_text(v.item.lo), s.text) if p) if v.item.kind == BUILDING else s.text
        full.address_line_1, full.address_line_2, full.address_line_3 = line, "", ""
        return full


@lru_cache(maxsize=4096)
def _alias_cities(zip5: str) -> tuple[str, ...]:
    """Other city names USPS accepts for a ZIP (looked up once per ZIP)."""
    from dqkit.engines import zipdata

    info = zipdata.zip_info(zip5)
    return info.acceptable_cities if info else ()


_IGNORED_WORDS: Final = frozenset({"US", "USA", "UNITED", "STATES", "AMERICA", "OF"})


def _picks_one_of(several: Verdict, one: Verdict) -> bool:
    """Whether `one` merely chooses among the equally supported candidates of a Multiple matches verdict (the
    standardizer takes the first ZIP of a city: "40 Oak St, Springfield, IL" is in two of them)."""
    if several.confidence != Confidence.MULTIPLE_MATCHES or one.item is None:
        return False
    streets = {it.street for it in (several.alternatives or ([several.item] if several.item else []))}
    return len(streets) > 1 and one.item.street in streets


def _same_unit(listed: str, typed: str) -> bool:
    """A listed unit value and a typed one name the same unit ("# 508" and "Apt 508"; "04" and "4")."""
    a = "".join(c for c in listed.upper() if c.isalnum())
    b = "".join(c for c in typed.upper() if c.isalnum())
    return bool(a) and (a == b or a.lstrip("0") == b.lstrip("0"))


def _typed_street_is(text: str, s: StreetRow) -> bool:
    """Whether the standardizer reads the typed street as exactly the reference street `s`."""
    from dqkit.engines.usaddr.standardize import standardize

    t = standardize(text).street
    return bool(t.name) and (t.predir, t.name, t.suffix, t.postdir) == (s.predir, s.name, s.suffix, s.postdir)


def _typed_street_parts(std: Standardized | None) -> tuple[str, str, str, str] | None:
    """The street as typed, in Publication 28 parts (predir, name, suffix, postdir): the standardizer's reading
    of the input, before the reference corrected anything; None when it read no street."""
    if std is None:
        return None
    s = std.typed_street if std.typed_street.name else std.street
    return (s.predir, s.name, s.suffix, s.postdir) if s.name else None


def _is_postcode_word(iso2: str, t: str) -> bool:
    if iso2 == "US":
        return t.isdigit() and len(t) in (4, 5, 9)
    return any(c.isdigit() for c in t) and any(c.isalpha() for c in t) and len(t) <= 7


def _us_state(iso2: str, t: str) -> str:
    if iso2 != "US":
        return ""
    from dqkit.engines.usaddr.pub28 import STATE_NAMES

    return STATE_NAMES.get(t, "")


def _detail_from_standardized(st: Standardized) -> ValidationDetail:
    c = st.corrected
    return ValidationDetail(
        street_corrected=bool(c & {"street", "suffix", "directional"}),
        city_name_corrected="city" in c,
        city_name_alias_matched=st.alias,
        state_corrected="state" in c,
        zip_code_corrected="zip" in c,
        secondary_num_retained=st.secondary_retained,
        rural_route_highway_contract_matched=bool(st.street.rr_type in ("RR", "HC")),
    )


def _match_type(conf: str, with_postcode: bool) -> str:
    suffix = "with_post_code" if with_postcode else "no_post_code"
    if conf in (Confidence.VERIFIED_MATCH, Confidence.INTERACTION_REQUIRED):
        return f"full_{suffix}"
    if conf in (Confidence.PREMISES_PARTIAL, Confidence.STREET_PARTIAL, Confidence.VERIFIED_STREET):
        return f"partial_{suffix}"
    if conf in (Confidence.MULTIPLE_MATCHES, Confidence.TOO_MANY_MATCHES):
        return f"multiple_{suffix}"
    if conf == Confidence.VERIFIED_PLACE:
        return MatchType.POST_CODE_NO_ADDRESS if with_postcode else MatchType.UNMATCHED
    return MatchType.UNMATCHED


def _match_confidence(conf: str, v: Verdict) -> str:
    if conf == Confidence.VERIFIED_MATCH:
        return MatchConfidence.MEDIUM if v.heavy_repair or v.detail.primary_number_corrected else \
            MatchConfidence.HIGH
    if conf in (Confidence.INTERACTION_REQUIRED, Confidence.PREMISES_PARTIAL, Confidence.STREET_PARTIAL,
                Confidence.VERIFIED_PLACE, Confidence.VERIFIED_STREET):
        return MatchConfidence.MEDIUM
    return MatchConfidence.NONE
