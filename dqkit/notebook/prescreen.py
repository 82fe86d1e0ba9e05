"""Pre-screen: answer at home only what the vendor's own rules answer from the input alone, and pay for the rest.

    the lead, prepared and on the wire the client would send it (dqkit.engines.lead.prepare)
        -> the vendor's input rules alone (no reference, records, spoof list or required phone of yours)
        -> settled (RESULT_CODE in the settled list)? that answer, never sent
        -> skipped by your policy (--skip-codes, on your local engine's answer)? no answer, never sent
        -> else sent to the service

*Settled* means the vendor's whole answer follows from the input: a request its wire cannot carry or its schema
refuses (E300), a forbidden character (E200), no name (E600), no ZIP (E601). Those answers are only a Message
(no address, no Stage 1), computed here for the prepared lead on the very wire the client sends it on (a lead a
pinned JSON wire cannot carry is E300, as the vendor would answer it). `DEFAULT_SETTLED` is that list; E100 and
E602 may be added by an analyst whose shadow run showed the vendor agrees (`dqkit compare --settled-codes-out`).
Options that change only the local answer (a required phone, your records, your spoof list, a local reference)
never settle a lead: the settling engine does not have them.

*Skipped by policy* is the analyst's choice not to pay for some leads (a phone that cannot exist: PHONE_STATUS
E808 or E805; a lead of your own spoof list: E100 with --spoof-list). Their rows keep no answer: nothing of them
is shown as the vendor's, and `answered_by` says why.

Every row says where its answer came from in `answered_by`:

    local (settled E601)          the vendor's answer, known from the input; no call was made
    skipped by policy (E808)      not sent by your choice; no answer
    service                       the service's answer
    no answer (service)           sent, and the service did not answer (nothing billed; a rerun sends it again)

The books count distinct requests (identical rows are one call), exactly as the service sees them: `calls` are
the requests the service answered in this run, `cached` the answers reused from earlier runs (not paid again),
`failed` the requests sent without an answer. Money is `price` times `calls`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

import numpy as np
import pandas as pd

from dqkit.backends.base import BatchItem, LeadBackend
from dqkit.backends.select import BackendLike, lead_backend
from dqkit.contract.codes import PHONE_STATUSES, RESULT_CODES
from dqkit.contract.errors import InputError
from dqkit.contract.lead import ELSGenericMessage, LeadRequest
from dqkit.engines.lead.prepare import PreparedLead, answer_as_sent, prepare_lead
from dqkit.notebook.frames import BATCH_ATTR, CacheArg

DEFAULT_SETTLED: Final = ("E200", "E300", "E600", "E601")
# RESULT_CODEs whose whole answer is a Message (no address, no Stage 1): the only ones a lead can be settled by.
SETTLEABLE: Final = ("E100", "E200", "E300", "E600", "E601", "E602")
ANSWERED_BY: Final = "answered_by"
BY_SERVICE: Final = "service"
NO_ANSWER: Final = "no answer (service)"
NOT_SENT: Final = "not sent (run stopped)"
SETTLED_PREFIX: Final = "local (settled "
SKIPPED_PREFIX: Final = "skipped by policy ("
ATTRS_KEY: Final = "dqkit_prescreen"


def settled_codes(codes: Iterable[str] | str | None) -> tuple[str, ...]:
    """The settled codes as given ("E200,E601" or a list), checked: RESULT_CODEs whose answer is a Message."""
    if codes is None:
        return DEFAULT_SETTLED
    out = _codes(codes)
    phone = [c for c in out if c in PHONE_STATUSES]
    if phone:
        raise InputError(f"{', '.join(phone)}: a PHONE_STATUS cannot settle a lead (the vendor's answer to it holds "
                         "an address and Stage 1 data no local rule knows); to not pay for such leads, skip them "
                         "by policy: --skip-codes / skip_codes=")
    unknown = [c for c in out if c not in RESULT_CODES]
    if unknown:
        raise InputError(f"unknown settled code(s) {', '.join(unknown)}: use RESULT_CODE values (E200, E601, ...); "
                         "see `dqkit codes RESULT_CODE`")
    never = [c for c in out if c not in SETTLEABLE]
    if never:
        raise InputError(f"{', '.join(never)} cannot settle a lead: only codes whose whole answer follows from the "
                         f"input can ({', '.join(SETTLEABLE)})")
    return out


def skip_codes(codes: Iterable[str] | str | None) -> tuple[str, ...]:
    """The codes a lead is skipped by (RESULT_CODE or PHONE_STATUS values of your local engine's answer)."""
    if codes is None:
        return ()
    out = _codes(codes)
    unknown = [c for c in out if c not in RESULT_CODES and c not in PHONE_STATUSES]
    if unknown:
        raise InputError(f"unknown skip code(s) {', '.join(unknown)}: use RESULT_CODE (E100, E602, ...) or "
                         "PHONE_STATUS values (E805, E808, ...); see `dqkit codes PHONE_STATUS`")
    return out


def _codes(codes: Iterable[str] | str) -> tuple[str, ...]:
    """Codes from "E200,E601", a list, or "@FILE" (a file holding such a list, as `dqkit compare
    --settled-codes-out` writes it)."""
    if isinstance(codes, str) and codes.strip().startswith("@"):
        from pathlib import Path

        path = Path(codes.strip()[1:])
        try:
            codes = path.read_text(encoding="utf-8").replace("\n", ",")
        except OSError as exc:
            raise InputError(f"cannot read the codes file {path}: {exc.strerror or exc}") from None
    items = codes.split(",") if isinstance(codes, str) else list(codes)
    return tuple(dict.fromkeys(str(c).strip().upper() for c in items if str(c).strip()))


@dataclass(frozen=True)
class PrescreenSummary:
    """What a pre-screened run cost and saved. Rows, and distinct requests (identical rows are one call).

    leads / settled / skipped / answered / no_answer: rows. calls: requests the service answered in this run (what
    it bills); cached: answers of earlier runs reused (not paid again); failed: requests sent in this run without an
    answer (not billed; a rerun sends them); saved: distinct requests settled or skipped (calls not made). `calls`,
    `cached`, `failed` and `saved` are None when the frame does not carry its run's books (a file read back).
    """

    leads: int
    settled: int
    skipped: int
    answered: int
    no_answer: int
    settled_codes: tuple[str, ...]
    skip_codes: tuple[str, ...] = ()
    calls: int | None = None
    cached: int | None = None
    failed: int | None = None
    saved: int | None = None
    price: float | None = None
    service: str = ""

    @property
    def sent(self) -> int | None:
        """Requests sent in this run: answered or not."""
        return None if self.calls is None or self.failed is None else self.calls + self.failed

    @property
    def calls_saved(self) -> int | None:
        return self.saved

    @property
    def money_saved(self) -> float | None:
        return None if self.price is None or self.saved is None else round(self.saved * self.price, 2)

    @property
    def money_spent(self) -> float | None:
        return None if self.price is None or self.calls is None else round(self.calls * self.price, 2)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "sent": self.sent, "calls_saved": self.calls_saved, "money_saved": self.money_saved,
                "money_spent": self.money_spent}

    def __str__(self) -> str:
        share = self.settled / self.leads if self.leads else 0.0
        text = (f"pre-screen: {self.leads:,} leads: {self.settled:,} settled locally ({share:.1%}; codes "
                f"{','.join(self.settled_codes)})")
        if self.skip_codes or self.skipped:
            text += f", {self.skipped:,} skipped by policy ({','.join(self.skip_codes)}; no answer)"
        text += f", {self.answered:,} answered by the service"
        if self.no_answer:
            text += f", {self.no_answer:,} without an answer (not billed; a rerun sends them)"
        if self.calls is not None:
            text += (f"\ncalls to the service in this run: {self.calls:,} answered"
                     f"{f', {self.failed:,} without an answer' if self.failed else ''}"
                     f"{f'; {self.cached:,} answers reused from earlier runs (not paid again)' if self.cached else ''}"
                     f"; {self.saved:,} calls saved")
            if self.price is not None:
                text += f"; at {self.price:g} a call: {self.money_spent:,.2f} spent, {self.money_saved:,.2f} saved"
        return text


