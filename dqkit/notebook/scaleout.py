"""The accessors on Dask DataFrames: the pandas code run partition by partition, so results are the same.

Columns are resolved once, on the client, against the Dask frame's columns (a wrong mapping fails at once, not on
a worker); each partition then runs the pandas accessor with that exact mapping. The backend travels as a choice
("local", a URL, a BackendSpec) and is built once per worker process; a backend object is sent as it is (it must
pickle). Progress is Dask's (its dashboard or `dask.diagnostics.ProgressBar`), so per-partition bars are off.

The result cache assumes no shared disk: a worker on the client's machine opens the client's cache file (SQLite in
WAL mode takes several writers), so a rerun on Dask, or on pandas after Dask, costs nothing; a worker on another
machine opens the cache of its own machine (its `DQKIT_CACHE_DIR`, else its user cache folder), never a path
that only means something on the client's.
"""

from __future__ import annotations

import functools
import socket
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from dqkit.backends.select import BackendLike
from dqkit.notebook import addresses, leads
from dqkit.notebook.cache import CacheUnavailable, ResultCache
from dqkit.notebook.frames import CacheArg, attach
from dqkit.notebook.settings import options


@functools.cache
def machine_id() -> str:
    """Which machine this process runs on: the system's machine id (shared by containers of one host only when
    they share /etc), else the host name and the hardware address."""
    for path in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text:
            return f"{text}/{socket.gethostname()}"
    return f"{socket.gethostname()}/{uuid.getnode():x}"


@dataclass(frozen=True)
class CacheSite:
    """Where the client keeps its cache: its folder, and the machine where that folder means something."""

    directory: str
    machine: str


def _cache_site(cache: CacheArg) -> CacheSite | None:
    if isinstance(cache, ResultCache):
        return CacheSite(str(cache.path.parent), machine_id())
    if cache is False or (cache is None and not options.cache):
        return None
    return CacheSite(str(options.cache_directory()), machine_id())


def _worker_cache(site: CacheSite | None) -> CacheArg:
    """The cache a worker uses (see the module docstring), opened once per worker process; none if it cannot be
    opened there."""
    if site is None:
        return False
    directory = Path(site.directory) if site.machine == machine_id() else options.cache_directory()
    try:
        return ResultCache.in_directory(directory)
    except CacheUnavailable:
        return False


def _verify_partition(pdf: pd.DataFrame, *, fields: dict[str, str], backend: BackendLike, prefix: str,
                      cache_dir: CacheSite | None, concurrency: int | None, chunk_size: int | None) -> pd.DataFrame:
    return leads.verify(pdf, backend=backend, mapping=fields, prefix=prefix, cache=_worker_cache(cache_dir),
                        progress=False, concurrency=concurrency, chunk_size=chunk_size, all_columns=True)


def _validate_partition(pdf: pd.DataFrame, *, fields: dict[str, str], backend: BackendLike, country: str,
                        datasets: Sequence[str], prefix: str, cache_dir: CacheSite | None,
                        concurrency: int | None) -> pd.DataFrame:
    return addresses.validate(pdf, backend=backend, mapping=fields, country=country, datasets=datasets,
                              prefix=prefix, cache=_worker_cache(cache_dir), progress=False,
                              concurrency=concurrency)


def _search_partition(pdf: pd.DataFrame, *, top: int, fields: dict[str, str], backend: BackendLike, country: str,
                      search_type: str, datasets: Sequence[str], prefix: str, cache_dir: CacheSite | None,
                      concurrency: int | None) -> pd.DataFrame:
    return addresses.search(pdf, top=top, backend=backend, mapping=fields, country=country,
                            search_type=search_type, datasets=datasets, prefix=prefix,
                            cache=_worker_cache(cache_dir), progress=False, concurrency=concurrency)


class DaskLeadsAccessor:
    """`ddf.leads.verify()`: as `df.leads.verify()`, lazily, one partition at a time."""

    def __init__(self, ddf: Any) -> None:
        self._df = ddf

    def verify(self, *, backend: BackendLike = None, mapping: Mapping[str, str] | None = None,
               prefix: str = leads.PREFIX, cache: CacheArg = None, concurrency: int | None = None,
               chunk_size: int | None = None) -> Any:
        fields = leads.lead_fields(self._df.columns, mapping, prefix)
        meta = attach(self._df._meta, leads.typed_results([], all_columns=True), prefix)
        if leads.has_extension_column(fields):  # PHONE_EXTENSION as read and sent
            leads.add_extension_column(meta, prefix, pd.Series(dtype="string"))
        for name in leads.REFERENCE_NAMES:  # every partition names the reference its streets were checked on
            meta[f"{prefix}{name}"] = pd.Series(dtype="string")
        return self._df.map_partitions(_verify_partition, fields=fields, backend=backend, prefix=prefix,
                                       cache_dir=_cache_site(cache), concurrency=concurrency,
                                       chunk_size=chunk_size, meta=meta)

    def columns(self, mapping: Mapping[str, str] | None = None) -> dict[str, str]:
        return leads.lead_fields(self._df.columns, mapping, leads.PREFIX)


class DaskAddressAccessor:
    """`ddf.addr.validate()` and `ddf.addr.search()`, one partition at a time."""

    def __init__(self, ddf: Any) -> None:
        self._df = ddf

    def validate(self, *, backend: BackendLike = None, mapping: Mapping[str, str] | None = None,
                 country: str = "USA", datasets: Sequence[str] = (), prefix: str = addresses.PREFIX,
                 cache: CacheArg = None, concurrency: int | None = None) -> Any:
        fields = addresses.address_fields(self._df.columns, mapping, prefix, addresses.VALIDATE_NAMES)
        meta = attach(self._df._meta, addresses.typed_validation([]), prefix)
        return self._df.map_partitions(_validate_partition, fields=fields, backend=backend, country=country,
                                       datasets=list(datasets), prefix=prefix, cache_dir=_cache_site(cache),
                                       concurrency=concurrency, meta=meta)

    def search(self, top: int = 3, *, backend: BackendLike = None, mapping: Mapping[str, str] | None = None,
               country: str = "USA", search_type: str = "singleline", datasets: Sequence[str] = (),
               prefix: str = addresses.PREFIX, cache: CacheArg = None, concurrency: int | None = None) -> Any:
        addresses.check_top(top)
        fields = addresses.address_fields(self._df.columns, mapping, prefix, addresses.search_names(top))
        meta = attach(self._df._meta, addresses.typed_search([], top), prefix)
        return self._df.map_partitions(_search_partition, top=top, fields=fields, backend=backend,
                                       country=country, search_type=search_type, datasets=list(datasets),
                                       prefix=prefix, cache_dir=_cache_site(cache), concurrency=concurrency,
                                       meta=meta)
