"""Progress bars for batches: `dqkit._progress.Bar` (a widget in Jupyter that a saved notebook keeps as it ended,
text in a terminal), or nothing at all."""

from __future__ import annotations

from types import TracebackType

from dqkit._progress import Bar


class Progress:
    """A bar that may be switched off; `update` and `close` cost nothing when it is."""

    def __init__(self, total: int, desc: str, *, enabled: bool, initial: int = 0, unit: str = "request") -> None:
        self._bar: Bar | None = None
        if enabled and total > 0:
            self._bar = Bar(total=total, initial=initial, desc=desc, unit=unit, dynamic_ncols=True)

    def update(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def set_postfix(self, **values: object) -> None:
        if self._bar is not None:
            self._bar.set_postfix(**values)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
