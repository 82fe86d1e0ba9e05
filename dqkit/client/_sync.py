"""What the two sync clients share: an async client made and used on dqkit's background loop, closed once."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Coroutine
from typing import Any, Generic, Protocol, Self, TypeVar

from dqkit.client._loop import BACKGROUND


class _Closable(Protocol):
    def aclose(self) -> Coroutine[Any, Any, None]: ...


A = TypeVar("A", bound=_Closable)


def _close(client: _Closable) -> None:
    BACKGROUND.close_quietly(client.aclose())


class SyncClient(Generic[A]):
    """Holds the async client `make()` builds on the background loop (so every limiter lives there too).

    It is closed by close(), by the with-block, or when garbage-collected (at the latest at exit).
    """

    def __init__(self, make: Callable[[], Coroutine[Any, Any, A]]) -> None:
        self._async: A = BACKGROUND.run(make())
        self._finalizer = weakref.finalize(self, _close, self._async)

    def __repr__(self) -> str:
        return repr(self._async).replace(type(self._async).__name__, type(self).__name__, 1)

    def close(self) -> None:
        self._finalizer()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
