"""`df.leads.verify()`: every row a lead, every lead an ELSGenericMessage, flattened beside its row.

Columns are found and results flattened by `dqkit.contract.lead_columns`, the same functions `dqkit verify` uses,
so a column means the same thing in a notebook and on the command line.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import msgspec
import pandas as pd

from dqkit.backends.base import BatchItem, LeadBackend
from dqkit.backends.select import BackendLike, is_remote, lead_backend
from dqkit.contract.codes import RESULT_CODES, Outcome
from dqkit.contract.errors import DqkitError, InputError
from dqkit.contract.lead import ELSGenericMessage
from dqkit.contract.lead_columns import (
    CORE_COLUMNS,
    EXTENSION_COLUMN,
    RESULT_COLUMNS,
    error_row,
    flatten_message,
    lead_from_row,
    phone_extensions,
    resolve_columns,
)
from dqkit.notebook.columns import PYTHON_MAP_HINT, ColumnWarning, missing_lead_columns
from dqkit.notebook.dtypes import LEAD_CATEGORIES, LEAD_NUMBERS, NOT_PROCESSED, typed_columns
from dqkit.notebook.frames import CacheArg, FrameJob, run_frame
from dqkit.notebook.pipeline import Operation, lazy_namespace, with_concurrency, workers_for

PREFIX: Final = "lead_"
COLUMNS_ATTR: Final = "lead_columns"  # result.attrs[COLUMNS_ATTR]: the field -> input column mapping used
# `sent`: what was sent when it differs from what was read (a unit moved to STREET2, a field cut to the seed's
# length, the XML wire for a lead JSON cannot carry); empty when nothing changed (`dqkit.engines.lead.prepare`).
RESULT_NAMES: Final = (*RESULT_COLUMNS, "sent")
# Answers a rerun should ask again for: the service or the account was at fault, not the lead.
_RETRY_OUTCOMES: Final = frozenset({Outcome.SERVICE_FAULT, Outcome.ACCOUNT_CONFIGURATION})


def cacheable(msg: ELSGenericMessage) -> bool:
    rc = RESULT_CODES.get(msg.message.result_code)
    return rc is None or rc.outcome not in _RETRY_OUTCOMES


def lead_identity(backend: LeadBackend) -> str:
    """What names the lead answers of `backend`. For the local backend that is its lead engine alone: the
    backend's own name also names its address engine, and changes once that engine opens."""
    engine = getattr(backend, "lead_engine", None)
    name = getattr(engine, "name", None)
    if not isinstance(name, str):
        return backend.name
    return name if getattr(backend, "prepares", True) else f"{name};as-given"


def without_echo(msg: ELSGenericMessage) -> ELSGenericMessage:
    """The message as stored in the cache: without InputData, the echo of the request that is its key."""
    return msgspec.structs.replace(msg, input_data=None) if msg.input_data is not None else msg


def lead_fields(columns: Iterable[object], mapping: Mapping[str, str] | None, prefix: str, *,
                map_hint: str = PYTHON_MAP_HINT) -> dict[str, str]:
    """Seed field -> input column, never reading a result column of an earlier run. `map_hint` says how to name
    a column in the caller's terms (the Python `mapping=` or the CLI's `--map`)."""
    fields = resolve_columns(input_columns(columns, prefix), mapping)
    if not fields:
        candidates = input_columns(columns, prefix)
        shown = ", ".join(map(repr, candidates[:12])) + (" ..." if len(candidates) > 12 else "")
        raise InputError(f"no lead columns found among {shown or 'no columns'}: name them like first_name, "
                         f"last_name, zip, phone, or name them with {map_hint.format(field='FIRST_NAME')}")
    return fields


def input_columns(columns: Iterable[object], prefix: str) -> list[str]:
    """The columns of the input, without the result columns of an earlier run (and, in a verified frame, the
    reference columns it carries)."""
    names = [str(c) for c in columns]
    results = {f"{prefix}{n}" for n in RESULT_NAMES}
    if f"{prefix}result_code" in names:
        results.update(f"{prefix}{n}" for n in (*REFERENCE_NAMES, SERVICE_NAME))
    return [c for c in names if c not in results]


# Which address reference the lead engine checked streets against, and its date: on every verified row.
REFERENCE_NAMES: Final = ("reference", "reference_date")
# The service that answered (its URL, never a token), on rows a remote backend answered.
SERVICE_NAME: Final = "service"


def header_reference(header: str) -> tuple[str, str] | None:
    """(id, source date or build date) from an X-Dqkit-Reference header ("id; built=...; source-date=...")."""
    parts = [p.strip() for p in header.split(";")]
    if not parts or not parts[0]:
        return None
    facts = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
    date = next((facts[k] for k in ("source-date", "built") if facts.get(k, "unknown") != "unknown"), "")
    return parts[0], date


