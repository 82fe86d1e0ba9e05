"""Bulk batches (`/address/bulk/v1/batches`) of a real `dqkit serve --demo`, every request and answer checked
against the vendor's published schemas; a batch of 10,000 demo addresses completes through the published flow,
through `AddressClient.bulk` and through `df.addr.validate(bulk=True)`; a stopped server's batch goes on after a
restart; batches are the caller's and are removed after their time (issue 22 part 2)."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest
from conformance_helpers import Check

from dqkit.client.address import AddressClient, AsyncAddressClient
from dqkit.contract.address_bulk import BatchConfig, BatchStatus
from dqkit.contract.errors import RateLimitError
from dqkit.datagen.demo_reference import generate
from dqkit.server.bulk import MAX_OPEN_BATCHES, BatchStore
from dqkit.server.testing import ServedProcess, serve_process

pytestmark = pytest.mark.shared

TOKEN = "bulk-token"
OTHER = "another-customer"
P = "/address/bulk/v1/batches"
CREATE, LIST, START = f"POST {P}", f"GET {P}", f"POST {P}/{{batch_id}}/start"
STATUS, RESULTS, STOP = f"GET {P}/{{batch_id}}", f"GET {P}/{{batch_id}}/results", f"POST {P}/{{batch_id}}/stop"


def demo_addresses(n: int) -> list[str]:
    """Real addresses of the demo reference `dqkit serve --demo` answers from, as people write them."""
    return [f"{r[2]} {r[3]} {r[4]}".strip() + f", {r[5]} {r[7]} {r[8]}"
            for r in itertools.islice(generate(), n)]


@pytest.fixture(scope="module")
def bulk_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bulk")


@pytest.fixture(scope="module")
def server(bulk_dir: Path) -> Iterator[ServedProcess]:
    with serve_process(tokens=[TOKEN, OTHER], demo=True, env={"DQKIT_BULK_DIR": str(bulk_dir)}) as s:
        yield s


@pytest.fixture(scope="module")
def http(server: ServedProcess) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, headers={"Auth-Token": TOKEN}, timeout=60) as c:
        yield c


def call(http: httpx.Client, op: str, path: str, check: Check, body: Any = None, **headers: str) -> Any:
    r = http.request(op.split()[0], path, json=body, headers=headers)
    assert r.status_code == 200, r.text
    check(op, r.json())
    return r.json()


def wait_ended(http: httpx.Client, batch_id: str, check: Check) -> dict[str, Any]:
    for _ in range(3000):  # polls, not a time limit: the batch ends or the test's own timeout stops it
        st: dict[str, Any] = call(http, STATUS, f"{P}/{batch_id}", check)["result"]
        if st["status"] in ("completed", "stopped"):
            return st
        time.sleep(0.1)
    raise AssertionError(f"batch {batch_id} never ended")


def test_ten_thousand_addresses_through_the_published_flow(http: httpx.Client, answer_schema: Check,
                                                           request_schema: Check) -> None:
    texts = demo_addresses(10_000)
    body = {"defaults": {"country_iso": "USA", "batch_reference_id": "flow-10k"},
            "addresses": [{"address": t} for t in texts[:-1]] + [{"address": "zzzz qqqq", "country_iso": "USA"}]}
    request_schema(CREATE, body)
    created = call(http, CREATE, P, answer_schema, body, **{"Add-Components": "true", "Add-Metadata": "true"})
    batch_id = created["result"]["batch_id"]
    assert created["result"] == {"batch_id": batch_id, "batch_reference_id": "flow-10k", "status": "created"}
    started = call(http, START, f"{P}/{batch_id}/start", answer_schema)
    assert started["result"]["status"] == "processing"
    # not blocking other requests: a search is answered while the batch works
    searched = http.post("/address/search/v1", json={"country_iso": "USA", "components": {"unspecified": [texts[5]]}})
    assert searched.status_code == 200 and searched.json()["result"]["suggestions"]
    status = call(http, STATUS, f"{P}/{batch_id}", answer_schema, **{"Add-Metadata": "true"})
    assert status["metadata"]["batch_config"]["add_components"] is True
    ended = wait_ended(http, batch_id, answer_schema)
    assert ended["status"] == "completed" and ended["records"] == ended["records_processed"] == 10_000
    assert ended["date_started"] and ended["date_ended"]
    results = call(http, RESULTS, f"{P}/{batch_id}/results", answer_schema)["result"]
    got = results["addresses"]
    assert [a["address"] for a in got] == [*texts[:-1], "zzzz qqqq"]  # every address, in input order
    stats = {s["name"]: s["value"] for s in results["statistics"]}
    assert sum(stats.values()) == 10_000 and stats["Verified match"] >= 9_900 and stats["No matches"] >= 1
    first = got[0]
    assert first["confidence"] == "Verified match" and first["components"]["country_iso_3"] == "USA"
    assert first["metadata"] and first["addresses_formatted"][0]["address"]["region"]
    assert got[-1]["confidence"] == "No matches" and "addresses_formatted" not in got[-1]
    listed = call(http, LIST, P, answer_schema)["result"]["batches"]
    assert batch_id in {b["batch_id"] for b in listed}


def test_components_and_metadata_only_when_asked(http: httpx.Client, answer_schema: Check) -> None:
    created = call(http, CREATE, P, answer_schema, {"defaults": {"country_iso": "usa"},
                                                    "addresses": [{"address": demo_addresses(1)[0]}]})
    batch_id = created["result"]["batch_id"]
    call(http, START, f"{P}/{batch_id}/start", answer_schema)
    wait_ended(http, batch_id, answer_schema)
    one = call(http, RESULTS, f"{P}/{batch_id}/results", answer_schema)["result"]["addresses"][0]
    assert one["confidence"] == "Verified match" and "components" not in one and "metadata" not in one


@pytest.mark.parametrize(("body", "words"), [
    ({"addresses": []}, "1 to 10,000"),
    ({"addresses": [{"address": "1 Main St"}] * 10_001, "defaults": {"country_iso": "USA"}}, "1 to 10,000"),
    ({"addresses": [{"address": "x" * 1001, "country_iso": "USA"}]}, "addresses[0].address"),
    ({"addresses": [{"address": "1 Main St"}]}, "no country_iso"),
    ({"addresses": [{"address": "1 Main St", "country_iso": "USA", "colour": "red"}]}, "colour"),
    ({"addresses": [{"address": "1 Main St"}], "defaults": {"country_iso": "USA", "max_processing_time": "soon"}},
     "max_processing_time"),
    ({"addresses": [{"address": "1 Main St"}], "defaults": {"country_iso": "USA", "batch_reference_id": "a<b"}},
     "batch_reference_id"),
])
def test_bad_batches_get_a_400_naming_what_is_wrong(http: httpx.Client, body: Any, words: str) -> None:
    r = http.post(P, json=body)
    assert r.status_code == 400 and words in r.json()["error"]["detail"], r.text


def test_max_processing_time_stops_with_its_reason_and_every_address_comes_back(
        http: httpx.Client, answer_schema: Check) -> None:
    texts = demo_addresses(10_000)  # about 14 s of work on a loaded 2-core machine: far past 1 s
    created = call(http, CREATE, P, answer_schema, {"defaults": {"country_iso": "USA", "max_processing_time": "1"},
                                                    "addresses": [{"address": t} for t in texts]})
    batch_id = created["result"]["batch_id"]
    call(http, START, f"{P}/{batch_id}/start", answer_schema)
    ended = wait_ended(http, batch_id, answer_schema)
    assert ended["status"] == "stopped" and "max_processing_time" in ended["reason"], ended
    results = call(http, RESULTS, f"{P}/{batch_id}/results", answer_schema)["result"]
    assert [a["address"] for a in results["addresses"]] == texts
    stats = {s["name"]: s["value"] for s in results["statistics"]}
    assert stats["Not processed"] == 10_000 - ended["records_processed"] > 0
    assert all("confidence" not in a for a in results["addresses"][ended["records_processed"]:])


def test_stop_keeps_what_was_done_and_other_callers_see_nothing(http: httpx.Client, server: ServedProcess,
                                                                 answer_schema: Check) -> None:
    texts = demo_addresses(3_000)
    created = call(http, CREATE, P, answer_schema, {"defaults": {"country_iso": "USA"},
                                                    "addresses": [{"address": t} for t in texts]})
    batch_id = created["result"]["batch_id"]
    call(http, START, f"{P}/{batch_id}/start", answer_schema)
    stopped = call(http, STOP, f"{P}/{batch_id}/stop", answer_schema)["result"]
    assert stopped["status"] == "stopped"
    st = call(http, STATUS, f"{P}/{batch_id}", answer_schema)["result"]
    assert st["status"] == "stopped" and st["reason"] == "stopped by the client"
    results = call(http, RESULTS, f"{P}/{batch_id}/results", answer_schema)["result"]
    assert [a["address"] for a in results["addresses"]] == texts
    other = {"Auth-Token": OTHER}
    assert http.get(f"{P}/{batch_id}", headers=other).status_code == 404
    assert http.get(f"{P}/{batch_id}/results", headers=other).status_code == 404
    assert http.post(f"{P}/{batch_id}/stop", headers=other).status_code == 404
    assert batch_id not in {b["batch_id"] for b in http.get(P, headers=other).json()["result"]["batches"]}
    assert http.get(f"{P}/no-such-batch").status_code == 404


def test_a_restarted_server_finishes_the_batch(tmp_path: Path) -> None:
    texts = demo_addresses(10_000)
    env = {"DQKIT_BULK_DIR": str(tmp_path)}
    with serve_process(tokens=[TOKEN], demo=True, env=env) as first, \
            httpx.Client(base_url=first.url, headers={"Auth-Token": TOKEN}, timeout=60) as c:
        batch_id = c.post(P, json={"defaults": {"country_iso": "USA"},
                                   "addresses": [{"address": t} for t in texts]}).json()["result"]["batch_id"]
        c.post(f"{P}/{batch_id}/start")
        for _ in range(3000):
            st = c.get(f"{P}/{batch_id}").json()["result"]
            if st["records_processed"]:
                break
            time.sleep(0.05)
        assert st["status"] == "processing", st  # stopped mid-batch
    with serve_process(tokens=[TOKEN], demo=True, env=env) as second, \
            httpx.Client(base_url=second.url, headers={"Auth-Token": TOKEN}, timeout=60) as c:
        for _ in range(6000):
            st = c.get(f"{P}/{batch_id}").json()["result"]
            if st["status"] != "processing":
                break
            time.sleep(0.1)
        assert st["status"] == "completed" and st["records_processed"] == 10_000
        got = c.get(f"{P}/{batch_id}/results").json()["result"]["addresses"]
        assert [a["address"] for a in got] == texts and all(a["confidence"] for a in got)


def test_batches_are_removed_after_their_time(tmp_path: Path) -> None:
    store = BatchStore(tmp_path)
    rows = [{"address": "1 Main St", "country_iso": "USA", "datasets": []}]
    ended = store.create("me", None, BatchConfig(), rows)
    store.set_status("me", ended, BatchStatus.PROCESSING, only_from=("created",))
    store.finish(ended, BatchStatus.COMPLETED)
    never_started = store.create("me", None, BatchConfig(), rows)
    running = store.create("me", None, BatchConfig(), rows)
    store.set_status("me", running, BatchStatus.PROCESSING, only_from=("created",))
    assert store.purge(time.time() - 3600) == 0  # younger than the keep time: kept
    assert store.purge(time.time() + 1) == 2  # past it: the ended and the never started ones go
    assert store.ids("me") == [running]  # a batch at work is never removed
    assert store.answers(ended) == [] and store.answers(never_started) == []


def test_a_caller_holds_a_bounded_number_of_open_batches(tmp_path: Path) -> None:
    store = BatchStore(tmp_path)
    rows = [{"address": "1 Main St", "country_iso": "USA", "datasets": []}]
    first = [store.create("me", None, BatchConfig(), rows) for _ in range(MAX_OPEN_BATCHES)]
    with pytest.raises(RateLimitError, match="at most"):
        store.create("me", None, BatchConfig(), rows)
    store.create("someone else", None, BatchConfig(), rows)  # others are not held up
    store.set_status("me", first[0], BatchStatus.STOPPED, only_from=("created",))
    store.create("me", None, BatchConfig(), rows)  # one ended: room for one more


def test_client_bulk_sync_async_progress_and_resume(server: ServedProcess) -> None:
    texts = demo_addresses(1_200)
    seen: list[tuple[int, int]] = []
    with AddressClient(server.url, token=OTHER) as client:
        with pytest.raises(RuntimeError, match="interrupted"):  # once the first batch is on its way
            client.bulk(texts, batch_size=500, on_progress=lambda d, t: _interrupt(d, t))
        before = _batches(server, OTHER)
        out = client.bulk(texts, batch_size=500, progress=True, on_progress=lambda d, t: seen.append((d, t)))
        after = _batches(server, OTHER)
    assert [a.address for a in out] == texts and all(a.confidence == "Verified match" for a in out)
    assert seen[-1] == (1_200, 1_200)
    assert len(before) == 1 and len(after) == 3  # the interrupted batch was found again, not sent twice

    async def run() -> list[Any]:
        async with AsyncAddressClient(server.url, token=OTHER) as a:
            return await a.bulk(texts[:10], batch_size=5)

    import asyncio

    assert [a.address for a in asyncio.run(run())] == texts[:10]


def _interrupt(done: int, total: int) -> None:
    raise RuntimeError("interrupted")


def _batches(server: ServedProcess, token: str) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = httpx.get(server.url + P, headers={"Auth-Token": token}).json()["result"]["batches"]
    return got


def test_frame_validate_bulk_ten_thousand_rows(server: ServedProcess, tmp_path: Path) -> None:
    texts = demo_addresses(10_000)
    df = pd.DataFrame({"address": texts, "id": range(10_000)})
    with AddressClient(server.url, token=TOKEN) as client:
        out = df.addr.validate(backend=client, bulk=True, cache=tmp_path / "cache", progress=False)
    assert out["id"].tolist() == list(range(10_000))
    assert (out["addr_confidence"] == "Verified match").sum() >= 9_900
    assert out["addr_address_line_1"].iloc[0].upper() == texts[0].split(",")[0]
    with pytest.raises(Exception, match="bulk"):
        pd.DataFrame({"address": texts[:1]}).addr.validate(bulk=True, reference="demo")
