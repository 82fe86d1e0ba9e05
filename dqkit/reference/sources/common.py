"""What every source module produces: `Part`s (one input each) whose rows become OpenAddresses rows.

All sources meet in one normalizer: each converts its rows to the OpenAddresses columns and hands them, as CSV
lines, to `dqkit.engines.address_index.reader.read_stream`, so that every reference is parsed to Publication 28 by
the same code as the index the engines were tested on. A part knows its country, region and a fingerprint (size
and modification time, or a remote object's size and date) so an interrupted add can skip parts already done.
"""

from __future__ import annotations

import csv
import io
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from dqkit.contract.errors import InputError
from dqkit.engines.address_index import located
from dqkit.engines.address_index.bounded import bounded_lines
from dqkit.engines.address_index.reader import Record, SourceFile, read_stream
from dqkit.reference.progress import Progress

OA_HEADER: Final = ("LON", "LAT", "NUMBER", "STREET", "UNIT", "CITY", "DISTRICT", "REGION", "POSTCODE", "ID")


@dataclass
class Part:
    """One input of a reference. `records(progress)` streams its normalized records.

    `iso2` and `region` are what the input is taken to be: first what its path and the options say, then (for
    sources that can `sample` their rows) what `located.settle` reads from the rows themselves (`locate_parts`).
    `parse_region` is the state the rows are read with ("" lets each row take its own ZIP's state)."""

    name: str
    iso2: str
    region: str
    size: int
    mtime: float
    records: Callable[[Progress], Iterator[Record]]
    source_date: str = ""
    extra: dict[str, str] = field(default_factory=dict)
    place: str = ""  # the county or city the input is of, from its name ("alameda"); "" when it does not say
    coordinates: bool = True  # the input has coordinate columns (a row without them is then dropped as junk)
    sample: Callable[[], list[dict[str, str]]] | None = None  # its first rows in OpenAddresses columns
    hinted: bool = False  # its path names its country (not the US default)
    parse_region: str | None = None  # None: `region`
    id_place: str | None = None  # the place of its default id (None: `place`)

    def source(self) -> SourceFile:
        """Country and region the rows are read with."""
        return SourceFile(Path(self.name), self.iso2, self.region if self.parse_region is None else
                          self.parse_region)


def locate_parts(parts: Sequence[Part], *, country: str | None, region: str | None) -> list[str]:
    """Settle each part that can sample its rows by what they say (`dqkit.engines.address_index.located`):
    country, state and the place of its id; returns the notes to show (a path read otherwise than it says). A
    disagreement between the data and `country` / `region` is an InputError naming both."""
    notes: list[str] = []
    for part in parts:
        if part.sample is None:
            continue
        label = part.name.rsplit("/", 1)[-1] if "!" not in part.name else part.name.rsplit("!", 1)[-1]
        found = located.locate(part.sample())
        settled = located.settle(label, found, hint_iso2=part.iso2, hint_region=part.region, hinted=part.hinted,
                                 country=country, region=region)
        part.iso2, part.region, part.parse_region = settled.iso2, settled.region, settled.parse_region
        statewide = "statewide" in part.name.lower()
        if not statewide and settled.region and located.place_key(part.place) == located.place_key(
                located.state_name(settled.region)):
            statewide = True  # "california.csv": the state's file, no county's
        if statewide:
            part.place = part.id_place = ""
        else:
            coverage, id_place = located.place_of_data(part.place, settled)
            notes += located.place_notes(label, part.place, settled, id_place)
            part.place, part.id_place = coverage, id_place
        notes += settled.notes
    return notes


class LineCounter:
    """Text lines with the number of the current one, so a decoding error can name its line."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._it = iter(lines)
        self.line = 0

    def __iter__(self) -> LineCounter:
        return self

    def __next__(self) -> str:
        line = next(self._it)
        self.line += 1
        return line


def csv_lines(rows: Iterable[Sequence[object]], header: Sequence[str] = OA_HEADER) -> Iterator[str]:
    """CSV text lines (header first) of `rows`, quoted as needed: the shape `read_stream` reads."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    yield buf.getvalue()
    for row in rows:
        buf.seek(0)
        buf.truncate()
        w.writerow(row)
        yield buf.getvalue()


def normalized(lines: Iterable[str], src: SourceFile, name: str, progress: Progress,
               position: Callable[[], int] | None = None, *, rows_read: Callable[[], int] | None = None,
               ) -> Iterator[Record]:
    """Records of OpenAddresses CSV `lines`, counted in `progress` (`rows_read`: the source counts the rows it
    read itself, when it filters before this); bad bytes become an InputError naming the input and the line."""
    counter = LineCounter(lines)
    kept = 0
    try:
        for rec in read_stream(counter, src):
            kept += 1
            if not kept & 4095:  # the counts and the bar move every 4,096 rows, not on every row
                progress.rows_kept = kept
                progress.rows_read = rows_read() if rows_read else max(counter.line - 1, 0)
                progress.update(position() if position else -1)
            yield rec
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}, line {counter.line + 1}: not UTF-8 text ({exc.reason} at byte "
                         f"{exc.start}); re-save the file as UTF-8") from None
    except (EOFError, zlib.error, OSError) as exc:
        raise InputError(f"{name}, line {counter.line + 1}: the file is cut short or damaged ({exc}); "
                         "download it again") from None
    except csv.Error as exc:
        raise InputError(f"{name}, line {counter.line}: not a readable CSV row ({exc})") from None
    progress.rows_kept = kept
    progress.rows_read = rows_read() if rows_read else max(counter.line - 1, 0)
    progress.update(position() if position else -1)


def text_lines(binary: Any, name: str, compressed: Callable[[], int] | None = None) -> Iterator[str]:
    """The UTF-8 text lines of `binary`, within the bounds of `bounded_lines` (line length, empty lines in a row,
    expansion of `compressed` input); a line that is not UTF-8 is an InputError naming `name` and its number."""
    text = io.TextIOWrapper(binary, encoding="utf-8-sig", errors="surrogateescape", newline="")
    return bounded_lines(text, name, compressed, utf8=True)
