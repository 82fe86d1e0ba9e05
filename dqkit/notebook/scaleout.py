"""The accessors on Dask DataFrames: the pandas code run partition by partition, so results are the same.

Columns are resolved once, on the client, against the Dask frame's columns (a wrong mapping fails at once, not on
a worker); each partition then runs the pandas accessor with that exact mapping. The backend travels as a choice
("local", a URL, a BackendSpec) and is built once per worker process; a backend object is sent as it is (it must
pickle). Workers share the cache file of the client's cache directory (SQLite in WAL mode takes several writers),
so a rerun on Dask, or on pandas after Dask, costs nothing either. Progress is Dask's (its dashboard or
`dask.diagnostics.ProgressBar`), so per-partition bars are off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from dqkit.backends.select import BackendLike
from dqkit.notebook import addresses, leads
from dqkit.notebook.cache import CacheUnavailable, ResultCache
from dqkit.notebook.frames import CacheArg, attach
from dqkit.notebook.settings import options


def _cache_dir(cache: CacheArg) -> str | None:
    if isinstance(cache, ResultCache):
        return str(cache.path.parent)
    if cache is False or (cache is None and not options.cache):
        return None
    return str(options.cache_directory())


def _worker_cache(cache_dir: str | None) -> CacheArg:
    """The client's cache file, opened once per worker process (none if it cannot be opened there)."""
    if cache_dir is None:
        return False
    try:
        return ResultCache.in_directory(Path(cache_dir))
    except CacheUnavailable:
        return False


def _verify_partition(pdf: pd.DataFrame, *, fields: dict[str, str], backend: BackendLike, prefix: str,
                      cache_dir: str | None, concurrency: int | None, chunk_size: int | None) -> pd.DataFrame:
    return leads.verify(pdf, backend=backend, mapping=fields, prefix=prefix, cache=_worker_cache(cache_dir),
                        progress=False, concurrency=concurrency, chunk_size=chunk_size, all_columns=True)


def _validate_partition(pdf: pd.DataFrame, *, fields: dict[str, str], backend: BackendLike, country: str,
                        datasets: Sequence[str], prefix: str, cache_dir: str | None,
                        concurrency: int | None) -> pd.DataFrame:
    return addresses.validate(pdf, backend=backend, mapping=fields, country=country, datasets=datasets,
                              prefix=prefix, cache=_worker_cache(cache_dir), progress=False,
                              concurrency=concurrency)


def _search_partition(pdf: pd.DataFrame, *, top: int, fields: dict[str, str], backend: BackendLike, country: str,
                      search_type: str, datasets: Sequence[str], prefix: str, cache_dir: str | None,
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
        return self._df.map_partitions(_verify_partition, fields=fields, backend=backend, prefix=prefix,
                                       cache_dir=_cache_dir(cache), concurrency=concurrency,
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
                                       datasets=list(datasets), prefix=prefix, cache_dir=_cache_dir(cache),
                                       concurrency=concurrency, meta=meta)

    def search(self, top: int = 3, *, backend: BackendLike = None, mapping: Mapping[str, str] | None = None,
               country: str = "USA", search_type: str = "singleline", datasets: Sequence[str] = (),
               prefix: str = addresses.PREFIX, cache: CacheArg = None, concurrency: int | None = None) -> Any:
        addresses.check_top(top)
        fields = addresses.address_fields(self._df.columns, mapping, prefix, addresses.search_names(top))
        meta = attach(self._df._meta, addresses.typed_search([], top), prefix)
        return self._df.map_partitions(_search_partition, top=top, fields=fields, backend=backend,
                                       country=country, search_type=search_type, datasets=list(datasets),
                                       prefix=prefix, cache_dir=_cache_dir(cache), concurrency=concurrency,
                                       meta=meta)
