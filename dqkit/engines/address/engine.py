"""`AddressEngine`: the address validation service of seed 001, in process, over a reference index.

Its public methods are exactly the `AddressBackend` protocol (`dqkit.backends.base`), so the local backend and
the HTTP server simply delegate to it. Requests and responses are the contract models of
`dqkit.contract.address`; errors are the contract's exceptions (BadRequestError for unusable requests,
NotFoundError for keys this index did not issue). Nothing matched is an answer, not an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

from dqkit.contract.address import (
    DEFAULT_MAX_SUGGESTIONS,
    MAX_SUGGESTIONS,
    AdditionalAttribute,
    Confidence,
    Dataset,
    FormatRequest,
    FormatResponse,
    FormatResult,
    LookupRequest,
    LookupResponse,
    SearchRequest,
    SearchResponse,
    SearchType,
    Suggestion,
    SuggestionList,
    SuggestionsFormatRequest,
    SuggestionsFormatResponse,
    ValidateResponse,
    layouts_note,
)
from dqkit.contract.address_components import NO_ADD_ONS, AddOns, AddressComponents
from dqkit.contract.errors import BadRequestError, NotFoundError
from dqkit.engines.address import keys as kk
from dqkit.engines.address.components import ADDRESS_LEVEL, BUILDING_LEVEL, STREET_LEVEL, add_ons_for
from dqkit.engines.address.covered import CoveredPoints
from dqkit.engines.address.evidence import street_evidence
from dqkit.engines.address.keys import KeyCodec
from dqkit.engines.address.layout import country_name, seven_lines, vendor_case
from dqkit.engines.address.picklist import suggestion_text
from dqkit.engines.address.provenance import DEMO_ID, ReferenceInfo, demo_info
from dqkit.engines.address.query import parse_query
from dqkit.engines.address.search import (
    ADDRESS,
    BUILDING,
    NUMBER_EXACT,
    RANGE,
    Found,
    Item,
    Searcher,
    highlight,
    word_score_percent,
)
from dqkit.engines.address.suggestions_format import format_suggestions
from dqkit.engines.address.typed_postcode import typed_postcode
from dqkit.engines.address.validate import Validator
from dqkit.engines.address_index.countries import country, iso2_of, iso3_of, normalize_postcode, required_iso2
from dqkit.engines.address_index.store import DatasetInfo, ReferenceIndex
from dqkit.engines.limits import check_search_text
from dqkit.engines.usaddr.street_forms import AMBIGUOUS, CORRECTED, SAME

FORMAT_PATH: Final = "address/format/v1/"
LOOKUP_DEFAULT: Final = 100
LOOKUP_MAX: Final = 1000
STEP_IN_MAX: Final = 100
_KIND_OF_KEY: Final = {kk.ADDRESS: ADDRESS, kk.BUILDING: BUILDING, kk.RANGE: RANGE}


class AddressEngine:
    """Search, validate, refine, step in, format and look up addresses in one reference index."""

    def __init__(self, index: ReferenceIndex, reference: ReferenceInfo | None = None) -> None:
        self.index = index
        self.reference = reference or ReferenceInfo(f"index-{index.build_id[:12]}", built=_day(index))
        self.keys = KeyCodec(index.build_id)
        self.searcher = Searcher(index)
        self._validator = Validator(index, self.searcher, self.item_key, self._listing)

    # -- constructors ----------------------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path, reference: ReferenceInfo | None = None) -> AddressEngine:
        """Open a built index file (near-instant: it is memory-mapped); `reference` names where it came from."""
        return cls(ReferenceIndex(path), reference)

    @classmethod
    def from_files(cls, files: Sequence[str | Path], *, out: str | Path | None = None,
                   country_iso2: str | None = None, complete: bool = False) -> AddressEngine:
        """Build an index from OpenAddresses CSV files (into `out`, or the user cache keyed by the files'
        paths, sizes and times, reused while they do not change) and open it. The files are taken as part of
        the area they hold (a street they lack is "not checked", never "not found") unless `complete`: the user
        vouches that they hold every street of every ZIP they hold (`--complete`)."""
        from dqkit.engines.address.cache import build_cached

        engine = cls.open(build_cached(files, out=out, country_iso2=country_iso2))
        engine.reference = replace(engine.reference, complete_postcodes=None if complete else frozenset())
        return engine

    def points(self) -> CoveredPoints:
        """This index as the standardizer's and the lead engine's point source, complete where its reference is."""
        return CoveredPoints(self.index, self.reference.covers_completely)

    @classmethod
    def demo(cls) -> AddressEngine:
        """The bundled SYNTHETIC demo reference (real ZIP/city/state triples and street names, invented
        numbers), its index built once into the user cache directory."""
        from dqkit.engines.address.cache import demo_index

        ix = ReferenceIndex(demo_index())
        ix.datasets = [replace(d, id=DEMO_ID) if d.iso2 == "US" else d for d in ix.datasets]  # never "us-address"
        return cls(ix, demo_info(_day(ix)))

    # -- protocol ------------------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return f"local-reference:{self.index.build_id[:12]}"

    def datasets(self, country_iso: str | None = None) -> list[Dataset]:
        iso2 = ""
        if country_iso:
            iso2 = iso2_of(country_iso)
            if not iso2:
                raise BadRequestError(f"unknown country_iso {country_iso!r}")
        return [
            Dataset(id=d.id, name=f"{country(d.iso2).name.title()} addresses" + (" (synthetic demo)"
                                                                              if d.synthetic else ""),
                    country_iso=iso3_of(d.iso2), addresses=d.addresses, synthetic=d.synthetic,
                    country_name=country_name(d.iso2))
            for d in self.index.datasets if not iso2 or d.iso2 == iso2
        ]

    def search(self, request: SearchRequest) -> SearchResponse:
        ds = self._dataset(request.country_iso, request.datasets)
        stype = request.search_type
        k = self._max(request.max_suggestions, MAX_SUGGESTIONS[stype])
        text = check_search_text(request.text)
        location = _location(request.location)
        found = self._run_search(ds, text, k, stype, location)
        qkey = self.keys.encode(kk.QUERY, ds.ordinal, text, str(stype), k)
        out = self._suggestions(ds, found, qkey)
        if out.confidence == Confidence.VERIFIED_MATCH:
            out = self._supported(ds, found, qkey, k, out)
        return SearchResponse(out)

    def _supported(self, ds: DatasetInfo, found: Found, qkey: str, k: int, out: SuggestionList) -> SuggestionList:
        """The one address found stays a Verified match only where the typed text supports it: its house number
        typed and found on the street (not another number of a one-address street), the street itself (see
        `evidence`), and, where a direction was completed, the street-form rule as validate applies it
        (`street_forms`): when another form of the name is a real reading too (SUNSET BLVD typed, 752 on W SUNSET
        BLVD only, SUNSET BLVD in the ZIP as well), Multiple matches listing both, never a switch to one of them."""
        it = found.items[0]
        q = found.query
        out.confidence = Confidence.MULTIPLE_MATCHES  # one suggestion, but the typed words do not prove it
        if not q.number or found.number_missing or it.number_level != NUMBER_EXACT:
            return out
        typed_pc = typed_postcode(ds.iso2, q.raw)
        ev = street_evidence(ds.iso2, self.index.street(it.street), q, typed_pc)
        if not ev.ok:
            return out
        form = self._validator.form_of(ds, it.street, q, typed_pc, self.reference.covers_completely) \
            if ev.direction_completed else None
        if form is None or form.verdict in (SAME, CORRECTED):
            out.confidence = Confidence.VERIFIED_MATCH
            return out
        if form.verdict == AMBIGUOUS:
            others = self._validator.readings(ds, it.street, form, typed_pc, q.number_forms or (q.number,))
            items = [it, *others]
            out = self._suggestions(ds, Found(items[:k], len(items) > k, q, found.match, total=len(items)), qkey)
            out.confidence = Confidence.MULTIPLE_MATCHES
            out.suggestions_prompt = "Two streets fit the typed street: select one"
        return out

    def _run_search(self, ds: DatasetInfo, text: str, k: int, stype: SearchType,
                    location: tuple[float, float] | None) -> Found:
        texts = [text.rstrip() + " ", text] if stype == SearchType.SINGLELINE and text.strip() else [text]
        for t in texts:
            found = self.searcher.search(ds, t, k, location=location, strict=True)
            if found.items:
                return found
            # a word beyond the matcher's typo reach ("2028 Oti Dr"): the lenient reading, keeping only the streets
            # whose name the typed words support (so "zzzz q" still finds nothing)
            loose = self.searcher.search(ds, t, k, location=location)
            keep = [it for it in loose.items if self._name_fits(ds, loose, it)]
            if keep:
                return Found(keep, False, loose.query, loose.match, loose.number_missing, total=len(keep))
        return found

    def _name_fits(self, ds: DatasetInfo, found: Found, it: Item) -> bool:
        ev = street_evidence(ds.iso2, self.index.street(it.street), found.query,
                             typed_postcode(ds.iso2, found.query.raw))
        return ev.ok or ev.near

    def validate(self, request: SearchRequest, add: AddOns = NO_ADD_ONS) -> ValidateResponse:
        check_search_text(request.text)
        ds = self._dataset(request.country_iso, request.datasets)
        result, note = self._validator.validate(ds, request, self.reference.id, self.reference.covers_completely)
        note = "; ".join(n for n in (note, layouts_note(request.layouts)) if n)
        out = ValidateResponse(result)
        if note:
            out.set_note(note)
        if out.result.address is not None:
            vendor_case(ds.iso2, out.result.address)
        org = out.result.components.organization if out.result.components is not None else None
        out.result.components = None  # only the firm lines validate set aside (validate.py), asked for or not
        if add and out.result.global_address_key:
            r = out.result
            # a unit the reference does not list at the point answered (kept as typed): the point's ZIP+4, barcode
            # and address type are not the unit's
            own = r.validation_detail is None or not r.validation_detail.secondary_num_retained
            r.components, out.metadata, out.enrichment = self.add_ons(r.global_address_key, add, own=own)
        if org is not None and add.components:
            out.result.components = out.result.components or AddressComponents()
            out.result.components.organization = org
        return out

    def refine(self, key: str, refinement: str) -> SearchResponse:
        parts = self.keys.decode(key)
        ds = self._ds_of(parts)
        text = check_search_text((refinement or "").strip())
        kind = parts[0]
        if kind == kk.QUERY:
            _, _, qtext, stype, k = parts
            base = check_search_text(f"{qtext.rstrip()} {text}".strip() if text else qtext)
            found = self._run_search(ds, base, int(k), SearchType(stype), None)
            return SearchResponse(self._suggestions(ds, found, self.keys.encode(kk.QUERY, ds.ordinal, base, stype, k)))
        if kind == kk.POSTCODE:
            _, _, postcode, k = parts
            found = self.searcher.search(ds, f"{text} {postcode}" if text else postcode, int(k))
            return SearchResponse(self._suggestions(ds, found, key))
        item = self._item(parts)
        if not text:
            return self.step_in(key)
        return SearchResponse(self._refine_item(ds, item, text, key))

    def step_in(self, key: str) -> SearchResponse:
        parts = self.keys.decode(key)
        ds = self._ds_of(parts)
        if parts[0] == kk.QUERY:
            _, _, qtext, stype, k = parts
            return SearchResponse(self._suggestions(ds, self._run_search(ds, qtext, int(k), SearchType(stype), None),
                                                    key))
        if parts[0] == kk.POSTCODE:
            return self._lookup_postcode(ds, parts[2], int(parts[3]))
        item = self._item(parts)
        members = self.searcher.members(item)
        shown = members[:STEP_IN_MAX]
        found = Found(shown, len(members) > STEP_IN_MAX, parse_query(""), None, total=len(members))
        out = self._suggestions(ds, found, key, listing=True)
        out.suggestions_prompt = _prompt_for(item.kind)
        return SearchResponse(out)

    def format(self, key: str, request: FormatRequest | None = None, add: AddOns = NO_ADD_ONS) -> FormatResponse:
        """The 7-line address of a final key; `add` asks for components, metadata and geocodes. Only the
        default layout exists here: layout names in `request` are accepted and the default is returned."""
        parts = self.keys.decode(key)
        ds = self._ds_of(parts)
        item = self._item(parts)
        if item.kind != ADDRESS:
            raise BadRequestError(
                "this key is a group of addresses (a building or a street range), not one address: refine it "
                "with a house number or unit, or step in, then format the chosen address")
        row = self.index.address(item.lo)
        result = FormatResult(global_address_key=key, confidence=Confidence.VERIFIED_MATCH,
                              address=seven_lines(ds.iso2, row))
        out = FormatResponse(result)
        if add:
            result.components, out.metadata, out.enrichment = add_ons_for(ds.iso2, row, add)
        note = layouts_note(request.layouts if request is not None else None)
        if note:
            out.set_note(note)
        return out

    def add_ons(self, key: str, add: AddOns, *, own: bool = True) -> tuple[Any, Any, Any]:
        """Components, metadata and geocodes of any key (an address, a building or a street), as far as known;
        `own`: the answer is the key's delivery point itself (see `components.address_components`)."""
        parts = self.keys.decode(key)
        ds = self._ds_of(parts)
        item = self._item(parts)
        level = {ADDRESS: ADDRESS_LEVEL, BUILDING: BUILDING_LEVEL}.get(item.kind, STREET_LEVEL)
        return add_ons_for(ds.iso2, self.index.address(item.lo), add, level, own=own)

    def suggestions_format(self, request: SuggestionsFormatRequest,
                           add: AddOns = NO_ADD_ONS) -> SuggestionsFormatResponse:
        """Search and format in one call: every final suggestion comes back as its 7-line address."""
        return format_suggestions(self, request, add)

    def lookup(self, request: LookupRequest) -> LookupResponse:
        """Addresses by postal code or locality, as lookup v2 lists them."""
        ds = self._dataset(request.country_iso, request.datasets)
        return LookupResponse.of(self._lookup(ds, request).result, ds.id)

    def _lookup(self, ds: DatasetInfo, request: LookupRequest) -> SearchResponse:
        wanted = request.max_addresses if request.max_addresses is not None else request.max_suggestions
        k = self._max(wanted, LOOKUP_MAX, default=LOOKUP_DEFAULT)
        ktype = (request.key.type or "postal_code").lower()
        value = (request.key.value or "").strip()
        if not value:
            raise BadRequestError("lookup needs a key value (for example a postal code)")
        if ktype in ("postal_code", "postcode", "zip", "zip_code"):
            return self._lookup_postcode(ds, normalize_postcode(ds.iso2, value) or value.upper(), k)
        if ktype in ("locality", "city"):
            found = self.searcher.search(ds, value.rstrip() + " ", k)
            return SearchResponse(self._suggestions(ds, found, ""))
        raise BadRequestError(f"unknown lookup key type {request.key.type!r}; use postal_code or locality")

    # -- helpers -------------------------------------------------------------------------------------------
    def _lookup_postcode(self, ds: DatasetInfo, postcode: str, k: int) -> SearchResponse:
        ix = self.index
        lo, hi = ix.streets_in_postcode(ds, postcode)
        items: list[Item] = []
        total = 0
        for s in range(lo, hi):
            for a in range(int(ix.s_lo[s]), int(ix.s_hi[s])):
                total += 1
                if len(items) < k:
                    items.append(Item(ADDRESS, s, a, a + 1))
        found = Found(items, total > k, parse_query(postcode), None, total=total)
        out = self._suggestions(ds, found, self.keys.encode(kk.POSTCODE, ds.ordinal, postcode, k), listing=True)
        if not items:
            out.confidence = Confidence.NO_MATCHES
        return SearchResponse(out)

    def _refine_item(self, ds: DatasetInfo, item: Item, text: str, key: str) -> SuggestionList:
        ix = self.index
        q = parse_query(text + " ")
        if item.kind == ADDRESS:
            return self._suggestions(ds, Found([item], False, q, None), key, listing=True)
        if item.kind == BUILDING:
            unit = q.unit or (q.number if q.number else (q.words[0].text if q.words else ""))
            hits = self.searcher._unit_hits(item.lo, item.hi, unit, False) if unit else []
            exact = [a for a, lvl in hits if lvl == 2]
            chosen = exact[:1] if exact else [a for a, _ in hits]
            items = [Item(ADDRESS, item.street, a, a + 1) for a in chosen]
            out = self._suggestions(ds, Found(items[:STEP_IN_MAX], len(items) > STEP_IN_MAX, q, None), key,
                                    listing=True)
            if not items:
                out.suggestions_prompt = f"No unit {unit!r} here; {self.searcher.text(ds, item)}"
            return out
        # a range: the refinement is a house number (and maybe a unit)
        if not q.number:
            out = self._suggestions(ds, Found([], False, q, None), key, listing=True)
            lo_n, hi_n, side = self.searcher.range_bounds(item)
            out.suggestions_prompt = f"Enter a house number from {lo_n} to {hi_n}" + (f" ({side})" if side else "")
            return out
        members = [m for m in self.searcher.members(item)
                   if ix.number_text(m.lo) == q.number.upper()]
        if not members:
            members = [m for m in self.searcher.members(item) if ix.number_text(m.lo).startswith(q.number)]
            if len(members) == 1 and members[0].kind == ADDRESS:
                members = []  # a different number: do not pretend it is the one asked for
        items = []
        for m in members:
            if m.kind == BUILDING and q.unit:
                hits = self.searcher._unit_hits(m.lo, m.hi, q.unit, True)
                items += [Item(ADDRESS, m.street, a, a + 1) for a, _ in hits[:1]] or [m]
            else:
                items.append(m)
        out = self._suggestions(ds, Found(items[:STEP_IN_MAX], len(items) > STEP_IN_MAX, q, None), key,
                                listing=True)
        if not items:
            lo_n, hi_n, side = self.searcher.range_bounds(item)
            out.suggestions_prompt = (f"House number {q.number} is not in this range; enter a number from {lo_n} "
                                      f"to {hi_n}" + (f" ({side})" if side else ""))
        return out

    def _listing(self, ds: DatasetInfo, items: list[Item]) -> list[Suggestion]:
        """The suggestions of a list of items (a building's units, candidate streets), unranked."""
        return self._suggestions(ds, Found(items, False, parse_query(""), None), "", listing=True).suggestions

    def _suggestions(self, ds: DatasetInfo, found: Found, qkey: str, *, listing: bool = False) -> SuggestionList:
        q = found.query
        hits = found.match.hits if found.match else []
        out: list[Suggestion] = []
        for it in found.items:
            street = self.index.street(it.street)
            raw = self.searcher.text(ds, it)
            text, matched = suggestion_text(ds.iso2, raw, street.city, street.region, street.postcode,
                                            [] if listing else highlight(raw, q, hits))
            final = it.kind == ADDRESS
            key = self.item_key(ds, it)
            postcode = street.postcode
            score = 100 if listing else word_score_percent(it, found.match, q)
            attrs = [
                AdditionalAttribute("picklist_display", text),
                AdditionalAttribute("score", str(score)),
                AdditionalAttribute("postcode", postcode),
                AdditionalAttribute("full_address", _b(final)),
                AdditionalAttribute("multiples", _b(it.kind != ADDRESS)),
                AdditionalAttribute("unresolvable_range", _b(it.kind == RANGE)),
            ]
            out.append(Suggestion(
                global_address_key=key, text=text,
                matched=matched,
                format=f"{FORMAT_PATH}{key}" if final else "", dataset=ds.id, additional_attributes=attrs,
            ))
        return SuggestionList(
            more_results_available=found.more,
            confidence=_confidence(found, listing),
            suggestions_key=qkey,
            suggestions_prompt=_list_prompt(found),
            suggestions=out,
        )

    def item_key(self, ds: DatasetInfo, it: Item) -> str:
        if it.kind == ADDRESS:
            return self.keys.encode(kk.ADDRESS, ds.ordinal, it.lo)
        if it.kind == BUILDING:
            return self.keys.encode(kk.BUILDING, ds.ordinal, it.lo)
        return self.keys.encode(kk.RANGE, ds.ordinal, it.street, it.parity)

    def _item(self, parts: list[Any]) -> Item:
        ix = self.index
        kind = parts[0]
        try:
            if kind == kk.ADDRESS:
                a = int(parts[2])
                return Item(ADDRESS, int(ix.a_street[a]), a, a + 1)
            if kind == kk.BUILDING:
                lo, hi = ix.building(int(parts[2]))
                return Item(BUILDING, int(ix.a_street[lo]), lo, hi)
            if kind == kk.RANGE:
                s = int(parts[2])
                return Item(RANGE, s, int(ix.s_lo[s]), int(ix.s_hi[s]), parity=int(parts[3]))
        except (IndexError, ValueError, TypeError):
            pass
        raise NotFoundError("unknown address key: it does not name an address of this index")

    def _ds_of(self, parts: list[Any]) -> DatasetInfo:
        try:
            return self.index.datasets[int(parts[1])]
        except (IndexError, ValueError, TypeError):
            raise NotFoundError("unknown address key: its dataset is not in this index") from None

    def _dataset(self, country_iso: str, datasets: Sequence[str]) -> DatasetInfo:
        iso2 = required_iso2(country_iso)
        held = [d for d in self.index.datasets if d.iso2 == iso2]
        for name in datasets:
            d = self.index.dataset(name)
            if d is None:
                known = ", ".join(x.id for x in self.index.datasets) or "none"
                raise BadRequestError(f"unknown dataset {name!r}; this reference holds: {known}")
            if d.iso2 != iso2:
                raise BadRequestError(f"dataset {name!r} is not a dataset of country {country_iso!r}")
        if not held:
            known = ", ".join(x.id for x in self.index.datasets) or "none"
            raise BadRequestError(f"no reference data for country {country_iso!r}; this reference holds: {known}")
        return held[0]

    @staticmethod
    def _max(value: int | None, limit: int, *, default: int = DEFAULT_MAX_SUGGESTIONS) -> int:
        if value is None:
            return default
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= limit:
            raise BadRequestError(f"max_suggestions must be between 1 and {limit} for this search type "
                                  f"(got {value!r})")
        return value


