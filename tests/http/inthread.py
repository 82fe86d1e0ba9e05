"""Run the server app under uvicorn in a thread of the test process, for configurations tested only briefly.

Still real HTTP on 127.0.0.1 (a socket, uvicorn, the gate, the routes); only the process is shared. The loader can
wrap the local engines (e.g. to make them slow for the 408 test).
"""

from __future__ import annotations

import contextlib
import http.client
import threading
import time
from collections.abc import Callable, Iterator

import uvicorn

from dqkit.server.app import create_app
from dqkit.server.config import ServerConfig
from dqkit.server.engines import Loaded, load_local
from dqkit.server.listeners import bind


@contextlib.contextmanager
def served_in_thread(config: ServerConfig, loader: Callable[[ServerConfig], Loaded] = load_local,
                     startup_timeout: float = 60.0) -> Iterator[str]:
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(config, loader=loader), log_level="warning",
                                           lifespan="on", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + startup_timeout
        while True:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            try:
                conn.request("GET", "/healthz")
                if conn.getresponse().status == 200:
                    break
            except OSError:
                pass
            finally:
                conn.close()
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("the in-thread server did not become healthy")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()
