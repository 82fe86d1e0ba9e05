"""Cooperative cancellation: a request's deadline, carried in a context variable and checked in engine loops.

The server sets a `Deadline` for each request (`deadline_scope`) and cancels it when the request times out or its
client goes away; the engines call `check()` in their loops, which raises `DeadlineExceeded` once the deadline has
passed or was cancelled, so abandoned work stops within one loop iteration instead of running to the end.
Outside a server nothing is set and `check()` is one context-variable read.

Engines never import the server: this module is plain Python and the error is the contract's 408.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator
from typing import Final

from dqkit.contract.errors import RequestTimeoutError


class DeadlineExceeded(RequestTimeoutError):
    """The request's deadline passed (or it was cancelled) while the engine was still working."""


class Deadline:
    """An absolute monotonic deadline that can also be cancelled early (client gone, answer already sent)."""

    __slots__ = ("cancelled", "expires")

    def __init__(self, seconds: float) -> None:
        self.expires = time.monotonic() + seconds
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True

    def expired(self) -> bool:
        return self.cancelled or time.monotonic() >= self.expires


_current: Final[contextvars.ContextVar[Deadline | None]] = contextvars.ContextVar("dqkit_deadline", default=None)


def current() -> Deadline | None:
    return _current.get()


def check() -> None:
    """Raise DeadlineExceeded when the current request's deadline has passed or was cancelled; else nothing."""
    d = _current.get()
    if d is not None and (d.cancelled or time.monotonic() >= d.expires):
        raise DeadlineExceeded("the request's deadline passed; its work was stopped")


def set_current(d: Deadline | None) -> contextvars.Token[Deadline | None]:
    """Make `d` the current deadline (the server's hot path; `deadline_scope` is the convenient form)."""
    return _current.set(d)


def reset_current(token: contextvars.Token[Deadline | None]) -> None:
    _current.reset(token)


@contextlib.contextmanager
def deadline_scope(seconds: float) -> Iterator[Deadline]:
    """Run the block (and what it starts in copied contexts) under a deadline of `seconds`; cancelled on exit."""
    d = Deadline(seconds)
    token = _current.set(d)
    try:
        yield d
    finally:
        d.cancel()
        _current.reset(token)
