"""The lead client against a vendor that misbehaves: it echoes the token back, trickles its answer a byte at a
time, answers a gzip that inflates to a gigabyte, nests its JSON ten thousand deep, sends a response header too
large to read. Every lead gets its own outcome (an answer or a dqkit error), in order; the token is in no answer,
no output file, no error and no attribute of one; memory stays bounded; `--timeout` cuts a trickle.

The vendor is a real HTTP server (aiohttp, on 127.0.0.1, in a thread); what it does is chosen per lead by the
lead's FIRST_NAME, so one batch meets every fault.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import resource
import sys
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from aiohttp import web

from dqkit.client import LeadClient
from dqkit.contract.errors import DqkitError, ProtocolError, TransportError
from dqkit.contract.lead import LeadRequest
from dqkit.contract.lead_wire import decode_lead

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analyst"))
from analyst_helpers import dqkit

TOKEN = "tok-3e1a9b7d5c"


def _gzip_bomb(decoded: int) -> bytes:
    """A gzip body of `decoded` zero bytes (about a thousandth of that on the wire)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    parts = [comp.compress(block) for _ in range(decoded >> 20)]
    parts.append(comp.flush())
    return b"".join(parts)


def _message(value: str, first: str = "") -> dict[str, object]:
    return {"ELSGenericMessage": {"TRANSACTION_ID": "1", "InputData": {"LEAD_TRANS_DETAILS": {"FIRST_NAME": first}},
                                  "Message": {"TYPE": "STATUS", "RESULT_CODE": "S100", "VALUE": value}}}


class BadVendor:
    """What to do is read from the lead's FIRST_NAME: echo, trickle, bomb, deep, header, refuse; else answer."""

    def __init__(self) -> None:
        self.url = ""
        self._bomb = _gzip_bomb(1 << 30)
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._main(),), daemon=True)

    async def _search(self, request: web.Request) -> web.StreamResponse:
        lead = decode_lead(await request.read(), request.headers.get("content-type", ""))
        name = lead.first_name if isinstance(lead, LeadRequest) else ""
        token = request.headers.get("auth-token", "")
        if name == "echo":  # the token in the VALUE, the echo, a header, escaped for JSON
            body = json.dumps(_message(f"bad token {token}? {json.dumps(token)}", first=token))
            return web.Response(text=body, content_type="application/json", headers={"X-Dqkit-Reference": token})
        if name == "refuse":
            return web.json_response({"error": {"type": "auth", "title": "Unauthorized",
                                                "detail": f"token {token} is not valid"}}, status=401)
        if name == "trickle":
            resp = web.StreamResponse(headers={"content-type": "application/json"})
            await resp.prepare(request)
            for ch in json.dumps(_message("slowly")):
                await resp.write(ch.encode())
                await asyncio.sleep(1.0)
            return resp
        if name == "bomb":
            return web.Response(body=self._bomb, headers={"content-type": "application/json",
                                                          "content-encoding": "gzip"})
        if name == "gzip":  # a big but honest answer, compressed
            return web.Response(body=gzip.compress(json.dumps(_message("x" * 200_000)).encode()),
                                headers={"content-type": "application/json", "content-encoding": "gzip"})
        if name == "deep":
            return web.Response(text='{"ELSGenericMessage": ' + "[" * 10000 + "]" * 10000 + "}",
                                content_type="application/json")
        if name == "header":
            return web.Response(text=json.dumps(_message("ok")), content_type="application/json",
                                headers={"X-Padding": "x" * 100_000})
        return web.Response(text=json.dumps(_message("fine", first=name)), content_type="application/json")

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        app = web.Application(client_max_size=1 << 20)
        app.router.add_post("/search", self._search)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}"
        self._started.set()
        await self._stop.wait()
        await runner.cleanup()

    def __enter__(self) -> BadVendor:
        self._thread.start()
        assert self._started.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)


@pytest.fixture(scope="module")
def bad_vendor() -> Iterator[BadVendor]:
    with BadVendor() as vendor:
        yield vendor


