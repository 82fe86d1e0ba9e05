"""Indexes built on demand are kept in the user cache directory and reused while their sources do not change.

The cache key is the index format version plus, for each source file, its absolute path, size and modification
time (the bundled demo: its content hash), so an edited file gets a fresh index and an old dqkit never reads a
newer format. `DQKIT_CACHE_DIR` overrides the location (CI, read-only homes).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from dqkit._files import private_dir
from dqkit.contract.errors import ReferenceDataError
from dqkit.engines.address_index.build import FORMAT_VERSION, build_index

DEMO_REFERENCE: Final = "demo_reference.csv.gz"


def cache_dir() -> Path:
    env = os.environ.get("DQKIT_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("dqkit")) / "indexes"


def build_cached(files: Sequence[str | Path], *, out: str | Path | None = None,
                 country_iso2: str | None = None, synthetic: bool = False) -> Path:
    """Path of an index of `files`: `out` (always rebuilt) or a cache entry (built when missing)."""
    if out is not None:
        build_index(files, out, country_iso2=country_iso2, synthetic=synthetic)
        return Path(out)
    # "located": files are placed by their points (`located`), so entries of path-placed builds are not reused
    h = hashlib.sha256(f"v{FORMAT_VERSION}|clean|located|{country_iso2 or ''}|{synthetic}".encode())
    for f in files:
        p = Path(f).resolve()
        try:
            st = p.stat()
            h.update(f"|{p}|{st.st_size}|{st.st_mtime_ns}".encode())
        except OSError:
            h.update(f"|{p}|missing".encode())
    return _cached(f"{h.hexdigest()[:24]}.dqidx",
                   lambda p: build_index(files, p, country_iso2=country_iso2, synthetic=synthetic))


def demo_index() -> Path:
    """The index of the bundled synthetic demo reference, built once per content version."""
    from dqkit._resources import data_file

    src = data_file(DEMO_REFERENCE)
    digest = hashlib.sha256(src.read_bytes()).hexdigest()[:24]
    return _cached(f"demo-v{FORMAT_VERSION}-{digest}.dqidx",
                   lambda p: build_index([src], p, country_iso2="US", synthetic=True))


def _cached(name: str, build: Callable[[Path], object]) -> Path:
    """The cache entry `name`, built when missing, in a directory private to this user (0700, owned by us).

    When the cache directory cannot be used (read-only home, a file in the way, another user's directory), the
    index is built in a fresh private temporary directory for this process: never a predictable shared path, and
    never a file someone else may have left there.
    """
    try:
        base = private_dir(cache_dir())
        path = base / name
        if path.exists():
            return path
        build(path)  # the container is written to a temporary file and renamed
        return path
    except OSError:
        pass
    try:
        path = Path(tempfile.mkdtemp(prefix="dqkit-index-")) / name
        build(path)
        return path
    except OSError as exc:
        raise ReferenceDataError(f"cannot write the index {name} to {cache_dir()} nor to a private temporary "
                                 f"directory: {exc.strerror or exc}") from None


class BytesLRU:
    """A least-recently-used map of bytes to bytes bounded in total bytes, not entries (the server's cache of
    encoded search answers: a key is a whole encoded request, so an entry count alone bounds nothing).

    An entry larger than `max_entry_bytes` is not kept at all. Thread-safe: the server's main event loop and its
    loop for big bodies share one (an unlocked OrderedDict raised KeyError about once in 600,000 operations).
    """

    def __init__(self, max_bytes: int = 32 << 20, max_entry_bytes: int = 64 << 10) -> None:
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_entry_bytes
        self.size = 0  # bytes held (keys plus values)
        self._data: OrderedDict[bytes, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: bytes) -> bytes | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: bytes, value: bytes) -> None:
        cost = len(key) + len(value)
        with self._lock:
            old = self._data.pop(key, None)
            if old is not None:
                self.size -= len(key) + len(old)
            if cost > self.max_entry_bytes:
                return
            self._data[key] = value
            self.size += cost
            while self.size > self.max_bytes:
                k, v = self._data.popitem(last=False)
                self.size -= len(k) + len(v)
