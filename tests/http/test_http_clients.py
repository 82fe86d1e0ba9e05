"""The clients against a real `dqkit serve` on 127.0.0.1: both services, sync and async, inside a running loop."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from http_helpers import TEST_TOKEN

from dqkit.backends.base import AddressBackend, LeadBackend
from dqkit.client import AddressClient, AsyncAddressClient, AsyncLeadClient, LeadClient
from dqkit.contract.address import FormatRequest, LookupKey, LookupRequest, SearchRequest
from dqkit.contract.address_components import AddOns
from dqkit.contract.errors import (
    AuthenticationError,
    BadRequestError,
    DqkitError,
    InputError,
    NotFoundError,
    PermissionDeniedError,
    TransportError,
)
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.server.testing import ServedProcess


def lead(i: int = 0, **kw: str) -> LeadRequest:
    fields: dict[str, Any] = {"first_name": "Mary", "last_name": "Jones", "street1": f"{i + 1} Main St",
                              "city": "Springfield", "state": "IL", "zip": "62701", "cust_ref_no": str(i), **kw}
    return LeadRequest(phones=(Phone(phone_type="H", phone_number="2175550134"),), **fields)


@pytest.fixture(scope="module")
def lead_client(dqkit_server: ServedProcess) -> Iterator[LeadClient]:
    with LeadClient(dqkit_server.url, token=TEST_TOKEN) as client:
        yield client


@pytest.fixture(scope="module")
def address_client(dqkit_server: ServedProcess) -> Iterator[AddressClient]:
    with AddressClient(dqkit_server.url, token=TEST_TOKEN) as client:
        yield client


def test_sync_clients_implement_the_backend_protocols(lead_client: LeadClient,
                                                      address_client: AddressClient) -> None:
    assert isinstance(lead_client, LeadBackend)
    assert isinstance(address_client, AddressBackend)
    assert lead_client.name.startswith("http-lead[") and TEST_TOKEN not in lead_client.name


@pytest.mark.parametrize("fmt", ["json", "xml", "form"])
def test_verify_lead_in_each_format(dqkit_server: ServedProcess, fmt: str) -> None:
    with LeadClient(dqkit_server.url, token=TEST_TOKEN, fmt=fmt) as client:  # type: ignore[arg-type]
        msg = client.verify_lead(lead(7))
    assert msg.message.type == "STATUS" and msg.input_data is not None and msg.input_data.cust_ref_no == "7"


def test_error_outcomes_are_answers_not_exceptions(lead_client: LeadClient, dqkit_server: ServedProcess) -> None:
    assert lead_client.verify_lead(LeadRequest(zip="10001")).result_code == "E600"
    with LeadClient(dqkit_server.url, token=TEST_TOKEN, fmt="json") as pinned:  # the JSON wire refuses '"'
        assert pinned.verify_lead(lead(1, first_name='Ma"ry')).result_code == "E300"  # HTTP 400 + message
    # On its own the client sends that lead on a wire that can carry it (XML), so the vendor reads it.
    assert lead_client.prepare(lead(1, first_name='Ma"ry')).fmt == "xml"
    assert lead_client.verify_lead(lead(1, first_name='Ma"ry')).result_code == "S100"


def test_batch_keeps_input_order_and_carries_reference_ids(lead_client: LeadClient) -> None:
    leads = [lead(i) if i % 5 else LeadRequest(zip=str(i), cust_ref_no=str(i)) for i in range(60)]
    seen: list[int] = []
    items = lead_client.verify_leads(leads, on_item=lambda item: seen.append(item.index))
    assert [it.index for it in items] == list(range(60)) and sorted(seen) == list(range(60))
    for i, it in enumerate(items):
        assert it.ok and it.result is not None and it.result.input_data is not None
        assert it.result.input_data.cust_ref_no == str(i)
        assert it.result.result_code == ("E600" if i % 5 == 0 else it.result.result_code)
    refs = [it.reference_id for it in items]
    assert len(set(refs)) == 60 and all(len(r) == 36 for r in refs)
    assert lead_client.verify_leads([]) == []


def test_sync_client_works_inside_a_running_event_loop(lead_client: LeadClient,
                                                       address_client: AddressClient) -> None:
    async def notebook_cell() -> tuple[str, int]:  # as in Jupyter: a loop is running in this thread
        msg = lead_client.verify_lead(lead(3))
        items = address_client.search_many(["1 Ma", "2 Ma"])
        return msg.result_code, len(items)

    code, n = asyncio.run(notebook_cell())
    assert code.startswith("S") and n == 2


def test_async_clients(dqkit_server: ServedProcess) -> None:
    async def main() -> None:
        async with AsyncLeadClient(dqkit_server.url, token=TEST_TOKEN, max_concurrency=8) as client:
            msg = await client.verify_lead(lead(1), reference_id="my-ref-1")
            assert msg.ok
            items = await client.verify_leads([lead(i) for i in range(20)])
            assert [it.result.input_data.cust_ref_no for it in items if it.result and it.result.input_data] == [
                str(i) for i in range(20)]
        async with AsyncAddressClient(dqkit_server.url, token=TEST_TOKEN) as addr:
            result = await addr.search("1 Ma")
            assert result.result.suggestions
            validated = await addr.validate_many([s.text for s in result.result.suggestions[:3]])
            assert all(it.ok for it in validated) and len(validated) == 3

    asyncio.run(main())


def test_async_client_belongs_to_one_loop(dqkit_server: ServedProcess) -> None:
    client = AsyncLeadClient(dqkit_server.url, token=TEST_TOKEN)
    asyncio.run(client.verify_lead(lead()))
    with pytest.raises(InputError, match="another event loop"):
        asyncio.run(client.verify_lead(lead()))


def test_address_client_operations(address_client: AddressClient) -> None:
    result = address_client.search(SearchRequest.of("1 Ma", country_iso="usa")).result
    final = next(s for s in result.suggestions if s.is_final)
    formatted = address_client.format(final.global_address_key).result
    assert formatted.global_address_key == final.global_address_key and formatted.address.address_line_1
    rich = address_client.format(final.global_address_key, FormatRequest(), AddOns(components=True, metadata=True))
    assert rich.result.components is not None and rich.result.components.country_iso_3 == "USA"
    assert final.format.startswith("http://127.0.0.1:")
    assert address_client.validate(final.text).result.confidence
    group = next((s for s in result.suggestions if not s.is_final), None)
    if group is not None:
        assert address_client.step_in(group.global_address_key).result.suggestions
        assert address_client.refine(group.global_address_key, "1").result is not None
    postcode = final.attribute("postcode") or final.text.rsplit(" ", 1)[-1]
    looked = address_client.lookup(LookupRequest(key=LookupKey(postcode)))
    assert looked.addresses and looked.addresses[0].format.startswith("http://")
    assert [d.id for d in address_client.datasets("usa")] == ["us-demo-synthetic"]  # the demo, asked for
    keys = [s.global_address_key for s in result.suggestions if s.is_final][:3]
    items = address_client.format_many([*keys, "bogus-key"])
    assert [it.ok for it in items] == [True] * len(keys) + [False]
    assert isinstance(items[-1].error, NotFoundError) and items[-1].error.reference_id == items[-1].reference_id


def test_errors_are_typed_and_keep_the_token_out(dqkit_server: ServedProcess, address_client: AddressClient,
                                                  caplog: pytest.LogCaptureFixture) -> None:
    with pytest.raises(NotFoundError) as nf:
        address_client.format("no-such-key", reference_id="ref-nf")
    assert nf.value.status == 404 and nf.value.reference_id == "ref-nf" and "ref-nf" in str(nf.value)
    with pytest.raises(BadRequestError):
        address_client.search(msgspec.structs.replace(SearchRequest.of("1"), max_suggestions=0))
    with pytest.raises(PermissionDeniedError):
        address_client.search(SearchRequest.of("1 Main", datasets=["gb-address"]))
    wrong = "wrong-token-value-123"
    caplog.set_level(logging.DEBUG)
    with AddressClient(dqkit_server.url, token=wrong) as bad, pytest.raises(AuthenticationError) as auth:
        bad.datasets()
    err = auth.value
    texts = [str(err), repr(err), repr(err.error), str(err.__cause__), str(err.__context__), caplog.text]
    assert all(wrong not in t and TEST_TOKEN not in t for t in texts)
    assert err.__cause__ is None and err.__context__ is None


def test_connection_refused_is_a_transport_error_after_retries() -> None:
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    with LeadClient(f"http://127.0.0.1:{port}", token="t", max_attempts=2, backoff_base=0.01) as client:
        with pytest.raises(TransportError, match="after 2 tries"):
            client.verify_lead(lead())
        items = client.verify_leads([lead(0), lead(1)])
    assert [type(it.error) for it in items] == [TransportError, TransportError]
    assert all(isinstance(it.error, DqkitError) and it.result is None for it in items)


def test_one_background_loop_thread_for_all_sync_clients(lead_client: LeadClient,
                                                         address_client: AddressClient) -> None:
    lead_client.verify_lead(lead())
    address_client.datasets()
    names = [t.name for t in threading.enumerate() if t.name == "dqkit-client-loop"]
    assert names == ["dqkit-client-loop"]
