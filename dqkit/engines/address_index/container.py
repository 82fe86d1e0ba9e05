"""One file holding named numpy arrays, opened by memory-mapping: the on-disk form of the reference index.

Layout: 8-byte magic, 8-byte little-endian header length, a JSON header (format version, metadata, and for each
array its dtype, shape and byte offset), then the raw arrays, each aligned to 64 bytes. Opening reads the header
and maps the file; no array is copied or parsed, so a 1M-address index opens in about a millisecond and the OS
pages in only what queries touch.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from dqkit.contract.errors import ReferenceDataError

MAGIC = b"DQKITIX1"
_ALIGN = 64


def write_container(path: str | Path, arrays: Mapping[str, npt.NDArray[Any]], meta: Mapping[str, Any]) -> int:
    """Write `arrays` and `meta` to `path` atomically (temp file + rename); returns the file size."""
    path = Path(path)
    entries: dict[str, dict[str, Any]] = {}
    offset = 0
    prepared: list[tuple[str, npt.NDArray[Any]]] = []
    for name, arr in arrays.items():
        a = np.ascontiguousarray(arr)
        if a.dtype.hasobject:
            raise ValueError(f"array {name!r} holds Python objects")
        offset = (offset + _ALIGN - 1) // _ALIGN * _ALIGN
        entries[name] = {"dtype": a.dtype.str, "shape": list(a.shape), "offset": offset}
        prepared.append((name, a))
        offset += a.nbytes
    header = json.dumps({"meta": dict(meta), "arrays": entries}, sort_keys=True).encode()
    start = (16 + len(header) + _ALIGN - 1) // _ALIGN * _ALIGN
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    path.parent.mkdir(parents=True, exist_ok=True)
    _sweep_stale(path)
    with open(tmp, "wb") as f:
        f.write(MAGIC)
        f.write(len(header).to_bytes(8, "little"))
        f.write(header)
        for name, a in prepared:
            f.seek(start + entries[name]["offset"])
            if a.nbytes:
                f.write(a.reshape(-1).view(np.uint8).data)  # no copy: a 10M-row column is 80 MB
        size = f.tell()
    os.replace(tmp, path)
    return size


def _sweep_stale(path: Path) -> None:
    """Temporary files of earlier writes of `path` whose process was killed (`<name>.tmp<pid>`, pid gone)."""
    from dqkit._files import pid_alive

    prefix = path.name + ".tmp"
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(prefix) and n[len(prefix):].isdigit()]
    except OSError:
        return
    for n in names:
        pid = int(n[len(prefix):])
        if pid != os.getpid() and not pid_alive(pid):
            with contextlib.suppress(OSError):
                (path.parent / n).unlink()


class Container:
    """A memory-mapped container file: `meta` (dict) and `arrays` (name -> read-only numpy view)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            with open(self.path, "rb") as f:
                head = f.read(16)
                if len(head) < 16 or head[:8] != MAGIC:
                    raise ReferenceDataError(f"{self.path} is not a dqkit reference index")
                n = int.from_bytes(head[8:16], "little")
                header = json.loads(f.read(n))
                self._mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except FileNotFoundError as exc:
            raise ReferenceDataError(f"reference index {self.path} does not exist") from exc
        except (OSError, ValueError) as exc:
            raise ReferenceDataError(f"cannot read reference index {self.path}: {exc}") from exc
        start = (16 + n + _ALIGN - 1) // _ALIGN * _ALIGN
        self.meta: dict[str, Any] = header["meta"]
        buf = np.frombuffer(self._mm, dtype=np.uint8)
        self.arrays: dict[str, npt.NDArray[Any]] = {}
        for name, e in header["arrays"].items():
            dt = np.dtype(e["dtype"])
            count = int(np.prod(e["shape"])) if e["shape"] else 1
            lo = start + int(e["offset"])
            if lo + count * dt.itemsize > len(buf):
                raise ReferenceDataError(f"reference index {self.path} is truncated (array {name})")
            self.arrays[name] = buf[lo:lo + count * dt.itemsize].view(dt).reshape(e["shape"])

    def __getitem__(self, name: str) -> npt.NDArray[Any]:
        try:
            return self.arrays[name]
        except KeyError:
            raise ReferenceDataError(f"reference index {self.path} lacks array {name!r}") from None

    def __contains__(self, name: str) -> bool:
        return name in self.arrays

    @property
    def size(self) -> int:
        return self.path.stat().st_size
