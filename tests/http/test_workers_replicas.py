"""Several processes and machines (issue 21, parts 2 and 3; issue 30, parts 3 and 4), against real `dqkit serve`
processes on 127.0.0.1:

- `--workers 2`: two forked workers on one port, one rate limit between them, keys one issues the other accepts;
  the port is the server's alone (a second server fails with "address already in use", a foreign SO_REUSEPORT
  socket gets no connection); kill -9 of a worker under load fails under 1% of requests and /healthz stays 200;
- replicas (separate servers, as on separate machines): one rate limit through a real `redis-server` started here
  (skipped, saying so, when it is not installed: `.ci/install-services.sh` installs it), keys accepted across
  replicas given the same secret and index file, refused by a replica with another secret.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from dqkit.engines.address.keys import KeyCodec
from dqkit.server.config import ServerConfig
from dqkit.server.ratelimit import FixedWindowLimiter
from dqkit.server.ratestore import GuardedCounts, RedisCounts, SqliteCounts, hashed_key
from dqkit.server.testing import ServedProcess, serve_process

REPO = Path(__file__).resolve().parents[2]
TOKEN = "replica-token-5b1e0c77"
SEARCH = {"country_iso": "USA", "components": {"unspecified": ["10 hill"]}}
SECRET = "replicas-share-this-secret-0f3c9a"


def _children(pid: int) -> list[int]:
    return [int(k) for t in Path(f"/proc/{pid}/task").iterdir() for k in (t / "children").read_text().split()]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def demo_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One index file, as replicas behind a load balancer would each be given a copy of it."""
    out = tmp_path_factory.mktemp("index") / "demo.dqidx"
    subprocess.run([sys.executable, "-m", "dqkit.cli", "index", "build", str(REPO / "data" / "demo_reference.csv.gz"),
                    "-o", str(out), "--synthetic"], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A real redis-server on 127.0.0.1 for this module (no disk, no other clients)."""
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
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _search_key(server: ServedProcess) -> str:
    r = httpx.post(server.url + "/address/search/v1", json=SEARCH, headers={"Auth-Token": TOKEN}, timeout=30)
    assert r.status_code == 200, r.text
    fmt: str = r.json()["result"]["suggestions"][0]["format"]
    return fmt.split("/address/format/v1/", 1)[1]


def _format_status(server: ServedProcess, key: str) -> int:
    with httpx.Client(timeout=30) as fresh:  # a new connection each time: any worker may take it
        return fresh.get(f"{server.url}/address/format/v1/{key}", headers={"Auth-Token": TOKEN}).status_code


def test_two_workers_share_one_port_one_rate_limit_and_keys(demo_index: Path) -> None:
    with serve_process(tokens=[TOKEN], workers=2,
                       extra_args=["--index", str(demo_index), "--rate-limit", "8"]) as server:
        workers = _children(server.process.pid)
        assert len(workers) == 2  # forked workers under the one server process
        statuses = []
        for _ in range(6):  # fresh connections: the kernel hands them to either worker
            with httpx.Client(timeout=30) as fresh:
                statuses.append(fresh.post(server.url + "/address/search/v1", json=SEARCH,
                                           headers={"Auth-Token": TOKEN}).status_code)
        key = _search_key(server)  # the 7th request
        assert [_format_status(server, key)] == [200]  # the 8th
        more = [_format_status(server, key) for _ in range(4)]
        assert statuses == [200] * 6 and more == [429] * 4  # 8 in all, not 8 per worker
        assert all(Path(f"/proc/{pid}").exists() for pid in workers)
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)  # stopped with the server


def test_keys_any_replica_with_the_same_secret_accepts(demo_index: Path, tmp_path: Path) -> None:
    secret_file = tmp_path / "key-secret"
    secret_file.write_text("correct horse battery staple 42\n")
    index = ["--index", str(demo_index)]
    with serve_process(tokens=[TOKEN], extra_args=[*index, "--key-secret-file", str(secret_file)]) as a, \
            serve_process(tokens=[TOKEN], extra_args=index,
                          env={"DQKIT_KEY_SECRET": "correct horse battery staple 42"}) as b, \
            serve_process(tokens=[TOKEN], extra_args=index,
                          env={"DQKIT_KEY_SECRET": "another secret, another service"}) as other:
        key = _search_key(a)
        assert _format_status(a, key) == 200
        assert _format_status(b, key) == 200  # same secret (from the environment), same index file
        assert _format_status(other, key) == 404  # another secret: not a key of this service
        assert _format_status(a, _search_key(b)) == 200
        for server in (a, b, other):
            assert "correct horse" not in server.log_text() and "another secret" not in server.log_text()


def test_replicas_share_one_rate_limit_through_redis(redis_url: str) -> None:
    import redis

    args = ["--demo", "--rate-limit", "6", "--rate-store", redis_url]
    env = {"DQKIT_KEY_SECRET": SECRET}
    with serve_process(tokens=[TOKEN], extra_args=args, env=env) as a, \
            serve_process(tokens=[TOKEN], extra_args=args, env=env) as b:
        statuses = []
        for i in range(10):  # a load balancer alternating between two machines
            server = (a, b)[i % 2]
            r = httpx.post(server.url + "/address/search/v1", json=SEARCH, headers={"Auth-Token": TOKEN}, timeout=30)
            statuses.append(r.status_code)
        assert statuses == [200] * 6 + [429] * 4, statuses  # 6 in all; alone, each would have allowed 6
        stored = [k.decode() for k in redis.Redis.from_url(redis_url).keys("*")]
        assert stored and all(TOKEN not in k for k in stored)  # the token is stored hashed, never as sent
        assert any(hashed_key(TOKEN, SECRET.encode()) in k for k in stored)


def test_without_a_store_each_process_limits_alone_and_a_failing_store_falls_back(tmp_path: Path) -> None:
    alone = [FixedWindowLimiter(2, 60), FixedWindowLimiter(2, 60)]
    assert [lim.hit("t").allowed for lim in alone for _ in range(3)] == [True, True, False] * 2
    path = tmp_path / "counts.sqlite"
    shared = [FixedWindowLimiter(3, 60, counts=SqliteCounts(path, b"s" * 16)) for _ in range(2)]  # two connections
    assert [shared[i % 2].hit("t").allowed for i in range(5)] == [True, True, True, False, False]
    assert TOKEN not in path.read_bytes().decode("latin-1")
    down = GuardedCounts(RedisCounts(f"redis://127.0.0.1:{_free_port()}/0", b"s" * 16))
    limiter = FixedWindowLimiter(2, 60, counts=down)  # nothing listens there: counted in memory meanwhile
    assert [limiter.hit("t").allowed for _ in range(3)] == [True, True, False]


def test_key_secret_signs_keys_and_stays_out_of_reprs() -> None:
    import base64

    from dqkit.contract.errors import NotFoundError

    build = "0f" * 16
    key = KeyCodec(build, b"s" * 16).encode("a", 0, 1)
    assert KeyCodec(build, b"s" * 16).decode(key) == ["a", 0, 1]  # another codec, same secret: a replica
    with pytest.raises(NotFoundError):
        KeyCodec(build, b"t" * 16).decode(key)
    assert b"s" * 16 not in base64.urlsafe_b64decode(key + "==")
    cfg = ServerConfig(key_secret=b"k" * 20, rate_store="redis://user:hunter2-pass@10.0.0.5:6379/0")
    assert "kkkk" not in repr(cfg) and "hunter2" not in repr(cfg) and "10.0.0.5" in repr(cfg)
    with pytest.raises(Exception, match="at least 16 bytes"):
        ServerConfig(key_secret=b"short")
    with pytest.raises(Exception, match="rate-store"):
        ServerConfig(rate_store="memcached://x")
    assert os.environ.get("DQKIT_KEY_SECRET") is None  # the tests above set it for their child processes only


def test_workers_stop_when_the_supervisor_is_killed(demo_index: Path) -> None:
    import signal

    with serve_process(workers=2, extra_args=["--index", str(demo_index)]) as server:
        workers = _children(server.process.pid)
        assert len(workers) == 2
        os.kill(server.process.pid, signal.SIGKILL)  # no chance to stop them itself
        server.process.wait(timeout=30)
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split()[2]
                  for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        alive = [pid for pid in workers if Path(f"/proc/{pid}").exists()
                 and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"]
        assert not alive, "workers went on serving without their supervisor"


def test_workers_default_to_one_per_core_and_bad_values_are_refused(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from dqkit.cli import serve_cmd
    from dqkit.contract.errors import InputError
    from dqkit.server.workers import default_workers

    parser = argparse.ArgumentParser()
    serve_cmd.register(parser.add_subparsers())
    monkeypatch.delenv("DQKIT_KEY_SECRET", raising=False)
    monkeypatch.delenv("DQKIT_RATE_STORE", raising=False)
    assert serve_cmd.config_from_args(parser.parse_args(["serve"])).workers == default_workers() >= 1
    assert serve_cmd.config_from_args(parser.parse_args(["serve", "--workers", "1"])).workers == 1
    with pytest.raises(InputError, match="at least 1"):
        serve_cmd.config_from_args(parser.parse_args(["serve", "--workers", "0"]))
    with pytest.raises(InputError, match="key secret file"):
        serve_cmd.config_from_args(parser.parse_args(["serve", "--key-secret-file", str(tmp_path / "none")]))
    monkeypatch.setenv("DQKIT_RATE_STORE", "redis://127.0.0.1:1/0")
    with pytest.raises(InputError, match="needs the key secret"):  # the store sees keys hashed with it
        serve_cmd.config_from_args(parser.parse_args(["serve"]))
    monkeypatch.setenv("DQKIT_KEY_SECRET", SECRET)
    assert serve_cmd.config_from_args(parser.parse_args(["serve"])).rate_store == "redis://127.0.0.1:1/0"


# ---- issue 30, part 4: the port is this server's alone; a worker that dies costs almost nothing --------------------


def _second_server(port: int, workers: str | None) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "dqkit.cli", "serve", "--host", "127.0.0.1", "--port", str(port), "--demo"]
    if workers is not None:
        args += ["--workers", workers]
    env = {**os.environ, "DQKIT_SERVE_TOKENS": "another-servers-token"}
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=60, env=env)
    except subprocess.TimeoutExpired as exc:  # it started serving: the failure this test is about
        return subprocess.CompletedProcess(args, -1, str(exc.stdout or ""), str(exc.stderr or ""))


@pytest.mark.parametrize("first_workers", [2, 1])
def test_a_second_server_on_a_busy_port_fails_whatever_its_workers(demo_index: Path, first_workers: int) -> None:
    with serve_process(tokens=[TOKEN], workers=first_workers, extra_args=["--index", str(demo_index)]) as server:
        for workers in (None, "2", "1"):  # default (one per core), several, one
            second = _second_server(server.port, workers)
            assert second.returncode not in (0, -1), (workers, second.stdout, second.stderr[-2000:])
            assert "listening" not in second.stdout
            assert "address already in use" in second.stderr.lower(), second.stderr[-2000:]
        statuses = []
        for _ in range(12):  # fresh connections: every one reaches this server, with its token
            with httpx.Client(timeout=30) as fresh:
                statuses.append(fresh.post(server.url + "/address/search/v1", json=SEARCH,
                                           headers={"Auth-Token": TOKEN}).status_code)
        assert statuses == [200] * 12


def test_a_foreign_reuseport_socket_on_the_port_gets_no_connection(demo_index: Path) -> None:
    """Another program of the same user may join a SO_REUSEPORT group; the workers' steering never picks it."""
    if not hasattr(socket, "SO_REUSEPORT"):
        pytest.skip("no SO_REUSEPORT on this system")
    with serve_process(tokens=[TOKEN], workers=2, extra_args=["--index", str(demo_index)]) as server:
        intruder = socket.socket()
        intruder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        intruder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            intruder.bind(("127.0.0.1", server.port))
        except OSError:  # refused outright: even better
            intruder.close()
            return
        intruder.listen(64)
        intruder.setblocking(False)
        try:
            statuses = []
            for _ in range(30):
                with httpx.Client(timeout=10) as fresh:
                    try:
                        statuses.append(fresh.get(server.url + "/healthz").status_code)
                    except httpx.HTTPError as exc:
                        statuses.append(type(exc).__name__)  # type: ignore[arg-type]
            stolen = 0
            with contextlib.suppress(BlockingIOError):
                while True:
                    conn, _ = intruder.accept()
                    conn.close()
                    stolen += 1
            assert stolen == 0 and statuses == [200] * 30, (stolen, statuses)
        finally:
            intruder.close()


def _load(url: str, stop: threading.Event, results: list[tuple[str, int | str]], kind: str) -> None:
    path, body = ("/healthz", None) if kind == "health" else ("/address/search/v1", SEARCH)
    while not stop.is_set():
        try:
            with httpx.Client(timeout=20) as fresh:  # its own connection each time: any worker may take it
                r = (fresh.get(url + path) if body is None
                     else fresh.post(url + path, json=body, headers={"Auth-Token": TOKEN}))
            results.append((kind, r.status_code))
        except httpx.HTTPError as exc:
            results.append((kind, type(exc).__name__))
        if kind == "health":
            stop.wait(0.05)


def _workers_ready(server: ServedProcess) -> int:
    r = httpx.get(server.url + "/healthz", timeout=10)
    return int(r.json().get("workers_ready", 2 if r.status_code == 200 else 0))  # before issue 30: 200 = all ready


def test_kill_9_of_a_worker_under_load_fails_under_1_percent_and_health_stays_200(demo_index: Path) -> None:
    import signal

    with serve_process(tokens=[TOKEN], workers=2, extra_args=["--index", str(demo_index)]) as server:
        deadline = time.monotonic() + 60
        while _workers_ready(server) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _workers_ready(server) == 2
        results: list[tuple[str, int | str]] = []
        stop = threading.Event()
        threads = [threading.Thread(target=_load, args=(server.url, stop, results, kind), daemon=True)
                   for kind in ("search", "search", "search", "health")]
        for t in threads:
            t.start()
        try:
            deadline = time.monotonic() + 120
            while sum(k == "search" for k, _ in results) < 150 and time.monotonic() < deadline:
                time.sleep(0.05)
            victim = _children(server.process.pid)[0]
            os.kill(victim, signal.SIGKILL)  # under load, no warning
            killed_at = len(results)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:  # until the replacement serves and enough traffic went by
                if len(results) - killed_at > 450 and victim not in _children(server.process.pid) \
                        and _workers_ready(server) == 2:
                    break
                time.sleep(0.2)
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=30)
        searches = [s for k, s in results if k == "search"]
        health = [s for k, s in results if k == "health"]
        failed = [s for s in searches if s != 200]
        assert len(failed) < 0.01 * len(searches), (len(failed), len(searches), failed[:10])
        # health never answers anything but 200; the one health request the victim had accepted when it was
        # killed is cut with it (a connection error, seen once in a CI run), no other may be
        assert all(s == 200 or isinstance(s, str) for s in health), [s for s in health if s != 200][:10]
        cut = [s for s in health if s != 200]
        assert len(cut) <= 1 and set(cut) <= {"ReadError", "RemoteProtocolError"}, cut
        assert len(_children(server.process.pid)) == 2
        assert httpx.get(server.url + "/healthz", timeout=10).json() == {"status": "ok", "workers": 2,
                                                                         "workers_ready": 2}
        assert "starting it again" in server.log_text()


def test_a_worker_that_keeps_dying_is_restarted_with_a_pause_never_given_up(demo_index: Path) -> None:
    import signal

    from dqkit.server.workers import MAX_BACKOFF_SECONDS, restart_delay

    assert [restart_delay(n) for n in (1, 2, 3, 4)] == [0.0, 0.5, 1.0, 2.0]
    assert restart_delay(1000) == MAX_BACKOFF_SECONDS  # bounded, and never "give up"
    with serve_process(tokens=[TOKEN], workers=2, extra_args=["--index", str(demo_index)]) as server:
        for _ in range(4):  # the same slot, killed as soon as it is back
            deadline = time.monotonic() + 60
            while len(_children(server.process.pid)) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            os.kill(max(_children(server.process.pid)), signal.SIGKILL)
            assert httpx.get(server.url + "/healthz", timeout=30).status_code == 200  # the other one serves
        assert server.process.poll() is None
        assert "in 0.5 s" in server.log_text() and "in 1 s" in server.log_text()
