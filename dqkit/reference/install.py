"""Installing a reference: parts -> staged records (resumable) -> index -> one atomic rename into place.

    references/.staging-<id>/progress.json    parts done: name, size, mtime, rows read / kept
    references/.staging-<id>/parts/<n>.rec    the normalized records of part n (length-prefixed msgpack frames)
    references/.staging-<id>/out/             index.dqidx + manifest.json, renamed to references/<id>/ at the end

Nothing under `references/<id>` changes until the final rename, so a failed or interrupted add leaves the
installed set exactly as it was. The staging folder stays after a failure: the next `add` of the same id skips
every part whose input has the same size and modification time, and a successful add removes it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import struct
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import msgspec

from dqkit.contract.errors import InputError
from dqkit.engines.reference.reader import Record
from dqkit.reference.progress import Progress
from dqkit.reference.sources.common import Part
from dqkit.reference.store import (
    INDEX,
    MANIFEST,
    STAGING_PREFIX,
    InputFile,
    Manifest,
    install_dir,
    make_private_dir,
    references_dir,
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
            replace: bool = True) -> Manifest:
    """Import `parts` (all of one country and region) as the installed reference `ref_id`."""
    ref_id = valid_id(ref_id)
    if not parts:
        raise InputError("nothing to import: no input files")
    final = references_dir() / ref_id
    if final.exists() and not replace:
        raise InputError(f"a reference {ref_id!r} is installed already; remove it first or pass replace=True")
    t0 = time.perf_counter()
    base = references_dir(create=True)
    staging = base / f"{STAGING_PREFIX}{ref_id}"
    make_private_dir(staging / "parts")
    with _exclusive(staging, ref_id):
        return _install(parts, ref_id, meta, staging, t0, command=command, options=options, progress=progress)


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
             options: dict[str, Any] | None, progress: bool | None) -> Manifest:
    from dqkit.engines.reference.build import build_from_records

    state_path = staging / "progress.json"
    state = _load_state(state_path)
    done: list[tuple[Part, InputFile, Path]] = []
    dates: list[str] = [meta.source_date]
    for i, part in enumerate(parts):
        rec_path = staging / "parts" / f"{i}.rec"
        prev = state.get(part.name)
        if prev and prev.get("size") == part.size and prev.get("mtime") == part.mtime and rec_path.is_file() \
                and prev.get("file") == rec_path.name:
            _say(progress, f"{part.name}: already imported ({prev['rows_kept']:,} rows), skipped")
            done.append((part, InputFile(part.name, part.size, part.mtime, prev["rows_read"], prev["rows_kept"]),
                         rec_path))
            dates.append(str(prev.get("source_date", "")))
            continue
        bar = Progress(part.name, part.size, enabled=progress)
        try:
            _write_records(part.records(bar), rec_path)
        finally:
            bar.close()
        date = part.extra.get("source_date", part.source_date)
        dates.append(date)
        state[part.name] = {"size": part.size, "mtime": part.mtime, "rows_read": bar.rows_read,
                            "rows_kept": bar.rows_kept, "file": rec_path.name, "source_date": date}
        write_json_atomic(state_path, json.dumps(state, indent=1))
        done.append((part, InputFile(part.name, part.size, part.mtime, bar.rows_read, bar.rows_kept), rec_path))

    if not any(f.rows_kept for _, f, _ in done):
        read = sum(f.rows_read for _, f, _ in done)
        raise InputError(f"{', '.join(p.name for p in parts)}: no usable address rows (read {read:,}; every row "
                         "lacked a street, or was outside the filter)")
    out = staging / "out"
    shutil.rmtree(out, ignore_errors=True)
    make_private_dir(out)
    _say(progress, f"building the index of {sum(f.rows_kept for _, f, _ in done):,} addresses ...")
    iso2 = parts[0].iso2
    report = build_from_records(((iso2, r) for _, _, p in done for r in _read_records(p)), out / INDEX,
                                synthetic=False, sources=[p.name for p in parts])
    dates = sorted(d for d in dates if d)
    manifest = Manifest(
        id=ref_id, source=meta.kind, country=iso2, region=parts[0].region, licence=meta.licence,
        attribution=meta.attribution, rows=report.addresses, streets=report.streets,
        built=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), source_date=dates[-1] if dates else "",
        command=command, synthetic=False, inputs=[f for _, f, _ in done], options=options or {},
        seconds=round(time.perf_counter() - t0, 2), index_bytes=report.size_bytes)
    write_json_atomic(out / MANIFEST, manifest.to_json())
    install_dir(out, ref_id)
    shutil.rmtree(staging, ignore_errors=True)
    return manifest


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
