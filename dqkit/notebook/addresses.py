"""`df.addr.validate()` and `df.addr.search()`: every row an address, answered by an AddressBackend (seed 001).

validate: one row of result columns per address: the confidence (with its meaning), match type and confidence,
          the 7-line address found, its key, and what had to be corrected (one boolean column per
          validation_detail flag, and their names together in `corrections`).
search:   the top suggestions of each row, side by side: `suggestion_1`, `key_1`, `final_1`, ... (a final
          suggestion is a complete address; the others are groups to refine).
Both name the reference data of every row: `reference` (its id), `reference_date` (its source date, else its
build date) and `note` (what to know before trusting it: synthetic demo data, street not checked, ...). A validate
row's note also says what its answer did not check or had to change, read from the answer itself
(`ValidateResponse.note`: "typed ZIP 99999 corrected to 95124 by reference ...", "unit APT 5 not checked ...").
A validation_detail flag column is True where the answer sets the flag and empty (<NA>) where it does not: the
published answer names only what was corrected, so an absent flag is not a checked False.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import pandas as pd

from dqkit.backends.base import AddressBackend, BatchItem
from dqkit.backends.select import BackendLike, address_backend, is_remote
from dqkit.contract.address import (
    CONFIDENCE_MEANINGS,
    VALIDATION_DETAIL_FLAGS,
    Components,
    Option,
    SearchRequest,
    SearchResponse,
    SearchType,
    ValidateResponse,
)
from dqkit.contract.address_components import AddOns, AddressComponents
from dqkit.contract.errors import InputError
from dqkit.notebook.columns import address_parts, country_iso3, resolve_address_columns
from dqkit.notebook.dtypes import ADDRESS_CATEGORIES, typed_columns
from dqkit.notebook.frames import CacheArg, FrameJob, attach, result_columns
from dqkit.notebook.pipeline import Operation, namespace, one_by_one, with_concurrency

PREFIX: Final = "addr_"
ADDRESS_LINES: Final = ("address_line_1", "address_line_2", "address_line_3", "locality", "region", "postal_code",
                        "country")
VALIDATE_NAMES: Final = ("confidence", "confidence_meaning", "verified", "match_type", "match_confidence",
                         "corrections", *ADDRESS_LINES, "global_address_key", "suggestions", *VALIDATION_DETAIL_FLAGS,
                         "error", "note")
# `validate(components=True)`: the component breakdown of the address found (Add-Components), one column each.
COMPONENT_NAMES: Final = ("building_number", "sub_building_type", "sub_building_value", "street_prefix",
                          "street_name", "street_type", "street_suffix", "town", "region_code", "region_name",
                          "postal_code_primary", "postal_code_secondary", "country_iso_3")
PROVENANCE_NAMES: Final = ("reference", "reference_date", "note")
_VALIDATE_FLAGS: Final = frozenset({"verified", *VALIDATION_DETAIL_FLAGS})
_VALIDATE_NUMBERS: Final = frozenset({"suggestions"})


def search_names(top: int) -> tuple[str, ...]:
    per = [name for k in range(1, top + 1) for name in (f"suggestion_{k}", f"key_{k}", f"final_{k}")]
    return ("confidence", "confidence_meaning", "more_results", "suggestions", *per, "error")


def _opened(backend: AddressBackend) -> AddressBackend:
    # The local backend opens its address engine lazily and names it only then: open it first so that the
    # name (part of every cache key) is the same on the first run and on the next ones.
    getattr(backend, "address_engine", None)
    return backend


def _backend(backend: BackendLike, reference: str | None) -> AddressBackend:
    """The backend of a call: `reference` (else the session default `options.reference`) picks the local data."""
    if reference is None and backend in (None, "local"):
        from dqkit.notebook.settings import options

        reference = options.reference
    return _opened(address_backend(backend, reference=reference))


def _request_builder(country: str, search_type: SearchType | None, max_suggestions: int | None,
                     datasets: Sequence[str]) -> Any:
    options = [Option("search_type", search_type.value)] if search_type is not None else []

    def build(row: dict[str, Any]) -> SearchRequest:
        country_iso = country_iso3(str(row.get("COUNTRY") or ""), country)
        return SearchRequest(country_iso=country_iso, components=Components(address_parts(row)),
                             datasets=list(datasets), options=list(options), max_suggestions=max_suggestions)

    return build


def _error_text(item: BatchItem[Any]) -> str:
    return str(item.error) if item.error is not None else "no answer"


class _NotedAnswer(ValidateResponse, omit_defaults=True):
    """A validate answer as the result cache stores it: with its note, which is not a member of the answer."""

    dqkit_note: str = ""

    def __post_init__(self) -> None:
        if self.dqkit_note:
            self.set_note(self.dqkit_note)


def _stored(answer: ValidateResponse) -> ValidateResponse:
    return _NotedAnswer(result=answer.result, metadata=answer.metadata, enrichment=answer.enrichment,
                        dqkit_note=answer.note)


def flat_validation(item: BatchItem[ValidateResponse]) -> dict[str, Any]:
    if item.result is None:
        return {"error": _error_text(item), "verified": None,
                **dict.fromkeys(VALIDATION_DETAIL_FLAGS, None)}
    r = item.result.result
    detail = r.validation_detail
    # set flags are True; the others absent (<NA>), never a False the answer did not say
    flags = {f: True if detail is not None and getattr(detail, f) else None for f in VALIDATION_DETAIL_FLAGS}
    address = r.address
    lines = {n: getattr(address, n) if address is not None else "" for n in ADDRESS_LINES}
    return {
        "confidence": r.confidence,
        "confidence_meaning": CONFIDENCE_MEANINGS.get(r.confidence, ""),
        "verified": r.confidence == "Verified match",
        "match_type": r.match_type,
        "match_confidence": r.match_confidence,
        "corrections": ", ".join(f for f, on in flags.items() if on),
        **lines,
        "global_address_key": r.global_address_key,
        "suggestions": len(r.suggestions),
        **flags,
        "error": "",
        "note": item.result.note,
    }


def typed_validation(rows: Sequence[Mapping[str, Any]], names: Sequence[str] = VALIDATE_NAMES) -> pd.DataFrame:
    return _with_provenance(typed_columns(rows, names, ADDRESS_CATEGORIES, integers=_VALIDATE_NUMBERS,
                                          flags=_VALIDATE_FLAGS))


def _with_provenance(frame: pd.DataFrame) -> pd.DataFrame:
    """The provenance columns, empty until `_run` fills them (so a Dask meta frame has them too); an answer's own
    note (validate) is kept for `_run` to join with the reference's."""
    for name in PROVENANCE_NAMES:
        kept = frame.pop(name) if name in frame.columns else None
        frame[name] = kept if kept is not None else pd.Series([""] * len(frame), index=frame.index, dtype="string")
    return frame


