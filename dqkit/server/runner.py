"""Run the app under uvicorn on a socket we bind ourselves (so `--port 0` works and the real port is printed).

Connections are guarded by `guarded_protocol`, uvicorn's httptools protocol with the limits uvicorn lacks
(docs/server-stack.md says why this and not another server). They hold for every request of a connection, the
pipelined ones (sent before the answer to the previous one) included:
- a request head (request line and headers) must arrive within `header_timeout_seconds` of its first byte (or of
  the connection), whatever the pace of its bytes: slower clients get 408 and are disconnected;
- a head over `max_header_bytes` gets 431 at once: the parser never takes more than that (plus at most one read of
  the socket after the previous request), so an oversized token or header costs nothing;
- a refusal due while an earlier answer is being written waits for it (answers stay in order), reading nothing
  meanwhile; a client that reads nothing of its answers for `send_timeout_seconds` is disconnected (its buffer is
  the transport's high-water mark plus one answer);
- at most `max_connections` connections are open, held below the process's descriptor limit (raised to its hard
  limit at start). At the cap, the connection whose unfinished request (head or body still arriving) has waited
  longest is answered 408 and closed to make room (slow floods evict each other, not clients with complete
  requests); else the longest idle kept-alive connection is closed (HTTP lets a server do that at any time); with
  neither, the new one gets a 503 with Retry-After. Nothing whose request is complete is dropped without an answer.
Refusals carry the vendor's error body and `Connection: close`; the protocol then discards what the client still
sends for a moment, so the client reads the answer instead of a reset.

Logging: uvicorn's access log is kept (it is how operators see traffic) behind a filter that blanks every query
string value whose name looks like a credential, replaces any configured token text with `***` and an address key
in a path (format, step-in, refine) with `<key>` and every query value of an address path but `country_iso`
with `***`. The gate
already refuses such requests and blanks the query string in the scope; the filter is the second guard.
"""

from __future__ import annotations

import asyncio
import logging
import re
import resource
import socket
import sys
from collections import OrderedDict
from dataclasses import replace
from typing import Any, Final

from dqkit.server.config import ServerConfig
from dqkit.server.errors import TITLES, error_bytes
from dqkit.server.listeners import bind as bind  # re-exported: tests and benchmarks bind through the runner

LISTENING_PREFIX: Final = "dqkit serve: listening on "
_QUERY_TOKEN = re.compile(r"(?i)([?&](?:auth[-_]?token|token|access[-_]?token|api[-_]?key|api[-_]?token)=)[^&\s\"]*")
# Address keys ride in the path of format, step-in and refine: even encrypted, a log holds none of them.
_PATH_KEY = re.compile(r"(/address/(?:format/v1|suggestions/(?:refine|stepin)/v1)/)[^\s?\"]+")
# An address path's query string is no part of the API but `country_iso`: any other value (typed text sent where it
# does not belong) is blanked, so no log line holds a typed address.
_ADDRESS_QUERY = re.compile(r"(/address/[^\s?\"]*\?)([^\s\"]*)")


def _kept_query(m: re.Match[str]) -> str:
    pairs = (p.partition("=") for p in m.group(2).split("&"))
    return m.group(1) + "&".join(k + s + (v if k.lower() == "country_iso" else "***") for k, s, v in pairs)


class RedactSecrets(logging.Filter):
    """Blanks credentials in log records: token-like query parameters and the configured token values."""

    def __init__(self, secrets: frozenset[str] = frozenset()) -> None:
        super().__init__()
        self._secrets = tuple(sorted((s for s in secrets if s), key=len, reverse=True))

    def _clean(self, text: str) -> str:
        text = _QUERY_TOKEN.sub(r"\1***", text)
        text = _PATH_KEY.sub(r"\1<key>", text)
        text = _ADDRESS_QUERY.sub(_kept_query, text)
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




DESCRIPTOR_RESERVE: Final = 64  # descriptors kept free for the index, logs, the engines' files
REFUSAL_LINGER_SECONDS: Final = 0.5  # how long a refused connection's input is read and discarded before closing


def raise_descriptor_limit() -> int:
    """Raise this process's soft descriptor limit to its hard limit; the soft limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        want = 65_536 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return soft


def connection_cap(config: ServerConfig, descriptors: int) -> int:
    """Open connections allowed: the configured cap, but always below the descriptor limit."""
    return max(1, min(config.max_connections, descriptors - DESCRIPTOR_RESERVE))


def refusal_bytes(status: int, detail: str, extra: bytes = b"") -> bytes:
    """A whole HTTP/1.1 error answer with the vendor's body that closes the connection."""
    body = error_bytes(status, detail)
    return (f"HTTP/1.1 {status} {TITLES.get(status, 'Error')}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n").encode() + extra + b"\r\n" + body


