"""Indexes built on demand are kept in the user cache directory and reused while their sources do not change.

The cache key is the index format version plus, for each source file, its absolute path, size and modification
time (the bundled demo: its content hash), so an edited file gets a fresh index and an old dqkit never reads a
newer format. `DQKIT_CACHE_DIR` overrides the location (CI, read-only homes).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from dqkit.contract.errors import ReferenceDataError
from dqkit.engines.reference.build import FORMAT_VERSION, build_index

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
    h = hashlib.sha256(f"v{FORMAT_VERSION}|{country_iso2 or ''}|{synthetic}".encode())
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
    """The cache entry `name`, built when missing; a read-only cache falls back to the temp directory."""
    for base in (cache_dir(), Path(tempfile.gettempdir()) / "dqkit-indexes"):
        path = base / name
        if path.exists():
            return path
        try:
            build(path)
            return path
        except OSError:  # cache not writable (read-only home, a file in the way)
            continue
    raise ReferenceDataError(f"cannot write the index {name} to {cache_dir()} nor to the temp directory")
