"""A small in-memory AddressBackend for widget tests: three streets, a building with units, a house-number range.

It answers like the service (suggestion lists with matched ranges, groups without `format`, refine and format by
key), records the calls it gets, and can be told to be slow or to fail, so the widget's channel can be tested
without the real engine.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from dqkit.contract.address import (
    AdditionalAttribute,
    Address,
    Confidence,
    Dataset,
    FormatRequest,
    FormatResponse,
    FormatResult,
    LookupRequest,
    SearchRequest,
    SearchResponse,
    Suggestion,
    SuggestionList,
    ValidateResponse,
    ValidationResult,
)
from dqkit.contract.address_components import NO_ADD_ONS, AddOns
from dqkit.contract.errors import NotFoundError

FINALS: dict[str, Address] = {
    "F-10-OAK": Address(address_line_1="10 Oak St", locality="Springfield", region="IL", postal_code="62701",
                        country="UNITED STATES OF AMERICA"),
    "F-12-OAK": Address(address_line_1="12 Oak St", locality="Springfield", region="IL", postal_code="62701",
                        country="UNITED STATES OF AMERICA"),
    "F-7-ELM": Address(address_line_1="7 Elm Ave", locality="Dover", region="DE", postal_code="19901",
                       country="UNITED STATES OF AMERICA"),
}
UNITS: dict[str, Address] = {
    f"F-5-MAIN-{u}": Address(address_line_1="5 Main St", address_line_2=f"Apt {u}", locality="Salem",
                             region="OR", postal_code="97301", country="UNITED STATES OF AMERICA")
    for u in ("1", "2", "3")
}
RANGE: dict[str, Address] = {
    f"F-{n}-ARCH": Address(address_line_1=f"{n} Arch St", locality="Media", region="PA", postal_code="19063",
                           country="UNITED STATES OF AMERICA")
    for n in range(2, 80, 2)
}
ALL: dict[str, Address] = {**FINALS, **UNITS, **RANGE}


def _text(a: Address) -> str:
    return ", ".join(p for p in (a.address_line_1, a.address_line_2, f"{a.locality} {a.region} {a.postal_code}") if p)


def _final(key: str, query: str = "") -> Suggestion:
    text = _text(ALL[key])
    matched: list[tuple[int, int]] = []
    q = query.strip().lower()
    if q and text.lower().startswith(q):
        matched = [(0, len(q))]
    return Suggestion(global_address_key=key, text=text, matched=matched, format=f"https://fake.invalid/{key}",
                      additional_attributes=[AdditionalAttribute("full_address", "true")])


BUILDING = Suggestion(global_address_key="G-5-MAIN", text="5 Main St, Salem OR 97301 (3 addresses)",
                      additional_attributes=[AdditionalAttribute("multiples", "true")])
ARCH = Suggestion(global_address_key="G-ARCH", text="2…78 Arch St [even], Media PA 19063",
                  additional_attributes=[AdditionalAttribute("unresolvable_range", "true")])


@dataclass
class FakeBackend:
    delay: float = 0.0
    fail_with: Exception | None = None
    gate: threading.Event | None = None  # when set, every call waits for the event first
    calls: list[tuple[str, str]] = field(default_factory=list)
    threads: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def name(self) -> str:
        return "fake"

    def _enter(self, op: str, arg: str) -> None:
        with self._lock:
            self.calls.append((op, arg))
            self.threads.add(threading.current_thread().name)
        if self.gate is not None and not self.gate.wait(10):
            raise TimeoutError("the test never opened the gate")
        if self.delay:
            time.sleep(self.delay)
        if self.fail_with is not None:
            raise self.fail_with

    def search(self, request: SearchRequest) -> SearchResponse:
        self._enter("search", request.text)
        q = request.text.lower()
        hits = [_final(k, request.text) for k in FINALS if _text(FINALS[k]).lower().startswith(q)]
        groups = [g for g in (BUILDING, ARCH) if g.text.lower().startswith(q) or q in g.text.lower()]
        suggestions = (hits + groups)[: request.max_suggestions or 7]
        conf = Confidence.MULTIPLE_MATCHES if suggestions else Confidence.NO_MATCHES
        return SearchResponse(SuggestionList(more_results_available=False, confidence=conf, suggestions=suggestions))

    def validate(self, request: SearchRequest) -> ValidateResponse:
        self._enter("validate", request.text)
        return ValidateResponse(ValidationResult(confidence=Confidence.NO_MATCHES))

    def refine(self, key: str, refinement: str) -> SearchResponse:
        self._enter("refine", f"{key}|{refinement}")
        if key == "G-5-MAIN":
            keys = [k for k in UNITS if k.endswith(f"-{refinement}") or not refinement]
        elif key == "G-ARCH":
            keys = [f"F-{refinement}-ARCH"] if f"F-{refinement}-ARCH" in RANGE else []
        else:
            raise NotFoundError(f"unknown address key {key!r}")
        conf = Confidence.VERIFIED_MATCH if len(keys) == 1 else (
            Confidence.MULTIPLE_MATCHES if keys else Confidence.NO_MATCHES)
        return SearchResponse(SuggestionList(more_results_available=False, confidence=conf,
                                             suggestions=[_final(k) for k in keys]))

    def step_in(self, key: str) -> SearchResponse:
        self._enter("step_in", key)
        if key != "G-5-MAIN":
            raise NotFoundError(f"unknown address key {key!r}")
        return SearchResponse(SuggestionList(more_results_available=False, confidence=Confidence.MULTIPLE_MATCHES,
                                             suggestions_prompt="Enter the apartment",
                                             suggestions=[_final(k) for k in UNITS]))

    def format(self, key: str, request: FormatRequest | None = None, add: AddOns = NO_ADD_ONS) -> FormatResponse:
        self._enter("format", key)
        if key not in ALL:
            raise NotFoundError(f"unknown address key {key!r}")
        return FormatResponse(FormatResult(global_address_key=key, confidence=Confidence.VERIFIED_MATCH,
                                           address=ALL[key]))

    def lookup(self, request: LookupRequest) -> SearchResponse:
        self._enter("lookup", request.key.value)
        return SearchResponse(SuggestionList(more_results_available=False, confidence=Confidence.NO_MATCHES,
                                             suggestions=[]))

    def datasets(self, country_iso: str | None = None) -> list[Dataset]:
        return [Dataset(id="us-address", country_iso="USA", synthetic=True)]
