"""Run the app under uvicorn on a socket we bind ourselves (so `--port 0` works and the real port is printed).

Logging: uvicorn's access log is kept (it is how operators see traffic) behind a filter that blanks every query
string value whose name looks like a credential and replaces any configured token text with `***`. The gate
already refuses such requests and blanks the query string in the scope; the filter is the second guard.
"""

from __future__ import annotations

import logging
import re
import socket
import sys
from typing import Any, Final

from dqkit.server.config import ServerConfig

LISTENING_PREFIX: Final = "dqkit serve: listening on "
_QUERY_TOKEN = re.compile(r"(?i)([?&](?:auth[-_]?token|token|access[-_]?token|api[-_]?key|api[-_]?token)=)[^&\s\"]*")


class RedactSecrets(logging.Filter):
    """Blanks credentials in log records: token-like query parameters and the configured token values."""

    def __init__(self, secrets: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self._secrets = tuple(sorted((s for s in secrets if s), key=len, reverse=True))

    def _clean(self, text: str) -> str:
        text = _QUERY_TOKEN.sub(r"\1***", text)
        for s in self._secrets:
            text = text.replace(s, "***")
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self._clean(a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = self._clean(record.msg)
        return True


def log_config(level: str, secrets: frozenset[str]) -> dict[str, Any]:
    """uvicorn's logging setup with the redaction filter on every handler."""
    redact = {"()": RedactSecrets, "secrets": secrets}
    fmt = "%(asctime)s %(levelname)s %(name)s: %(message)s"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"redact": redact},
        "formatters": {
            "default": {"format": fmt},
            "access": {"()": "uvicorn.logging.AccessFormatter",
                       "fmt": '%(asctime)s %(client_addr)s "%(request_line)s" %(status_code)s', "use_colors": False},
        },
        "handlers": {
            "default": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr", "formatter": "default",
                        "filters": ["redact"]},
            "access": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr", "formatter": "access",
                       "filters": ["redact"]},
        },
        "loggers": {
            "uvicorn": {"handlers": ["default"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"level": level.upper()},
            "uvicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
            "dqkit": {"handlers": ["default"], "level": level.upper(), "propagate": False},
        },
    }


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (IPv4 or IPv6; port 0 picks a free one)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def serve(config: ServerConfig, host: str = "127.0.0.1", port: int = 8000, *, log_level: str = "info",
          access_log: bool = True) -> None:
    """Serve until interrupted. Prints one line `dqkit serve: listening on http://HOST:PORT` to stdout."""
    import uvicorn

    from dqkit.server.app import create_app

    sock = bind(host, port)
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    uv_config = uvicorn.Config(
        create_app(config),
        log_config=log_config(log_level, config.tokens),
        access_log=access_log,
        proxy_headers=False,  # the client address is the peer's: --allow-ip must not trust X-Forwarded-For
        server_header=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
    )
    server = uvicorn.Server(uv_config)
    print(f"{LISTENING_PREFIX}http://{shown}:{bound_port}", flush=True)
    sys.stdout.flush()
    server.run(sockets=[sock])