def lead_reference(backend: LeadBackend) -> tuple[str, str] | None:
    """(id, date) of the address reference behind the lead answers of `backend`: the open-data-only id when the
    lead engine has none (streets not checked); for a remote backend, what its service named in its last answer
    (the X-Dqkit-Reference header; None when it names none, as the vendor does not); None for a point source that
    names no reference."""
    from dqkit.engines.address.provenance import OPEN_ONLY_ID

    header = getattr(backend, "reference_header", None)
    if isinstance(header, str):
        return header_reference(header) if header else None
    engine = getattr(backend, "lead_engine", None)
    profile = getattr(engine, "profile", None)
    if profile is None:
        return None
    points = profile.points
    if points is None:
        return OPEN_ONLY_ID, ""
    own = getattr(backend, "_address_engine", None)
    installed = type(points).__name__ == "InstalledPoints"
    own_index = getattr(own, "index", None)
    if not installed and (own is None or (own_index is not points and getattr(points, "index", None) is not own_index)):
        return None  # points given without their engine (itself, or its index with its coverage): nothing names them
    try:
        info = backend.reference_for("USA")  # type: ignore[attr-defined]
    except Exception:  # a reference that cannot be opened is reported by the lead checks themselves
        return None
    return str(info.id), str(info.source_date or info.built)


def flat_item(item: BatchItem[ELSGenericMessage]) -> dict[str, Any]:
    if item.result is not None:
        return flatten_message(item.result)
    return error_row(item.error or DqkitError("no answer"))


def typed_results(rows: Sequence[Mapping[str, Any]], *, all_columns: bool = False) -> pd.DataFrame:
    """The typed frame of flat rows: the core columns and every column some row holds (all with all_columns)."""
    if all_columns:
        names: Sequence[str] = RESULT_NAMES
    else:
        present = set(CORE_COLUMNS).union(*rows) if rows else set(CORE_COLUMNS)
        names = [n for n in RESULT_NAMES if n in present]
    return typed_columns(rows, names, LEAD_CATEGORIES, LEAD_NUMBERS)


