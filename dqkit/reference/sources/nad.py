"""The US DOT National Address Database (NAD), delimited text release: streamed row by row, filtered by state
and county, never loaded whole (the national file is tens of GB).

Columns (NAD schema v2, as in the text release header): AddNum_Pre, Add_Number, AddNum_Suf, AddNo_Full,
St_PreMod, St_PreDir, St_PreTyp, St_PreSep, St_Name, St_PosTyp, St_PosDir, St_PosMod, StNam_Full, Building,
Floor, Unit, Room, Seat, Addtl_Loc, SubAddress, LandmkName, County, Inc_Muni, Post_City, Census_Plc, Uninc_Comm,
Nbrhd_Comm, ..., State, Zip_Code, Plus_4, UUID, AddAuth, AddrRefSys, Longitude, Latitude, NatGrid, ...,
DateUpdate, ... . The input is the `.txt` (comma separated), or the release `.zip` holding it. The source date of
the reference is the newest DateUpdate of the rows kept. Public domain (a work of the US government).
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterator, Sequence
from operator import itemgetter
from pathlib import Path
from typing import Final

from dqkit.contract.errors import InputError
from dqkit.engines.address_index.bounded import check_zip_member
from dqkit.engines.address_index.reader import Record, SourceFile
from dqkit.engines.usaddr.pub28 import STATE_NAMES
from dqkit.reference.progress import CountingReader, Progress
from dqkit.reference.sources.common import Part, csv_lines, normalized, text_lines

KIND: Final = "nad"
LICENCE: Final = "public domain (US Department of Transportation, National Address Database)"
ATTRIBUTION: Final = "National Address Database, US Department of Transportation"
REQUIRED: Final = ("Add_Number", "St_Name", "State", "Zip_Code")
_NULLS: Final = frozenset({"not stated", "null", "<null>", "none"})
_DATE: Final = re.compile(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})")


_US_DATE: Final = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")


def _iso_date(text: str) -> str:
    """DateUpdate as YYYY-MM-DD: releases write "2023/09/15 00:00:00", "2023-09-15" or "9/15/2023 12:00:00 AM"."""
    if m := _DATE.search(text):
        return f"{m.group(1)}-{int(m.group(2)):02d}-{int(m.group(3)):02d}"
    if m := _US_DATE.search(text):
        return f"{m.group(3)}-{int(m.group(1)):02d}-{int(m.group(2)):02d}"
    return ""


def _county_key(text: str) -> str:
    t = re.sub(r"[^a-z ]", "", text.lower()).strip()
    for suffix in (" county", " parish", " borough", " census area", " municipality"):
        t = t.removesuffix(suffix)
    return t.strip()


def parts_of(paths: list[Path], *, state: str | None = None, county: str | None = None) -> list[Part]:
    if county and not state:
        raise InputError("--county needs --state too (county names repeat across states)")
    st = (STATE_NAMES.get(state.strip().upper(), state.strip().upper()) if state else "")
    if st and len(st) != 2:
        raise InputError(f"--state {state!r}: use a two-letter state code such as CA")
    out = []
    for p in paths:
        if not p.is_file():
            raise InputError(f"no such file: {p}")
        stat = p.stat()
        name = str(p)
        if p.suffix.lower() == ".zip":
            member = _zip_member(p)
            name = f"{p}!{member}"
        else:
            member = ""
        box: dict[str, str] = {}

        def records(progress: Progress, p: Path = p, member: str = member, name: str = name,
                    box: dict[str, str] = box) -> Iterator[Record]:
            yield from _records(p, member, name, st, county or "", progress, box)

        part = Part(name, "US", st, stat.st_size, stat.st_mtime, records)
        part.extra = box  # holds the newest DateUpdate once read
        out.append(part)
    return out


def _zip_member(p: Path) -> str:
    try:
        with zipfile.ZipFile(p) as zf:
            names = [i.filename for i in zf.infolist() if i.filename.lower().endswith((".txt", ".csv"))
                     and "schema" not in i.filename.lower() and "readme" not in i.filename.lower()]
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"{p}: not a readable zip file ({exc}); it may be cut short: download it again") from None
    if not names:
        raise InputError(f"{p}: this zip holds no NAD text file (.txt)")
    return max(names, key=len)


def _records(p: Path, member: str, name: str, state: str, county: str, progress: Progress,
             box: dict[str, str]) -> Iterator[Record]:
    if member:
        with zipfile.ZipFile(p) as zf:
            check_zip_member(zf.getinfo(member), name)
    with (zipfile.ZipFile(p).open(member) if member else open(p, "rb")) as raw:
        counting = CountingReader(raw)
        text = text_lines(io.BufferedReader(counting), name)
        read = [0]
        rows = _rows(text, name, state, _county_key(county), read, box)
        src = SourceFile(Path(name), "US", state)
        yield from normalized(csv_lines(rows), src, name, progress, lambda: counting.count, rows_read=lambda: read[0])


def _col(col: dict[str, int], *names: str) -> int:
    for n in names:
        i = col.get(n.lower())
        if i is not None:
            return i
    return -1


def _rows(text: Iterator[str], name: str, state: str, county: str, read: list[int],
          box: dict[str, str]) -> Iterator[list[str]]:
    reader = csv.reader(text)
    line = 1
    try:
        header = next(reader)
    except StopIteration:
        return
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}, line 1: not UTF-8 text ({exc.reason})") from None
    col = {h.strip().lower(): i for i, h in enumerate(header)}
    missing = [c for c in REQUIRED if c.lower() not in col]
    if missing:
        raise InputError(f"{name}, line 1: not a NAD text file (no column {', '.join(missing)}; it has "
                         f"{', '.join(header[:12])}{' ...' if len(header) > 12 else ''})")
    i_state, i_county = _col(col, "State"), _col(col, "County")
    num_full, num_parts = _col(col, "AddNo_Full"), [_col(col, n) for n in ("AddNum_Pre", "Add_Number", "AddNum_Suf")]
    st_full = _col(col, "StNam_Full")
    st_parts = [_col(col, n) for n in ("St_PreMod", "St_PreDir", "St_PreTyp", "St_PreSep", "St_Name", "St_PosTyp",
                                       "St_PosDir", "St_PosMod")]
    i_unit, i_sub = _col(col, "Unit"), _col(col, "SubAddress")
    cities = [_col(col, n) for n in ("Post_City", "Inc_Muni", "Uninc_Comm", "Census_Plc")]
    i_zip, i_plus4 = _col(col, "Zip_Code"), _col(col, "Plus_4")
    i_lon, i_lat, i_id, i_date = _col(col, "Longitude"), _col(col, "Latitude"), _col(col, "UUID"), \
        _col(col, "DateUpdate")
    newest = last_date = ""
    n = len(header)
    cols = [i_state, i_county, num_full, *num_parts, st_full, *st_parts, i_unit, i_sub, *cities, i_zip, i_plus4,
            i_lon, i_lat, i_id, i_date]
    pick = itemgetter(*[c if c >= 0 else n for c in cols])  # a missing column reads the "" put after each row
    pad = [""] * (n + 1)

    def city_of(values: Sequence[str]) -> str:
        for c in values:
            c = c.strip()
            if c and c.lower() not in _NULLS:
                return c
        return ""

    try:
        for row in reader:
            line += 1
            read[0] += 1
            if len(row) != n:
                if len(row) <= max(i_state, i_zip):
                    raise InputError(f"{name}, line {line}: {len(row)} fields where the header has {n}; the file "
                                     "is cut short or not comma separated")
                row = (row + pad)[:n]
            row.append("")
            v = pick(row)
            if state and v[0].strip().upper() != state:
                continue
            if county and _county_key(v[1]) != county:
                continue
            number = v[2].strip() or " ".join(x for x in (v[3].strip(), v[4].strip(), v[5].strip()) if x)
            street = v[6].strip() or " ".join(x for x in (p.strip() for p in v[7:15]) if x)
            unit = v[15].strip() or v[16].strip()
            city = city_of(v[17:21])
            zip5, plus4 = v[21].strip(), v[22].strip()
            d = v[26]
            if d and d != last_date:
                last_date = d
                iso = _iso_date(d)
                if iso > newest:
                    newest = box["source_date"] = iso
            yield [v[23].strip(), v[24].strip(), number, street, unit, city, "", v[0].strip(),
                   f"{zip5}-{plus4}" if zip5 and plus4 else zip5, v[25].strip()]
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}, line {line + 1}: not UTF-8 text ({exc.reason}); re-save the file as UTF-8") \
            from None
    except csv.Error as exc:
        raise InputError(f"{name}, line {line}: not a readable CSV row ({exc})") from None
