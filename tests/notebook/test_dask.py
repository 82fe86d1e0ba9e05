"""The accessors on Dask DataFrames, run on a local cluster of two worker processes, give what pandas gives."""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest

import dqkit.notebook  # noqa: F401  (registers the accessors, Dask's included once dask.dataframe is imported)
from dqkit.contract.errors import InputError
from dqkit.notebook import leads as lead_surface
from dqkit.notebook.samples import messy_addresses, sample_leads

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.slow  # starting two worker processes and their engines takes a while on 2 cores


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as c:
        yield c


def same_results(got: pd.DataFrame, expected: pd.DataFrame, prefix: str, ignore: tuple[str, ...] = ()) -> None:
    """Result columns equal, dtypes included; input columns equal in value (Dask's from_pandas may store text
    input as its own string dtype, which is not ours to change)."""
    assert list(got.columns) == list(expected.columns) and got.index.equals(expected.index)
    results = [c for c in got.columns if str(c).startswith(prefix) and c not in ignore]
    inputs = [c for c in got.columns if not str(c).startswith(prefix)]
    pd.testing.assert_frame_equal(got[results], expected[results])
    pd.testing.assert_frame_equal(got[inputs].astype(object), expected[inputs].astype(object))


def test_leads_verify_on_dask_equals_pandas(client: object) -> None:
    leads = sample_leads().iloc[:300]
    expected = lead_surface.verify(leads, cache=False, all_columns=True)  # partitions keep every column
    ddf = dd.from_pandas(leads, npartitions=4)
    lazy = ddf.leads.verify(cache=False)
    assert list(lazy.columns) == list(expected.columns)
    got = lazy.compute()
    # Every column but the transaction ID, which the engine makes unique per call.
    same_results(got, expected, "lead_", ignore=("lead_transaction_id",))
    assert got["lead_transaction_id"].notna().all()


def test_dask_workers_share_the_cache_with_pandas(client: object) -> None:
    leads = sample_leads().iloc[300:450]
    first = lead_surface.verify(leads, all_columns=True)
    got = dd.from_pandas(leads, npartitions=3).leads.verify().compute()
    same_results(got, first, "lead_")  # transaction IDs included: the workers read the answers pandas cached


def test_address_validate_and_search_on_dask_equal_pandas(client: object) -> None:
    addrs = messy_addresses(60, seed=3)
    ddf = dd.from_pandas(addrs, npartitions=2)
    same_results(ddf.addr.validate(backend="demo", cache=False).compute(),
                 addrs.addr.validate(backend="demo", cache=False), "addr_")
    same_results(ddf.addr.search(top=2, backend="demo", cache=False).compute(),
                 addrs.addr.search(top=2, backend="demo", cache=False), "addr_")


def test_a_wrong_mapping_fails_at_once_on_the_client() -> None:
    ddf = dd.from_pandas(pd.DataFrame({"first_name": ["Ann"], "zip": ["02134"]}), npartitions=1)
    with pytest.raises(InputError, match="not in the input"):
        ddf.leads.verify(mapping={"ZIP": "postcode"})


def _opened_cache(site: object) -> str:
    from dqkit.notebook.scaleout import _worker_cache

    cache = _worker_cache(site)  # type: ignore[arg-type]
    return str(cache.path) if cache is not False and cache is not None else ""  # type: ignore[union-attr]


def test_a_worker_elsewhere_opens_its_own_cache_not_the_clients_path(client: object, tmp_path: object) -> None:
    """No shared disk assumed: the client's cache folder is used by workers of its machine only; a worker told the
    client is on another machine opens its own machine's cache and never creates the client's path."""
    from pathlib import Path

    from dqkit.notebook.scaleout import CacheSite, machine_id

    client_dir = Path(str(tmp_path)) / "client-cache"
    here = client.submit(_opened_cache, CacheSite(str(client_dir), machine_id()), pure=False).result()  # type: ignore[attr-defined]
    assert here.startswith(str(client_dir.resolve()))  # same machine: the client's own cache file
    far_dir = Path(str(tmp_path)) / "far" / "client-cache"
    elsewhere = client.submit(_opened_cache, CacheSite(str(far_dir), "another-machine"), pure=False).result()  # type: ignore[attr-defined]
    assert elsewhere and not elsewhere.startswith(str(far_dir)) and not far_dir.exists()