def _text(frame: pd.DataFrame, col: str) -> pd.Series:
    if col not in frame.columns:
        return pd.Series("", index=frame.index, dtype=object)
    s = frame[col].astype(object)
    return s.where(s.notna(), "").astype(str)


def summary_of(results: pd.DataFrame, *, prefix: str = "lead_", price: float | None = None,
               settled: Iterable[str] | None = None) -> PrescreenSummary | None:
    """The pre-screen summary of a result frame (or of a file `dqkit verify --prescreen` wrote); None when the
    frame was not pre-screened. The books (calls, cached, failed, saved) come with the frame that ran; a file read
    back has its rows only."""
    col = f"{prefix}{ANSWERED_BY}"
    if col not in results.columns:
        return None
    by = _text(results, col)
    stored = results.attrs.get(ATTRS_KEY, {})
    codes = tuple(settled) if settled is not None else tuple(stored.get("settled_codes", DEFAULT_SETTLED))
    return PrescreenSummary(
        leads=len(results), settled=int(by.str.startswith(SETTLED_PREFIX).sum()),
        skipped=int(by.str.startswith(SKIPPED_PREFIX).sum()), answered=int((by == BY_SERVICE).sum()),
        no_answer=int(by.isin((NO_ANSWER, NOT_SENT)).sum()), settled_codes=codes,
        skip_codes=tuple(stored.get("skip_codes", ())), calls=stored.get("calls"), cached=stored.get("cached"),
        failed=stored.get("failed"), saved=stored.get("saved"),
        price=price if price is not None else stored.get("price"), service=str(stored.get("service", "")))


