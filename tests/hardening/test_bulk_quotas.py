"""Issue 30, parts 1, 2 and 5 (bulk): a caller's batches are bounded (open and kept batches, addresses, bytes; a
disk floor for everyone), work is shared round-robin between callers, the list is paginated, `datasets` are checked,
numbers are range-checked and batch bodies are bounded while they arrive. Against real `dqkit serve --demo`
processes on 127.0.0.1 with their batches in a temporary folder."""

from __future__ import annotations

import contextlib
import itertools
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from dqkit.contract.address_bulk import BatchConfig, BatchStatus
from dqkit.datagen.demo_reference import generate
from dqkit.server.testing import ServedProcess, serve_process

A, B = "bulk-tenant-a-7c1e", "bulk-tenant-b-93fd"
P = "/address/bulk/v1/batches"


def demo_addresses(n: int) -> list[str]:
    return [f"{r[2]} {r[3]} {r[4]}".strip() + f", {r[5]} {r[7]} {r[8]}" for r in itertools.islice(generate(), n)]


def _batch(texts: list[str], **defaults: Any) -> dict[str, Any]:
    return {"addresses": [{"address": t} for t in texts], "defaults": {"country_iso": "USA", **defaults}}


@contextlib.contextmanager
def _server(tmp_path: Path, **env: str) -> Iterator[ServedProcess]:
    with serve_process(tokens=[A, B], demo=True, workers=1,
                       env={"DQKIT_BULK_DIR": str(tmp_path / "bulk"), **env}) as s:
        yield s


def _client(server: ServedProcess, token: str) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers={"Auth-Token": token}, timeout=120)


def _wait_done(client: httpx.Client, batch_id: str, seconds: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        info: dict[str, Any] = client.get(f"{P}/{batch_id}").json()["result"]
        if info["status"] in ("completed", "stopped") or time.monotonic() > deadline:
            return info
        time.sleep(0.1)


def test_a_create_then_stop_loop_stops_at_the_callers_quota_and_another_tenant_finishes(tmp_path: Path) -> None:
    long_text = "1 " + "x" * 990  # the batches: addresses of ~1,000 characters
    with _server(tmp_path, DQKIT_BULK_QUOTA_MB="4") as server, _client(server, A) as a, _client(server, B) as b:
        other = b.post(P, json=_batch(demo_addresses(60))).json()["result"]["batch_id"]
        assert b.post(f"{P}/{other}/start").status_code == 200
        statuses: list[int] = []
        for _ in range(40):  # each create 0.5 MB of addresses, stopped at once: before issue 30 nothing held it
            r = a.post(P, json=_batch([long_text] * 500))
            statuses.append(r.status_code)
            if r.status_code != 200:
                refusal = r.json()["error"]["detail"]
                break
            a.post(f"{P}/{r.json()['result']['batch_id']}/stop")
        assert statuses[-1] == 429 and all(s == 200 for s in statuses[:-1]) and len(statuses) < 40, statuses
        assert "quota of 4.0 MB" in refusal and "DELETE" in refusal, refusal
        assert 2 <= len(statuses) - 1 <= 8
        info = _wait_done(b, other)
        results = b.get(f"{P}/{other}/results").json()["result"]
        assert info["status"] == "completed" and len(results["addresses"]) == 60
        assert all(x.get("confidence") for x in results["addresses"])
        kept = a.get(P).json()["result"]["batches"]
        assert a.delete(f"{P}/{kept[0]['batch_id']}").status_code == 200  # an ended batch goes at once
        assert a.get(f"{P}/{kept[0]['batch_id']}").status_code == 404
        assert a.post(P, json=_batch([long_text] * 500)).status_code == 200  # and frees its room
        assert "Traceback" not in server.log_text()


def test_below_the_disk_floor_creates_get_a_clear_507(tmp_path: Path) -> None:
    with _server(tmp_path, DQKIT_BULK_MIN_FREE_MB=str(10**8)) as server, _client(server, A) as a:
        r = a.post(P, json=_batch(demo_addresses(5)))
        assert r.status_code == 507, r.text
        assert "nearly full" in r.json()["error"]["detail"]
        assert "Traceback" not in server.log_text()


def test_a_batch_at_work_goes_on_when_the_disk_reaches_its_floor(tmp_path: Path) -> None:
    from dqkit.server.bulk import BatchStore, InsufficientStorageError, Quota

    store = BatchStore(tmp_path, Quota(min_free_bytes=0))
    rows = [{"address": "1 Main St", "country_iso": "USA", "datasets": []}] * 3
    running = store.create("me", None, BatchConfig(), rows)
    store.set_status("me", running, BatchStatus.PROCESSING, only_from=("created",))
    store.quota = Quota(min_free_bytes=1 << 60)  # the disk is now below the floor
    with pytest.raises(InsufficientStorageError, match="nearly full"):
        store.create("someone else", None, BatchConfig(), rows)
    assert store.save(running, [(0, b'{"confidence":"Verified match"}')], 1)  # its answers are still written


def test_a_small_batch_is_not_held_behind_another_callers_large_ones(tmp_path: Path) -> None:
    with _server(tmp_path) as server, _client(server, A) as a, _client(server, B) as b:
        big = [b.post(P, json=_batch(demo_addresses(2_000))).json()["result"]["batch_id"] for _ in range(3)]
        for batch_id in big:
            assert b.post(f"{P}/{batch_id}/start").status_code == 200
        small = a.post(P, json=_batch(demo_addresses(10))).json()["result"]["batch_id"]
        assert a.post(f"{P}/{small}/start").status_code == 200
        assert _wait_done(a, small)["status"] == "completed"
        done_by_then = sum(b.get(f"{P}/{i}").json()["result"]["records_processed"] for i in big)
        assert done_by_then < 6_000 / 2, done_by_then  # first in, first out would have finished all 6,000 first
        for batch_id in big:
            b.post(f"{P}/{batch_id}/stop")


def test_the_list_is_paginated_and_datasets_and_numbers_are_checked(tmp_path: Path) -> None:
    with _server(tmp_path) as server, _client(server, A) as a:
        ids = [a.post(P, json=_batch(demo_addresses(2))).json()["result"]["batch_id"] for _ in range(5)]
        first = a.get(P, params={"limit": 2})
        assert [x["batch_id"] for x in first.json()["result"]["batches"]] == ids[:2]
        assert first.headers["X-Total-Count"] == "5" and "offset=2" in first.headers["Link"]
        last = a.get(P, params={"limit": 2, "offset": 4})
        assert [x["batch_id"] for x in last.json()["result"]["batches"]] == ids[4:] and "Link" not in last.headers
        assert len(a.get(P).json()["result"]["batches"]) == 5
        for bad in ({"limit": 0}, {"limit": 5000}, {"limit": "9" * 400}, {"offset": "-1"}):
            assert a.get(P, params=bad).status_code == 400, bad
        r = a.post(P, json=_batch(demo_addresses(2), datasets=["no-such-dataset"]))
        assert r.status_code == 403 and "no-such-dataset" in r.text
        r = a.post(P, json=_batch(demo_addresses(2), max_processing_time="9" * 400))
        assert r.status_code == 400 and "max_processing_time" in r.text
        r = a.post(P, json=_batch(demo_addresses(2), max_processing_time="99999999"))
        assert r.status_code == 400 and "7 days" in r.text
        huge = "9" * 5000
        for method, path, body in (("GET", P, None), ("POST", "/address/validate/v1",
                                                      {"country_iso": "USA", "components": {"unspecified": ["1 x"]}}),
                                   ("POST", "/address/search/v1",
                                    {"country_iso": "USA", "components": {"unspecified": ["1 x"]}})):
            r = a.request(method, path, json=body, headers={"Timeout-Seconds": huge})
            assert r.status_code == 400 and "Timeout-Seconds" in r.text, (path, r.status_code, r.text[:200])
        assert "Traceback" not in server.log_text()


def _rss_mb(pid: int) -> float:
    import psutil

    root = psutil.Process(pid)
    return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)]) / (1 << 20)