def component_columns(c: AddressComponents | None) -> dict[str, str]:
    """The nested components as flat columns ("" where the answer has none)."""
    if c is None:
        return dict.fromkeys(COMPONENT_NAMES, "")
    sub = c.sub_building
    unit = (sub.door or sub.floor or sub.entrance) if sub is not None else None
    street, loc, pc = c.street, c.locality, c.postal_code
    region = loc.region if loc is not None else None
    values = {
        "building_number": c.building.building_number if c.building is not None else None,
        "sub_building_type": unit.type if unit is not None else None,
        "sub_building_value": unit.value if unit is not None else None,
        "street_prefix": street.prefix if street is not None else None,
        "street_name": street.name if street is not None else None,
        "street_type": street.type if street is not None else None,
        "street_suffix": street.suffix if street is not None else None,
        "town": loc.town.name if loc is not None and loc.town is not None else None,
        "region_code": region.code if region is not None else None,
        "region_name": region.name if region is not None else None,
        "postal_code_primary": pc.primary if pc is not None else None,
        "postal_code_secondary": pc.secondary if pc is not None else None,
        "country_iso_3": c.country_iso_3,
    }
    return {k: v or "" for k, v in values.items()}


def flat_validation_with_components(item: BatchItem[ValidateResponse]) -> dict[str, Any]:
    row = flat_validation(item)
    row.update(component_columns(item.result.result.components if item.result is not None else None))
    return row


