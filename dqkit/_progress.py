"""Progress bars a saved notebook keeps as they ended: the one helper behind every bar dqkit draws (a batch of leads
or addresses, `reference add`, bulk address batches).

`tqdm.auto` draws a widget in Jupyter and text elsewhere. The widget's saved form is the text it had when it was first
shown ("0%| 0/1855"): a notebook saved after the run, opened without its kernel (JupyterLab, GitHub, nbviewer), would
show the work as never started. In a notebook `Bar` shows the widget through a display handle and, when closed,
replaces it by the bar's last line ("100%| 1855/1855 [00:04<00:00]", or where it stopped), which is what the notebook
keeps. Elsewhere (IPython not imported) it is tqdm's text bar, `tqdm.std`, and neither notebook machinery nor
asyncio (tqdm.auto's async bar) is imported.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any


def _bar_class() -> Any:
    """`tqdm.auto`'s bar where a notebook may be (IPython imported), else the text bar it would pick: `tqdm.auto`
    imports asyncio for its async bar (~25 ms CPU of a fresh process's first 10 leads), never used by a text bar."""
    if "IPython" in sys.modules:
        from tqdm.auto import tqdm

        return tqdm
    from tqdm.std import tqdm as text_bar

    return text_bar


class Bar:
    """A `tqdm.auto` bar (the keyword arguments are tqdm's) whose notebook output ends as its last line."""

    def __init__(self, **options: Any) -> None:
        tqdm = _bar_class()
        self._shown: Any = None  # the notebook output the bar lives in
        # tqdm.auto imports tqdm.notebook only in a notebook: importing it here would import ipywidgets and IPython
        # (0.1 s) in every terminal and script
        notebook = sys.modules.get("tqdm.notebook")
        if notebook is not None and issubclass(tqdm, notebook.tqdm_notebook):
            import IPython.display

            show: Any = IPython.display.display  # untyped in IPython
            self._tqdm: Any = tqdm(**options, display=False)
            self._shown = show(self._tqdm.container, display_id=True)
        else:
            self._tqdm = tqdm(**options)
        self._open = True

    @property
    def n(self) -> int:
        """How far the bar is (items, bytes)."""
        return int(self._tqdm.n)

    def update(self, n: int) -> None:
        if self._open and n:
            self._tqdm.update(n)

    def set_postfix(self, **values: object) -> None:
        if self._open:
            self._tqdm.set_postfix(values, refresh=False)

    def close(self) -> None:
        """End the bar; in a notebook its output becomes its last line (once: closing again does nothing)."""
        if not self._open:
            return
        self._open = False
        self._tqdm.close()
        if self._shown is not None:
            self._shown.update({"text/plain": str(self._tqdm).strip()}, raw=True)

    def __enter__(self) -> Bar:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