def guarded_protocol(config: ServerConfig, max_connections: int) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol with head timeout, head size limit, send timeout and connection cap (module
    docstring)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    header_timeout = config.header_timeout_seconds
    send_timeout = config.send_timeout_seconds
    max_head = config.max_header_bytes
    # Connections whose current request is not complete (its head or its body still arriving), oldest request
    # first, and kept-alive connections idle between requests (shared by all connections of the server): the ones
    # to give up when the cap is reached.
    unfinished: OrderedDict[int, GuardedProtocol] = OrderedDict()
    idle: OrderedDict[int, GuardedProtocol] = OrderedDict()
    log = logging.getLogger("dqkit.server")

    class GuardedProtocol(HttpToolsProtocol):
        _head_bytes = 0  # bytes fed to the parser since the current head began (pipelined or not)
        _in_head = False  # the next bytes belong to a request head
        _refused = False
        _pending: tuple[int, str] | None = None  # a refusal waiting for the answer being written to finish
        _head_timer: asyncio.TimerHandle | None = None
        _send_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                victim = next(iter(unfinished.values()), None)
                if victim is None and idle:  # an idle kept-alive connection may be closed at any time (RFC 9112)
                    _, quiet = idle.popitem(last=False)
                    quiet.transport.close()
                    victim = self
                elif victim is None:
                    self.refuse(503, f"the server has {max_connections} open connections, its limit; retry "
                                     "shortly", b"retry-after: 1\r\n")
                    return
                if victim is not self:
                    victim.evict()
            self._in_head = True
            self.on_message_begin_guard()  # a connection that sent nothing yet is waiting for its head too

        # ---- request heads and bodies, every request of the connection (pipelined or not)

        def on_message_begin_guard(self) -> None:
            """A request starts (or a connection opens): it is unfinished, and its head is timed from now."""
            if id(self) not in unfinished:
                unfinished[id(self)] = self
            if self._head_timer is None:
                self._head_timer = self.loop.call_later(header_timeout, self._head_timed_out)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self.on_message_begin_guard()

        def on_headers_complete(self) -> None:
            self._in_head = False
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            unfinished.pop(id(self), None)  # head and body are in: a real request, never evicted
            self._in_head = True  # what follows is the next request's head, counted from zero
            self._head_bytes = 0

        def _answering(self) -> bool:
            """True while an answer is being written: a refusal must wait for it (HTTP answers in order)."""
            return self.cycle is not None and self.cycle.response_started and not self.cycle.response_complete

        def _head_timed_out(self) -> None:
            self._head_timer = None
            if self._in_head:
                self._refuse_in_turn(408, f"the request head did not arrive within {header_timeout:g} s")

        def _refuse_in_turn(self, status: int, detail: str) -> None:
            """Refuse now, or once the answer to an earlier request is written; nothing more is read meanwhile."""
            earlier = self._in_head and self.cycle is not None and not self.cycle.response_complete
            if earlier or self._answering():
                if self._pending is None:
                    self._pending = (status, detail)
                    self.flow.pause_reading()
                return
            self.refuse(status, detail)

        def evict(self) -> None:
            """Give up this unfinished connection for a newcomer at the cap (answered unless an answer is midway)."""
            unfinished.pop(id(self), None)
            if self._answering():
                self.transport.abort()
            else:
                self.refuse(408, "the request was not complete and the server needed the connection")

        def refuse(self, status: int, detail: str, extra: bytes = b"") -> None:
            """Answer `status` now, stop parsing, read and discard the rest for a moment, then close."""
            self._in_head = False
            unfinished.pop(id(self), None)
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            if self._refused or self.transport.is_closing():
                return
            self._refused = True
            peer = f"{self.client[0]}:{self.client[1]}" if self.client else "-"
            log.info("%s - connection refused: %d %s", peer, status, detail)  # one line per refused connection
            self.transport.write(refusal_bytes(status, detail, extra))
            self.flow.resume_reading()  # read (and discard) what the client still sends, so it sees the answer
            if len(self.connections) > max_connections or not self.transport.can_write_eof():
                self.transport.close()  # at the cap: the descriptor is needed now (the answer is still flushed)
                return
            self.transport.write_eof()
            self.loop.call_later(REFUSAL_LINGER_SECONDS, self.transport.close)

        def send_400_response(self, msg: str) -> None:
            self._refuse_in_turn(400, "the request is not valid HTTP/1.1")

        def data_received(self, data: bytes) -> None:
            idle.pop(id(self), None)
            while data and not self._refused and self._pending is None:
                if not self._in_head:  # a body (the parser knows its length): fed whole
                    super().data_received(data)
                    return
                room = max_head - self._head_bytes
                if room <= 0:
                    self._refuse_in_turn(431, f"the request line and headers are over the limit of {max_head} "
                                              "bytes")
                    return
                head, data = data[:room], data[room:]
                self._head_bytes += len(head)
                super().data_received(head)

        def on_response_complete(self) -> None:
            if self._pending is not None:
                self.pipeline.clear()  # requests queued behind the refused one are not answered (the client retries)
            super().on_response_complete()
            if self._pending is not None:
                status, detail = self._pending
                self._pending = None
                self.refuse(status, detail)
            elif not self.transport.is_closing() and not self.pipeline:
                idle[id(self)] = self

        # ---- a client that reads nothing of its answers

        def pause_writing(self) -> None:
            super().pause_writing()
            if self._send_timer is None:
                self._send_timer = self.loop.call_later(send_timeout, self._send_timed_out)

        def resume_writing(self) -> None:
            super().resume_writing()
            if self._send_timer is not None:
                self._send_timer.cancel()
                self._send_timer = None

        def _send_timed_out(self) -> None:
            self._send_timer = None
            peer = f"{self.client[0]}:{self.client[1]}" if self.client else "-"
            log.info("%s - connection dropped: it read none of its answers for %g s", peer, send_timeout)
            self.transport.abort()  # no answer can reach a client that does not read

        def _start_asgi_task(self, cycle: Any, app: Any) -> None:
            self._running = cycle  # uvicorn's `cycle` is the newest request parsed, not the one being answered
            super()._start_asgi_task(cycle, app)

        def connection_lost(self, exc: Exception | None) -> None:
            running: Any = getattr(self, "_running", None)
            if running is not None and not running.response_complete:
                # the answer in progress may be for an earlier request than `cycle` (pipelining): tell it too, or
                # its send would write to the closed transport once the flow control lets it go
                running.disconnected = True
                running.message_event.set()
            self.pipeline.clear()
            unfinished.pop(id(self), None)
            idle.pop(id(self), None)
            for timer in (self._head_timer, self._send_timer):
                if timer is not None:
                    timer.cancel()
            self._head_timer = self._send_timer = None
            super().connection_lost(exc)

    return GuardedProtocol