def _flat_search(top: int) -> Any:
    def flat(item: BatchItem[SearchResponse]) -> dict[str, Any]:
        if item.result is None:
            return {"error": _error_text(item), "more_results": None,
                    **{f"final_{k}": None for k in range(1, top + 1)}}
        r = item.result.result
        out: dict[str, Any] = {
            "confidence": r.confidence,
            "confidence_meaning": CONFIDENCE_MEANINGS.get(r.confidence, ""),
            "more_results": r.more_results_available or len(r.suggestions) > top,
            "suggestions": min(len(r.suggestions), top),
            "error": "",
        }
        for k in range(1, top + 1):
            s = r.suggestions[k - 1] if k <= len(r.suggestions) else None
            out[f"suggestion_{k}"] = s.text if s is not None else ""
            out[f"key_{k}"] = s.global_address_key if s is not None else ""
            out[f"final_{k}"] = s.is_final if s is not None else None
        return out

    return flat


def _search_flags(top: int) -> frozenset[str]:
    return frozenset({"more_results", *(f"final_{k}" for k in range(1, top + 1))})


def typed_search(rows: Sequence[Mapping[str, Any]], top: int) -> pd.DataFrame:
    return _with_provenance(typed_columns(rows, search_names(top), ADDRESS_CATEGORIES,
                                          integers=frozenset({"suggestions"}), flags=_search_flags(top)))


def provenance(df: pd.DataFrame, fields: Mapping[str, str], country: str, backend: AddressBackend) -> pd.DataFrame:
    """`reference`, `reference_date`, `note` of every row: the reference that answers the row's country."""
    pick = getattr(backend, "reference_for", None)
    col = fields.get("COUNTRY")
    values = df[col].astype("string").fillna("") if col is not None else pd.Series([""] * len(df), dtype="string")
    per: dict[str, tuple[str, str, str]] = {}
    rows = []
    for v in values.tolist():
        iso3 = country_iso3(str(v), country)
        got = per.get(iso3)
        if got is None:
            if callable(pick):
                try:
                    info = pick(iso3)
                    got = (info.id, info.source_date or info.built, info.note)
                except Exception as exc:  # a country the backend cannot name: say so rather than fail the frame
                    got = ("", "", f"reference unknown: {exc}")
            else:
                got = ("", "", "answered by a remote service: see its X-Dqkit-Reference header or datasets")
            per[iso3] = got
        rows.append(got)
    return pd.DataFrame(rows, columns=list(PROVENANCE_NAMES), dtype="string")


def _run(df: pd.DataFrame, job: Any, be: AddressBackend, country: str, prefix: str, cache: CacheArg,
         progress: bool | None, concurrency: int | None) -> pd.DataFrame:
    result = result_columns(df, job, cache=cache, progress=progress, concurrency=concurrency)
    prov = provenance(df, job.fields, country, be)
    answer_notes = result["note"].fillna("").tolist() if "note" in result.columns else [""] * len(result)
    for name in PROVENANCE_NAMES:
        result[name] = pd.array(prov[name].to_numpy(), dtype="string")
    result["note"] = pd.array([_joined(ref, own) for ref, own in zip(prov["note"].tolist(), answer_notes,
                                                                       strict=True)], dtype="string")
    return attach(df, result, prefix)


def _joined(reference_note: object, answer_note: object) -> str:
    """The reference's note (synthetic data, no reference) and the answer's own, each said once."""
    parts = [str(p) for p in (reference_note, answer_note) if isinstance(p, str) and p]
    return "; ".join(dict.fromkeys(parts))


def address_fields(columns: Iterable[object], mapping: Mapping[str, str] | None, prefix: str,
                   names: Sequence[str]) -> dict[str, str]:
    """Address field -> input column, never reading a result column of an earlier run."""
    results = {f"{prefix}{n}" for n in (*names, *PROVENANCE_NAMES)}
    return resolve_address_columns([c for c in columns if str(c) not in results], mapping)


def validate_fields(columns: Iterable[object], mapping: Mapping[str, str] | None, prefix: str = PREFIX,
                    components: bool = False) -> dict[str, str]:
    """Address field -> input column as `validate` reads them (`dqkit validate` prints it before running)."""
    return address_fields(columns, mapping, prefix, _validate_names(components))


def _validate_names(components: bool) -> tuple[str, ...]:
    return (*VALIDATE_NAMES, *COMPONENT_NAMES) if components else VALIDATE_NAMES


def check_top(top: object) -> int:
    if not isinstance(top, int) or isinstance(top, bool) or not 1 <= top <= 25:
        raise InputError(f"top must be a whole number from 1 to 25, not {top!r}")
    return top


