"""Pre-screen: answer locally what any service must answer the same way, and pay only for the rest.

    local engine on every lead -> settled? keep the local answer : send the lead to the service

A lead is *settled* when its local answer follows from the input alone, so that the vendor, given the same input,
must answer the same: the request is malformed (E300), holds a forbidden character (E200), lacks a required part
(E600, E601, E602), or its phone number cannot exist (PHONE_STATUS E808, invalid format, or E805, an area code
that is not assigned in the numbering plan). `DEFAULT_SETTLED` is that list; a code in it is matched against the
local RESULT_CODE or the local PHONE_STATUS (the two tables share no code). The user may change the list: an
analyst who has compared both answers (`df.leads.compare`) may, for instance, add E100.

Every row says where its answer came from in `answered_by`:

    local (settled E601)     the local answer, kept; no call was made
    service                  the service's answer
    no answer (service)      the lead was sent and the service did not answer (a rerun sends it again)

Nothing is lost when the service fails mid-run: what it answered is in the result cache, and a rerun sends only
the leads without an answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Final

import numpy as np
import pandas as pd

from dqkit.backends.select import BackendLike, lead_backend
from dqkit.contract.codes import PHONE_STATUSES, RESULT_CODES
from dqkit.contract.errors import InputError
from dqkit.notebook.frames import CacheArg

DEFAULT_SETTLED: Final = ("E200", "E300", "E600", "E601", "E602", "E805", "E808")
ANSWERED_BY: Final = "answered_by"
BY_SERVICE: Final = "service"
NO_ANSWER: Final = "no answer (service)"
ATTRS_KEY: Final = "dqkit_prescreen"


def settled_codes(codes: Iterable[str] | str | None) -> tuple[str, ...]:
    """The settled codes as given ("E200,E601" or a list), checked against the seed's tables."""
    if codes is None:
        return DEFAULT_SETTLED
    items = codes.split(",") if isinstance(codes, str) else list(codes)
    out = tuple(dict.fromkeys(str(c).strip().upper() for c in items if str(c).strip()))
    unknown = [c for c in out if c not in RESULT_CODES and c not in PHONE_STATUSES]
    if unknown:
        raise InputError(f"unknown settled code(s) {', '.join(unknown)}: use RESULT_CODE values (E200, E601, ...) "
                         "or PHONE_STATUS values (E805, E808, ...); see `dqkit codes RESULT_CODE`")
    return out


@dataclass(frozen=True)
class PrescreenSummary:
    """What a pre-screened run cost and saved. `price` is per call, in the user's currency (None: not given)."""

    leads: int
    settled: int  # answered locally, never sent
    sent: int  # calls made to the service
    answered: int  # of those, answered by the service
    no_answer: int  # sent but not answered (errors); a rerun sends them again
    settled_codes: tuple[str, ...]
    price: float | None = None

    @property
    def calls_saved(self) -> int:
        return self.settled

    @property
    def money_saved(self) -> float | None:
        return None if self.price is None else round(self.settled * self.price, 2)

    @property
    def money_spent(self) -> float | None:
        return None if self.price is None else round(self.sent * self.price, 2)

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "calls_saved": self.calls_saved, "money_saved": self.money_saved,
                "money_spent": self.money_spent}

    def __str__(self) -> str:
        share = self.settled / self.leads if self.leads else 0.0
        text = (f"pre-screen: {self.leads:,} leads, {self.settled:,} settled locally ({share:.1%}, calls saved), "
                f"{self.sent:,} sent to the service ({self.answered:,} answered, {self.no_answer:,} without an "
                f"answer); settled codes {','.join(self.settled_codes)}")
        if self.price is not None:
            text += f"; at {self.price:g} a call: {self.money_spent:,.2f} spent, {self.money_saved:,.2f} saved"
        return text


def summary_of(results: pd.DataFrame, *, prefix: str = "lead_", price: float | None = None,
               settled: Iterable[str] | None = None) -> PrescreenSummary | None:
    """The pre-screen summary of a result frame (or of a file `dqkit verify --prescreen` wrote); None when the
    frame was not pre-screened."""
    col = f"{prefix}{ANSWERED_BY}"
    if col not in results.columns:
        return None
    by = results[col].astype(object).where(results[col].notna(), "").astype(str)
    local = int(by.str.startswith("local").sum())
    answered = int((by == BY_SERVICE).sum())
    missing = int((by == NO_ANSWER).sum())
    stored = results.attrs.get(ATTRS_KEY, {})
    codes = tuple(settled) if settled is not None else tuple(stored.get("settled_codes", DEFAULT_SETTLED))
    return PrescreenSummary(leads=len(results), settled=local, sent=answered + missing, answered=answered,
                            no_answer=missing, settled_codes=codes,
                            price=price if price is not None else stored.get("price"))


