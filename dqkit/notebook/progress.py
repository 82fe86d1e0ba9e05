"""Progress bars for batches: `tqdm.auto` (a widget in Jupyter, text in a terminal), or nothing at all.

In Jupyter the bar is a widget whose saved form is the text it had when it was first shown ("0%| 0/1855"): a
notebook saved after the run, opened without its kernel (JupyterLab, GitHub, nbviewer), would show the batch as never
started. So when the batch ends, the bar's output is replaced by its final line ("100%| 1855/1855 [00:04<00:00]",
or where it stopped), which is what the notebook keeps.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any


def _bar_class() -> Any:
    """`tqdm.auto`'s bar where a notebook may be (IPython imported), else the text bar it would pick: `tqdm.auto`
    imports asyncio for its async bar (0.1 s of a fresh process's first 10 leads), which a text bar never uses."""
    if "IPython" in sys.modules:
        from tqdm.auto import tqdm

        return tqdm
    from tqdm.std import tqdm as text_bar

    return text_bar


class Progress:
    """A bar that may be switched off; `update` and `close` cost nothing when it is."""

    def __init__(self, total: int, desc: str, *, enabled: bool, initial: int = 0, unit: str = "request") -> None:
        self._bar: Any = None
        self._shown: Any = None  # the notebook output the bar lives in, to be replaced by its last line
        if enabled and total > 0:
            tqdm = _bar_class()
            options: dict[str, Any] = {"total": total, "initial": initial, "desc": desc, "unit": unit,
                                       "dynamic_ncols": True}
            # tqdm.auto imports tqdm.notebook only in a notebook: importing it here would import ipywidgets and
            # IPython (0.1 s) in every terminal and script
            notebook = sys.modules.get("tqdm.notebook")
            if notebook is not None and issubclass(tqdm, notebook.tqdm_notebook):
                import IPython.display

                show: Any = IPython.display.display  # untyped in IPython
                self._bar = tqdm(**options, display=False)
                self._shown = show(self._bar.container, display_id=True)
            else:
                self._bar = tqdm(**options)

    def update(self, n: int) -> None:
        if self._bar is not None and n:
            self._bar.update(n)

    def set_postfix(self, **values: object) -> None:
        if self._bar is not None:
            self._bar.set_postfix(values, refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            bar, shown = self._bar, self._shown
            self._bar = self._shown = None
            bar.close()
            if shown is not None:
                shown.update({"text/plain": str(bar).strip()}, raw=True)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