def _check_country(country: str) -> str:
    c = country_iso3(country, "")
    if len(c) != 3 or not c.isalpha():
        raise InputError(f"country {country!r} is not a country code; use a three-letter code such as 'USA'")
    return c


def validate(
    df: pd.DataFrame,
    *,
    backend: BackendLike = None,
    mapping: Mapping[str, str] | None = None,
    country: str = "USA",
    datasets: Sequence[str] = (),
    prefix: str = PREFIX,
    cache: CacheArg = None,
    progress: bool | None = None,
    concurrency: int | None = None,
    components: bool = False,
    reference: str | None = None,
    bulk: bool = False,
) -> pd.DataFrame:
    """Validate every row of `df` as an address; see `AddressAccessor.validate`. `components=True` also adds
    the component breakdown of the address found (`COMPONENT_NAMES`), asked for with Add-Components. `bulk=True`
    sends the rows to a service's bulk batches (`AddressClient.validate_bulk`) instead of one call per row."""
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"expected a pandas DataFrame, got {type(df).__name__}")
    be = _backend(backend, reference)
    names = _validate_names(components)
    fields = validate_fields(df.columns, mapping, prefix, components)
    country = _check_country(country)
    native = getattr(be, "validate_many", None)
    if bulk:
        native = getattr(be, "validate_bulk", None)
        if not callable(native):
            raise InputError("bulk=True needs a service's address client (backend=URL or an AddressClient): "
                             f"{getattr(be, 'name', type(be).__name__)} has no bulk batches")
    single: Any = be.validate
    if components:
        add = AddOns(components=True)
        native = functools.partial(native, add=add) if callable(native) else None
        single = functools.partial(be.validate, add=add)
    op: Operation[SearchRequest, ValidateResponse] = Operation(
        namespace=namespace(be, "address.validate.bulk" if bulk else "address.validate"), result_type=_NotedAnswer,
        stored=_stored,
        call=with_concurrency(native, concurrency) if callable(native) else one_by_one(single),
        remote=is_remote(be), batched=callable(native))
    job = FrameJob(fields=fields, names=names, request=_request_builder(country, None, None, datasets),
                   operation=op, flat=flat_validation_with_components if components else flat_validation,
                   typed=lambda rows: typed_validation(rows, names), desc="validate addresses",
                   unit="address", options_key=f"{country}|{','.join(datasets)}" + ("|components" if components
                                                                                      else ""))
    return _run(df, job, be, country, prefix, cache, progress, concurrency)


def search(
    df: pd.DataFrame,
    *,
    top: int = 3,
    backend: BackendLike = None,
    mapping: Mapping[str, str] | None = None,
    country: str = "USA",
    search_type: str = "singleline",
    datasets: Sequence[str] = (),
    prefix: str = PREFIX,
    cache: CacheArg = None,
    progress: bool | None = None,
    concurrency: int | None = None,
    reference: str | None = None,
) -> pd.DataFrame:
    """The top suggestions of every row of `df`; see `AddressAccessor.search`."""
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"expected a pandas DataFrame, got {type(df).__name__}")
    check_top(top)
    try:
        stype = SearchType(str(search_type).lower())
    except ValueError:
        raise InputError(f"search_type must be one of {', '.join(t.value for t in SearchType)}, "
                         f"not {search_type!r}") from None
    be = _backend(backend, reference)
    names = search_names(top)
    fields = address_fields(df.columns, mapping, prefix, names)
    country = _check_country(country)
    # Ask for one more than shown, so that `more_results` is true when there are more than `top`.
    max_suggestions = top + 1
    native = getattr(be, "search_many", None)
    op: Operation[SearchRequest, SearchResponse] = Operation(
        namespace=namespace(be, "address.search"), result_type=SearchResponse,
        call=with_concurrency(native, concurrency) if callable(native) else one_by_one(be.search),
        remote=is_remote(be), batched=callable(native))
    job = FrameJob(
        fields=fields, names=names, request=_request_builder(country, stype, max_suggestions, datasets),
        operation=op, flat=_flat_search(top),
        typed=lambda rows: typed_search(rows, top),
        desc="search addresses", unit="address", options_key=f"{country}|{','.join(datasets)}|{stype.value}|{top}")
    return _run(df, job, be, country, prefix, cache, progress, concurrency)
