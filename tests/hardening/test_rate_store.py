"""Issue 30, part 3 (and the key secret of part 7): a shared rate store that fails fast, holds only keyed hashes
and cannot be poisoned into lifting a limit. Real `dqkit serve` processes and a real redis-server started here on a
free port (skipped, saying so, when it is not installed); faults are real too: SIGSTOP of Redis, a SQLite file
locked by another connection, values written into Redis by hand."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from dqkit.server.ratestore import GuardedCounts, SqliteCounts, hashed_key
from dqkit.server.testing import ServedProcess, serve_process

TOKEN = "store-token-8d2f61"
SECRET = "a-key-secret-of-the-service-41c7"
SEARCH = {"country_iso": "USA", "components": {"unspecified": ["10 hill"]}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture()
def redis_server() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.skip("redis-server is not installed (Debian package redis-server; .ci/install-services.sh)")
    port = _free_port()
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("redis-server did not start")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0", proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGCONT)
        proc.terminate()
        proc.wait(timeout=10)


def _search(server: ServedProcess, client: httpx.Client) -> int:
    return client.post(server.url + "/address/search/v1", json=SEARCH, headers={"Auth-Token": TOKEN}).status_code


def _incr_calls(url: str) -> int:
    import redis

    stats: dict[str, Any] = redis.Redis.from_url(url).info("commandstats")
    return sum(int(v.get("calls", 0)) for k, v in stats.items() if k.startswith("cmdstat_incr"))  # INCR (INCRBY)


def _wait_for_log(server: ServedProcess, text: str, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while text not in server.log_text():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_a_stopped_redis_costs_one_bounded_call_then_the_process_counts_alone(
        redis_server: tuple[str, subprocess.Popen[bytes]]) -> None:
    url, proc = redis_server
    args = ["--demo", "--workers", "1", "--rate-limit", "1000", "--rate-store", url]
    with serve_process(tokens=[TOKEN], extra_args=args, env={"DQKIT_KEY_SECRET": SECRET}) as server, \
            httpx.Client(timeout=60) as client:
        assert _search(server, client) == 200
        before = _incr_calls(url)
        os.kill(proc.pid, signal.SIGSTOP)  # hung: connections are accepted, nothing is answered
        try:
            statuses = [_search(server, client) for _ in range(30)]
            health = [client.get(server.url + "/healthz").status_code for _ in range(10)]
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        assert statuses == [200] * 30 and health == [200] * 10
        assert _wait_for_log(server, "answers again; counts are shared again")
        # Commands sent while Redis was stopped run once it goes on: one INCR tried, not one per request (the start
        # commit tried every request, each waiting for its timeout on the event loop).
        tried = _incr_calls(url) - before
        assert tried <= 2, tried
        assert _search(server, client) == 200
        assert _incr_calls(url) > before + tried  # shared again
        log = server.log_text()
        assert log.count("failed (TimeoutError)") + log.count("failed (ConnectionError)") == 1


def _window_key(secret: str, window: int = 600) -> str:
    return f"dqkit:rate:{int(time.time() // window)}:{hashed_key(TOKEN, secret.encode())}"


@pytest.mark.parametrize("poison", ["-1000000", "9223372036854775807", "not a count"])
def test_poisoned_counts_never_lift_the_limit(redis_server: tuple[str, subprocess.Popen[bytes]],
                                              poison: str) -> None:
    import redis

    url, _ = redis_server
    args = ["--demo", "--workers", "1", "--rate-limit", "5", "--rate-window", "600", "--rate-store", url]
    with serve_process(tokens=[TOKEN], extra_args=args, env={"DQKIT_KEY_SECRET": SECRET}) as server, \
            httpx.Client(timeout=60) as client:
        first = [_search(server, client) for _ in range(3)]
        redis.Redis.from_url(url).set(_window_key(SECRET), poison)  # someone with access to Redis writes over it
        after = [_search(server, client) for _ in range(5)]
        assert first == [200] * 3 and after == [200, 200, 429, 429, 429], (first, after)
        assert "held a damaged count" in server.log_text()


def test_redis_sees_only_keys_hashed_with_the_secret(redis_server: tuple[str, subprocess.Popen[bytes]]) -> None:
    import redis

    url, _ = redis_server
    args = ["--demo", "--workers", "1", "--rate-limit", "50", "--rate-store", url]
    with serve_process(tokens=[TOKEN], extra_args=args, env={"DQKIT_KEY_SECRET": SECRET}) as server, \
            httpx.Client(timeout=60) as client:
        assert _search(server, client) == 200
    stored = [k.decode() for k in redis.Redis.from_url(url).keys("dqkit:rate:*")]
    unkeyed = hashlib.blake2b(TOKEN.encode(), digest_size=16, person=b"dqkit-ratekey").hexdigest()
    assert len(stored) == 1 and stored[0].endswith(hashed_key(TOKEN, SECRET.encode()))
    assert unkeyed not in stored[0] and TOKEN not in stored[0]
    assert hashed_key(TOKEN, SECRET.encode()) != hashed_key(TOKEN, b"another secret of 16+ bytes")


def _serve_fails(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "dqkit.cli", "serve", "--host", "127.0.0.1", "--port", "0", "--demo", *args]
    full = {k: v for k, v in os.environ.items() if k not in ("DQKIT_KEY_SECRET", "DQKIT_RATE_STORE")}
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30, env={**full, **env})
    except subprocess.TimeoutExpired as exc:
        return subprocess.CompletedProcess(cmd, -1, str(exc.stdout or ""), str(exc.stderr or ""))


def test_a_rate_store_without_a_key_secret_and_blank_secrets_are_refused(tmp_path: Path) -> None:
    no_secret = _serve_fails(["--rate-store", "redis://127.0.0.1:1/0"], {})
    assert no_secret.returncode not in (0, -1) and "needs the key secret" in no_secret.stderr, no_secret.stderr
    for blank in ("", "   ", " \t "):
        r = _serve_fails([], {"DQKIT_KEY_SECRET": blank})
        assert r.returncode not in (0, -1) and "blank" in r.stderr, (blank, r.stderr)
    short = _serve_fails([], {"DQKIT_KEY_SECRET": "x" * 8 + " " * 20})
    assert short.returncode not in (0, -1) and "at least 16 bytes that are not blanks" in short.stderr
    empty = tmp_path / "empty-secret"
    empty.write_text("\n \n")
    r = _serve_fails(["--key-secret-file", str(empty)], {})
    assert r.returncode not in (0, -1) and "is empty" in r.stderr, r.stderr


def test_a_secret_file_others_may_write_is_warned_about(tmp_path: Path) -> None:
    secret = tmp_path / "key-secret"
    secret.write_text(SECRET)
    secret.chmod(0o666)
    with serve_process(extra_args=["--key-secret-file", str(secret), "--workers", "1"], demo=True) as server:
        assert "may be read or written by anyone (mode 0666)" in server.log_text()
        assert SECRET not in server.log_text()


class _Counted:
    """A real store, its calls counted (no behaviour changed)."""

    def __init__(self, inner: SqliteCounts) -> None:
        self.inner, self.what, self.calls = inner, inner.what, 0

    def add(self, key: str, window_index: int, window: int) -> int:
        self.calls += 1
        return self.inner.add(key, window_index, window)

    def ping(self) -> None:
        self.inner.ping()

    def repair(self, key: str, window_index: int, window: int, count: int) -> None:
        self.inner.repair(key, window_index, window, count)

    def close(self) -> None:
        self.inner.close()


def test_a_locked_rate_file_is_tried_once_then_counted_alone_until_it_is_free(tmp_path: Path) -> None:
    path = tmp_path / "rate.sqlite"
    store = _Counted(SqliteCounts(path, SECRET.encode()))
    guarded = GuardedCounts(store, retry_seconds=0.05)  # type: ignore[arg-type]
    assert [guarded.add("t", 1, 60) for _ in range(2)] == [1, 2]
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # another process holds the file
    try:
        counts = [guarded.add("t", 1, 60) for _ in range(20)]
        assert counts == list(range(3, 23))  # this process's own counts meanwhile, never below them
        assert store.calls == 3 and not guarded.shared_now  # one bounded try, then none on the request path
    finally:
        other.execute("ROLLBACK")
        other.close()
    deadline = time.monotonic() + 30
    while not guarded.shared_now and time.monotonic() < deadline:
        time.sleep(0.02)
    assert guarded.shared_now
    assert guarded.add("t", 1, 60) == 23 and store.calls == 4  # shared again, never below this process's count
    guarded.close()