def test_held_batch_bodies_cost_the_server_almost_nothing(tmp_path: Path) -> None:
    with _server(tmp_path) as server:
        base = _rss_mb(server.process.pid)
        held: list[socket.socket] = []
        answers: list[bytes] = []
        try:
            for _ in range(30):  # each announces 16 MB and sends 4 MB of it, then waits
                s = socket.create_connection((server.host, server.port), timeout=10)
                s.sendall(f"POST {P} HTTP/1.1\r\nHost: x\r\nAuth-Token: {A}\r\nContent-Type: application/json\r\n"
                          f"Content-Length: {16 << 20}\r\n\r\n".encode())
                with contextlib.suppress(OSError):
                    for _ in range(4):
                        s.sendall(b" " * (1 << 20))
                held.append(s)
            grown = _rss_mb(server.process.pid) - base
            for s in held:
                s.settimeout(0.5)
                with contextlib.suppress(OSError):
                    answers.append(s.recv(200))
        finally:
            for s in held:
                s.close()
        refused = [x for x in answers if x.startswith(b"HTTP/1.1 429")]
        assert len(refused) >= 28, [x[:20] for x in answers]
        assert grown < 30, grown  # under 1 MB per held connection (the start commit held each body: ~4 MB each)
        with httpx.Client(timeout=30) as c:  # the server is fine
            assert c.get(server.url + "/healthz").status_code == 200


def test_a_bulk_body_past_its_own_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with serve_process(tokens=[A], demo=True, workers=1, extra_args=["--max-bulk-body-bytes", "65536"],
                       env={"DQKIT_BULK_DIR": str(tmp_path / "bulk")}) as server, _client(server, A) as a:
        r = a.post(P, json=_batch(demo_addresses(3000)))
        assert r.status_code == 413 and "65536" in r.text
        assert a.post(P, json=_batch(demo_addresses(3))).status_code == 200
