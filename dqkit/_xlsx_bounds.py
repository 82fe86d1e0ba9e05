"""Bounds on an Excel (.xlsx) input before anything parses it, like `dqkit reference add`'s on address files.

Why: an .xlsx is a zip of XML, and pandas/openpyxl parse whatever it holds. A 3 MB workbook holding 892 MB of sheet
XML cost `dqkit verify` 430 s of CPU and 1.4 GB before "no lead columns found" (issue 30). `check_workbook` refuses,
in one line naming the file, before the parse:
- a member that expands more than `MAX_RATIO`-fold once past `RATIO_AFTER_BYTES` (declared sizes: zipfile stops a
  member at its declared size and fails its CRC past it, so what a parser can get is bounded by them), or that is
  over `MAX_MEMBER_BYTES`, or members over `MAX_TOTAL_BYTES` together;
- a first sheet with more than `MAX_CELLS` cells (rows x columns actually written), counted by streaming its XML,
  which also stops after `MAX_SECONDS`.
A file that is not a zip is left to the reader (its own message).
"""

from __future__ import annotations

import re
import time
import zipfile
from pathlib import Path, PurePosixPath
from typing import Final

from dqkit.contract.errors import InputError

MAX_RATIO: Final = 100
RATIO_AFTER_BYTES: Final = 16 << 20
MAX_MEMBER_BYTES: Final = 1 << 30
MAX_TOTAL_BYTES: Final = 2 << 30
MAX_CELLS: Final = 20_000_000
MAX_SECONDS: Final = 60.0
_SMALL_XML: Final = 16 << 20  # workbook.xml and its relations: read whole, so bounded first
_CELL: Final = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?c[\s/>]")


def _first_sheet(zf: zipfile.ZipFile) -> str | None:
    """The zip member of the workbook's first sheet (what `read_excel(sheet_name=0)` reads), or None."""
    names = set(zf.namelist())
    if "xl/workbook.xml" not in names or "xl/_rels/workbook.xml.rels" not in names:
        return None
    workbook = zf.read("xl/workbook.xml")
    rels = zf.read("xl/_rels/workbook.xml.rels")
    first = re.search(rb"<(?:\w+:)?sheet\b[^>]*?\br(?:elationships)?:id=\"([^\"]+)\"", workbook)
    if first is None:
        first = re.search(rb"<(?:\w+:)?sheet\b[^>]*?:id=\"([^\"]+)\"", workbook)
    if first is None:
        return None
    for rel in re.finditer(rb"<(?:\w+:)?Relationship\b[^>]*>", rels):
        tag = rel.group(0)
        rid = re.search(rb'\bId="([^"]+)"', tag)
        target = re.search(rb'\bTarget="([^"]+)"', tag)
        if rid and target and rid.group(1) == first.group(1):
            t = target.group(1).decode("utf-8", "replace")
            path = t.lstrip("/") if t.startswith("/") else str(PurePosixPath("xl") / t)
            return path if path in names else None
    return None


def check_workbook(path: Path) -> None:
    """InputError (one line, naming `path`) when the workbook exceeds a bound of the module docstring."""
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError):
        return  # not a zip: the reader says what it is
    with zf:
        infos = zf.infolist()
        total = 0
        for info in infos:
            size, packed = info.file_size, max(1, info.compress_size)
            total += size
            where = f"{path}!{info.filename}"
            if size > MAX_MEMBER_BYTES:
                raise InputError(f"{where}: {size:,} bytes once decompressed, over the {MAX_MEMBER_BYTES:,} an .xlsx "
                                 "member may hold; refused (is this the right file?)")
            if size > RATIO_AFTER_BYTES and size > MAX_RATIO * packed:
                raise InputError(f"{where}: expands {size // packed:,}-fold ({size:,} bytes from {packed:,}); "
                                 "refused as a compression bomb")
            if info.filename in ("xl/workbook.xml", "xl/_rels/workbook.xml.rels") and size > _SMALL_XML:
                raise InputError(f"{where}: {size:,} bytes, far more than a workbook's index holds; refused")
        if total > MAX_TOTAL_BYTES:
            raise InputError(f"{path}: {total:,} bytes once decompressed, over the {MAX_TOTAL_BYTES:,} an .xlsx "
                             "input may hold; refused (is this the right file?)")
        sheet = _first_sheet(zf)
        if sheet is not None:
            _count_cells(zf, sheet, f"{path}!{sheet}")


def _count_cells(zf: zipfile.ZipFile, member: str, where: str) -> None:
    cells = 0
    tail = b""
    started = time.monotonic()
    with zf.open(member) as f:
        while chunk := f.read(1 << 20):
            data = tail + chunk
            cells += len(_CELL.findall(data[: len(data) - 16])) if len(data) > 16 else 0
            tail = data[-16:] if len(data) > 16 else data
            if cells > MAX_CELLS:
                raise InputError(f"{where}: more than {MAX_CELLS:,} cells (rows x columns); split the file or save "
                                 "the leads as CSV")
            if time.monotonic() - started > MAX_SECONDS:
                raise InputError(f"{where}: still reading the sheet after {MAX_SECONDS:g} s; refused (save the leads "
                                 "as CSV)")