class ScreenBackend:
    """The vendor's input rules alone, on each lead as `service` sends it (its preparation, its wire, its account
    ids): the engine that settles. It has no reference, records, spoof list or required phone of the user's."""

    remote = False

    def __init__(self, service: LeadBackend) -> None:
        from dqkit.engines.lead.engine import LeadEngine, LeadProfile

        self.service = service
        self._engine = LeadEngine(LeadProfile(standardize_address=False, echo_input=False))

    @property
    def name(self) -> str:
        return f"screen[{self._engine.name}|as sent to {self.service.name}]"

    def prepare(self, lead: LeadRequest) -> PreparedLead:
        own = getattr(self.service, "prepare", None)
        prepared = own(lead) if callable(own) else None
        return prepared if isinstance(prepared, PreparedLead) else prepare_lead(lead, "auto")

    def verify_lead(self, lead: LeadRequest) -> ELSGenericMessage:
        return answer_as_sent(self._engine, self.prepare(lead))

    def verify_leads(self, leads: Sequence[LeadRequest]) -> list[BatchItem[ELSGenericMessage]]:
        return [BatchItem(i, self.verify_lead(lead)) for i, lead in enumerate(leads)]


def verify_prescreened(
    df: pd.DataFrame,
    *,
    backend: BackendLike,
    local: BackendLike = None,
    settled: Iterable[str] | str | None = None,
    skip: Iterable[str] | str | None = None,
    price: float | None = None,
    mapping: Mapping[str, str] | None = None,
    prefix: str = "lead_",
    cache: CacheArg = None,
    progress: bool | None = None,
    concurrency: int | None = None,
    chunk_size: int | None = None,
) -> pd.DataFrame:
    """`df.leads.verify(backend=..., prescreen=True)`: every row, in order, settled locally, skipped by policy, or
    answered by `backend`, with `answered_by` (see the module docstring). `local` is the engine `skip` codes are
    read from (your options: records, spoof list, required phone); it never settles a lead. The summary is in
    `.attrs` and from `summary_of(frame)`."""
    from dqkit.notebook import leads

    codes = settled_codes(settled)
    skips = skip_codes(skip)
    service = lead_backend(backend)
    if price is not None and (not np.isfinite(price) or price < 0):
        raise InputError(f"price per call must be a number >= 0, not {price!r}")
    work = df.reset_index(drop=True)
    options = {"mapping": mapping, "prefix": prefix, "cache": cache, "progress": progress,
               "chunk_size": chunk_size, "all_columns": True}
    first = leads.verify(work, backend=ScreenBackend(service), **options)  # type: ignore[arg-type]
    fields = first.attrs.get(leads.COLUMNS_ATTR, {})
    rc = _text(first, f"{prefix}result_code")
    settled_rows = rc.isin(codes).to_numpy()
    skipped_rows = np.zeros(len(work), dtype=bool)
    skip_reason = np.full(len(work), "", dtype=object)
    if skips and (~settled_rows).any():
        rest = np.flatnonzero(~settled_rows)
        policy = leads.verify(work.iloc[rest], backend=local, **options)  # type: ignore[arg-type]
        prc, pps = _text(policy, f"{prefix}result_code"), _text(policy, f"{prefix}phone_status")
        why = prc.where(prc.isin(skips), pps.where(pps.isin(skips), "")).to_numpy()
        skipped_rows[rest] = why != ""
        skip_reason[rest] = why
    send = np.flatnonzero(~settled_rows & ~skipped_rows)
    names = [f"{prefix}{n}" for n in (*leads.RESULT_NAMES, *leads.REFERENCE_NAMES, leads.SERVICE_NAME)]
    combined = first[[c for c in names if c in first.columns]].copy()
    answered_by = pd.Series(np.where(settled_rows, SETTLED_PREFIX + rc.to_numpy(dtype=object) + ")", ""),
                            dtype=object)
    answered_by[skipped_rows] = [f"{SKIPPED_PREFIX}{why})" for why in skip_reason[skipped_rows]]
    combined.loc[skipped_rows, :] = None  # no answer is shown for a lead that was not sent
    batch: dict[str, int] = {}
    if len(send):
        remote = leads.verify(work.iloc[send], backend=service, concurrency=concurrency,
                              **options)  # type: ignore[arg-type]
        batch = remote.attrs.get(BATCH_ATTR, {})
        remote_part = remote[[c for c in names if c in remote.columns]]
        for col in remote_part.columns:
            if col not in combined.columns:
                combined[col] = pd.Series(pd.NA, index=combined.index, dtype=remote_part[col].dtype)
            values = remote_part[col].to_numpy()
            target = combined[col]
            if isinstance(target.dtype, pd.CategoricalDtype):
                extra = [v for v in pd.unique(remote_part[col].dropna()) if v not in set(target.cat.categories)]
                if extra:
                    combined[col] = target = target.cat.add_categories(extra)
            combined.loc[send, col] = values
        got = remote_part[f"{prefix}result_code"].notna().to_numpy() & (
            remote_part[f"{prefix}result_type"].astype(object).astype(str) != "FAILED").to_numpy()
        not_sent = _text(remote_part, f"{prefix}result_value").str.startswith("NotSentError:").to_numpy()
        answered_by.iloc[send] = np.where(got, BY_SERVICE, np.where(not_sent, NOT_SENT, NO_ANSWER))
    combined[f"{prefix}{ANSWERED_BY}"] = pd.Categorical(
        answered_by, categories=sorted({*answered_by, BY_SERVICE, NO_ANSWER}))
    combined = _without_empty(combined, prefix)
    out = pd.concat([work[[c for c in work.columns if c not in set(combined.columns)]], combined], axis=1)
    out.index = df.index
    out.attrs = dict(df.attrs)
    out.attrs[leads.COLUMNS_ATTR] = dict(fields)
    saved = _distinct(work, fields, settled_rows | skipped_rows)
    summary = summary_of(out, prefix=prefix, price=price, settled=codes)
    if summary is not None:
        from dataclasses import replace

        calls = int(batch.get("answered", 0))
        summary = replace(summary, skip_codes=skips, calls=calls, cached=int(batch.get("cached", 0)),
                          failed=int(batch.get("sent", 0)) - calls, saved=saved,
                          service=str(getattr(service, "url", "") or service.name))
        out.attrs[ATTRS_KEY] = summary.as_dict()
        out.attrs[BATCH_ATTR] = batch
    return out


def _distinct(work: pd.DataFrame, fields: Mapping[str, str], rows: np.ndarray[Any, Any]) -> int:
    """How many distinct leads the chosen rows hold (identical rows are one request, so one call)."""
    if not rows.any() or not fields:
        return int(rows.sum())
    from dqkit.notebook.frames import input_columns

    sub = input_columns(work.iloc[np.flatnonzero(rows)], fields).astype(object).fillna("").astype(str)
    return len(sub.drop_duplicates())


def _without_empty(frame: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """`leads.without_empty_columns` for prefixed columns: both parts were asked for every column, so that they
    line up; the columns no row filled go once they are joined."""
    from dqkit.notebook import leads

    bare = frame.rename(columns=lambda c: str(c)[len(prefix):] if str(c).startswith(prefix) else c)
    kept = leads.without_empty_columns(bare)
    return frame[[f"{prefix}{c}" if f"{prefix}{c}" in frame.columns else c for c in kept.columns]]