def without_empty_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame without the result columns no row filled (the core columns always stay): a profile answering
    PHONE_STATUS shows no score columns, a local answer no Stage 2 columns."""
    # one frame-wide test, not a Series made per column: ~5 ms less for each chunk of a `dqkit verify --workers`
    filled = {c for c, any_value in zip(frame.columns, frame.notna().any().tolist(), strict=True) if any_value}
    empty = [c for c in frame.columns
             if c not in CORE_COLUMNS and c not in filled and DERIVED_FROM.get(str(c)) not in filled]
    return frame.drop(columns=empty) if empty else frame


# Columns decoded from another: kept whenever their source column is (a meaning may be blank for a new code).
DERIVED_FROM: Final = {
    "score_desc": "score_result", "score_match_level": "score_result", "score_line_class": "score_result",
    "score_validity": "score_result", "phone_desc": "phone_status",
    **{c: c.removesuffix("_meaning") for c in RESULT_COLUMNS if c.endswith("_meaning")},
}


def lead_job(backend: LeadBackend, fields: Mapping[str, str], concurrency: int | None = None,
             all_columns: bool = False, workers: int = 1) -> FrameJob[Any, ELSGenericMessage]:
    identity = {f: f for f in fields}
    op: Operation[Any, ELSGenericMessage] = Operation(
        namespace=lazy_namespace(backend, "lead.verify", lead_identity(backend)),
        result_type=ELSGenericMessage,
        call=with_concurrency(backend.verify_leads, concurrency),
        cacheable=cacheable,
        stored=without_echo,
        remote=is_remote(backend),
        batched=True,
        drain=getattr(backend, "drain", None),
        workers=workers,
    )
    def typed(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
        return typed_results(rows, all_columns=all_columns)

    prepare = getattr(backend, "prepare", None)
    note_of = getattr(backend, "prepare_note", None)  # the note alone, cheaper (LocalBackend)

    def sent(lead: Any) -> dict[str, Any]:
        note = note_of(lead) if note_of is not None else prepare(lead).note if prepare is not None else ""
        return {"sent": note} if note else {}

    return FrameJob(fields=fields, names=RESULT_NAMES, request=lambda row: lead_from_row(row, identity),
                    operation=op, flat=flat_item, typed=typed, desc="verify leads", unit="lead",
                    finish=None if all_columns else without_empty_columns,
                    options_key="all" if all_columns else "present", annotate=sent if callable(prepare) else None)


def verify(
    df: pd.DataFrame,
    *,
    backend: BackendLike = None,
    mapping: Mapping[str, str] | None = None,
    prefix: str = PREFIX,
    cache: CacheArg = None,
    progress: bool | None = None,
    concurrency: int | None = None,
    chunk_size: int | None = None,
    all_columns: bool = False,
    workers: int | None = None,
) -> pd.DataFrame:
    """Verify every row of `df` as a lead; see `LeadsAccessor.verify`. Result columns no row filled are left
    out, unless `all_columns` (Dask partitions, which must all have the same columns)."""
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"expected a pandas DataFrame, got {type(df).__name__}")
    try:
        processes = workers_for(workers)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    be = lead_backend(backend)
    fields = lead_fields(df.columns, mapping, prefix)
    missing = missing_lead_columns(fields, input_columns(df.columns, prefix))
    if missing:
        warnings.warn(missing, ColumnWarning, stacklevel=3)
    verified = f"{prefix}result_code" in df.columns
    stale = [c for c in (f"{prefix}{n}" for n in (*REFERENCE_NAMES, SERVICE_NAME)) if verified and c in df.columns]
    if stale:  # a verified frame verified again: its reference columns are replaced like its results
        df = df.drop(columns=stale)
    out = run_frame(df, lead_job(be, fields, concurrency, all_columns, processes), prefix=prefix, cache=cache,
                    progress=progress, concurrency=concurrency, chunk_size=chunk_size)
    at: dict[object, int] = {}
    for i, label in enumerate(df.columns):
        at.setdefault(label, i)  # the first of columns that share a name, as the leads are read from
    extensions = phone_extensions({c: df.iloc[:, at[c]].tolist() for c in set(fields.values()) if c in at}, fields)
    if extensions is not None and (all_columns or any(extensions)):  # "x12" kept beside the results, as sent
        # (all_columns: every Dask partition holds it, see `has_extension_column`)
        add_extension_column(out, prefix, pd.Series(extensions, index=out.index, dtype="string"))
    named = lead_reference(be)
    if named is not None or all_columns:  # Dask partitions all carry the same columns: unnamed ones are <NA>
        for name, value in zip(REFERENCE_NAMES, named or (None, None), strict=True):
            out[f"{prefix}{name}"] = pd.Series(value, index=out.index, dtype="string")
    if is_remote(be):
        url = getattr(be, "url", None) or be.name
        answered = out[f"{prefix}result_code"].notna()
        out[f"{prefix}{SERVICE_NAME}"] = pd.Series(url, index=out.index, dtype="string").where(answered)
    out.attrs[COLUMNS_ATTR] = dict(fields)
    return out


def has_extension_column(fields: Mapping[str, str]) -> bool:
    """Whether `verify(..., all_columns=True)` adds the PHONE_EXTENSION column: when a phone column is read."""
    return any(f in fields for f in ("PHONE_NUMBER", "PHONE_EXTENSION", "PHONE_OTHER"))


def add_extension_column(frame: pd.DataFrame, prefix: str, values: pd.Series) -> None:
    """The PHONE_EXTENSION column (in place), right after the phone numbers the service answered with."""
    name, after = f"{prefix}{EXTENSION_COLUMN}", f"{prefix}phone_numbers"
    if name in frame.columns:
        frame.drop(columns=[name], inplace=True)
    at = list(frame.columns).index(after) + 1 if after in frame.columns else len(frame.columns)
    frame.insert(at, name, values)


# ---- the analyst's view: where the lead source is, and quality rates per source

TOTAL: Final = "(all)"
_FAULTS: Final = frozenset({Outcome.CALLER_FAULT.value, Outcome.ACCOUNT_CONFIGURATION.value,
                            Outcome.SERVICE_FAULT.value, NOT_PROCESSED})
AUDIT_COLUMNS: Final[dict[str, str]] = {
    "leads": "rows verified",
    "caller_faults": "caller fault (E200, E300, E600-E602): the request was incomplete or malformed",
    "config_faults": "account configuration (E500, E501)",
    "service_faults": "service fault (E400) or no answer at all",
    "assessed": "leads the percentages below are about: all but the three fault columns",
    "success_pct": "% of assessed: S100",
    "spoof_pct": "% of assessed: E100 (lead quality: spoof, vulgar, placeholder)",
    "negative_pct": "% of assessed: S101 or S102 (verified negative)",
    "no_match_pct": "% of assessed: S101 (no match to the reference records)",
    "address_invalid_pct": "% of assessed: S102 (address not valid; with a reference: street or house not found)",
    "address_matched_pct": "% of assessed: GEOMATCH 0 (matched to one point of the installed reference; "
                           "ADDRESS_CODE 1 when the point also has a ZIP+4)",
    "street_unchecked_pct": "% of assessed: street not checked, no reference or records (ELS address code 103)",
    "phone_ok_pct": "% of assessed leads with a PHONE_STATUS: valid area code (E800/E801)",
    "caller_fault_pct": "% of all leads: caller faults (shown apart)",
    "config_fault_pct": "% of all leads: configuration faults (shown apart)",
}


def source_column(df: pd.DataFrame, by: str | None = None, prefix: str = PREFIX) -> str | None:
    """The column of lead sources: `by`, else the input column found as LEAD_SOURCE ("PARTNER_ID", "Lead Source",
    "source", ...; never sent to a service) or, failing that, mapped to PARTNER_ID (None if none).

    Result columns are told apart by their names (prefix + a known result name), not by the prefix alone, so
    the output of `dqkit verify` (prefix "") is read as well as a notebook's frame or raw input."""
    if by is not None:
        if by not in df.columns:
            raise InputError(f"column {by!r} is not in the frame")
        return by
    found = resolve_columns(input_columns(df.columns, prefix))
    return found.get("LEAD_SOURCE") or found.get("PARTNER_ID")


