"""Raw-socket helpers of the hostile-client suite (bounded: every read has a timeout and a size cap)."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn

from dqkit.server.app import create_app
from dqkit.server.config import ServerConfig
from dqkit.server.listeners import bind
from dqkit.server.runner import guarded_protocol
from dqkit.server.testing import ServedProcess

TOKEN = "hardening-token"


def raw(server: ServedProcess, data: bytes, timeout: float = 10.0) -> bytes:
    """Send `data` on a fresh connection and read the answer until the server closes (at most `timeout` s)."""
    with socket.create_connection((server.host, server.port), timeout=timeout) as s:
        with contextlib.suppress(OSError):
            s.sendall(data)
        out = b""
        try:
            while len(out) < 1 << 20:
                chunk = s.recv(65536)
                if not chunk:
                    break
                out += chunk
                if b"\r\n\r\n" in out and b"connection: close" not in out.lower():
                    break
        except (TimeoutError, ConnectionResetError):
            pass
        return out


def status_of(answer: bytes) -> int:
    return int(answer[9:12]) if answer.startswith(b"HTTP/1.1 ") else 0


@contextlib.contextmanager
def served_in_thread(config: ServerConfig, loader: object, *, guarded_cap: int | None = None) -> Iterator[int]:
    """The app with swapped engines (fault injection) under uvicorn in a thread on 127.0.0.1; yields the port.
    With `guarded_cap`, under `dqkit serve`'s guarded protocol with that connection cap."""
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    protocol: Any = "auto" if guarded_cap is None else guarded_protocol(config, guarded_cap)
    server = uvicorn.Server(uvicorn.Config(create_app(config, loader=loader),  # type: ignore[arg-type]
                                           log_level="warning", lifespan="on", access_log=False, http=protocol))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            time.sleep(0.1)
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)
