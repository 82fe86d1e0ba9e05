"""Building a reference index from OpenAddresses-format files: records -> sorted arrays -> one container file.

The public entry points. `runs` builds what fits in memory in one pass (the whole input, usually: then that run is
the index); `external` cuts a larger input into runs sized from the memory budget, builds them on every core and
has `merge` combine them street batch by street batch, so a national reference builds in bounded memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from dqkit.contract.errors import InputError
from dqkit.engines.address_index.external import build_files, build_stream
from dqkit.engines.address_index.located import located_source
from dqkit.engines.address_index.reader import Record, SourceFile
from dqkit.engines.address_index.runs import FORMAT_VERSION as FORMAT_VERSION  # re-exported: the index format
from dqkit.engines.address_index.runs import KIND as KIND
from dqkit.engines.address_index.runs import BuildReport as BuildReport
from dqkit.engines.address_index.runs import part_marker as part_marker  # re-exported: record streams
from dqkit.engines.address_index.runs import records_of_files as records_of_files
from dqkit.engines.address_index.words import FIELD_LOCALITY as FIELD_LOCALITY  # re-exported (the matcher)
from dqkit.engines.address_index.words import FIELD_STREET as FIELD_STREET


def build_index(
    files: Sequence[str | Path] | Sequence[SourceFile],
    out: str | Path,
    *,
    country_iso2: str | None = None,
    synthetic: bool = False,
    progress: Callable[[str], None] | None = None,
    clean: bool | None = None,
    memory: int | None = None,
    workers: int | None = None,
    tmp_dir: str | Path | None = None,
) -> BuildReport:
    """Build the index of `files` (OpenAddresses CSV or .csv.gz) into the single file `out`.

    `clean` drops the rows `hygiene` says must not be served and exact duplicates, counted in
    `BuildReport.dropped`, as `reference add` does: on by default, so no way of opening a county file
    (`--reference FILE`, `AddressEngine.from_files`, `dqkit index build`) serves its junk rows. Off by default
    for `synthetic` data (generated, with no junk, built at full speed), and off when asked (`clean=False`).

    `memory` (bytes, default `external.DEFAULT_MEMORY`) bounds the build: an input larger than fits is built in
    runs, on up to `workers` processes (default: the cores, at most 2 per input file), and merged; the runs are
    written under `tmp_dir` (default: beside `out`). Each file is one part of the index (`ReferenceIndex.parts`)."""
    t0 = time.perf_counter()
    sources = [f if isinstance(f, SourceFile) else _located(f, country_iso2, progress) for f in files]
    if not sources:
        raise InputError("no reference files given")
    for src in sources:
        if not src.path.is_file():
            raise InputError(f"reference file {src.path} does not exist")
    return build_files(sources, Path(out), synthetic=synthetic, clean=not synthetic if clean is None else clean,
                       progress=progress, memory=memory, workers=workers, tmp_dir=tmp_dir, t0=t0)


def _located(path: str | Path, country_iso2: str | None, progress: Callable[[str], None] | None) -> SourceFile:
    """Country and state of a file from its rows, the path a hint (`located`); notes go to `progress`."""
    p, settled = located_source(path, country_iso2)
    for note in settled.notes:
        if progress:
            progress(note)
    return SourceFile(p, settled.iso2, settled.parse_region)


def build_from_records(records: Iterable[tuple[str, Record]], out: str | Path, *,
                       synthetic: bool = False, sources: Sequence[str] = (),
                       progress: Callable[[str], None] | None = None, dedupe: bool = False,
                       parts: Sequence[dict[str, Any]] = (), memory: int | None = None,
                       tmp_dir: str | Path | None = None) -> BuildReport:
    """Build from a stream of (iso2, Record) pairs (readers of other formats, generators, tests).

    The stream is consumed once and never held: what does not fit in `memory` (bytes, default
    `external.DEFAULT_MEMORY`) is built in runs under `tmp_dir` (default: beside `out`) and merged.
    `progress` gets a line every million rows and, for builds that large, one per phase. `dedupe` keeps rows
    equal in every part of the address and in their coordinates once (`BuildReport.duplicates` counts the rest).
    `parts` describes the inputs (name, source, date, region) when the stream holds `part_marker` items."""
    return build_stream(iter(records), Path(out), synthetic=synthetic, names=sources, progress=progress,
                        dedupe=dedupe, parts=parts, memory=memory, tmp_dir=tmp_dir, t0=time.perf_counter())


