"""Speed of the spoof name model (issue 32 part 3), beside its peer in the same run: the bundled rules of E100.

Per lead: 18,388 unique real names (dev_real_names.csv and real_names.csv, mostly names never seen, so every
cache misses), each timed alone; every pass clears the caches, and a lead's time is its best of 5 passes, which
takes out the time the process waited for a core on a shared machine. Load: wall and CPU time of the tables,
in a fresh process (run it several times). The load average is printed beside every figure.

Run: `.venv/bin/python tests/lead_rules/eval/bench_spoof_model.py [passes]`.
"""

from __future__ import annotations

import csv
import gc
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from dqkit.contract.lead import LeadRequest
from dqkit.engines.lead import spoof, spoof_model

HERE = Path(__file__).resolve().parent


def _leads() -> list[LeadRequest]:
    rows: list[dict[str, str]] = []
    for file in ("dev_real_names.csv", "real_names.csv"):
        with (HERE / file).open(newline="", encoding="utf-8") as fh:
            rows += list(csv.DictReader(fh))
    return [LeadRequest(first_name=r["first_name"], last_name=r["last_name"], zip="20500") for r in rows]


def _cost(f: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    f()
    return 1000 * (time.perf_counter() - wall), 1000 * (time.process_time() - cpu)


def _per_lead(leads: list[LeadRequest], run: Callable[[LeadRequest], object], caches: list[object],
              passes: int, clock: Callable[[], int] = time.perf_counter_ns) -> list[int]:
    best = [1 << 62] * len(leads)
    for _ in range(passes):
        for c in caches:
            c.cache_clear()  # type: ignore[attr-defined]
        for i, lead in enumerate(leads):
            t = clock()
            run(lead)
            d = clock() - t
            if d < best[i]:
                best[i] = d
    return sorted(best)


def _old_rules(lead: LeadRequest) -> object:
    """The bundled rules of E100 on a lead's name, as explain_spoof runs them before the model."""
    return (spoof._check_field(spoof._NAME, lead.first_name, True), spoof._check_field(spoof._NAME, lead.last_name,
            False), spoof._check_person(lead.first_name, lead.middle_name, lead.last_name))


def main(passes: int = 5) -> None:
    model = _cost(spoof_model.model)
    known = _cost(spoof_model._known_hashes)
    peer = _cost(spoof._tables)
    print(f"load: model tables wall {model[0]:.0f} ms, CPU {model[1]:.0f} ms; known-name hashes wall "
          f"{known[0]:.0f} ms, CPU {known[1]:.0f} ms; peer, the bundled rules' tables: wall "
          f"{peer[0]:.0f} ms, CPU {peer[1]:.0f} ms; load average {os.getloadavg()[0]:.1f}")
    leads = _leads()
    for lead in leads:  # the engine reads every name's words before the model does
        spoof._tokens(lead.first_name)
        spoof._tokens(lead.last_name)
    gc.disable()
    mine_caches = [spoof._judge_person, spoof._judge_full, spoof_model._vulgar_sound, spoof_model._coarse_word]
    old_caches = [spoof._check_field, spoof._check_person, spoof._sound, spoof._pun_word, spoof._pun_key,
                  spoof._skeleton]
    mine = _per_lead(leads, spoof._model_hit, mine_caches, passes)
    old = _per_lead(leads, _old_rules, old_caches, passes)
    # CPU time of this thread alone (the clock's own cost, about 0.3 us, included): the wait for a core is out
    mine_cpu = _per_lead(leads, spoof._model_hit, mine_caches, passes, time.thread_time_ns)
    old_cpu = _per_lead(leads, _old_rules, old_caches, passes, time.thread_time_ns)
    gc.enable()

    def q(xs: list[int], p: float) -> float:
        return xs[min(len(xs) - 1, int(p * len(xs)))] / 1000

    for label, xs in (("model", mine), ("peer: bundled rules", old), ("model, thread CPU", mine_cpu),
                      ("peer, thread CPU", old_cpu)):
        print(f"{label:<20} per lead (n={len(xs)}, best of {passes}): p50 {q(xs, 0.5):.1f} us, p90 {q(xs, 0.9):.1f}"
              f" us, p99 {q(xs, 0.99):.1f} us; load average {os.getloadavg()[0]:.1f}")
    print(f"ratio model / bundled rules: p50 {q(mine, 0.5) / q(old, 0.5):.2f}, p99 {q(mine, 0.99) / q(old, 0.99):.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
