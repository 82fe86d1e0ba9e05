"""Start a throwaway JupyterLab for the browser test, and always stop it (and its kernels) afterwards.

Everything lives in a temp folder: HOME, Jupyter config/runtime/data dirs, the notebook dir. The server listens
on 127.0.0.1 on a free port with a random token, fetches no news and checks for no updates.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


def _die_with_parent() -> None:
    """Linux: the server gets SIGTERM if the test process dies without cleaning up (a hard timeout kill)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Lab:
    url: str
    token: str
    root: Path
    log: Path
    proc: subprocess.Popen[bytes]

    def page(self, path: str) -> str:
        return f"{self.url}/{path.lstrip('/')}?token={self.token}&reset"

    def api(self, path: str, method: str = "GET", timeout: float = 5.0) -> object:
        req = urllib.request.Request(f"{self.url}/api/{path.lstrip('/')}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = r.read()
        return json.loads(body) if body else None

    def log_tail(self, n: int = 4000) -> str:
        try:
            return self.log.read_text(errors="replace")[-n:]
        except OSError:
            return ""


def write_notebook(path: Path, cells: list[str]) -> None:
    nb = {
        "cells": [{"cell_type": "code", "execution_count": None, "id": f"cell-{i}", "metadata": {},
                   "outputs": [], "source": src} for i, src in enumerate(cells)],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb, indent=1))


@contextlib.contextmanager
def jupyter_lab(tmp: Path, *, start_timeout: float = 60.0) -> Iterator[Lab]:
    """Run JupyterLab in `tmp`; yield once it answers; stop it (gracefully, then by force) on exit."""
    home, cfg, root = tmp / "home", tmp / "jupyter-config", tmp / "notebooks"
    for d in (home, cfg / "labconfig", root):
        d.mkdir(parents=True, exist_ok=True)
    # No news feed, no update check, no extension manager queries: the test must not touch the network.
    (cfg / "jupyter_lab_config.json").write_text(json.dumps({
        "LabApp": {"news_url": None, "check_for_updates_class": "jupyterlab.NeverCheckForUpdate",
                   "extension_manager": "readonly"},
        "ServerApp": {"terminals_enabled": False},
    }))
    # Every cell stays in the page (JupyterLab 4 detaches cells scrolled out of view by default), so a test can
    # read every prompt and output of a notebook it ran.
    tracker = cfg / "lab" / "user-settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True, exist_ok=True)
    (tracker / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    (cfg / "labconfig" / "page_config.json").write_text(json.dumps(
        {"disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True}}))
    port, token = free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(cfg),
        "JUPYTER_DATA_DIR": str(tmp / "jupyter-data"),
        "JUPYTER_RUNTIME_DIR": str(tmp / "jupyter-runtime"),
        "IPYTHONDIR": str(tmp / "ipython"),
        "DQKIT_CACHE": "0",
        "DQKIT_PROGRESS": "0",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    }
    env.pop("JUPYTER_TOKEN", None)
    log = tmp / "jupyterlab.log"
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           "--port-retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           # the setting the README recommends: no Nagle delay on the kernel websocket (~40 ms a round trip)
           "--ServerApp.kernel_websocket_connection_class=dqkit.widgets.jupyter_nodelay.NoDelayKernelConnection"]
    if os.geteuid() == 0:  # CI containers run as root
        cmd.append("--allow-root")
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_die_with_parent)
    lab = Lab(f"http://127.0.0.1:{port}", token, root, log, proc)
    try:
        deadline = time.monotonic() + start_timeout
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {proc.returncode}:\n{lab.log_tail()}")
            try:
                lab.api("status", timeout=2)
                break
            except (urllib.error.URLError, OSError) as e:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not answer in {start_timeout} s:\n{lab.log_tail()}") from e
                time.sleep(0.25)
        yield lab
    finally:
        stop(lab)


def stop(lab: Lab) -> None:
    """Shut the server down through its API (it stops its kernels), then make sure its process group is gone."""
    proc = lab.proc
    if proc.poll() is None:
        with contextlib.suppress(Exception):
            lab.api("shutdown", method="POST", timeout=3)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(10)
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        if proc.poll() is not None:
            break
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(wait)
