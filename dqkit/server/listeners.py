"""The listening sockets of `dqkit serve --workers N`: bound once by the supervisor, exclusive to this server.

Why: each worker used to bind its own SO_REUSEPORT socket, and SO_REUSEPORT lets any process of the same user join
the port: a second `dqkit serve` (another token) started on a busy port printed "listening" and took a share of the
first one's connections. Now:
- before anything is bound, a plain socket (no SO_REUSEPORT) is bound to the address: if anything listens there, the
  server fails with "address already in use", whatever `--workers` says;
- the supervisor then binds one SO_REUSEPORT socket per worker slot, in order, and attaches a classic BPF program to
  the group that picks a socket among the slots whose worker is ready (at random). A socket joined by another
  process later is never picked, so it gets no connection; a slot whose worker died or is still loading gets none
  either (its socket stays open in the supervisor, so nothing queued on it is lost: the replacement takes it);
- a worker accepts on its slot's socket only once its engines are loaded.
Where SO_REUSEPORT or its BPF steering is missing (not Linux), every worker shares one plain listening socket: still
exclusive, the kernel's spread is only less even. A process of the same user can still do anything to another (ptrace
it, replace the steering program): this guards against mistakes, not against one's own account.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import socket
import struct
from collections.abc import Iterable
from typing import Final

log = logging.getLogger("dqkit.server")

SO_ATTACH_REUSEPORT_CBPF: Final = 51  # Linux, <asm-generic/socket.h>
_LD_RANDOM: Final = (0x20, 0, 0, (-0x1000 + 56) & 0xFFFFFFFF)  # A = prandom (SKF_AD_OFF + SKF_AD_RANDOM)


def bind(host: str, port: int, *, reuse_port: bool = False, listen: bool = True) -> socket.socket:
    """A listening TCP socket on host:port (IPv4 or IPv6; port 0 picks a free one). With `reuse_port`, other
    sockets may bind the same port (SO_REUSEPORT) and the kernel spreads new connections among those listening;
    `listen=False` only holds the port."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuse_port:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    if listen:
        sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def steering_program(slots: list[int]) -> list[tuple[int, int, int, int]]:
    """Classic BPF (code, jt, jf, k) returning one of `slots` (indexes in the reuseport group) at random."""
    prog = [_LD_RANDOM, (0x94, 0, 0, len(slots))]  # A %= len(slots)
    for i, slot in enumerate(slots):
        prog += [(0x15, 0, 1, i), (0x06, 0, 0, slot)]  # if A == i: return slot
    prog.append((0x06, 0, 0, slots[0]))
    return prog


class Listeners:
    """One listening socket per worker slot (`socket_for(slot)`), and `steer(ready)` to send new connections only
    to the slots whose worker is ready."""

    def __init__(self, sockets: list[socket.socket], steered: bool) -> None:
        self.sockets = sockets
        self.steered = steered
        self._steering: object = None  # keeps the program's memory alive while the kernel may read it

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.sockets[0].getsockname()[:2]
        return str(host), int(port)

    def socket_for(self, slot: int) -> socket.socket:
        return self.sockets[slot if self.steered else 0]

    def steer(self, ready: Iterable[int]) -> None:
        """New connections go to the sockets of `ready` slots (all of them when none is ready: they wait there)."""
        if not self.steered:
            return
        slots = sorted(set(ready)) or list(range(len(self.sockets)))
        raw = b"".join(struct.pack("HBBI", *insn) for insn in steering_program(slots))
        buf = ctypes.create_string_buffer(raw, len(raw))
        fprog = struct.pack("HL", len(raw) // 8, ctypes.addressof(buf))
        self.sockets[0].setsockopt(socket.SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, fprog)
        self._steering = buf

    def close_others(self, slot: int) -> None:
        """In a worker: close its copies of the other slots' sockets (the supervisor keeps them open)."""
        own = self.socket_for(slot)
        for s in self.sockets:
            if s is not own:
                s.close()

    def close(self) -> None:
        for s in self.sockets:
            s.close()


def open_listeners(host: str, port: int, slots: int) -> Listeners:
    """Bind `host:port` exclusively (OSError EADDRINUSE when anything listens there) and make the sockets of
    `slots` workers (module docstring)."""
    first = bind(host, port)  # plain: fails if any socket listens there, SO_REUSEPORT or not
    if slots <= 1 or not hasattr(socket, "SO_REUSEPORT"):
        return Listeners([first], steered=False)
    bound_host, bound_port = first.getsockname()[:2]
    first.close()  # the port is free and ours to take: the group is bound at once, before any other process
    group: list[socket.socket] = []
    try:
        for _ in range(slots):
            group.append(bind(str(bound_host), int(bound_port), reuse_port=True))
        listeners = Listeners(group, steered=True)
        listeners.steer([])
        return listeners
    except OSError as exc:
        for s in group:
            s.close()
        if not group:
            raise
        log.info("dqkit serve: no SO_REUSEPORT steering here (%s); the workers share one socket", exc.strerror)
        with contextlib.suppress(OSError):
            return Listeners([bind(str(bound_host), int(bound_port))], steered=False)
        raise