def _day(index: ReferenceIndex) -> str:
    return str(index.meta.get("built_at", ""))[:10]


def _b(x: bool) -> str:
    return "true" if x else "false"


def _location(text: str | None) -> tuple[float, float] | None:
    if not text:
        return None
    try:
        lat_s, lon_s = text.split(",")
        lat, lon = float(lat_s), float(lon_s)
    except ValueError:
        raise BadRequestError(f"location must be \"latitude,longitude\" (got {text!r})") from None
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        raise BadRequestError(f"location out of range: {text!r}")
    return lat, lon


def _confidence(found: Found, listing: bool) -> str:
    items = found.items
    if not items:
        if not listing and (found.query.empty or found.query.typed_chars < 2):
            return Confidence.INSUFFICIENT_SEARCH_TERMS
        return Confidence.NO_MATCHES
    # The vendor's search documentation lists four search confidences (Verified match, Multiple matches, No
    # matches, Insufficient search terms), and its US example of one building with several units answers Multiple
    # matches: a group (building, street range) is several addresses, however many were found.
    if len(items) == 1 and not found.more and items[0].kind == ADDRESS:
        return Confidence.VERIFIED_MATCH
    return Confidence.MULTIPLE_MATCHES


def _prompt_for(kind: str) -> str:
    if kind == BUILDING:
        return "Select the unit, or refine with the apartment / unit number"
    if kind == RANGE:
        return "Select an address, or refine with the house number"
    return "Select an address"


def _list_prompt(found: Found) -> str:
    if not found.items:
        return ""
    if found.number_missing:
        return f"House number {found.query.number} not found on these streets: select one and enter the number"
    if all(it.kind != ADDRESS for it in found.items):
        kinds = {it.kind for it in found.items}
        return _prompt_for(RANGE if RANGE in kinds else BUILDING)
    return "Select an address, or type more to narrow the list"