def settled_mask(local: pd.DataFrame, codes: tuple[str, ...], prefix: str) -> tuple[np.ndarray[Any, Any], pd.Series]:
    """Which rows of a locally verified frame are settled, and by which code (RESULT_CODE first)."""
    def text(name: str) -> pd.Series:
        col = f"{prefix}{name}"
        if col not in local.columns:
            return pd.Series("", index=local.index, dtype=object)
        s = local[col].astype(object)
        return s.where(s.notna(), "").astype(str)

    rc, phone = text("result_code"), text("phone_status")
    wanted = set(codes)
    by_rc = rc.isin(wanted)
    # A phone status settles only a lead the engine processed: an E-code answer has no phone status anyway.
    by_phone = ~by_rc & phone.isin(wanted)
    reason = rc.where(by_rc, phone.where(by_phone, ""))
    return (by_rc | by_phone).to_numpy(), reason


def verify_prescreened(
    df: pd.DataFrame,
    *,
    backend: BackendLike,
    local: BackendLike = None,
    settled: Iterable[str] | str | None = None,
    price: float | None = None,
    mapping: Mapping[str, str] | None = None,
    prefix: str = "lead_",
    cache: CacheArg = None,
    progress: bool | None = None,
    concurrency: int | None = None,
    chunk_size: int | None = None,
) -> pd.DataFrame:
    """`df.leads.verify(backend=..., prescreen=True)`: every row, in order, answered locally when settled and by
    `backend` otherwise, with `answered_by` (see the module docstring). The summary is in `.attrs` and from
    `summary_of(frame)`."""
    from dqkit.notebook import leads

    codes = settled_codes(settled)
    service = lead_backend(backend)
    if price is not None and (not np.isfinite(price) or price < 0):
        raise InputError(f"price per call must be a number >= 0, not {price!r}")
    work = df.reset_index(drop=True)
    options = {"mapping": mapping, "prefix": prefix, "cache": cache, "progress": progress,
               "chunk_size": chunk_size, "all_columns": True}
    first = leads.verify(work, backend=local, **options)  # type: ignore[arg-type]
    mask, reason = settled_mask(first, codes, prefix)
    send = np.flatnonzero(~mask)
    results = [f"{prefix}{n}" for n in leads.RESULT_NAMES]
    combined = first[results].copy()
    answered_by = pd.Series(np.where(mask, "local (settled " + reason.to_numpy(dtype=object) + ")", ""),
                            dtype=object)
    if len(send):
        remote = leads.verify(work.iloc[send], backend=service, concurrency=concurrency,
                              **options)  # type: ignore[arg-type]
        remote_part = remote[[c for c in results if c in remote.columns]]
        for col in remote_part.columns:
            values = remote_part[col].to_numpy()
            target = combined[col]
            if isinstance(target.dtype, pd.CategoricalDtype):
                extra = [v for v in pd.unique(remote_part[col].dropna()) if v not in set(target.cat.categories)]
                if extra:
                    combined[col] = target = target.cat.add_categories(extra)
            combined.loc[send, col] = values
        got = remote_part[f"{prefix}result_code"].notna().to_numpy() & (
            remote_part[f"{prefix}result_type"].astype(object).astype(str) != "FAILED").to_numpy()
        answered_by.iloc[send] = np.where(got, BY_SERVICE, NO_ANSWER)
    combined[f"{prefix}{ANSWERED_BY}"] = pd.Categorical(
        answered_by, categories=sorted({*answered_by, BY_SERVICE, NO_ANSWER}))
    combined = _without_empty(combined, prefix)
    out = pd.concat([work[[c for c in work.columns if c not in set(combined.columns)]], combined], axis=1)
    out.index = df.index
    out.attrs = dict(df.attrs)
    summary = summary_of(out, prefix=prefix, price=price, settled=codes)
    if summary is not None:
        out.attrs[ATTRS_KEY] = summary.as_dict()
    return out


def _without_empty(frame: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """`leads.without_empty_columns` for prefixed columns: both parts were asked for every column, so that they
    line up; the columns no row filled go once they are joined."""
    from dqkit.notebook import leads

    bare = frame.rename(columns=lambda c: str(c)[len(prefix):] if str(c).startswith(prefix) else c)
    kept = leads.without_empty_columns(bare)
    return frame[[f"{prefix}{c}" if f"{prefix}{c}" in frame.columns else c for c in kept.columns]]
