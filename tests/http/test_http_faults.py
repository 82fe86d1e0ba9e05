"""Retries under injected faults, through `faultproxy.FaultProxy` in front of a real `dqkit serve`.

Proves: 500/503/408-style faults, dropped connections and stalls are retried; 429 waits as the server says; other
4xx are not retried; a 2,000-lead batch under 20% faults returns 2,000 results, none lost, none duplicated, and no
request is sent again after its success (counted at the proxy, per Reference-Id).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from faultproxy import FaultProxy, random_plan, script_plan
from http_helpers import TEST_TOKEN

from dqkit.client import AsyncAddressClient, AsyncLeadClient, LeadClient
from dqkit.contract.errors import BadRequestError, RateLimitError, ServerError, TransportError
from dqkit.contract.lead import LeadRequest
from dqkit.server.testing import ServedProcess

FAST: dict[str, Any] = {"backoff_base": 0.01, "backoff_max": 0.05}


def lead(i: int) -> LeadRequest:
    return LeadRequest(first_name="Ann", last_name="Lee", street1=f"{i + 1} Oak Ave", zip="62701", cust_ref_no=str(i))


@pytest.fixture()
def proxy(dqkit_server: ServedProcess) -> Iterator[FaultProxy]:
    with FaultProxy(dqkit_server.url, stall_seconds=3.0) as p:
        yield p


class Waits:
    """Records the client's sleeps (and really sleeps briefly) so tests can read what it waited for."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        await asyncio.sleep(min(seconds, 0.01))


def run_with(proxy: FaultProxy, faults: list[str | None], **settings: Any) -> tuple[object, Waits]:
    proxy.plan = script_plan(faults)
    waits = Waits()

    async def main() -> object:
        async with AsyncLeadClient(proxy.url, token=TEST_TOKEN, timeout=1.0, **{**FAST, **settings}) as c:
            c._core._sleep = waits
            return await c.verify_lead(lead(1), reference_id="ref-under-test")

    return asyncio.run(main()), waits


@pytest.mark.parametrize("fault", ["500", "503", "drop", "drop_after", "stall"])
def test_retried_faults(proxy: FaultProxy, fault: str) -> None:
    msg, waits = run_with(proxy, [fault, fault])
    assert getattr(msg, "ok", False)
    assert proxy.received["ref-under-test"] == 3 and proxy.delivered_ok["ref-under-test"] == 1
    assert len(waits.asked) == 2 and waits.asked[1] >= waits.asked[0] * 0.5  # backoff between tries


def test_429_waits_as_the_server_says(proxy: FaultProxy) -> None:
    proxy.retry_after = "2"
    msg, waits = run_with(proxy, ["429"])
    assert getattr(msg, "ok", False) and proxy.received["ref-under-test"] == 2
    assert any(w >= 2.0 for w in waits.asked), waits.asked  # Retry-After: 2
    proxy.retry_after = "120"
    proxy.received.clear()
    with pytest.raises(RateLimitError) as err:
        run_with(proxy, ["429"], max_rate_wait=10)  # a wait beyond what the caller allows is not waited out
    assert err.value.retry_after == 120 and proxy.received["ref-under-test"] == 1


def test_other_4xx_are_not_retried(proxy: FaultProxy) -> None:
    proxy.plan = script_plan(["400"])

    async def main() -> None:
        async with AsyncAddressClient(proxy.url, token=TEST_TOKEN, **FAST) as c:
            await c.search("1 Ma", reference_id="ref-400")

    with pytest.raises(BadRequestError):
        asyncio.run(main())
    assert proxy.received["ref-400"] == 1


def test_giving_up_after_max_attempts(proxy: FaultProxy) -> None:
    proxy.plan = script_plan(["500"] * 10)
    with LeadClient(proxy.url, token=TEST_TOKEN, max_attempts=3, **FAST) as client:
        items = client.verify_leads([lead(0)])
    assert isinstance(items[0].error, ServerError) and proxy.received[items[0].reference_id] == 3
    proxy.plan = script_plan(["drop"] * 10)
    with LeadClient(proxy.url, token=TEST_TOKEN, max_attempts=2, **FAST) as client, \
            pytest.raises(TransportError, match="after 2 tries"):
        client.verify_lead(lead(0))


def test_client_side_concurrency_limit(dqkit_server: ServedProcess) -> None:
    in_flight = 0
    peak = 0
    counted = FaultProxy(dqkit_server.url)
    forward = counted._handle

    async def counting(request):  # type: ignore[no-untyped-def]
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        try:
            return await forward(request)
        finally:
            in_flight -= 1

    counted._handle = counting  # type: ignore[method-assign]
    with counted, LeadClient(counted.url, token=TEST_TOKEN, max_concurrency=3) as client:
        items = client.verify_leads([lead(i) for i in range(30)], concurrency=10)
    assert all(it.ok for it in items) and 1 <= peak <= 3


@pytest.mark.slow
def test_2000_leads_under_20_percent_faults(proxy: FaultProxy) -> None:
    proxy.plan = random_plan(0.20, seed=20240605)
    # Stalls end in a dropped connection after 1 s; the client's own timeout is long, so a legitimately slow
    # answer on a busy machine is never given up on (which would make a re-send after success look legitimate).
    proxy.stall_seconds = 1.0
    n = 2000
    with LeadClient(proxy.url, token=TEST_TOKEN, timeout=30, max_attempts=10, max_concurrency=32,
                    backoff_base=0.02, backoff_max=0.2) as client:
        items = client.verify_leads([lead(i) for i in range(n)])
    assert len(items) == n and [it.index for it in items] == list(range(n))
    errors = [it for it in items if not it.ok]
    assert not errors, errors[:3]
    for i, it in enumerate(items):  # each input has its own answer (the echo carries its CUST_REF_NO)
        assert it.result is not None and it.result.input_data is not None
        assert it.result.input_data.cust_ref_no == str(i)
    refs = [it.reference_id for it in items]
    assert len(set(refs)) == n
    # Server-side receipts: every request reached the proxy, faults were really injected, and no request was
    # sent again once a success had been delivered for it.
    assert set(proxy.received) == set(refs)
    assert sum(proxy.faults.values()) >= 0.15 * n and len(proxy.faults) >= 5, proxy.faults
    assert sum(proxy.received.values()) > n
    assert not proxy.sent_after_success, list(proxy.sent_after_success.items())[:5]
    assert all(proxy.delivered_ok[r] == 1 for r in refs)
