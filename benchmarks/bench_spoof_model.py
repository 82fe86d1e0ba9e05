"""Speed of the spoof name model in the engine (issue 32 part 3), beside its peer in the same run: the bundled rules.

Leads: the 18,388 unique real names of the evaluation (tests/lead_rules/eval: dev_real_names.csv and
real_names.csv; mostly names no cache holds, the common case of a lead source), and the 543 rows of the fresh
spoof set, reported apart. For each lead, as `explain_spoof` runs them: the bundled rules first (timed as the
peer), then the model (`spoof._model_hit`, timed), so the model finds the caches the rules leave (a name's words).
Every pass clears all per-value caches first; one warm-up pass is run and not counted. A lead's cost is CPU time
of this thread (`time.thread_time_ns`, so the wait for a core on a shared machine is out; the clock's own cost,
about 0.3 us, is in) and wall time (`perf_counter_ns`); reported as p50 / p90 / p99 over leads of each lead's
median and best over the passes, with the load average before and after. Load: wall and CPU time of the tables
in this fresh process (run it several times).

Run: `.venv/bin/python benchmarks/bench_spoof_model.py [--passes 5]`. To time another checkout's dqkit against
this one, run from outside the repo with `PYTHONPATH=OTHER_CHECKOUT` (this file imports whichever dqkit comes first).
"""

from __future__ import annotations

import argparse
import csv
import gc
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from dqkit.contract.lead import LeadRequest
from dqkit.engines.lead import spoof, spoof_model

EVAL = Path(__file__).resolve().parent.parent / "tests" / "lead_rules" / "eval"


def _read(file: str) -> list[dict[str, str]]:
    with (EVAL / file).open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _real_leads() -> list[LeadRequest]:
    rows = _read("dev_real_names.csv") + _read("real_names.csv")
    return [LeadRequest(first_name=r["first_name"], last_name=r["last_name"], zip="20500") for r in rows]


def _spoof_leads() -> list[LeadRequest]:
    return [LeadRequest(first_name=r["first_name"], last_name=r["last_name"], full_name=r["full_name"], zip="20500")
            for r in _read("spoof_fresh.csv")]


def _cost(f: Callable[[], object]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    f()
    return 1000 * (time.perf_counter() - wall), 1000 * (time.process_time() - cpu)


def _rules(lead: LeadRequest) -> object:
    """The bundled rules of E100 on a lead's name, as explain_spoof runs them before the model."""
    return (spoof._check_field(spoof._NAME, lead.first_name, True), spoof._check_field(spoof._NAME, lead.last_name,
            False), spoof._check_person(lead.first_name, lead.middle_name, lead.last_name))


def _clear() -> None:
    for c in (spoof._judge_person, spoof._judge_full, spoof._tokens, spoof._check_field, spoof._check_person,
              spoof._sound, spoof._pun_word, spoof._pun_key, spoof._skeleton, spoof_model._coarse_word):
        c.cache_clear()
    for name in ("_vulgar_sound",):  # a cache some versions of the model keep
        f = getattr(spoof_model, name)
        if hasattr(f, "cache_clear"):
            f.cache_clear()


Samples = dict[str, list[list[int]]]  # measure -> per pass, per lead


def _passes(leads: list[LeadRequest], passes: int) -> Samples:
    out: Samples = {k: [] for k in ("model cpu", "model wall", "rules cpu", "rules wall")}
    model_hit, cpu_ns, wall_ns = spoof._model_hit, time.thread_time_ns, time.perf_counter_ns
    for p in range(passes + 1):  # pass 0 is the warm-up
        _clear()
        row: Samples = {k: [[]] for k in out}
        mc, mw, rc, rw = (row[k][0] for k in ("model cpu", "model wall", "rules cpu", "rules wall"))
        for lead in leads:
            w, c = wall_ns(), cpu_ns()
            _rules(lead)
            c2, w2 = cpu_ns(), wall_ns()
            model_hit(lead)
            c3, w3 = cpu_ns(), wall_ns()
            rc.append(c2 - c)
            rw.append(w2 - w)
            mc.append(c3 - c2)
            mw.append(w3 - w2)
        if p:
            for k in out:
                out[k].append(row[k][0])
    return out


def _q(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(p * len(s)))] / 1000


def _report(title: str, samples: Samples, load0: float) -> None:
    for k, per_pass in samples.items():
        per_lead = list(zip(*per_pass, strict=True))
        for how, f in (("median", statistics.median), ("best", min)):
            xs = [f(v) for v in per_lead]
            print(f"{title:<11} {k:<11} per lead (n={len(xs)}, {how} of {len(per_pass)}): p50 {_q(xs, 0.5):5.1f} us,"
                  f" p90 {_q(xs, 0.9):5.1f} us, p99 {_q(xs, 0.99):5.1f} us; load average {load0:.1f} -> "
                  f"{os.getloadavg()[0]:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=5)
    args = ap.parse_args()
    print(f"dqkit from {spoof.__file__}")
    model = _cost(spoof_model.model)
    known = _cost(lambda: (spoof_model._known_hashes(), getattr(spoof_model, "_known_set", lambda: None)()))
    peer = _cost(spoof._tables)
    print(f"load: model tables wall {model[0]:.0f} ms, CPU {model[1]:.0f} ms; known-name hashes (and their set) wall "
          f"{known[0]:.0f} ms, CPU {known[1]:.0f} ms; peer, the bundled rules' tables: wall "
          f"{peer[0]:.0f} ms, CPU {peer[1]:.0f} ms; load average {os.getloadavg()[0]:.1f}")
    for title, leads in (("real names", _real_leads()), ("spoofs", _spoof_leads())):
        gc.collect()
        gc.disable()
        load0 = os.getloadavg()[0]
        samples = _passes(leads, args.passes)
        gc.enable()
        _report(title, samples, load0)


if __name__ == "__main__":
    main()
