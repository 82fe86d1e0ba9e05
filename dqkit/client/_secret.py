"""A token held so that it cannot be printed by accident: repr, str and format all show asterisks."""

from __future__ import annotations

from typing import Final

MASK: Final = "********"


class Secret:
    """Wraps a credential. Only `reveal()` gives the text back; the transport calls it to set the header."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        return f"Secret({MASK!r})"

    def __str__(self) -> str:
        return MASK

    def __format__(self, spec: str) -> str:
        return MASK

    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("a Secret cannot be pickled; pass the token to the process that needs it")
