"""Progress bars for batches: `tqdm.auto` (a widget in Jupyter, text in a terminal), or nothing at all."""

from __future__ import annotations

from types import TracebackType
from typing import Any


class Progress:
    """A bar that may be switched off; `update` and `close` cost nothing when it is."""

    def __init__(self, total: int, desc: str, *, enabled: bool, initial: int = 0, unit: str = "request") -> None:
        self._bar: Any = None
        if enabled and total > 0:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, initial=initial, desc=desc, unit=unit, dynamic_ncols=True)

    def update(self, n: int) -> None:
        if self._bar is not None and n:
            self._bar.update(n)

    def set_postfix(self, **values: object) -> None:
        if self._bar is not None:
            self._bar.set_postfix(values, refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