def serve(config: ServerConfig, host: str = "127.0.0.1", port: int = 8000, *, log_level: str = "info",
          access_log: bool = True) -> int:
    """Serve until interrupted. Prints one line `dqkit serve: listening on http://HOST:PORT` to stdout. With
    `config.workers` > 1, that many processes answer on the one port (`dqkit.server.workers`). The port is this
    server's alone: anything already listening there is an OSError (EADDRINUSE), whatever `config.workers` says."""
    from dqkit.server import workers
    from dqkit.server.listeners import open_listeners

    descriptors = raise_descriptor_limit()
    max_connections = connection_cap(config, descriptors)
    several = config.workers > 1 and workers.can_fork()
    listeners = open_listeners(host, port, config.workers if several else 1)
    bound_host, bound_port = listeners.address
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    print(f"{LISTENING_PREFIX}http://{shown}:{bound_port}", flush=True)
    sys.stdout.flush()

    def run_one(cfg: ServerConfig, sock: socket.socket) -> None:
        _run_server(cfg, sock, log_level=log_level, access_log=access_log, max_connections=max_connections)

    if several:
        return workers.supervise(config, listeners, run_one)
    if config.workers > 1:
        logging.getLogger("dqkit.server").warning("dqkit serve: --workers needs fork(), which this system lacks; "
                                                  "one process serves")
    run_one(replace(config, workers=1), listeners.socket_for(0))
    return 0


def _run_server(config: ServerConfig, sock: socket.socket, *, log_level: str, access_log: bool,
                max_connections: int) -> None:
    """One process answering on `sock` under uvicorn until it is told to stop."""
    import uvicorn

    from dqkit.server.app import create_app

    uv_config = uvicorn.Config(
        create_app(config),
        log_config=log_config(log_level, config.tokens),
        access_log=access_log,
        proxy_headers=False,  # the client address is the peer's: --allow-ip must not trust X-Forwarded-For
        server_header=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
        http=guarded_protocol(config, max_connections),
    )
    uvicorn.Server(uv_config).run(sockets=[sock])
