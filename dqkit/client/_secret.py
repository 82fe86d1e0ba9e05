"""A token held so that it cannot be printed by accident: repr, str and format all show asterisks."""

from __future__ import annotations

import json
from typing import Final
from urllib.parse import quote
from xml.sax.saxutils import escape

MASK: Final = "********"


class Secret:
    """Wraps a credential. Only `reveal()` gives the text back; the transport calls it to set the header."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def mask(self, text: str) -> str:
        """`text` with the token (as written, JSON-, XML- or URL-escaped) replaced by asterisks."""
        if not self._value:
            return text
        for form in _forms(self._value):
            text = text.replace(form, MASK)
        return text

    def mask_bytes(self, data: bytes) -> bytes:
        """`mask` for a body: a vendor that echoes the token back never gets it written anywhere."""
        if not self._value:
            return data
        for form in _forms(self._value):
            data = data.replace(form.encode("utf-8", "replace"), MASK.encode())
        return data

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


def _forms(value: str) -> list[str]:
    """The ways a token may come back inside an answer: as is, escaped for JSON, XML or a URL."""
    return list(dict.fromkeys(f for f in (value, json.dumps(value)[1:-1], escape(value), quote(value, safe=""))
                              if f))