def _text(df: pd.DataFrame, column: str) -> pd.Series:
    if column not in df.columns:
        return pd.Series("", index=df.index, dtype=object)
    s = df[column]
    return s.astype(object).where(s.notna(), "").astype(str)


def audit_table(df: pd.DataFrame, *, by: str | None = None, prefix: str = PREFIX) -> pd.DataFrame:
    """One row per lead source (and `(all)` when there are several): counts, and percentages (0-100, one
    decimal) over the leads the service could judge, with caller, configuration and service faults counted
    apart (see AUDIT_COLUMNS). Address rates are real only with an installed reference (else GEOMATCH is never
    0 and `street_unchecked_pct` says so)."""
    if f"{prefix}result_code" not in df.columns:
        raise InputError(f"column {prefix + 'result_code'!r} is missing: pass the frame returned by "
                         "df.leads.verify() (or the output of dqkit verify), or the prefix it was made with")
    col = source_column(df, by, prefix)
    source = _text(df, col).replace("", "(none)") if col else pd.Series(TOTAL, index=df.index, dtype=object)
    frame = pd.DataFrame({
        "source": source.to_numpy(),
        "outcome": _text(df, f"{prefix}outcome").replace("", NOT_PROCESSED).to_numpy(),
        "code": _text(df, f"{prefix}result_code").to_numpy(),
        "phone": _text(df, f"{prefix}phone_status").to_numpy(),
        "geo": _text(df, f"{prefix}std_geomatch").to_numpy(),
        "els": _text(df, f"{prefix}els_address_verification").to_numpy(),
    })
    rows: list[dict[str, Any]] = []
    groups = [(str(k), g) for k, g in frame.groupby("source", sort=True)]
    for name, g in [*groups, *([(TOTAL, frame)] if len(groups) > 1 else [])]:
        o = g["outcome"]
        n = len(g)
        caller = int((o == Outcome.CALLER_FAULT.value).sum())
        config = int((o == Outcome.ACCOUNT_CONFIGURATION.value).sum())
        service = int(((o == Outcome.SERVICE_FAULT.value) | (o == NOT_PROCESSED)).sum())
        judged = g[~o.isin(_FAULTS)]
        assessed = len(judged)
        with_phone = judged[judged["phone"] != ""]

        def pct(count: int, total: int) -> float:
            return round(100.0 * count / total, 1) if total else float("nan")

        rows.append({
            "source": name, "leads": n, "caller_faults": caller, "config_faults": config,
            "service_faults": service, "assessed": assessed,
            "success_pct": pct(int((judged["code"] == "S100").sum()), assessed),
            "spoof_pct": pct(int((judged["code"] == "E100").sum()), assessed),
            "negative_pct": pct(int(judged["code"].isin(("S101", "S102")).sum()), assessed),
            "no_match_pct": pct(int((judged["code"] == "S101").sum()), assessed),
            "address_invalid_pct": pct(int((judged["code"] == "S102").sum()), assessed),
            "address_matched_pct": pct(int((judged["geo"] == "0").sum()), assessed),
            "street_unchecked_pct": pct(int((judged["els"] == "103").sum()), assessed),
            "phone_ok_pct": pct(int(with_phone["phone"].isin(("E800", "E801")).sum()), len(with_phone)),
            "caller_fault_pct": pct(caller, n),
            "config_fault_pct": pct(config, n),
        })
    return pd.DataFrame(rows, columns=["source", *AUDIT_COLUMNS]).set_index("source")
