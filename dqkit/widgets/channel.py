"""The kernel side of the autocomplete's request/response channel: decode a browser request, ask the backend,
encode the answer. Kept apart from the widget class so it can be tested without a kernel or a browser.

Wire protocol (the same constants are in `widgets/autocomplete.js`):

    browser -> kernel  {"proto", "kind": "request", "id", "op", "params"}   op: search | refine | step_in | format
    kernel -> browser  {"proto", "kind": "response", "id", "ok": true, "result": ...}
                       {"proto", "kind": "response", "id", "ok": false, "error": {"type", "message"}}

Every request that carries an id gets exactly one answer, error or not: the browser waits for it.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import msgspec

from dqkit.backends.base import AddressBackend
from dqkit.contract.address import (
    ISO3_BY_ISO2,
    MAX_SUGGESTIONS,
    FormatResult,
    SearchRequest,
    SearchType,
)
from dqkit.contract.address_components import AddOns
from dqkit.contract.errors import DqkitError, InputError, ServiceError
from dqkit.engines.address.openonly import DATASET_ID as OPEN_DATA_DATASET
from dqkit.engines.address.openonly import mark_told

log = logging.getLogger(__name__)

PROTOCOL: Final = "dqkit.autocomplete.v1"
MAX_TEXT: Final = 300
MAX_KEY: Final = 2000
LIST_OPS: Final = frozenset({"search", "refine", "step_in"})
OPS: Final = LIST_OPS | {"format"}

_ISO3 = re.compile(r"[A-Z]{3}")
# Names for the messages a person reads ("No address reference for Canada ..."); other codes are shown as codes.
COUNTRY_NAMES: Final[dict[str, str]] = {
    "USA": "the United States", "CAN": "Canada", "GBR": "the United Kingdom", "MEX": "Mexico", "AUS": "Australia",
    "NZL": "New Zealand", "IRL": "Ireland", "FRA": "France", "DEU": "Germany", "ESP": "Spain", "ITA": "Italy",
    "NLD": "the Netherlands", "BEL": "Belgium", "CHE": "Switzerland", "AUT": "Austria", "SWE": "Sweden",
    "NOR": "Norway", "DNK": "Denmark", "FIN": "Finland", "POL": "Poland", "PRT": "Portugal", "BRA": "Brazil",
    "IND": "India", "JPN": "Japan", "SGP": "Singapore", "ZAF": "South Africa",
}
ADD_REFERENCE_HINT: Final = "Add one with: dqkit reference add <file>"
_NO_REFERENCE = re.compile(r"no (?:address )?reference(?: data)? for (?:country )?'?([A-Za-z]{2,3})'?", re.I)


def country_name(iso3: str) -> str:
    return COUNTRY_NAMES.get(iso3.upper(), f"country {iso3.upper()}")


def plain_message(exc: DqkitError) -> str:
    """What the widget shows for an error, in words for a person: no HTTP status line for an answer of the
    in-process engine, and for a country without a reference, what to do about it."""
    detail = exc.detail if isinstance(exc, ServiceError) and exc.detail else str(exc)
    m = _NO_REFERENCE.search(detail)
    if m:
        code = m.group(1).upper()
        code = ISO3_BY_ISO2.get(code, code)
        return f"No address reference for {country_name(code)} is installed. {ADD_REFERENCE_HINT}"
    if isinstance(exc, ServiceError) and exc.status in (401, 403):
        return f"The address service did not accept the credentials: {detail}"
    if isinstance(exc, ServiceError) and exc.status == 429:
        return f"The address service asks to slow down (too many requests): {detail}"
    return detail or type(exc).__name__

# The `Add-Components` choice of the widget's format requests.
WITH_COMPONENTS = AddOns(components=True)


def flat_components(components: object, prefix: str = "") -> dict[str, str]:
    """A component breakdown as one level of "name: text" (nested blocks, as the vendor sends them, become
    "street.name"); empty values are left out."""
    out: dict[str, str] = {}
    if isinstance(components, msgspec.Struct):
        components = msgspec.to_builtins(components)
    if isinstance(components, dict):
        for k, v in components.items():
            out.update(flat_components(v, f"{prefix}{k}."))
    elif isinstance(components, list):
        for i, v in enumerate(components, 1):
            out.update(flat_components(v, f"{prefix}{i}."))
    elif components is not None and str(components) != "":
        out[prefix.rstrip(".")] = str(components)
    return out


def is_synthetic(dataset: object) -> bool:
    """Whether a dataset of a backend's datasets answer is synthetic (a flag, or its name or description says
    so, whatever shape the answer has)."""
    d = msgspec.to_builtins(dataset) if isinstance(dataset, msgspec.Struct) else dataset
    if isinstance(d, list):
        return any(is_synthetic(v) for v in d)
    if not isinstance(d, dict):
        return False
    if d.get("synthetic") is True or str(d.get("synthetic", "")).lower() == "true":
        return True
    return any("synthetic" in v.lower() if isinstance(v, str) else is_synthetic(v) for v in d.values())


def _dataset_id(dataset: object) -> str:
    return str(getattr(dataset, "id", "") or (dataset.get("id", "") if isinstance(dataset, dict) else ""))


def reference_notice(backend: AddressBackend, country: str | None = None) -> str:
    """The banner text when the backend answers from a synthetic demo reference, or from no street reference at
    all (the open-data-only engine: an empty list with no word of why would leave a newcomer guessing), else ""
    (also "" when the backend cannot say: the banner is a warning, never a failure)."""
    try:
        datasets = backend.datasets(country)
    except Exception:  # a backend without a datasets answer: nothing to warn about
        return ""
    fake = [d for d in datasets if is_synthetic(d)]
    if not fake:
        if datasets and all(_dataset_id(d) == OPEN_DATA_DATASET for d in datasets):
            mark_told()  # the banner says it: no NoReferenceWarning under it in the notebook
            return ("No street reference is installed: only ZIP, city and state are checked, and streets are "
                    "neither suggested nor checked. " + ADD_REFERENCE_HINT
                    + ', or try the synthetic demo: AddressAutocomplete("demo")')
        return ""
    ids = ", ".join(_dataset_id(d) for d in fake)
    return ("Demo reference: these addresses are synthetic, made up for trying dqkit out"
            + (f" (dataset {ids})" if ids.strip(", ") else "")
            + ". They are not real addresses and verify nothing. " + ADD_REFERENCE_HINT.replace("one", "a real one"))


def normalize_country(country: str) -> str:
    """ISO 3166 alpha-3 in upper case ('usa', 'US' -> 'USA'); InputError for anything else."""
    c = str(country).strip().upper()
    c = ISO3_BY_ISO2.get(c, c)
    if not _ISO3.fullmatch(c):
        raise InputError(f"country must be a three-letter ISO code such as 'USA', not {country!r}")
    return c


class Request(msgspec.Struct, frozen=True):
    """One browser request, as decoded from the comm message."""

    proto: str
    kind: str
    id: int | str  # the browser's ids are "<view>-<n>" strings; any int or str is answered as given
    op: str
    params: dict[str, Any] = {}


@dataclass(frozen=True, slots=True)
class Answer:
    """The message to send back, plus the formatted address when the request chose one (applied on the
    kernel's main thread, where observers of `.value` expect to run)."""

    message: dict[str, Any]
    chosen: FormatResult | None = None


def decode(content: object) -> Request | None:
    """The request in a comm message, or None when the message is not one of ours (other widgets' traffic)."""
    if not isinstance(content, dict) or content.get("proto") != PROTOCOL or content.get("kind") != "request":
        return None
    try:
        return msgspec.convert(content, Request)
    except msgspec.ValidationError:
        # No usable id: nothing to answer to. The browser times the request out and says so.
        log.warning("dqkit autocomplete: malformed request %r", content)
        return None


def ok(request_id: int | str, result: object) -> dict[str, Any]:
    return {"proto": PROTOCOL, "kind": "response", "id": request_id, "ok": True, "result": result}


def error(request_id: int | str, type_: str, message: str) -> dict[str, Any]:
    return {"proto": PROTOCOL, "kind": "response", "id": request_id, "ok": False,
            "error": {"type": type_, "message": message}}


def _text_param(params: dict[str, Any], name: str, limit: int, *, required: bool = True) -> str:
    value = params.get(name, "")
    if not isinstance(value, str):
        raise InputError(f"{name} must be text")
    if required and not value.strip():
        raise InputError(f"{name} is empty")
    if len(value) > limit:
        raise InputError(f"{name} is longer than {limit} characters")
    return value


@dataclass
class RequestHandler:
    """Answers requests against one AddressBackend. `answer` never raises: every failure becomes an error
    answer the widget shows (DqkitError text as is; anything unexpected named by its class, and logged)."""

    backend: Callable[[], AddressBackend]
    max_suggestions: Callable[[], int] = lambda: 7
    components: Callable[[], bool] = lambda: False

    def answer(self, request: Request) -> Answer:
        try:
            return self._answer(request)
        except DqkitError as e:
            return Answer(error(request.id, type(e).__name__, plain_message(e)))
        except Exception as e:
            log.exception("dqkit autocomplete: %s failed", request.op)
            return Answer(error(request.id, "InternalError", f"{type(e).__name__}: {e}"))

    def _answer(self, request: Request) -> Answer:
        p = request.params
        if request.op == "search":
            text = _text_param(p, "text", MAX_TEXT)
            country = normalize_country(p.get("country") or "USA")
            limit = max(1, min(int(self.max_suggestions()), MAX_SUGGESTIONS[SearchType.AUTOCOMPLETE]))
            res = self.backend().search(SearchRequest.of(text.strip(), country, max_suggestions=limit))
            return Answer(ok(request.id, msgspec.to_builtins(res.result)))
        if request.op == "refine":
            key = _text_param(p, "key", MAX_KEY)
            refinement = _text_param(p, "refinement", MAX_TEXT, required=False).strip()
            res = self.backend().refine(key, refinement)
            return Answer(ok(request.id, msgspec.to_builtins(res.result)))
        if request.op == "step_in":
            res = self.backend().step_in(_text_param(p, "key", MAX_KEY))
            return Answer(ok(request.id, msgspec.to_builtins(res.result)))
        if request.op == "format":
            key = _text_param(p, "key", MAX_KEY)
            fmt = (self.backend().format(key, add=WITH_COMPONENTS) if self.components()
                   else self.backend().format(key)).result
            return Answer(ok(request.id, msgspec.to_builtins(fmt)), chosen=fmt)
        raise InputError(f"unknown request {request.op!r}; expected one of {', '.join(sorted(OPS))}")


def superseded(request: Request) -> Answer:
    return Answer(error(request.id, "Superseded", "a newer request replaced this one"))


def _closed(request: Request) -> Answer:
    return Answer(error(request.id, "Closed", "the widget was closed"))


@dataclass
class RequestQueue:
    """Runs requests on one background thread so the kernel's message loop only enqueues (a handler that
    blocks the kernel delays every widget and cell behind it; an HTTP backend can take a while).

    A list request (search, refine, step_in) waiting in the queue is answered `Superseded` as soon as a newer
    list request arrives: only the newest text is worth asking the backend about. Format requests always run.
    `deliver(request, answer)` is called on the worker thread; the widget hops to the kernel's loop from there.
    """

    run: Callable[[Request], Answer]
    deliver: Callable[[Request, Answer], None]
    _queue: deque[Request] = field(default_factory=deque)
    _cv: threading.Condition = field(default_factory=threading.Condition)
    _thread: threading.Thread | None = None
    _closed: bool = False

    def submit(self, request: Request) -> None:
        with self._cv:
            closed = self._closed
            dropped: list[Request] = []
            if not closed:
                if request.op in LIST_OPS:
                    dropped = [r for r in self._queue if r.op in LIST_OPS]
                    if dropped:
                        self._queue = deque(r for r in self._queue if r.op not in LIST_OPS)
                self._queue.append(request)
                if self._thread is None:
                    self._thread = threading.Thread(target=self._loop, name="dqkit-autocomplete", daemon=True)
                    self._thread.start()
                self._cv.notify()
        if closed:
            self.deliver(request, _closed(request))
        for r in dropped:
            self.deliver(r, superseded(r))

    def _loop(self) -> None:
        while True:
            with self._cv:
                while not self._queue and not self._closed:
                    self._cv.wait()
                if self._closed:
                    return
                request = self._queue.popleft()
            try:
                answer = self.run(request)
            except Exception as e:  # run() is RequestHandler.answer, which does not raise; belt and braces
                answer = Answer(error(request.id, "InternalError", f"{type(e).__name__}: {e}"))
            try:
                self.deliver(request, answer)
            except Exception:
                log.exception("dqkit autocomplete: could not deliver the answer to %s", request.op)

    def close(self, timeout: float = 2.0) -> None:
        with self._cv:
            self._closed = True
            pending = list(self._queue)
            self._queue.clear()
            self._cv.notify_all()
            thread = self._thread
        for r in pending:
            self.deliver(r, _closed(r))
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    @property
    def pending(self) -> int:
        with self._cv:
            return len(self._queue)
