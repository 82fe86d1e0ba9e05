"""Exact books, as a user runs `dqkit verify --service` (real processes, a real `dqkit serve`, a counting proxy):
the calls and money printed are the requests the service answered in this run and nothing else; Ctrl-C lets the
requests in flight finish and keeps their answers, so a rerun pays for no lead twice; a run where nothing was
answered fails, saying why."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
from analyst_helpers import LAUNCH, TOKEN, dqkit, sample
from faultproxy import FaultProxy

from dqkit.server.testing import ServedProcess

_REF = re.compile(rb'"CUST_REF_NO":"([^"]+)"|<cust_ref_no>([^<]+)</cust_ref_no>')


def _leads_in(bodies: list[bytes]) -> set[str]:
    """The leads (their CUST_REF_NO) the requests held."""
    out: set[str] = set()
    for b in bodies:
        m = _REF.search(b)
        assert m is not None, b[:200]
        out.add((m.group(1) or m.group(2)).decode())
    return out


def _calls_line(stdout: str) -> str:
    return next(line for line in stdout.splitlines() if line.startswith("calls to"))


def _ctrl_c_as_in_a_terminal() -> None:
    """The run gets Ctrl-C as a terminal gives it, even when this suite was started in the background by a shell
    without job control (which starts it with SIGINT ignored, a disposition every child inherits)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _with_cache(tmp_path: Path) -> dict[str, str]:
    return {"DQKIT_LEAD_TOKEN": TOKEN, "DQKIT_CACHE": "1", "XDG_CACHE_HOME": str(tmp_path / "cache")}


def test_the_printed_books_are_what_the_proxy_saw_across_a_faulted_run_and_its_rerun(
        vendor: ServedProcess, tmp_path: Path) -> None:
    src = tmp_path / "leads.csv"
    sample(300).to_csv(src, index=False)
    # About a seventh of the requests are refused (503, every try): those leads get no answer in the first run.
    with FaultProxy(vendor.url, plan=lambda ref, nth: "503" if int(ref[:8], 16) % 7 == 0 else None) as proxy:
        env = _with_cache(tmp_path)
        first = dqkit("verify", str(src), "-o", str(tmp_path / "a.csv"), "--service", proxy.url, "--prescreen",
                      "--price", "0.05", "--timeout", "5", env=env)
        assert first.returncode == 0, first.stderr
        answered_1, received_1 = set(proxy.answered), set(proxy.received)
        failed_1 = len(received_1 - answered_1)
        assert failed_1 > 0
        line = _calls_line(first.stdout)
        assert f"in this run: {len(answered_1):,} answered, {failed_1:,} without an answer" in line, line
        assert f"{len(answered_1) * 0.05:,.2f} spent" in line, line
        proxy.plan = lambda ref, nth: None  # the service answers everything now
        again = dqkit("verify", str(src), "-o", str(tmp_path / "b.csv"), "--service", proxy.url, "--prescreen",
                      "--price", "0.05", env=env)
        assert again.returncode == 0, again.stderr
        new = set(proxy.answered) - answered_1
        line = _calls_line(again.stdout)
        # The rerun counts its own calls only: the ones the first run left without an answer.
        assert len(new) == failed_1 and f"in this run: {failed_1:,} answered;" in line, line
        assert f"{len(answered_1):,} answers reused from earlier runs" in line and f"{failed_1 * 0.05:,.2f} spent" \
            in line, line
    out = pd.read_csv(tmp_path / "b.csv", dtype=str, keep_default_na=False)
    assert (out["answered_by"] != "no answer (service)").all()


