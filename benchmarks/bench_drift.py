"""Drift on simulated histories: power to catch a change at each history length, a slow trend, false flags per run,
and whether any flag changes once shown (issue 29 part 3).

    .venv/bin/python benchmarks/bench_drift.py [--trials 400] [--seed 29] [--fresh 3]

A run is one lead source of `LEADS` leads (2,000) whose result codes are drawn (multinomial) from a realistic mix,
and whose phone statuses are drawn apart; every rate of `history.RATES` is counted from the draw, so each run carries
the same seven tests per kind that a real run does, and the correction sees them all. A shift moves the spoof share of
judged leads (4% -> 6%), taking from success. Rates and leads are this file's own (no data set is read); nothing
in `dqkit.notebook.drift` was tuned on a seed that reports a figure here: the defaults (window 20, alpha 0.008 per
run, 90% of it to the change tests, exact tests for counts, no test right after a flag) were chosen on seeds 7 and
3, the figures are for --seed 29 and fresh seeds.

Figures (see the module's `main`): power at history lengths 2 ... 150 (the shifted run is run L, after L-1 quiet
runs), the share of 20-run ramps 4% -> 9% flagged while ramping, false flags per new run in quiet histories of one
and of three sources, and flags that changed when the same history grew by 50 runs (must be 0).

Measured (defaults: window 20, alpha 0.008, Fisher's exact test; load 10-12 on 2 cores), seed 29 with 200 trials,
seed 2929 and two fresh seeds with 100 (quiet histories: 50 and 40 of 150 runs):

    power at L =            2     3     5    10    20    50   150
      seed 29             32%   46%   56%   70%   73%   72%   72%
      seed 2929           37%   54%   64%   72%   68%   77%   75%
      fresh 2099087432    37%   56%   62%   71%   78%   78%   69%
      fresh 1922485287    33%   51%   68%   73%   82%   77%   73%
      worst               32%   46%   56%   70%   68%   72%   69%
    slow 4% -> 9% over 20 runs: caught in 100% on every seed (median 6-7 runs into the ramp), also from run 1
    false flags per new quiet run: one source 0.0070-0.0098, three sources and (all) 0.0055-0.0090
      (runs with any flag: 0.47%-0.86%)
    flags changed when 50 runs were added: 0 of 9-15 on every seed

The issue's goal of 80% power "at any history length" is not met: about 70-78% from 10 runs on, a third at 2 runs.
It cannot be with false flags held at 1 per 100 runs: seven rates are tested per run (twice: change and trend), so
a test needs |z| >= 3.2, and a 4% -> 6% move on 2,000 leads (1,880 judged) gives z = 4.25 +- 1.2 against a long
baseline (about 80% at best) and 2.9 +- 1.0 against a single earlier run (about 38% at best). The start commit
(alpha 0.05 over the whole history) caught 48% at run 2, 28% at run 20 and 13% at run 150 on the test's seed, the
slow drift 2%, and its flags changed as runs were added.

Second session, four more fresh seeds (3759789150 2287052854 3366750926 133506130; 150 trials, 30 quiet histories of
150 runs each; load 11-13), the same defaults: worst power L=2 26%, L=3 43%, L=5 63%, L=10 66%, L=20 70%, L=50 73%,
L=150 71%; slow drift 100% on every seed; false flags per new quiet run 0.54-0.76% (one source) and 0.69-1.01%
(three sources and (all): one seed just over 1 in 100); no flag changed (8-13 shown).

Where the goal stands against arithmetic (normal approximation; 1,880 judged leads a run; z of the shift against
L-1 baseline runs: 2.81 at L=2, 3.36 at L=3, 3.78 at L=5, 4.10 at L=10, 4.27 from L=21 on; the alternative's sd
1.0-1.19). Even if the spoof rate were the only rate tested, one-sided, with the whole 1% a run to itself, the
power would be 69% at L=2 (80% needs a one-sided alpha of 2.4% for that one test), 83% at L=3, 90% at L=5. With the
seven rates sharing the 1% evenly, one-sided: 43%, 64%, 76%, 83% (L=10), 86% (L>=20). So 80% at L=2 is out of
reach at <= 1 false flag per 100 runs whatever the rule, at L=3 and L=5 out of reach while every rate is tested,
and from L=10 on within reach only by a rule near those bounds. The defaults (two-sided, 14 tests a run) are
bounded at 76% (L=10) and 80% (L>=20) and measure 6-8 points below (medians 70% and 73%); on development seed 7 the
loss looked shared by Fisher's conservativeness (mid-p: +0-2 points) and the overdispersion scaling firing by chance
on 5% of quiet baselines (at p 0.01: +4 points at L=10, one seed, 100 trials: not conclusive).

A candidate measured and not adopted (tuned on development seeds 7 and 3, then the four fresh seeds above, paired
histories): mid-p exact tests, 80% of each change test's alpha to the worse direction (more faults, fewer
successes), 95% of a run's alpha to the change tests: worst power 29%, 47%, 66%, 71%, 73%, 75%, 77% (+3 to +6
points), slow drift 100%, no flag changed, but false flags 0.60-0.72% (one source) and 0.74-1.16% (three sources
and (all)): over 1 in 100 on two seeds. With its alpha lowered to 0.0066 (chosen on those four seeds to match the
defaults' false flags) and four more fresh seeds (608653211 4267597043 2994865762 3118699306, paired): the
defaults worst 33% / 45% / 55% / 66% / 71% / 71% / 70%, false flags <= 0.78% and <= 0.98%; the candidate worst
38% / 52% / 60% / 71% / 75% / 75% / 75% but false flags still 0.63-1.05% (one source) and 0.63-1.32% (three):
mid-p and the uneven split raise the false flags of the worse direction more than alpha takes back, so the gain is
what a higher false-flag rate buys, not free power.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

LEADS = 2000
JUDGED_SHARE = 0.94  # leads that are not caller (5%) or service (1%) faults
MIX = {"no_match": 0.10, "address_invalid": 0.06}  # shares of judged leads; success takes the rest
CALLER, SERVICE, PHONE_BAD = 0.05, 0.01, 0.08
LENGTHS = (2, 3, 5, 10, 20, 50, 150)


def run_counts(rng: np.random.Generator, run: int, spoof: float, source: str = "web",
               leads: int = LEADS) -> list[dict[str, object]]:
    """The long counts (run, source, metric, count, total) of one simulated run, as `history.counts` records."""
    judged_p = JUDGED_SHARE
    probs = [judged_p * (1 - spoof - sum(MIX.values())), judged_p * spoof, judged_p * MIX["no_match"],
             judged_p * MIX["address_invalid"], CALLER, SERVICE]
    success, e100, s101, s102, caller, service = (int(v) for v in rng.multinomial(leads, probs))
    judged = success + e100 + s101 + s102
    phone_bad = int(rng.binomial(leads, PHONE_BAD))
    rates = {"success": (success, judged), "spoof": (e100, judged), "no_match": (s101, judged),
             "address_invalid": (s102, judged), "caller_fault": (caller, leads), "service_fault": (service, leads),
             "phone_invalid": (phone_bad, leads)}
    return [{"run": run, "source": source, "metric": m, "count": k, "total": n} for m, (k, n) in rates.items()]


def history(rng: np.random.Generator, spoofs: Sequence[float], sources: dict[str, int] | None = None) -> pd.DataFrame:
    """Runs 1..len(spoofs), each source drawn at that spoof share; with several sources, `(all)` too."""
    sources = sources or {"web": LEADS}
    rows: list[dict[str, object]] = []
    for run, spoof in enumerate(spoofs, 1):
        per = [r for s, n in sources.items() for r in run_counts(rng, run, spoof, s, n)]
        rows += per
        if len(sources) > 1:
            frame = pd.DataFrame(per).groupby("metric", sort=False)[["count", "total"]].sum().reset_index()
            rows += [{"run": run, "source": "(all)", "metric": m, "count": int(c), "total": int(t)}
                     for m, c, t in zip(frame["metric"], frame["count"], frame["total"], strict=True)]
    return pd.DataFrame(rows)


def flags(counts: pd.DataFrame, **kw: object) -> pd.DataFrame:
    from dqkit.notebook.drift import drift_of

    return drift_of(counts, **kw).flagged  # type: ignore[arg-type]


@dataclass
class Figures:
    seed: int
    trials: int
    power: dict[int, float]
    ramp: float
    ramp_from_start: float
    ramp_median_delay: float
    false_per_run_one: float
    any_flag_per_run_one: float
    false_per_run_three: float
    any_flag_per_run_three: float
    changed_flags: int
    shown_flags: int
    seconds: float


def power_at(rng: np.random.Generator, length: int, trials: int, before: float = 0.04, after: float = 0.06) -> float:
    caught = 0
    for _ in range(trials):
        f = flags(history(rng, [before] * (length - 1) + [after]))
        caught += int(((f["run"] == length) & (f["metric"] == "spoof")).any())
    return caught / trials


def ramp(rng: np.random.Generator, trials: int, quiet: int = 10) -> tuple[float, float]:
    """Share of 20-run ramps 4% -> 9% (after `quiet` runs at 4%) with a spoof flag during the ramp; median delay
    (runs into the ramp) of the first flag."""
    steps = list(np.linspace(0.04, 0.09, 21)[1:])
    caught, delays = 0, []
    for _ in range(trials):
        f = flags(history(rng, [0.04] * quiet + steps))
        hit = sorted(int(r) for r in f.loc[(f["metric"] == "spoof") & (f["run"] > quiet), "run"])
        if hit:
            caught += 1
            delays.append(hit[0] - quiet)
    return caught / trials, float(np.median(delays)) if delays else float("nan")


def false_flags(rng: np.random.Generator, histories: int, length: int,
                sources: dict[str, int] | None = None) -> tuple[float, float]:
    """Quiet histories: false flags per new run (runs 2..length), and the share of new runs with any flag."""
    flagged = runs_with = 0
    for _ in range(histories):
        f = flags(history(rng, [0.04] * length, sources))
        flagged += len(f)
        runs_with += f["run"].nunique()
    new_runs = histories * (length - 1)
    return flagged / new_runs, runs_with / new_runs


def stability(rng: np.random.Generator, histories: int, length: int = 100, more: int = 50) -> tuple[int, int]:
    """Flags of runs 1..length computed on that history, then on it grown by `more` runs (with a shift in them):
    (flags that changed, flags shown)."""
    from dqkit.notebook.drift import drift_of

    changed = shown = 0
    key = ["run", "source", "metric", "flag"]
    for _ in range(histories):
        spoofs = [0.04] * (length // 2) + [0.06] * (length - length // 2) + [0.05] * more
        full = history(rng, spoofs)
        before = drift_of(full[full["run"] <= length]).flagged[key]
        after = drift_of(full).flagged
        after = after[after["run"] <= length][key]
        merged = before.merge(after, how="outer", indicator=True)
        changed += int((merged["_merge"] != "both").sum())
        shown += len(before)
    return changed, shown


def measure(seed: int, trials: int, lengths: Sequence[int] = LENGTHS, quiet: int = 50) -> Figures:
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    power = {n: power_at(rng, n, trials) for n in lengths}
    ramp_p, delay = ramp(rng, trials)
    ramp_start, _ = ramp(rng, trials, quiet=0)
    one = false_flags(rng, quiet, 150)
    three = false_flags(rng, quiet, 150, {"web": 2000, "partner": 500, "fair": 150})
    changed, shown = stability(rng, max(4, trials // 40))
    return Figures(seed, trials, power, ramp_p, ramp_start, delay, one[0], one[1], three[0], three[1], changed, shown,
                   time.perf_counter() - t0)


def table(f: Figures) -> str:
    lines = [f"seed {f.seed}, {f.trials} trials per figure ({f.seconds:.0f} s, load {os.getloadavg()[0]:.2f})"]
    lines.append("  power, 4% -> 6% spoofs on 2,000 leads, shifted run = run L: "
                 + ", ".join(f"L={n}: {p:.0%}" for n, p in f.power.items()))
    lines.append(f"  slow 4% -> 9% over 20 runs after 10 quiet runs: flagged in {f.ramp:.0%} "
                 f"(median {f.ramp_median_delay:.0f} runs into the ramp); from the first run: {f.ramp_from_start:.0%}")
    lines.append(f"  quiet, one source: {f.false_per_run_one:.4f} false flags per new run, "
                 f"{f.any_flag_per_run_one:.2%} of runs with any flag")
    lines.append(f"  quiet, three sources + (all): {f.false_per_run_three:.4f} false flags per new run, "
                 f"{f.any_flag_per_run_three:.2%} of runs with any flag")
    lines.append(f"  stability: {f.changed_flags} of {f.shown_flags} flags changed when 50 runs were added")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=400)
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--fresh", type=int, default=0, help="also run this many fresh random seeds; the worst is shown")
    ap.add_argument("--lengths", default=",".join(map(str, LENGTHS)))
    ap.add_argument("--quiet", type=int, default=50, help="quiet histories of 150 runs for the false flags")
    args = ap.parse_args(argv)
    lengths = [int(v) for v in args.lengths.split(",")]
    seeds = [args.seed] + [int.from_bytes(os.urandom(4), "little") for _ in range(args.fresh)]
    got = []
    for s in seeds:
        f = measure(s, args.trials, lengths, args.quiet)
        print(table(f), flush=True)
        got.append(f)
    if len(got) > 1:
        print("worst over the seeds: power " + ", ".join(f"L={n}: {min(g.power[n] for g in got):.0%}" for n in lengths)
              + f"; ramp {min(g.ramp for g in got):.0%}; "
              f"false flags per run {max(g.false_per_run_one for g in got):.4f}"
              f" (one source), {max(g.false_per_run_three for g in got):.4f} (three); "
              f"changed flags {max(g.changed_flags for g in got)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
