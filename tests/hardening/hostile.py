"""Raw-socket helpers of the hostile-client suite (bounded: every read has a timeout and a size cap)."""

from __future__ import annotations

import contextlib
import socket

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
