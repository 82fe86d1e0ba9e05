"""`dqkit serve --workers N`: N processes answering on one port, for a machine with more than one core.

The parent holds the port, prepares the index files once (a reference built from CSV files, the demo index), makes
a run folder, then forks the workers; each listens on a socket of its own on that port (SO_REUSEPORT, where the
system has it; else they share the parent's listening socket) and the kernel spreads new connections among them.
Each worker loads its own engines: the address index is a memory-mapped file, opened by every worker and never
copied (its pages are shared in the page cache), while the small Python tables (ZIP facts, spoof lists) are each
worker's own. Shared among the workers:
- the run folder (a temporary folder, removed at exit): each worker marks it ready there, and `/healthz` answers
  200 only when all are (so a load balancer never sends work to a half-started server);
- the rate limit: its counts are in a SQLite file of the run folder (or in `--rate-store`), so N workers enforce
  one limit, not N;
- the key secret and the index file: a key one worker issued, every worker accepts.
The parent forwards SIGTERM / SIGINT to the workers and waits for them; a worker that dies is started again.
Fork is POSIX-only: elsewhere one process serves.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Final

from dqkit.server.config import ServerConfig

log = logging.getLogger("dqkit.server")
RESTARTS_PER_MINUTE: Final = 10  # a worker that keeps dying is a broken configuration, not bad luck
STOP_SECONDS: Final = 10.0


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


def all_ready(config: ServerConfig) -> bool:
    """Every worker of this server has loaded its engines (always true for a single process)."""
    if config.run_dir is None or config.workers <= 1:
        return True
    return all((config.run_dir / f"ready-{slot}").exists() for slot in range(config.workers))


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


def supervise(config: ServerConfig, run_worker: Callable[[ServerConfig], None]) -> int:
    """Fork `config.workers` workers running `run_worker(config of the worker)`, keep them running, and stop them
    on SIGTERM / SIGINT. Returns the exit status for the command."""
    prepare_index_files(config)
    run_dir = Path(tempfile.mkdtemp(prefix="dqkit-serve-run-"))
    config = replace(config, run_dir=run_dir)
    children: dict[int, int] = {}  # pid -> slot
    stopping = False
    restarts: list[float] = []

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
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                _die_with(parent)
                run_worker(replace(config, worker_slot=slot))
            except BaseException:
                log.exception("dqkit serve: worker %d failed", slot)
                status = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
        children[pid] = slot

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    status = 0
    try:
        for slot in range(config.workers):
            start(slot)
        log.info("dqkit serve: %d workers on one socket (run folder %s)", config.workers, run_dir)
        while children:
            try:
                pid, code = os.wait()
            except ChildProcessError:
                break
            except InterruptedError:
                continue
            slot = children.pop(pid, -1)
            if slot < 0 or stopping:
                continue
            now = time.monotonic()
            restarts = [t for t in restarts if now - t < 60] + [now]
            log.warning("dqkit serve: worker %d (pid %d) exited with status %d; starting it again", slot, pid,
                        os.waitstatus_to_exitcode(code))
            if len(restarts) > RESTARTS_PER_MINUTE:
                log.error("dqkit serve: workers keep exiting; stopping the server")
                status = 1
                stop(signal.SIGTERM, None)
                continue
            start(slot)
    finally:
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
        for s, handler in previous.items():
            signal.signal(s, handler)
        shutil.rmtree(run_dir, ignore_errors=True)
    return status