def test_ctrl_c_lets_the_requests_in_flight_finish_and_no_lead_is_paid_for_twice(vendor: ServedProcess,
                                                                                 tmp_path: Path) -> None:
    src = tmp_path / "leads.csv"
    sample(400).to_csv(src, index=False)
    env = {k: v for k, v in os.environ.items() if k not in ("DQKIT_PARTNER_ID", "DQKIT_CLIENT_ID")}
    env.update({"DQKIT_PROGRESS": "0", **_with_cache(tmp_path)})
    with FaultProxy(vendor.url, plan=lambda ref, nth: "delay", delay_seconds=0.4) as proxy:
        run = subprocess.Popen([sys.executable, "-c", LAUNCH, "verify", str(src), "-o", str(tmp_path / "a.csv"),
                                "--service", proxy.url], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True, preexec_fn=_ctrl_c_as_in_a_terminal)
        deadline = time.monotonic() + 120
        while len(proxy.answered) < 60 and time.monotonic() < deadline and run.poll() is None:
            time.sleep(0.05)
        assert run.poll() is None, run.communicate()
        run.send_signal(signal.SIGINT)
        _, stderr = run.communicate(timeout=120)
        assert run.returncode == 130, stderr
        assert "stopping: letting the" in stderr and "requests in flight finish" in stderr, stderr
        assert "are cached; run again to resume" in stderr, stderr
        # Every request that went out got its answer delivered (none was cut off in flight) ...
        sent_1, answered_1 = set(proxy.received), set(proxy.answered)
        assert sent_1 == answered_1 and 60 <= len(answered_1) < 400, (len(sent_1), len(answered_1))
        leads_1 = _leads_in(proxy.bodies)
        seen = len(proxy.bodies)
        proxy.plan = lambda ref, nth: None
        again = dqkit("verify", str(src), "-o", str(tmp_path / "b.csv"), "--service", proxy.url, env=_with_cache(
            tmp_path))
        assert again.returncode == 0, again.stderr
        leads_2 = _leads_in(proxy.bodies[seen:])
    # ... and the rerun sent only the others: no lead was paid for twice (the issue: 512 in flight sent again).
    assert leads_1.isdisjoint(leads_2) and len(leads_1 | leads_2) == 400
    assert f"in this run: {len(leads_2):,} answered; {len(leads_1):,} answers reused" in _calls_line(again.stdout)


def test_a_second_ctrl_c_aborts_and_says_how_many_may_be_billed_again(vendor: ServedProcess, tmp_path: Path) -> None:
    src = tmp_path / "leads.csv"
    sample(200).to_csv(src, index=False)
    env = {**os.environ, "DQKIT_PROGRESS": "0", **_with_cache(tmp_path)}
    with FaultProxy(vendor.url, plan=lambda ref, nth: "delay", delay_seconds=3.0) as proxy:
        run = subprocess.Popen([sys.executable, "-c", LAUNCH, "verify", str(src), "-o", str(tmp_path / "a.csv"),
                                "--service", proxy.url], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True, preexec_fn=_ctrl_c_as_in_a_terminal)
        deadline = time.monotonic() + 120
        while len(proxy.received) < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
        run.send_signal(signal.SIGINT)
        time.sleep(0.5)
        run.send_signal(signal.SIGINT)
        _, stderr = run.communicate(timeout=60)
    assert run.returncode == 130, stderr
    m = re.search(r"aborted: up to ([\d,]+) requests were answered \(or in flight\) and not recorded", stderr)
    assert m is not None and int(m.group(1).replace(",", "")) > 0, stderr


def test_a_run_nothing_answers_fails_with_its_first_reason(tmp_path: Path) -> None:
    src = tmp_path / "leads.csv"
    sample(10).to_csv(src, index=False)
    done = dqkit("verify", str(src), "-o", str(tmp_path / "out.csv"), "--service", "http://127.0.0.1:9",
                 "--timeout", "3", env={"DQKIT_LEAD_TOKEN": TOKEN})
    assert done.returncode == 1, done.stderr
    assert "the service answered none of the 10 leads sent; the first reason: TransportError" in done.stderr
    out = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert len(out) == 10 and (out["result_type"] == "FAILED").all()  # nothing lost: every row, with its reason
