"""Speed of the spoof name model in the engine (issue 32 part 3), beside its peer in the same run: the bundled rules.

Leads: the 18,388 unique real names of the evaluation (tests/lead_rules/eval: dev_real_names.csv and
real_names.csv; mostly names no cache holds, the common case of a lead source), and the 543 rows of the fresh
spoof set, reported apart. For each lead, as `explain_spoof` runs them: the bundled rules first (timed as the
peer), then the model (`spoof._model_hit`, timed), so the model finds the caches the rules leave (a name's words).
Every pass clears all per-value caches first; one warm-up pass is run and reported apart ("first pass": every
name seen for the first time in the process, the tables' memory touched for the first time), then not counted
in the passes; the model keeps no per-word memo across passes (issue 32). A lead's cost is CPU time
of this thread (`time.thread_time_ns`, so the wait for a core on a shared machine is out; the clock's own cost,
about 0.3 us, is in) and wall time (`perf_counter_ns`); reported as p50 / p90 / p99 over leads of each lead's
median and best over the passes, with the load average before and after. Load: wall and CPU time of the tables
in this fresh process (run it several times).

`--vs OTHER/spoof_model.py` also times the model's `judge` alone against another version of the file (loaded as
a module of its own: it imports the standard library only), lead by lead in turn (A B, then B A), so that the
machine's load weighs on both alike: p50 / p99 of each and the median of the per-lead ratio.

Run: `.venv/bin/python benchmarks/bench_spoof_model.py [--passes 5] [--vs FILE]`. To time another checkout's
dqkit in the engine, run from outside the repo with `PYTHONPATH=OTHER_CHECKOUT` (the first dqkit found is timed).
"""

from __future__ import annotations

import argparse
import csv
import gc
import importlib.util
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

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
    first: list[int] = []
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
        else:
            first = row["model cpu"][0]
    out["model cpu, first pass"] = [first]
    return out


def _q(xs: Sequence[float], p: float) -> float:
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


def _load_module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("spoof_model_vs", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["spoof_model_vs"] = module
    spec.loader.exec_module(module)
    return module


def _versus(path: Path, passes: int) -> None:
    """judge of this dqkit (B) and of another spoof_model.py (A), lead by lead in turn, on the same words."""
    other = _load_module(path)
    names: list[Sequence[str]] = []
    for lead in _real_leads() + _spoof_leads():
        words = spoof._tokens(lead.first_name)[0] + spoof._tokens(lead.last_name)[0]
        names.append(tuple(w for w in words if w not in spoof._TITLES) or spoof._tokens(lead.full_name)[0])
    mine, theirs = spoof_model.judge, other.judge
    for m in (spoof_model, other):
        m.model()
        m.is_known("warm")
    differ = sum(1 for ws in names if (mine(ws) is None) != (theirs(ws) is None))
    clock = time.thread_time_ns
    best_a = [1 << 62] * len(names)
    best_b = list(best_a)
    load0 = os.getloadavg()[0]
    gc.disable()
    for p in range(passes + 1):  # pass 0 is the warm-up
        spoof_model._coarse_word.cache_clear()
        other._coarse_word.cache_clear()
        for i, ws in enumerate(names):
            if (i + p) % 2:
                t = clock()
                theirs(ws)
                t2 = clock()
                mine(ws)
                t3 = clock()
                a, b = t2 - t, t3 - t2
            else:
                t = clock()
                mine(ws)
                t2 = clock()
                theirs(ws)
                t3 = clock()
                b, a = t2 - t, t3 - t2
            if p:
                best_a[i] = min(best_a[i], a)
                best_b[i] = min(best_b[i], b)
    gc.enable()
    ratio = statistics.median(b / a for a, b in zip(best_a, best_b, strict=True) if a)
    for label, xs in (("A " + str(path), best_a), ("B " + spoof_model.__file__, best_b)):
        print(f"judge alone, {label}: n={len(xs)}, best of {passes}, thread CPU: p50 {_q(xs, 0.5):.2f} us, "
              f"p90 {_q(xs, 0.9):.2f} us, p99 {_q(xs, 0.99):.2f} us")
    print(f"judge alone, B / A per lead: median {ratio:.3f}; verdicts that differ: {differ}; load average "
          f"{load0:.1f} -> {os.getloadavg()[0]:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--vs", type=Path, help="another spoof_model.py to time judge against, lead by lead")
    args = ap.parse_args()
    print(f"dqkit from {spoof.__file__}")
    model = _cost(spoof_model.model)
    known = _cost(spoof_model._known_hashes)
    sound = getattr(spoof_model, "_sound_puns", None)  # the sound pun table (session 5), read on first use
    puns = _cost(sound) if sound is not None else (0.0, 0.0)
    peer = _cost(spoof._tables)
    print(f"load: model tables wall {model[0]:.0f} ms, CPU {model[1]:.0f} ms; known-name hashes wall "
          f"{known[0]:.0f} ms, CPU {known[1]:.0f} ms; sound pun table wall {puns[0]:.1f} ms, CPU {puns[1]:.1f} "
          f"ms; peer, the bundled rules' tables: wall "
          f"{peer[0]:.0f} ms, CPU {peer[1]:.0f} ms; load average {os.getloadavg()[0]:.1f}")
    for title, leads in (("real names", _real_leads()), ("spoofs", _spoof_leads())):
        gc.collect()
        gc.disable()
        load0 = os.getloadavg()[0]
        samples = _passes(leads, args.passes)
        gc.enable()
        _report(title, samples, load0)
    if args.vs:
        _versus(args.vs, args.passes)


if __name__ == "__main__":
    main()
