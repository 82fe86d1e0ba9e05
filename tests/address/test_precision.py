"""Precision of validate on the real OpenAddresses points of ../shared (issue 10, part 4; issue 28, part 4).

The corpora and the meaning of "right" are those of `benchmarks/bench_precision.py` (loaded from there, so the
benchmark and this test cannot drift apart): per county, 80% of the points build a reference, then (a) the
held-out 20%, (b) held-out rows on made-up streets, (c) reference rows with one or two typos, (d) reference rows on
made-up streets, (e) one typo in any word of the street part, (f) firm / attention / care-of lines, (h) house number
forms, the over-caution table (clean rows typed eight ordinary ways), and issue 28's (k) a valid suffix the name
lacks, (l) a direction missing or wrong where the street exists with and without one, (m) a direction missing or
wrong where the name has one form, (n) the ZIP one digit off, and (K), (M): (k) and (m) against the same points
vouched for as whole (`--complete`).

Issue 28: every run covers 8 seeds, the fixed 10, 11, 13, 99 and 4 drawn afresh (printed, with the table of every
seed and the worst one named), and every goal holds on every seed: no confident wrong answer in any corpus but
one known shape, wrong-valid suffixes found and flagged >= 90% from the sample (k) and where the reference is whole
(K), no switch between two real streets, unique directions found and flagged >= 90% (m, M). The known shape: a
held-out street that shares name and number with another of the reference (1511 MONTEVAL LN beside 1511 MONTEVAL
PL, both real, the only such pair without units in the samples) is, from a sample, the vendors' suffix correction
made less sure: Interaction required, flagged, said. The benchmark counts it as confident wrong (`Tally.twin`, named
in its report); here it must be that (never Verified match, never unflagged) and at most one per corpus and seed.
Queries are sampled (at most LIMIT per corpus and county) to keep the test short; the benchmark runs them all.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytestmark = [pytest.mark.shared, pytest.mark.timeout(1800)]  # 8 seeds: about a minute alone, far more under load
BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_precision.py"
LIMIT = 150
NEW = 120  # queries per county of each of the corpora (e) to (n)
FRESH = 4


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_precision", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_precision"] = mod  # dataclasses resolve their module by name
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def runs(shared_dir: Path) -> dict[int, dict[str, Any]]:
    bench = _bench()
    seeds = [*bench.FIXED_SEEDS, *bench.fresh_seeds(FRESH)]
    print(f"\nseeds: {', '.join(map(str, seeds))} ({FRESH} drawn afresh for this run)")
    out = {sd: bench.run(shared_dir, seed=sd, n_typos=LIMIT, peer=False, limit=LIMIT, n_new=NEW) for sd in seeds}
    print(bench.seeds_table(out))
    print(f"worst seed: {bench.worst_seed(out)}")
    return out


def _each(runs: dict[int, dict[str, Any]], corpus: str) -> list[tuple[int, Any]]:
    return [(sd, t[corpus]) for sd, t in runs.items()]


def test_eight_seeds_some_of_them_fresh(runs: dict[int, dict[str, Any]]) -> None:
    assert len(runs) >= 8 and {10, 11, 13, 99} <= set(runs)


@pytest.mark.parametrize("corpus", ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "K", "M"])
def test_no_confident_wrong_answer_on_any_seed(runs: dict[int, dict[str, Any]], corpus: str) -> None:
    for sd, t in _each(runs, corpus):
        assert t.n >= 30 or corpus in "ijl", (sd, corpus, t.n)
        assert t.confident_wrong - t.twin == 0 and t.twin <= 1, (sd, corpus, t.examples)
        assert t.search_verified_wrong == 0, (sd, corpus, t.search_verified_wrong)


def test_held_out_rows_are_almost_never_confidently_wrong(runs: dict[int, dict[str, Any]]) -> None:
    """(a): real addresses the reference lacks (no confident wrong answer: see the test above)."""
    for sd, t in _each(runs, "a"):
        assert t.n >= 300, t.n
        assert t.right_total / t.n >= 0.95, (sd, dict(t.count))


def test_typos_are_still_found(runs: dict[int, dict[str, Any]]) -> None:
    for sd, t in _each(runs, "c"):
        assert t.n >= 300 and t.right_total / t.n >= 0.97, (sd, t.right_total / max(t.n, 1), dict(t.count))


def test_made_up_streets_claim_no_street(runs: dict[int, dict[str, Any]]) -> None:
    """On made-up streets the right answer names the place at most: Verified place or No matches."""
    for corpus in ("b", "d"):
        for sd, t in _each(runs, corpus):
            assert t.right_total / t.n >= 0.97, (sd, corpus, dict(t.count))


@pytest.mark.parametrize(("corpus", "floor"), [("e", 0.97), ("f", 0.97), ("h", 0.95)])
def test_typed_forms_are_found(runs: dict[int, dict[str, Any]], corpus: str, floor: float) -> None:
    """(e) a typo in any word of the street part, (f) a firm or attention line, (h) a house number form: found
    (or, for a number form the reference lacks, not claimed)."""
    for sd, t in _each(runs, corpus):
        assert t.n >= 200 and t.right_total / t.n >= floor, (sd, corpus, t.right_total / max(t.n, 1), dict(t.count))


@pytest.mark.parametrize("corpus", ["k", "m", "K", "M", "n"])
def test_suffix_direction_and_zip_corrections_are_found_and_flagged(runs: dict[int, dict[str, Any]],
                                                                  corpus: str) -> None:
    """Issue 28's goals: a valid wrong suffix and a unique missing or wrong direction found and flagged on at least
    90% of them, from the sample (k, m: Interaction required, see `street_forms`) and where the reference holds
    every street (K, M: Verified match); a ZIP one digit off (n) too; never silently (a correction without its
    flag)."""
    for sd, t in _each(runs, corpus):
        assert t.n >= 30, (sd, corpus, t.n)
        assert t.right_total / t.n >= 0.9, (sd, corpus, t.right_total / t.n, t.examples)
        assert t.silent == 0, (sd, corpus, t.examples)


def test_two_real_streets_are_never_switched(runs: dict[int, dict[str, Any]]) -> None:
    """(l) a direction missing or wrong where the street exists with and without one: both readings listed,
    neither verified, on every seed, by validate and by a single-line search of the same text (which answered
    Verified match on the directed street for 16 of 54 on seed 11 before issue 28's search fix)."""
    total = 0
    for sd, t in _each(runs, "l"):
        total += t.n
        assert t.confident_wrong == 0 and t.silent == 0 and t.right_total == t.n, (sd, t.examples)
        assert t.search_verified == 0, (sd, t.search_verified)
    assert total >= 50, total


def test_clean_rows_typed_the_ordinary_ways_are_verified(runs: dict[int, dict[str, Any]]) -> None:
    """The over-caution table: lower case, spelled-out suffixes, ZIP or city only, ZIP+4, periods, split
    components, a neighbouring ZIP of the same city: Verified match with the row's address."""
    for sd, tallies in runs.items():
        keys = [k for k in tallies if k.startswith("o:")]
        assert len(keys) == 8
        n = sum(tallies[k].n for k in keys)
        verified = sum(tallies[k].verified_right for k in keys)
        assert n >= 200 and verified / n >= 0.97, (sd, {k: (tallies[k].verified_right, tallies[k].n) for k in keys})
        assert sum(tallies[k].confident_wrong for k in keys) == 0, sd
