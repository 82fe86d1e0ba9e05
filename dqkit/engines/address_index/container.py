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
    prepared = {name: np.ascontiguousarray(a) for name, a in arrays.items()}
    with ContainerWriter(path, {name: (a.dtype, a.shape) for name, a in prepared.items()}, meta) as w:
        for name, a in prepared.items():
            w.put(name, a)
        return w.close()


Spec = tuple[Any, tuple[int, ...]]  # (numpy dtype, shape) of one array


class ContainerWriter:
    """A container written piece by piece: every array's dtype and shape are known first, its rows come in
    order (`put`, in as many calls as wanted), so a build larger than memory never holds a whole column.

    Writes go through the page cache with `pwrite`, never through a writable memory map, so they do not count in
    the writer's resident memory. The file appears under its name only on `close` (temp file + rename)."""

    def __init__(self, path: str | Path, specs: Mapping[str, Spec], meta: Mapping[str, Any]) -> None:
        self.path = Path(path)
        self.entries: dict[str, dict[str, Any]] = {}
        self._dtype: dict[str, np.dtype[Any]] = {}
        self._count: dict[str, int] = {}
        self._done: dict[str, int] = {}
        offset = 0
        for name, (dtype, shape) in specs.items():
            dt = np.dtype(dtype)
            if dt.hasobject:
                raise ValueError(f"array {name!r} holds Python objects")
            offset = (offset + _ALIGN - 1) // _ALIGN * _ALIGN
            self.entries[name] = {"dtype": dt.str, "shape": [int(x) for x in shape], "offset": offset}
            self._dtype[name] = dt
            self._count[name] = int(np.prod(shape)) if len(shape) else 1
            self._done[name] = 0
            offset += self._count[name] * dt.itemsize
        header = json.dumps({"meta": dict(meta), "arrays": self.entries}, sort_keys=True).encode()
        self.start = (16 + len(header) + _ALIGN - 1) // _ALIGN * _ALIGN
        self.size = self.start + offset
        self.tmp = self.path.with_name(self.path.name + f".tmp{os.getpid()}")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _sweep_stale(self.path)
        self._f: Any = open(self.tmp, "w+b")  # noqa: SIM115 - closed by close() / abort()
        self._f.write(MAGIC + len(header).to_bytes(8, "little") + header)
        self._f.truncate(self.size)

    def __enter__(self) -> ContainerWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._f is not None:
            self.abort()

    def put(self, name: str, values: npt.NDArray[Any]) -> None:
        """Append `values` (flattened, cast to the array's dtype) to array `name`."""
        dt = self._dtype[name]
        a = np.ascontiguousarray(values, dtype=dt).reshape(-1)
        done = self._done[name]
        if done + len(a) > self._count[name]:
            raise ValueError(f"array {name!r}: {done + len(a)} values written, {self._count[name]} declared")
        if len(a):
            self._f.seek(self.start + self.entries[name]["offset"] + done * dt.itemsize)
            self._f.write(a.view(np.uint8).data)
        self._done[name] = done + len(a)

    def written(self, name: str) -> int:
        return self._done[name]

    def read(self, name: str, lo: int, hi: int) -> npt.NDArray[Any]:
        """Values [lo, hi) of an array already written (read back, e.g. to index a finished column)."""
        dt = self._dtype[name]
        self._f.flush()
        return _read_at(self._f, self.start + self.entries[name]["offset"] + lo * dt.itemsize, dt, hi - lo)

    def mapped(self, name: str) -> npt.NDArray[Any]:
        """Array `name` as written so far, memory-mapped read-only (random access to a finished column without
        holding it: the pages are the file's, shared with the page cache)."""
        self._f.flush()
        e = self.entries[name]
        return np.memmap(self.tmp, dtype=self._dtype[name], mode="r", offset=self.start + e["offset"],
                         shape=(self._count[name],))

    def close(self) -> int:
        """Check every array is complete and move the file into place; returns its size."""
        missing = [n for n, c in self._count.items() if self._done[n] != c]
        if missing:
            self.abort()
            raise ValueError(f"arrays not completely written: {', '.join(missing[:5])}")
        self._f.close()
        self._f = None
        os.replace(self.tmp, self.path)
        return self.size

    def abort(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None
        with contextlib.suppress(OSError):
            self.tmp.unlink()


def _read_at(f: Any, pos: int, dt: np.dtype[Any], count: int) -> npt.NDArray[Any]:
    """`count` values of type `dt` at byte `pos` of the open file `f`, read into a fresh array."""
    out = np.empty(count, dtype=dt)
    if count:
        f.seek(pos)
        if f.readinto(out.view(np.uint8).data) != out.nbytes:
            raise ReferenceDataError(f"reference index {getattr(f, 'name', '')} is truncated")
    return out


class ArrayFile:
    """A container read in pieces (`read(name, lo, hi)` with `pread`), not memory-mapped: what a merge of
    indexes larger than memory reads its inputs with, so pages it has passed do not stay in its resident set."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._f: Any = open(self.path, "rb", buffering=0)  # noqa: SIM115 - closed by close()
        except FileNotFoundError as exc:
            raise ReferenceDataError(f"reference index {self.path} does not exist") from exc
        try:
            head = self._f.read(16)
            if len(head) < 16 or head[:8] != MAGIC:
                raise ReferenceDataError(f"{self.path} is not a dqkit reference index")
            n = int.from_bytes(head[8:16], "little")
            header = json.loads(self._f.read(n))
        except BaseException:
            self._f.close()
            raise
        self.start = (16 + n + _ALIGN - 1) // _ALIGN * _ALIGN
        self.meta: dict[str, Any] = header["meta"]
        self.entries: dict[str, dict[str, Any]] = header["arrays"]

    def __contains__(self, name: str) -> bool:
        return name in self.entries

    def length(self, name: str) -> int:
        shape = self.entries[name]["shape"]
        return int(np.prod(shape)) if shape else 1

    def dtype(self, name: str) -> np.dtype[Any]:
        dt: np.dtype[Any] = np.dtype(self.entries[name]["dtype"])
        return dt

    def read(self, name: str, lo: int = 0, hi: int | None = None) -> npt.NDArray[Any]:
        """Values [lo, hi) of array `name` (all of it by default), in a fresh array."""
        if name not in self.entries:
            raise ReferenceDataError(f"reference index {self.path} lacks array {name!r}")
        n = self.length(name)
        hi = n if hi is None else min(hi, n)
        lo = max(0, min(lo, hi))
        dt = self.dtype(name)
        return _read_at(self._f, self.start + int(self.entries[name]["offset"]) + lo * dt.itemsize, dt, hi - lo)

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> ArrayFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
