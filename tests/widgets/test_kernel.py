"""The widget's channel inside a real ipykernel, driven over ZMQ the way JupyterLab drives it (no browser).

This is where the threading matters: a remote backend's calls run on the worker thread, but the answer is sent
and `.value` set on the kernel's own thread, where observers run.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def kernel() -> Iterator[Any]:
    from jupyter_client.manager import start_new_kernel

    km, kc = start_new_kernel(kernel_name="python3", startup_timeout=60)
    try:
        yield kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def run(kc: Any, code: str) -> str:
    out: list[str] = []

    def hook(msg: dict[str, Any]) -> None:
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["msg_type"] == "error":
            out.append("\n".join(msg["content"]["traceback"]))

    reply = kc.execute_interactive(code, timeout=60, output_hook=hook)
    assert reply["content"]["status"] == "ok", "".join(out)
    return "".join(out)


def send(kc: Any, comm_id: str, content: dict[str, Any]) -> None:
    msg = kc.session.msg("comm_msg", {"comm_id": comm_id, "data": {"method": "custom", "content": content}})
    kc.shell_channel.send(msg)


def answers(kc: Any, n: int, timeout: float = 30) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The next `n` custom answers on iopub, and the state updates seen meanwhile."""
    got: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while len(got) < n:
        msg = kc.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
        if msg["msg_type"] != "comm_msg":
            continue
        data = msg["content"]["data"]
        if data.get("method") == "custom":
            got.append(data["content"])
        elif data.get("method") == "update":
            updates.append(data["state"])
    return got, updates


def request(op: str, id_: int, **params: Any) -> dict[str, Any]:
    return {"proto": "dqkit.autocomplete.v1", "kind": "request", "id": id_, "op": op, "params": params}


@pytest.mark.parametrize("threaded", [False, True])
def test_requests_are_answered_and_value_set_on_the_kernel_thread(kernel: Any, threaded: bool) -> None:
    comm_id = run(kernel, f"""
import sys, threading
sys.path.insert(0, {str(HERE)!r})
from widget_fakes import FakeBackend
from dqkit.widgets import AddressAutocomplete
fb = FakeBackend()
w = AddressAutocomplete(fb, threaded={threaded})
seen = []
w.observe(lambda ch: seen.append(threading.current_thread() is threading.main_thread()), "value")
print(w.comm.comm_id, end="")
""")
    send(kernel, comm_id, request("search", 1, text="7 Elm", country="USA"))
    send(kernel, comm_id, request("format", 2, key="F-7-ELM"))
    send(kernel, comm_id, request("format", 3, key="nope"))
    got, updates = answers(kernel, 3)
    by_id = {a["id"]: a for a in got}
    assert by_id[1]["ok"] and by_id[1]["result"]["suggestions"][0]["global_address_key"] == "F-7-ELM"
    assert by_id[2]["result"]["address"]["locality"] == "Dover"
    assert by_id[3]["error"]["type"] == "NotFoundError"
    assert any(u.get("value", {}).get("address_line_1") == "7 Elm Ave" for u in updates), "value synced"
    report = json.loads(run(kernel, "import json; print(json.dumps([seen, w.value['address_line_1'], "
                                    "sorted(fb.threads)]))"))
    worker = ["dqkit-autocomplete"] if threaded else ["MainThread"]
    assert report == [[True], "7 Elm Ave", worker]
