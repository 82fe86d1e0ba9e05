"""Growing an installed reference without rebuilding it: parts (input files: a county, a state, a source) added,
replaced or removed by merging, never by reading the whole reference back.

Each input of a reference is one part of its index (`a.part`: name, source, date, region). An add to an installed
reference builds only the new parts (in runs, within the memory budget) and merges them with the installed index
less the parts they replace (an input of the same name and region) or the regions asked to go; a removal merges
the installed index alone, less the part or region. The merge reads the installed index once and writes the new
one (`merge`: ~1 minute per 100M points on this machine), so the work is that of the part plus one streaming pass,
and the result is exactly the index a full rebuild from every remaining input would be (tested array by array).

Two sources for one place (NAD added to an OpenAddresses reference): an address both hold is served once, from the
source added first, the other's point kept aside in the index (never served) so that removing a source later gives
what a rebuild without it would give. Every point keeps its part, so every answer can name its source and date.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from dqkit.engines.address_index import build as index_build
from dqkit.engines.address_index.build import BuildReport, part_marker
from dqkit.engines.address_index.reader import Record


def has_parts(index: Path) -> bool:
    """Whether an index names its parts (built since parts exist): only then can parts be replaced or removed."""
    from dqkit.engines.address_index.container import ArrayFile

    with ArrayFile(index) as af:
        return bool(af.meta.get("parts"))


def part_meta(name: str, source: str, date: str, region: str) -> dict[str, Any]:
    """How an index names one part (`ReferenceIndex.part_of`)."""
    return {"name": name, "source": source, "date": date, "region": region}


def part_label(p: dict[str, Any]) -> str:
    """A part's name with its region when it has one ("NAD_r17.txt#CA"): one national file added state by state
    is several parts."""
    return f"{p['name']}#{p['region']}" if p.get("region") else str(p["name"])


def build(new: Sequence[tuple[dict[str, Any], Callable[[], Iterator[Record]]]], iso2: str, out: Path, *,
          base: Path | None, drop_parts: Sequence[str] = (), drop_regions: Sequence[str] = (),
          names: Sequence[str], staging: Path, memory: int | None = None,
          progress: Callable[[str], None] | None = None, synthetic: bool = False,
          dedupe: bool = True) -> tuple[BuildReport, list[int]]:
    """The index of the installed `base` (less `drop_parts` labels and `drop_regions`) with the `new` parts (their
    metadata and a reader of their records) into `out`; and the duplicates dropped inside each new part.

    With no base and one part, one build as always; otherwise each part is built apart (so two parts' copies of a
    point are told apart: one kept aside, not lost) and everything is merged. `synthetic` and `dedupe` as in
    `build_index` (a reference install: real data, duplicates dropped)."""
    from dqkit.engines.address_index.external import build_runs, merge_inputs
    from dqkit.engines.address_index.merge import MergeInput

    metas = [m for m, _ in new]
    t0 = time.perf_counter()
    if base is None and len(new) == 1:
        meta, records = new[0]
        stream = _marked(0, iso2, records())
        rep = index_build.build_from_records(stream, out, synthetic=synthetic, sources=names, dedupe=dedupe,
                                             parts=[meta], memory=memory, tmp_dir=staging, progress=progress)
        return rep, [rep.duplicates]
    inputs: list[MergeInput] = []
    if base is not None:
        inputs.append(MergeInput(base, drop_parts=frozenset(drop_parts), drop_regions=frozenset(drop_regions)))
    runs_dir = staging / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    per_part: list[int] = []
    for k, (_meta, records) in enumerate(new):
        paths, dups = build_runs(_marked(k, iso2, records()), runs_dir, prefix=f"part{k:05d}", parts=metas,
                                 dedupe=dedupe, memory=memory, t0=t0, synthetic=synthetic)
        inputs += [MergeInput(p) for p in paths]
        per_part.append(dups)
    rep = merge_inputs(inputs, out, dedupe=dedupe, names=names, progress=progress, t0=t0, duplicates=0,
                       memory=memory, synthetic=synthetic)
    return rep, per_part


def _marked(k: int, iso2: str, records: Iterator[Record]) -> Iterator[tuple[str, Record]]:
    yield part_marker(k)
    for r in records:
        yield iso2, r