def _no_token_anywhere(err: BaseException) -> None:
    """Neither the error's text, its repr, its attributes nor anything chained to it holds the token."""
    seen: BaseException | None = err
    while seen is not None:
        assert TOKEN not in str(seen) and TOKEN not in repr(seen)
        assert TOKEN not in repr(vars(seen)) and not hasattr(seen, "request_info")
        for note in getattr(seen, "__notes__", []):
            assert TOKEN not in note
        seen = seen.__cause__ or seen.__context__


def test_every_fault_is_a_per_lead_dqkit_error_and_the_token_never_shows(bad_vendor: BadVendor) -> None:
    names = ["plain", "echo", "bomb", "deep", "header", "refuse", "trickle", "gzip", "plain2"]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with LeadClient(bad_vendor.url, token=TOKEN, timeout=2.0, deadline=3.0, max_attempts=2, backoff_base=0.01,
                    backoff_max=0.02) as client:
        items = client.verify_leads([LeadRequest(first_name=n, last_name="Lee", zip="94501") for n in names])
        header = client.reference_header
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    by = dict(zip(names, items, strict=True))
    assert [it.index for it in items] == list(range(len(names)))
    assert by["plain"].ok and by["plain2"].ok and by["gzip"].ok  # a gzip answer under the cap is read
    # The echoed token is masked in the answer before anything reads it (value, echo, header).
    echo = by["echo"].result
    assert echo is not None and "********" in echo.message.value and TOKEN not in repr(echo)
    assert TOKEN not in header
    # An answer that inflates to 1 GiB is refused once past the cap, without holding it (the issue: 2.3 GB).
    assert isinstance(by["bomb"].error, ProtocolError) and "larger than" in str(by["bomb"].error)
    assert grown_mb < 300, f"the client grew by {grown_mb:.0f} MB reading a gzip bomb"
    assert isinstance(by["deep"].error, ProtocolError) and "nests deeper" in str(by["deep"].error)
    # A response header too large: aiohttp's ClientResponseError, whose request_info holds the Auth-Token, is
    # never what the caller gets.
    assert isinstance(by["header"].error, TransportError), repr(by["header"].error)
    assert by["refuse"].error is not None and "********" in str(by["refuse"].error)
    # The trickle is cut by the deadline (3 s in all), not after six tries of the per-try timeout.
    assert isinstance(by["trickle"].error, TransportError) and "within 3 s in all" in str(by["trickle"].error)
    for it in items:
        if it.error is not None:
            assert isinstance(it.error, DqkitError)
            _no_token_anywhere(it.error)


def test_the_cli_writes_no_echoed_token_and_its_timeout_cuts_a_trickle(bad_vendor: BadVendor,
                                                                       tmp_path: Path) -> None:
    src = tmp_path / "leads.csv"
    pd.DataFrame({"first_name": ["echo", "plain", "bomb"], "last_name": ["Lee"] * 3, "zip": ["94501"] * 3}
                 ).to_csv(src, index=False)
    done = dqkit("verify", str(src), "-o", str(tmp_path / "out.csv"), "--service", bad_vendor.url,
                 env={"DQKIT_LEAD_TOKEN": TOKEN})
    assert done.returncode == 0, done.stderr
    written = (tmp_path / "out.csv").read_text(encoding="utf-8")
    assert TOKEN not in written and TOKEN not in done.stdout + done.stderr and "********" in written
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert list(out["result_type"]) == ["STATUS", "STATUS", "FAILED"]
    trickle = tmp_path / "trickle.csv"
    pd.DataFrame({"first_name": ["trickle"], "last_name": ["Lee"], "zip": ["94501"]}).to_csv(trickle, index=False)
    cut = dqkit("verify", str(trickle), "-o", str(tmp_path / "t.csv"), "--service", bad_vendor.url, "--timeout", "2",
                env={"DQKIT_LEAD_TOKEN": TOKEN})
    assert cut.returncode == 1 and "within 2 s in all" in cut.stderr, cut.stderr
