"""Delimited text files as analysts have them: any of `,` `;` tab `|`, UTF-8, UTF-16 or a Windows code page.

Excel saves "CSV" with `;` where the decimal comma is the custom, "Unicode Text" as UTF-16 with tabs, and plain
"CSV" in the Windows code page; CRMs export UTF-8 with or without a byte-order mark. `read_rows` reads them all:
the encoding from the byte-order mark, else UTF-8, else Windows-1252 (said in `Decoded.note`); the delimiter
from the first lines (`sniff`: the one that splits most of them, and nine in ten of those it splits at all, into
the same number of cells, two or more). When two
delimiters split them equally well, or none does, it stops with one line saying so rather than guess.
"""

from __future__ import annotations

import codecs
import csv
import io
from collections import Counter
from dataclasses import dataclass
from typing import Final

from dqkit.contract.errors import InputError

DELIMITERS: Final = (",", ";", "\t", "|")
_NAMES: Final = {",": "',' (comma)", ";": "';' (semicolon)", "\t": "tab", "|": "'|' (pipe)"}
_SAMPLE_CHARS: Final = 64 * 1024
_CONSISTENT: Final = 0.9  # of the sampled rows of two or more cells, this share has the usual number ...
_COVERS: Final = 0.5  # ... and it is the number of at least this share of all rows (titles are one cell)


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str
    note: str = ""  # said when the encoding was a guess


def decode(data: bytes, name: str) -> Decoded:
    """The text of a file: by its byte-order mark, else UTF-8, else Windows-1252 (with a note)."""
    if data.startswith(codecs.BOM_UTF8):
        return Decoded(data[3:].decode("utf-8", errors="replace"), "utf-8")
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return Decoded(data.decode("utf-16", errors="replace"), "utf-16")
    try:
        return Decoded(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return Decoded(data.decode("cp1252", errors="replace"), "cp1252",
                       f"{name} is not UTF-8 (line {line}): read as Windows-1252, as Excel on Windows saves CSV")


def sniff(text: str, name: str) -> str:
    """The delimiter of `text` (see the module docstring); InputError when it cannot be told."""
    sample = text[:_SAMPLE_CHARS]
    if len(text) > _SAMPLE_CHARS and "\n" in sample:
        sample = sample[: sample.rindex("\n")]
    found: dict[str, tuple[int, float]] = {}
    for d in DELIMITERS:
        try:
            counts = [len(r) for r in csv.reader(io.StringIO(sample), delimiter=d) if any(c.strip() for c in r)]
        except csv.Error:
            continue
        multi = [c for c in counts if c >= 2]
        if not multi:
            continue
        usual, n = Counter(multi).most_common(1)[0]
        if n >= _COVERS * len(counts):  # most rows split so: not a separator inside a few values
            found[d] = (usual, n / len(multi))
    good = {d: v for d, v in found.items() if v[1] >= _CONSISTENT}
    if len(good) == 1:
        return next(iter(good))
    if not found:
        return ","  # one column: no delimiter in the first lines
    if len(good) > 1:
        listed = " and ".join(f"{_NAMES[d]} ({good[d][0]} columns)" for d in good)
        raise InputError(f"cannot tell how {name} separates its columns: {listed} both split its first lines "
                         "evenly; save it again as CSV (comma-separated) or as .xlsx")
    best = max(found, key=lambda d: found[d][1])
    usual, share = found[best]
    raise InputError(f"cannot tell how {name} separates its columns: split by {_NAMES[best]}, only {share:.0%} of "
                     f"its first lines have the usual {usual} cells (a value with an unquoted separator, or a "
                     "file that is no table?); save it again as CSV or as .xlsx")


def read_rows(data: bytes, name: str) -> tuple[list[list[str]], Decoded, str]:
    """The rows of a delimited text file (cells as text), its decoding and its delimiter."""
    decoded = decode(data, name)
    delimiter = sniff(decoded.text, name)
    try:
        rows = list(csv.reader(io.StringIO(decoded.text, newline=""), delimiter=delimiter))
    except csv.Error as exc:
        raise InputError(f"cannot read {name} as delimited text: {exc}") from None
    return rows, decoded, delimiter


def delimiter_name(d: str) -> str:
    return _NAMES.get(d, repr(d))
