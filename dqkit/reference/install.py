"""Installing a reference: parts -> staged records (resumable) -> index -> one atomic rename into place.

    references/.staging-<id>/progress.json    parts done: name, size, mtime, rows read / kept
    references/.staging-<id>/parts/<n>.rec    the normalized records of part n (length-prefixed msgpack frames)
    references/.staging-<id>/out/             index.dqidx + manifest.json, renamed to references/<id>/ at the end

Nothing under `references/<id>` changes until the final rename, so a failed or interrupted add leaves the
installed set exactly as it was. After a failure the half-written part goes; the staging folder stays only when
some input finished (the next `add` of the same id skips every part whose input has the same size and
modification time; `dqkit reference remove <id>` discards it), and a successful add removes it. Every record
passes `hygiene` on its way in (junk rows dropped and counted), and the build keeps exact duplicates once.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import struct
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import msgspec

from dqkit.contract.errors import InputError
from dqkit.engines.address_index.hygiene import REASON_DUPLICATE, REASON_NO_STREET, REASONS, Hygiene, summary
from dqkit.engines.address_index.reader import Record
from dqkit.reference import grow
from dqkit.reference.coverage import Density, complete_zips
from dqkit.reference.progress import Progress
from dqkit.reference.sources.common import Part
from dqkit.reference.store import (
    INDEX,
    MANIFEST,
    STAGING_PREFIX,
    InputFile,
    Manifest,
    find,
    install_dir,
    make_private_dir,
    references_dir,
    sweep_stale,
    valid_id,
    write_json_atomic,
)

_FRAME: Final = 16384
_LEN: Final = struct.Struct("<I")
_ENC = msgspec.msgpack.Encoder()
_DEC = msgspec.msgpack.Decoder(list[Record])


@dataclass(frozen=True)
class SourceMeta:
    """What the source module says about the data: kind, licence, attribution, source date."""

    kind: str
    licence: str
    attribution: str = ""
    source_date: str = ""


def install(parts: Sequence[Part], ref_id: str, meta: SourceMeta, *, command: str = "",
            options: dict[str, Any] | None = None, progress: bool | None = None,
            replace: bool = True, append: bool = False, partial: bool = False, complete: bool = False) -> Manifest:
    """Import `parts` (all of one country) as the installed reference `ref_id`.

    An installed `ref_id` is refused unless `replace` (build it anew) or `append` (these inputs added to it, each
    replacing an installed input of the same name and region; only the new inputs are read, see `grow`).
    `partial`: the inputs are extracts, so no area counts as covered completely; `complete`: the user vouches they
    hold every street of every ZIP they hold (see `coverage`)."""
    ref_id = valid_id(ref_id)
    if not parts:
        raise InputError("nothing to import: no input files")
    final = references_dir() / ref_id
    base_on: Manifest | None = None
    if final.exists() and append:
        base_on = find(ref_id)
    elif final.exists() and not replace:
        raise InputError(refusal(ref_id))
    elif append:
        raise InputError(f"--append: no installed reference {ref_id!r} to add to (see `dqkit reference list`); "
                         "leave out --append to install it")
    t0 = time.perf_counter()
    base = references_dir(create=True)
    sweep_stale(base)
    staging = base / f"{STAGING_PREFIX}{ref_id}"
    make_private_dir(staging / "parts")
    with _exclusive(staging, ref_id):
        _remove_tmp(staging)
        try:
            return _install(parts, ref_id, meta, staging, t0, command=command, options=options, progress=progress,
                            base_on=base_on, partial=partial, vouched=complete)
        except BaseException as exc:
            kept = _after_failure(staging)
            if kept and isinstance(exc, InputError):
                raise InputError(f"{exc}; {kept}") from None
            raise


def remove_parts(ref_id: str, *, parts: Sequence[str] = (), regions: Sequence[str] = (), command: str = "",
                 progress: bool | None = None) -> Manifest:
    """Take inputs (by name, file name or county, as `reference info` lists them) or whole regions (states) out of
    an installed reference, without reading the rest again: its index is merged less them (`grow`)."""
    from dqkit.engines.address_index.merge import MergeInput, merge_indexes

    ref_id = valid_id(ref_id)
    m = find(ref_id)
    if not grow.has_parts(m.index_path):
        raise InputError(f"{ref_id} was built before references had parts: add it again (--replace) to remove parts "
                         "of it")
    labels = [_input_of(m, p).label for p in parts]
    regions = [r.strip().upper() for r in regions if r.strip()]
    gone = {lb for lb in labels}
    kept_inputs = [i for i in m.inputs if i.label not in gone and not (i.region and i.region in regions)]
    if not kept_inputs and not any(not i.region for i in m.inputs):
        raise InputError(f"that would leave {ref_id} empty: `dqkit reference remove {ref_id}` uninstalls it")
    t0 = time.perf_counter()
    base = references_dir(create=True)
    staging = base / f"{STAGING_PREFIX}{ref_id}"
    make_private_dir(staging / "parts")
    with _exclusive(staging, ref_id):
        try:
            out = staging / "out"
            shutil.rmtree(out, ignore_errors=True)
            make_private_dir(out)
            _say(progress, f"merging {ref_id} less {', '.join([*labels, *regions])} ...")
            report = merge_indexes([MergeInput(m.index_path, drop_parts=frozenset(labels),
                                               drop_regions=frozenset(regions))], out / INDEX, dedupe=True,
                                   names=[i.name for i in kept_inputs])
            if not report.addresses:
                raise InputError(f"that would leave {ref_id} empty: `dqkit reference remove {ref_id}` uninstalls it")
            complete: set[str] = set()
            if not m.partial:
                from dqkit.engines import zipdata

                by_zip = zipdata.tables().by_zip
                for i in kept_inputs:
                    complete.update(z for z in (i.complete_zips or [])
                                    if not (z in by_zip and by_zip[z].state in regions))
            dropped = _sum_dropped([*(f.dropped for f in kept_inputs),
                                    {REASON_DUPLICATE: sum(f.duplicates for f in kept_inputs) + report.shadowed}])
            left = {f.region for f in kept_inputs}
            manifest = Manifest(
                id=m.id, source=m.source, country=m.country, region=left.pop() if len(left) == 1 else "",
                licence=m.licence, attribution=m.attribution, rows=report.addresses, streets=report.streets,
                built=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                source_date=max((i.source_date for i in kept_inputs), default=m.source_date),
                command=command or m.command, synthetic=m.synthetic, inputs=kept_inputs, options=m.options,
                seconds=round(time.perf_counter() - t0, 2), index_bytes=report.size_bytes, dropped=dropped,
                partial=m.partial, complete_zips=sorted(complete))
            write_json_atomic(out / MANIFEST, manifest.to_json())
            install_dir(out, ref_id)
        finally:
            _remove_tmp(staging)
    shutil.rmtree(staging, ignore_errors=True)
    return manifest


def _input_of(m: Manifest, what: str) -> InputFile:
    """The input of `m` that `what` names: its name, label (name#region), file name or county (place)."""
    want = what.strip()
    for test in (lambda i: i.name == want or i.label == want, lambda i: Path(i.name).name == want,
                 lambda i: Path(i.name.split("!")[-1]).name == want, lambda i: bool(i.place) and i.place == want):
        got = [i for i in m.inputs if test(i)]
        if len(got) == 1:
            return got[0]
        if len(got) > 1:
            raise InputError(f"{what!r} names {len(got)} inputs of {m.id}: give the whole name ("
                             + ", ".join(i.label for i in got[:4]) + ")")
    names = ", ".join(Path(i.name).name for i in m.inputs[:8]) + (" ..." if len(m.inputs) > 8 else "")
    raise InputError(f"{m.id} has no input {what!r} (its inputs: {names}; see `dqkit reference info {m.id}`)")


def refusal(ref_id: str) -> str:
    """The answer to an add whose id is installed already: what is there, and the three ways on."""
    try:
        have = find(ref_id)
        what = f" ({have.rows:,} addresses from {', '.join(Path(i.name).name for i in have.inputs[:3]) or '?'})"
    except InputError:
        what = ""
    return (f"a reference {ref_id!r} is installed already{what}. To keep both, give this one another id "
            f"(--id NAME, or id=...); to replace it, --replace (replace=True); to add these rows to it, --append "
            f"(append=True)")


def _after_failure(staging: Path) -> str:
    """After a failed or interrupted add: temporary files go; the staging folder goes too unless some input
    finished (then it stays, to resume). Returns what was kept, said for the error message ("" when nothing)."""
    _remove_tmp(staging)
    shutil.rmtree(staging / "out", ignore_errors=True)
    done = sorted(p.name for p in (staging / "parts").glob("*.rec"))
    if not done:
        shutil.rmtree(staging, ignore_errors=True)
        return ""
    ref_id = staging.name[len(STAGING_PREFIX):]
    return (f"the {len(done)} input(s) finished before are kept in {staging}: run the same add again to resume, "
            f"or `dqkit reference remove {ref_id}` to discard them")


def _remove_tmp(staging: Path) -> None:
    """Half-written part files (`*.tmp`) of an add that died; only called while holding the staging lock."""
    for p in list(staging.glob("*.tmp")) + list((staging / "parts").glob("*.tmp")):
        p.unlink(missing_ok=True)


@contextlib.contextmanager
def _exclusive(staging: Path, ref_id: str) -> Iterator[None]:
    """One add of `ref_id` at a time (a second one would write the same staging files)."""
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks here; adds of one id must not overlap
        yield
        return
    fd = os.open(staging / "lock", os.O_CREAT | os.O_RDWR, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise InputError(f"another `reference add` of {ref_id!r} is running; wait for it to finish") from None
        yield
    finally:
        os.close(fd)


def _install(parts: Sequence[Part], ref_id: str, meta: SourceMeta, staging: Path, t0: float, *, command: str,
             options: dict[str, Any] | None, progress: bool | None, base_on: Manifest | None,
             partial: bool, vouched: bool = False) -> Manifest:
    from dqkit.engines.address_index.build import build_from_records

    state_path = staging / "progress.json"
    state = _load_state(state_path)
    done: list[tuple[Part, InputFile, Path]] = []
    dates: list[str] = [meta.source_date]
    complete: set[str] = set()
    for i, part in enumerate(parts):
        rec_path = staging / "parts" / f"{i}.rec"
        prev = state.get(part.name)
        if prev and prev.get("size") == part.size and prev.get("mtime") == part.mtime and rec_path.is_file() \
                and prev.get("file") == rec_path.name:
            _say(progress, f"{part.name}: already imported ({prev['rows_kept']:,} rows), skipped")
            done.append((part, InputFile(part.name, part.size, part.mtime, prev["rows_read"], prev["rows_kept"],
                                         dict(prev.get("dropped", {})), part.place, part.region, meta.kind,
                                         str(prev.get("source_date", "")), list(prev.get("complete_zips", []))),
                         rec_path))
            dates.append(str(prev.get("source_date", "")))
            complete.update(prev.get("complete_zips", []))
            continue
        bar = Progress(part.name, part.size, enabled=progress)
        hygiene = Hygiene(coordinates=part.coordinates)
        density = Density()
        try:
            _write_records(density.count(hygiene.keep(part.iso2, part.records(bar))), rec_path)
        finally:
            bar.close()
        date = part.extra.get("source_date", part.source_date)
        dates.append(date)
        dropped = dict(hygiene.dropped)
        kept = bar.rows_kept - sum(dropped.values())
        if bar.rows_read > bar.rows_kept:  # rows the reader skipped: every row read is kept or counted
            dropped = {REASON_NO_STREET: bar.rows_read - bar.rows_kept, **dropped}
        zips = [] if partial else complete_zips(part.place, hygiene.postcodes, density, kind=meta.kind,
                                                vouched=vouched)
        complete.update(zips)
        state[part.name] = {"size": part.size, "mtime": part.mtime, "rows_read": bar.rows_read,
                            "rows_kept": kept, "file": rec_path.name, "source_date": date, "dropped": dropped,
                            "complete_zips": zips}
        write_json_atomic(state_path, json.dumps(state, indent=1))
        done.append((part, InputFile(part.name, part.size, part.mtime, bar.rows_read, kept, dropped, part.place,
                                     part.region, meta.kind, date, zips), rec_path))
        if dropped:
            _say(progress, f"{part.name}: {summary(dropped)}")

    if not any(f.rows_kept for _, f, _ in done) and base_on is None:
        read = sum(f.rows_read for _, f, _ in done)
        dropped_all = _sum_dropped(f.dropped for _, f, _ in done)
        why = f"; {summary(dropped_all)}" if dropped_all else ""
        shutil.rmtree(staging / "parts", ignore_errors=True)  # a refusal, not an interruption: nothing to resume
        raise InputError(f"{', '.join(p.name for p in parts)}: no usable address rows (read {read:,}; every row "
                         f"lacked a street, or was outside the filter{why})")
    out = staging / "out"
    shutil.rmtree(out, ignore_errors=True)
    make_private_dir(out)
    iso2 = parts[0].iso2
    inputs = [f for _, f, _ in done]
    names = [p.name for p in parts]
    kept_inputs: list[InputFile] = []
    if base_on is not None and not grow.has_parts(base_on.index_path):  # an index built before parts: read back
        from dqkit.engines.address_index.readback import records_of_index

        new_rows: Iterator[tuple[str, Record]] = ((iso2, r) for _, _, p in done for r in _read_records(p))
        new_rows = itertools.chain(records_of_index(base_on.index_path), new_rows)
        replaced_any = False
        inputs = [*base_on.inputs, *inputs]
        names = [i.name for i in base_on.inputs] + names
        _say(progress, f"building the index of {sum(f.rows_kept for f in inputs):,} addresses ...")
        report = build_from_records(new_rows, out / INDEX, synthetic=False, sources=names, dedupe=True)
        duplicates = report.duplicates
    else:
        replaced: list[str] = []
        if base_on is not None:  # an input of the same name (and region) replaces the installed one
            labels = {f.label for f in inputs}
            replaced = [i.label for i in base_on.inputs if i.label in labels]
            kept_inputs = [i for i in base_on.inputs if i.label not in labels]
            names = [i.name for i in kept_inputs] + names
        replaced_any = bool(replaced)
        _say(progress, f"building the index of {sum(f.rows_kept for f in [*kept_inputs, *inputs]):,} addresses"
                       + (f" ({len(kept_inputs)} installed inputs merged, not read again)" if base_on else "")
                       + " ...")
        new = [(grow.part_meta(part.name, meta.kind, f.source_date, part.region), _reader(p))
               for part, f, p in done]
        report, per_part = grow.build(new, iso2, out / INDEX, base=base_on.index_path if base_on else None,
                                      drop_parts=replaced, names=names, staging=staging,
                                      progress=(lambda t: _say(progress, t)) if progress else None)
        for f, d in zip(inputs, per_part, strict=True):
            f.duplicates = d
        inputs = [*kept_inputs, *inputs]
        duplicates = sum(f.duplicates for f in inputs) + report.shadowed
    if base_on is not None:
        dates.append(base_on.source_date)
        if not partial and not base_on.partial:
            if replaced_any:  # what the installed inputs still there cover
                for still in kept_inputs:
                    complete.update(still.complete_zips or [])
            else:
                complete.update(base_on.complete_zips)
        partial = partial or base_on.partial
    dropped = _sum_dropped([*(f.dropped for f in inputs), {REASON_DUPLICATE: duplicates}])
    dates = sorted(d for d in dates if d)
    kinds = list(dict.fromkeys([*(base_on.source.split("+") if base_on else []), meta.kind]))
    regions = {f.region for f in inputs}
    manifest = Manifest(
        id=ref_id, source="+".join(kinds), country=iso2, region=regions.pop() if len(regions) == 1 else "",
        licence=_joined(base_on.licence if base_on else "", meta.licence),
        attribution=_joined(base_on.attribution if base_on else "", meta.attribution),
        rows=report.addresses, streets=report.streets,
        built=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), source_date=dates[-1] if dates else "",
        command=command, synthetic=False, inputs=inputs, options=options or {},
        seconds=round(time.perf_counter() - t0, 2), index_bytes=report.size_bytes, dropped=dropped,
        partial=partial, complete_zips=[] if partial else sorted(complete))
    write_json_atomic(out / MANIFEST, manifest.to_json())
    install_dir(out, ref_id)
    shutil.rmtree(staging, ignore_errors=True)
    return manifest


def _reader(path: Path) -> Callable[[], Iterator[Record]]:
    return lambda: _read_records(path)


def _joined(a: str, b: str) -> str:
    """Two sources' licences or attributions, each once ("a; b")."""
    return "; ".join(dict.fromkeys(x for x in (*a.split("; "), b) if x))


def _sum_dropped(counts: Iterable[dict[str, int]]) -> dict[str, int]:
    total: Counter[str] = Counter()
    for c in counts:
        total.update({k: v for k, v in c.items() if v})
    return {k: total[k] for k in REASONS if total.get(k)} | {k: v for k, v in total.items() if k not in REASONS}


def _say(progress: bool | None, text: str) -> None:
    """One line on stderr, unless progress is off (`progress=False`, `--quiet`, DQKIT_PROGRESS=0)."""
    from dqkit.notebook.settings import options

    if progress is True or (progress is None and options.progress):
        print(text, file=sys.stderr)


def _load_state(path: Path) -> dict[str, Any]:
    try:
        got = json.loads(path.read_text(encoding="utf-8"))
        return got if isinstance(got, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_records(records: Iterator[Record], path: Path) -> None:
    """Frames of records to `path` (through a temporary name: a part file exists only when complete)."""
    tmp = path.with_name(path.name + ".tmp")
    batch: list[Record] = []
    with open(tmp, "wb") as f:
        for r in records:
            batch.append(r)
            if len(batch) >= _FRAME:
                _frame(f, batch)
                batch = []
        if batch:
            _frame(f, batch)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _frame(f: Any, batch: list[Record]) -> None:
    data = _ENC.encode(batch)
    f.write(_LEN.pack(len(data)))
    f.write(data)


def _read_records(path: Path) -> Iterator[Record]:
    with open(path, "rb") as f:
        while True:
            head = f.read(4)
            if len(head) < 4:
                return
            (n,) = _LEN.unpack(head)
            yield from _DEC.decode(f.read(n))
