"""Fixtures of the notebook-surface tests: a private cache folder per test, and test doubles for fault injection.

The doubles stand in for a backend only where a real one cannot be made to fail on cue (transport errors,
interruptions, missing answers); everything else runs on the real local engine.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from dqkit.backends.base import BatchItem
from dqkit.contract.errors import TransportError
from dqkit.contract.lead import ELSGenericMessage, LeadRequest, Message, NameParser, Stage1Data
from dqkit.notebook.settings import options


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own empty cache folder; the user's real cache is never touched."""
    folder = tmp_path / "dqkit-cache"
    monkeypatch.setattr(options, "cache_dir", folder)
    monkeypatch.setattr(options, "cache", True)
    monkeypatch.setattr(options, "progress", False)
    yield folder
    from dqkit.notebook import cache as cache_module

    with cache_module._OPEN_LOCK:
        opened = [c for p, c in cache_module._OPEN.items() if folder.resolve() in p.parents]
    for c in opened:
        c.close()


class CountingLeadBackend:
    """A lead backend that answers from the request alone and records every lead it is asked about.

    fail_on:       leads whose last name is here raise a TransportError (a lead the network lost)
    interrupt_at:  raise KeyboardInterrupt when this many leads have been answered (a Ctrl-C mid-run)
    answer:        the result code per last name (default S100); E400 answers are service faults
    """

    def __init__(self, *, fail_on: Sequence[str] = (), interrupt_at: int | None = None,
                 answer: dict[str, str] | None = None, remote: bool = False, batch_hook:
                 Callable[[Sequence[LeadRequest]], None] | None = None) -> None:
        self.asked: list[LeadRequest] = []
        self.fail_on = set(fail_on)
        self.interrupt_at = interrupt_at
        self.answer = answer or {}
        self.remote = remote
        self.batch_hook = batch_hook
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "counting-test-backend"

    def verify_lead(self, lead: LeadRequest) -> ELSGenericMessage:
        with self._lock:
            if self.interrupt_at is not None and len(self.asked) >= self.interrupt_at:
                raise KeyboardInterrupt
            self.asked.append(lead)
            tx = f"T{next(self._ids)}"
        if lead.last_name in self.fail_on:
            raise TransportError(f"connection reset while sending {lead.last_name}")
        code = self.answer.get(lead.last_name, "S100")
        return ELSGenericMessage(
            transaction_id=tx,
            message=Message(type="STATUS" if code.startswith("S") else "ERROR", result_code=code, value=code),
            stage1_data=Stage1Data(name_parser=NameParser(first_name=lead.first_name.upper(),
                                                          last_name=lead.last_name.upper())),
        )

    def verify_leads(self, leads: Sequence[LeadRequest]) -> list[BatchItem[ELSGenericMessage]]:
        if self.batch_hook is not None:
            self.batch_hook(leads)
        out: list[BatchItem[ELSGenericMessage]] = []
        for i, lead in enumerate(leads):
            try:
                out.append(BatchItem(i, self.verify_lead(lead)))
            except TransportError as exc:
                out.append(BatchItem(i, error=exc))
        return out


@pytest.fixture
def counting() -> CountingLeadBackend:
    return CountingLeadBackend()
