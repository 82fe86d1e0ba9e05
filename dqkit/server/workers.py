"""`dqkit serve --workers N`: N processes answering on one port, for a machine with more than one core.

The supervisor binds the port once, exclusively (`dqkit.server.listeners`: a second server on a busy port fails with
"address already in use"), prepares the index files once (a reference built from CSV files, the demo index), makes
a run folder, then forks the workers; each serves its own socket of the port's group, and new connections are
steered only to the sockets of workers that are ready. Each worker loads its own engines before it accepts anything:
the address index is a memory-mapped file, opened by every worker and never copied (its pages are shared in the
page cache), while the small Python tables (ZIP facts, spoof lists) are each worker's own. Shared among the workers:
- the run folder (a temporary folder, removed at exit): each worker marks it ready there; the supervisor steers
  connections to those, and `/healthz` (answered only by a ready worker) says how many are ready;
- the rate limit: its counts are in a SQLite file of the run folder (or in `--rate-store`), so N workers enforce
  one limit, not N;
- the key secret and the index file: a key one worker issued, every worker accepts.
The supervisor forwards SIGTERM / SIGINT to the workers and waits for them. A worker that dies is started again at
once; one that keeps dying is started again after a growing pause (0.5 s doubling up to `MAX_BACKOFF_SECONDS`),
never given up for good: a load balancer keeps the server while any worker serves. Fork is POSIX-only: elsewhere
one process serves.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Final

from dqkit.server.config import ServerConfig
from dqkit.server.listeners import Listeners

log = logging.getLogger("dqkit.server")
STOP_SECONDS: Final = 10.0
QUICK_DEATH_SECONDS: Final = 60.0  # a worker that lived longer than this starts its restart count afresh
MAX_BACKOFF_SECONDS: Final = 30.0
POLL_SECONDS: Final = 0.05


def default_workers() -> int:
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform != "win32"


def _ready_file(config: ServerConfig, slot: int) -> Path | None:
    return config.run_dir / f"ready-{slot}" if config.run_dir is not None else None


def mark_ready(config: ServerConfig) -> None:
    """This worker's engines are loaded."""
    path = _ready_file(config, config.worker_slot)
    if path is not None:
        with contextlib.suppress(OSError):
            path.touch()


def ready_slots(config: ServerConfig) -> set[int]:
    """The worker slots whose engines are loaded (a single process: its own, slot 0)."""
    if config.run_dir is None or config.workers <= 1:
        return {0}
    return {slot for slot in range(config.workers) if (config.run_dir / f"ready-{slot}").exists()}


def restart_delay(quick_deaths: int) -> float:
    """Pause before starting a worker again after its `quick_deaths`-th death in a row: none for the first."""
    return 0.0 if quick_deaths <= 1 else min(MAX_BACKOFF_SECONDS, 0.5 * 2 ** (quick_deaths - 2))


def prepare_index_files(config: ServerConfig) -> None:
    """Build, once and before forking, the index files workers would otherwise each build at the same time
    (different builds would sign keys differently). Installed references and --index files are built already."""
    if config.index is not None:
        return
    from dqkit.engines.address.cache import build_cached, demo_index

    if config.references:
        build_cached(list(config.references))
    elif config.demo:
        demo_index()


def _die_with(parent: int) -> None:
    """Have the kernel stop this worker when the supervising process dies, even by SIGKILL (Linux), so no worker
    is left serving alone."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before that took effect
        os._exit(0)


def supervise(config: ServerConfig, listeners: Listeners,
              run_worker: Callable[[ServerConfig, socket.socket], None]) -> int:
    """Fork `config.workers` workers running `run_worker(config of the worker, its socket)`, keep them running,
    steer connections to the ready ones, and stop them on SIGTERM / SIGINT. Returns the exit status."""
    prepare_index_files(config)
    run_dir = Path(tempfile.mkdtemp(prefix="dqkit-serve-run-"))
    config = replace(config, run_dir=run_dir, rate_secret=config.rate_secret or os.urandom(32))
    children: dict[int, int] = {}  # pid -> slot
    started: dict[int, float] = {}  # slot -> when its worker started
    due: dict[int, float] = dict.fromkeys(range(config.workers), 0.0)  # slot -> when to start it
    quick_deaths: dict[int, int] = {}
    steered: set[int] | None = None
    stopping = False

    def start(slot: int) -> None:
        ready = _ready_file(config, slot)
        if ready is not None:
            with contextlib.suppress(OSError):
                ready.unlink()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the worker: default signal handling, run, never return into the parent's code
            status = 0
            try:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                _die_with(parent)
                own = listeners.socket_for(slot)
                listeners.close_others(slot)
                run_worker(replace(config, worker_slot=slot), own)
            except BaseException:
                log.exception("dqkit serve: worker %d failed", slot)
                status = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
        children[pid] = slot
        started[slot] = time.monotonic()

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    def reap() -> None:
        while children:
            try:
                pid, code = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            slot = children.pop(pid, -1)
            if slot < 0:
                continue
            ready = _ready_file(config, slot)
            if ready is not None:
                with contextlib.suppress(OSError):
                    ready.unlink()
            if stopping:
                continue
            now = time.monotonic()
            lived = now - started.get(slot, now)
            quick_deaths[slot] = 1 if lived > QUICK_DEATH_SECONDS else quick_deaths.get(slot, 0) + 1
            delay = restart_delay(quick_deaths[slot])
            due[slot] = now + delay
            log.warning("dqkit serve: worker %d (pid %d) exited with status %d after %.1f s; starting it again%s",
                        slot, pid, os.waitstatus_to_exitcode(code), lived,
                        f" in {delay:g} s (it keeps exiting)" if delay else "")

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # a death wakes the loop below at once
    log.info("dqkit serve: %d workers on one port (run folder %s)", config.workers, run_dir)
    try:
        while True:
            now = time.monotonic()
            for slot, when in list(due.items()):
                if not stopping and when <= now:
                    del due[slot]
                    start(slot)
            reap()
            if stopping and not children:
                break
            ready = ready_slots(config) & set(children.values())
            if ready != steered:  # a worker became ready or died: connections go to the ready ones only
                with contextlib.suppress(OSError):
                    listeners.steer(ready)
                steered = ready
            if hasattr(signal, "sigtimedwait"):
                signal.sigtimedwait({signal.SIGCHLD}, POLL_SECONDS)
            else:  # not Linux: look again shortly
                time.sleep(POLL_SECONDS)
    finally:
        stop(signal.SIGTERM, None)
        deadline = time.monotonic() + STOP_SECONDS
        while children and time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                pid, _ = os.waitpid(-1, os.WNOHANG)
                if pid:
                    children.pop(pid, None)
                    continue
            time.sleep(0.05)
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        for s, handler in previous.items():
            signal.signal(s, handler)
        listeners.close()
        shutil.rmtree(run_dir, ignore_errors=True)
    return 0
