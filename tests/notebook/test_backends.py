"""Choosing a backend (`dqkit.backends.select`), and the accessors over HTTP against a real `dqkit serve`:
the same answers as the local engine, the HTTP client's concurrent batches under the pipeline."""

from __future__ import annotations

import pickle

import pandas as pd
import pytest

import dqkit.notebook  # noqa: F401
from dqkit.backends.local import LocalBackend
from dqkit.backends.select import BackendSpec, address_backend, backend_spec, is_remote, lead_backend
from dqkit.contract.errors import InputError
from dqkit.notebook.samples import messy_addresses, sample_leads
from dqkit.server.testing import ServedProcess, serve_fixture

TOKEN = "notebook-test-token"
served = serve_fixture(scope="module", tokens=[TOKEN], demo=True)


def test_string_choices() -> None:
    assert backend_spec(None) == backend_spec("local") == BackendSpec("local")
    spec = backend_spec("http://127.0.0.1:8080/", token="s3cret")
    assert spec.kind == "serve" and spec.url == "http://127.0.0.1:8080"
    assert "s3cret" not in repr(spec)
    assert pickle.loads(pickle.dumps(spec)) == spec  # can travel to Dask workers
    assert backend_spec("vendor").kind == "vendor"
    with pytest.raises(InputError, match="unknown backend"):
        backend_spec("ftp://example")
    with pytest.raises(InputError):
        BackendSpec("serve")  # a URL is needed


def test_local_is_one_shared_instance_for_both_services() -> None:
    lead, addr = lead_backend(), address_backend("local")
    assert isinstance(lead, LocalBackend) and lead is addr and lead is lead_backend("local")
    assert not is_remote(lead)
    own = LocalBackend()
    assert lead_backend(own) is own


def test_leads_over_http_match_the_local_engine(served: ServedProcess) -> None:
    leads = sample_leads().iloc[:150]
    spec = BackendSpec("serve", url=served.url, token=TOKEN)
    client = lead_backend(spec)
    assert is_remote(client) and client.name.startswith("http-lead[")
    over_http = leads.leads.verify(backend=spec, cache=False, concurrency=8)
    local = leads.leads.verify(backend=LocalBackend(), cache=False)
    # The JSON wire reserves `"` and `&` (seed 000, section 7: E300): the client sends those leads as XML, so the
    # service reads them as the local engine does (E200 for the '&').
    reserved = leads.apply(lambda row: any(('"' in v or "&" in v) for v in row), axis=1)
    assert reserved.any() and (over_http.loc[reserved, "lead_sent"].str.contains("sent as XML")).all()
    assert (over_http.loc[reserved, "lead_result_code"] != "E300").all()
    cols = [c for c in local.columns if c not in ("lead_transaction_id", "lead_reference", "lead_reference_date",
                                                  "lead_sent")]
    pd.testing.assert_frame_equal(over_http[cols], local[cols])
    # The service names its reference (X-Dqkit-Reference) and itself: the output says both.
    assert (over_http["lead_reference"] == local["lead_reference"]).all()
    assert (over_http["lead_service"] == f"{served.url}/search").all()


def test_addresses_over_http_match_the_local_engine(served: ServedProcess) -> None:
    addrs = messy_addresses(40, seed=11)
    spec = BackendSpec("serve", url=served.url, token=TOKEN)
    over_http = addrs.addr.validate(backend=spec, cache=False)
    local = addrs.addr.validate(backend="demo", cache=False)
    same = [c for c in local.columns if c not in ("addr_reference", "addr_reference_date", "addr_note")]
    pd.testing.assert_frame_equal(over_http[same], local[same])
    assert (local["addr_reference"] == "us-demo-synthetic").all() and local["addr_note"].str.contains("synthetic").all()
    assert over_http["addr_note"].str.contains("remote service").all()  # the client cannot name the server's data


def test_a_wrong_token_is_recorded_on_every_row_not_raised(served: ServedProcess) -> None:
    leads = sample_leads().iloc[:5]
    out = leads.leads.verify(backend=BackendSpec("serve", url=served.url, token="wrong"), cache=False)
    assert len(out) == 5 and (out["lead_result_type"] == "FAILED").all()
    assert out["lead_result_value"].str.contains("401").all()
    assert not out["lead_result_value"].str.contains("wrong").any()  # the token never shows
