"""Pre-screen against a real `dqkit serve` playing the vendor: only unsettled leads are sent, each exactly once,
every row comes back in order with where its answer came from, and a service that fails mid-run loses nothing."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from analyst_helpers import TOKEN, sample
from faultproxy import FaultProxy

from dqkit.client import LeadClient
from dqkit.contract.errors import InputError
from dqkit.notebook.cache import ResultCache
from dqkit.notebook.prescreen import BY_SERVICE, DEFAULT_SETTLED, NO_ANSWER, ScreenBackend, settled_codes, summary_of
from dqkit.server.testing import ServedProcess, serve_process


def client(url: str, **settings: object) -> LeadClient:
    return LeadClient(url, token=TOKEN, **settings)  # type: ignore[arg-type]


@pytest.mark.slow  # the bundled 10,000 leads: the settling engine, then about 9,600 calls over loopback
def test_prescreen_on_the_bundled_sample_sends_exactly_the_unsettled_leads(vendor: ServedProcess) -> None:
    df = sample()
    with FaultProxy(vendor.url) as proxy:
        be = client(proxy.url)
        screen = df.leads.verify(backend=ScreenBackend(be), cache=False, progress=False)
        settled = screen["lead_result_code"].astype(str).isin(DEFAULT_SETTLED)
        out = df.leads.verify(backend=be, prescreen=True, price=0.05, cache=False, progress=False)
        calls = len(proxy.answered)  # distinct leads answered (a retry keeps its lead's Reference-Id)
        served = df.leads.verify(backend=be, cache=False, progress=False)  # the shadow run: every lead sent
    assert len(out) == len(df) and out.index.equals(df.index)
    assert list(out.columns[: df.shape[1]]) == list(df.columns)
    by = out["lead_answered_by"].astype(str)
    assert (by[settled.to_numpy()].str.startswith("local (settled ")).all()
    assert (by[~settled.to_numpy()] == BY_SERVICE).all()  # no unsettled lead skipped the service
    s = summary_of(out)
    assert s is not None and s.settled == int(settled.sum()) and s.calls == calls and s.no_answer == 0
    assert s.money_spent == round(calls * 0.05, 2) and s.money_saved == round(s.saved * 0.05, 2)  # type: ignore[operator]
    assert out.attrs["dqkit_prescreen"]["calls_saved"] == s.saved
    # Every settled answer is the service's own answer to that lead (the issue found 36 E200 -> E300 here).
    fields = ["lead_result_code", "lead_result_type", "lead_result_value"]
    mask = settled.to_numpy()
    pd.testing.assert_frame_equal(out.loc[mask, fields].astype(str), served.loc[mask, fields].astype(str))
    print(f"\npre-screen of the bundled sample: {s}")


def test_settled_codes_can_be_changed_and_are_checked(vendor: ServedProcess) -> None:
    df = sample(600)
    with FaultProxy(vendor.url) as proxy:
        default = df.leads.verify(backend=client(proxy.url), prescreen=True, cache=False, progress=False)
        first = len(proxy.answered)
        wider = df.leads.verify(backend=client(proxy.url), prescreen=True, settled_codes="E200,E300,E600,E601,"
                                "E100", cache=False, progress=False)
        second = len(proxy.answered) - first
    spoofs = int((default["lead_result_code"].astype(str) == "E100").sum())
    assert spoofs > 0 and first - second == spoofs
    assert (wider["lead_answered_by"].astype(str) == "local (settled E100)").sum() == spoofs
    with pytest.raises(InputError, match="E999"):
        settled_codes("E200,E999")
    with pytest.raises(InputError, match="PHONE_STATUS cannot settle"):
        settled_codes("E200,E805")
    with pytest.raises(InputError, match="prescreen=True"):
        df.leads.verify(settled_codes="E200", cache=False, progress=False)


def test_a_service_failing_mid_run_loses_nothing_and_a_rerun_sends_only_the_missing(
        vendor: ServedProcess, tmp_path: Path) -> None:
    df = sample(400)
    cache = ResultCache.in_directory(tmp_path / "cache")
    seen: set[str] = set()
    lock = threading.Lock()

    kinds = ("500", "drop", "429", "503", "stall")
    failing: dict[str, str] = {}

    def plan(ref: str, nth: int) -> str | None:  # the first 150 leads get through; then every kind of fault, always
        with lock:
            if ref not in seen and len(seen) < 150:
                seen.add(ref)
            if ref in seen:
                return None
            return failing.setdefault(ref, kinds[len(failing) % len(kinds)])

    with FaultProxy(vendor.url, plan=plan, stall_seconds=4.0) as proxy:
        flaky = client(proxy.url, max_attempts=2, backoff_base=0.01, backoff_max=0.02, timeout=2.0,
                       max_rate_waits=1)
        first = df.leads.verify(backend=flaky, prescreen=True, cache=cache, progress=False)
        by = first["lead_answered_by"].astype(str)
        answered, missing = int((by == BY_SERVICE).sum()), int((by == NO_ANSWER).sum())
        assert answered == 150 and missing > 0 and len(first) == len(df)
        assert first.loc[by == NO_ANSWER, "lead_result_type"].astype(str).eq("FAILED").all()
        s1 = summary_of(first, price=0.05)
        assert s1 is not None and s1.no_answer == missing
        assert set(proxy.faults) == set(kinds)  # 5xx, 429, dropped connections and timeouts all happened
        # The books are the proxy's: calls = requests it delivered an answer to; the unanswered cost nothing.
        answered_1, received_1 = set(proxy.answered), set(proxy.received)
        assert s1.calls == len(answered_1) == 150 and s1.failed == len(received_1 - answered_1) > 0
        assert s1.money_spent == round(150 * 0.05, 2) and s1.cached == 0
        proxy.plan = lambda ref, nth: None  # the service is back
        patient = client(proxy.url)  # same URL, so the same cache namespace; default timeout and retries
        again = df.leads.verify(backend=patient, prescreen=True, price=0.05, cache=cache, progress=False)
        # Only what had no answer was sent again: one Reference-Id per lead (its retries share it).
        new_refs = set(proxy.received) - received_1
        assert len(new_refs) == s1.failed
        s2 = summary_of(again)
        # A rerun counts only its own calls (the rerun made 4 calls and printed "514 sent ... 25.70 spent").
        assert s2 is not None and s2.calls == len(set(proxy.answered) - answered_1) == len(new_refs)
        assert s2.cached == 150 and s2.failed == 0 and s2.money_spent == round(len(new_refs) * 0.05, 2)
        assert "not paid again" in str(s2) and f"{s2.calls:,} answered" in str(s2)
    assert (again["lead_answered_by"].astype(str) != NO_ANSWER).all()
    kept = (by == BY_SERVICE).to_numpy()
    pd.testing.assert_series_equal(again["lead_result_code"][kept].astype(str),
                                   first["lead_result_code"][kept].astype(str))


def test_a_killed_service_loses_nothing(tmp_path: Path) -> None:
    df = sample(500)
    cache = ResultCache.in_directory(tmp_path / "cache")
    with serve_process(tokens=[TOKEN]) as doomed, FaultProxy(doomed.url) as proxy:
        def kill_after(n: int) -> None:
            deadline = time.monotonic() + 60
            while len(proxy.paths) < n and time.monotonic() < deadline:
                time.sleep(0.005)
            doomed.process.kill()

        killer = threading.Thread(target=kill_after, args=(120,), daemon=True)
        killer.start()
        be = client(proxy.url, max_attempts=2, backoff_base=0.01, backoff_max=0.02, timeout=5, max_concurrency=4)
        first = df.leads.verify(backend=be, prescreen=True, cache=cache, progress=False)
        killer.join(5)
        by = first["lead_answered_by"].astype(str)
        missing = int((by == NO_ANSWER).sum())
        assert missing > 0 and int((by == BY_SERVICE).sum()) >= 100
        with serve_process(tokens=[TOKEN]) as revived:
            proxy.upstream = revived.url
            before = set(proxy.received)
            again = df.leads.verify(backend=client(proxy.url), prescreen=True, cache=cache, progress=False)
            assert len(set(proxy.received) - before) == missing  # distinct leads sent again
    assert (again["lead_answered_by"].astype(str) != NO_ANSWER).all()
    assert np.array_equal(again.index, df.index)
