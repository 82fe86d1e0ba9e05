"""Start a real `dqkit serve` in a subprocess on 127.0.0.1 for tests, notebooks and benchmarks.

    with serve_process(tokens=["t0k"]) as server:
        client = LeadClient(server.url, token=server.token)

The server picks a free port itself (`--port 0`) and prints it, so there is no race for ports. The helper waits
for `/healthz` to answer 200, and stops the process (SIGTERM, then SIGKILL) on exit. The server's log goes to a
temporary file readable with `.log_text()`. Bulk batches go to a temporary folder removed on exit, unless `env`
names a `DQKIT_BULK_DIR`.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from dqkit.contract.errors import DqkitError
from dqkit.server.runner import LISTENING_PREFIX

_LAUNCH = "import sys; from dqkit.cli import main; sys.exit(main(sys.argv[1:]))"


@dataclass
class ServedProcess:
    """A running server: `url` is its base URL, `token` its first token (or None)."""

    url: str
    token: str | None
    process: subprocess.Popen[str]
    log_path: Path
    tokens: tuple[str, ...] = field(default=(), repr=False)

    def __repr__(self) -> str:
        return f"ServedProcess(url={self.url!r}, pid={self.process.pid})"

    @property
    def host(self) -> str:
        return self.url.split("://", 1)[1].rsplit(":", 1)[0]

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")


def _read_lines(stream: IO[str], out: queue.Queue[str | None]) -> None:
    for line in stream:
        out.put(line)
    out.put(None)


def _healthy(host: str, port: int) -> bool:
    conn = http.client.HTTPConnection(host, port, timeout=2)
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


@contextlib.contextmanager
def serve_process(*, tokens: Sequence[str] = (), client_ids: Sequence[str] = (), partner_ids: Sequence[str] = (),
                  allow_ips: Sequence[str] = (), references: Sequence[str | Path] = (), demo: bool = False,
                  extra_args: Sequence[str] = (), env: dict[str, str] | None = None,
                  startup_timeout: float = 60.0, host: str = "127.0.0.1",
                  workers: int = 1) -> Iterator[ServedProcess]:
    """Run `dqkit serve` on `host` with a free port until the block ends; see the module docstring.

    Addresses come from `references` (files), else the synthetic demo when `demo`, else the installed references
    of the child's environment (`DQKIT_REFERENCE_DIR` in `env` picks a folder). One process unless `workers`
    says more (a later `--workers` in `extra_args` wins)."""
    args = ["serve", "--host", host, "--port", "0", "--log-level", "info", "--workers", str(workers)]
    for flag, values in (("--client-id", client_ids), ("--partner-id", partner_ids), ("--allow-ip", allow_ips),
                         ("--reference", [str(r) for r in references])):
        for v in values:
            args += [flag, v]
    if demo:
        args.append("--demo")
    args += list(extra_args)
    child_env = {**os.environ, **(env or {})}
    if tokens:  # through the environment, so they are not in the process list
        child_env["DQKIT_SERVE_TOKENS"] = ",".join(tokens)
    own_bulk = "DQKIT_BULK_DIR" not in child_env  # bulk batches of a throwaway server never go to the user's folder
    if own_bulk:
        child_env["DQKIT_BULK_DIR"] = tempfile.mkdtemp(prefix="dqkit-serve-bulk-")
    log_file = tempfile.NamedTemporaryFile(prefix="dqkit-serve-", suffix=".log", delete=False)  # noqa: SIM115
    log_path = Path(log_file.name)
    proc = subprocess.Popen([sys.executable, "-c", _LAUNCH, *args], stdout=subprocess.PIPE, stderr=log_file,
                            stdin=subprocess.DEVNULL, text=True, env=child_env)
    log_file.close()
    lines: queue.Queue[str | None] = queue.Queue()
    assert proc.stdout is not None
    threading.Thread(target=_read_lines, args=(proc.stdout, lines), daemon=True).start()
    try:
        deadline = time.monotonic() + startup_timeout
        url = ""
        while not url:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise DqkitError(f"dqkit serve did not start within {startup_timeout:g} s:\n"
                                 f"{log_path.read_text(errors='replace')[-2000:]}")
            try:
                line = lines.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                continue
            if line is None:
                proc.wait(timeout=5)
                raise DqkitError(f"dqkit serve exited with {proc.returncode}:\n"
                                 f"{log_path.read_text(errors='replace')[-2000:]}")
            if line.startswith(LISTENING_PREFIX):
                url = line[len(LISTENING_PREFIX):].strip()
        served = ServedProcess(url, tokens[0] if tokens else None, proc, log_path, tuple(tokens))
        while not _healthy(served.host.strip("[]"), served.port):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise DqkitError(f"dqkit serve never became healthy:\n{served.log_text()[-2000:]}")
            time.sleep(0.05)
        yield served
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
        with contextlib.suppress(OSError):
            if os.environ.get("DQKIT_KEEP_SERVER_LOG") != "1":
                log_path.unlink()
        if own_bulk:
            shutil.rmtree(child_env["DQKIT_BULK_DIR"], ignore_errors=True)


def serve_fixture(scope: Literal["session", "package", "module", "class", "function"] = "session",
                  **options: Any) -> Any:
    """A pytest fixture that yields a running ServedProcess; in a conftest or test module write

        dqkit_server = serve_fixture(tokens=["test-token"])

    (pytest is imported only when this is called, so the product never needs it).
    """
    import pytest

    @pytest.fixture(scope=scope)
    def _served() -> Iterator[ServedProcess]:
        with serve_process(**options) as served:
            yield served

    return _served
