"""One background thread with its own event loop, where the sync clients run all their async work.

Why: a notebook cell already runs inside an event loop, so `asyncio.run` fails there and patching asyncio
(nest_asyncio) changes every library's behaviour. Instead the sync clients hand their coroutines to this loop and
wait for the result in the calling thread. Every async client and limiter a sync client uses is created on this
loop and used only there. There is one such thread per process (re-created after a fork).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from dqkit.contract.errors import DqkitError

T = TypeVar("T")


class BackgroundLoop:
    """Starts lazily; `run(coro)` blocks the caller until the coroutine finishes on the loop thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pid = 0

    def loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._pid != os.getpid() or not (self._thread and self._thread.is_alive()):
                loop = asyncio.new_event_loop()
                started = threading.Event()

                def main() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(started.set)
                    loop.run_forever()

                thread = threading.Thread(target=main, name="dqkit-client-loop", daemon=True)
                thread.start()
                started.wait()
                self._loop, self._thread, self._pid = loop, thread, os.getpid()
            return self._loop

    def in_loop_thread(self) -> bool:
        return self._thread is not None and threading.current_thread() is self._thread

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the background loop and return its result (its exception is raised here)."""
        if self.in_loop_thread():
            coro.close()
            raise DqkitError("a sync dqkit client was called from dqkit's own loop thread (for example from an "
                             "on_item callback); use the async client there")
        future: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop())
        try:
            return future.result()
        except BaseException:
            future.cancel()  # KeyboardInterrupt in a notebook: stop the work on the loop too
            raise

    def close_quietly(self, coro: Coroutine[Any, Any, None], wait: float = 2.0) -> None:
        """For finalizers: run a closing coroutine if the loop still runs; wait briefly unless on the loop."""
        loop = self._loop
        if loop is None or self._pid != os.getpid() or not loop.is_running():
            coro.close()
            return
        future = asyncio.run_coroutine_threadsafe(coro, loop)
        if not self.in_loop_thread():
            with contextlib.suppress(Exception):  # closing is best effort: never raise from a finalizer
                future.result(timeout=wait)


BACKGROUND = BackgroundLoop()
