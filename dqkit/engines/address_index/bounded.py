"""Bounds on what a hostile address file may cost while it is read, so it is refused early, naming the file.

An address file has short lines and compresses perhaps tenfold. A 2 MB download that expands to one 2 GiB line,
to 2 GiB of newlines or of empty rows would otherwise exhaust memory or run for minutes: every reader of address
files (`reference add`'s sources, `build_index`) reads its lines through `bounded_lines`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO, Any, Final

from dqkit.contract.errors import InputError

MAX_LINE: Final = 1 << 20  # characters in one line
MAX_EMPTY_RUN: Final = 100_000  # empty lines in a row
MAX_RATIO: Final = 100  # decompressed bytes per compressed byte ...
MIN_RATIO_CHECK: Final = 16 << 20  # ... asked once this much text was read


def bounded_lines(text: IO[str], name: str, compressed: Callable[[], int] | None = None, *,
                  utf8: bool = False) -> Iterator[str]:
    """The lines of `text`; an InputError naming `name` for a line longer than MAX_LINE (never read whole),
    MAX_EMPTY_RUN empty lines in a row, and, when `compressed` gives the compressed bytes read so far, text that
    expands more than MAX_RATIO-fold. `utf8`: `text` was decoded with surrogateescape, and a line that is not
    UTF-8 is an InputError naming it (only non-ASCII lines are checked: the error names the exact line, where a
    strict decoder fails on a whole buffer, thousands of lines ahead of the reader)."""
    readline = text.readline
    n = total = empty = 0
    while True:
        line = readline(MAX_LINE)
        if not line:
            return
        n += 1
        size = len(line)
        if size >= MAX_LINE and line[-1] not in "\r\n":
            raise InputError(f"{name}, line {n}: longer than {MAX_LINE:,} characters; address files have short "
                             "lines (is this the right file?)")
        total += size
        if compressed is not None and total > MIN_RATIO_CHECK and total > MAX_RATIO * max(compressed(), 1):
            raise InputError(f"{name}: expands more than {MAX_RATIO}-fold when decompressed ({total:,} characters "
                             f"from {compressed():,} bytes by line {n:,}); refused as a compression bomb")
        if line[0] in " \t\r\n" and line.isspace():
            empty += 1
            if empty >= MAX_EMPTY_RUN:
                raise InputError(f"{name}, line {n:,}: {MAX_EMPTY_RUN:,} empty lines in a row; not an address "
                                 "file (is this the right file?)")
        else:
            empty = 0
        if utf8 and not line.isascii():
            try:
                line.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise InputError(f"{name}, line {n}: not UTF-8 text (byte {exc.start + 1} of the line); re-save "
                                 "the file as UTF-8") from None
        yield line


def check_zip_member(info: Any, name: str) -> None:
    """Refuse a zip member that says it expands more than MAX_RATIO-fold (a zip bomb), before reading it."""
    if info.file_size > MIN_RATIO_CHECK and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise InputError(f"{name}: expands {info.file_size / max(info.compress_size, 1):,.0f}-fold "
                         f"({info.file_size:,} bytes from {info.compress_size:,}); refused as a compression bomb")
