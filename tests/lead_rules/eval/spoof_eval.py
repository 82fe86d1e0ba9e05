"""The three-set evaluation of E100 (issue 32), with Wilson 95% intervals on every figure.

1. Fresh spoof set (`spoof_fresh.csv`), one split at a time: per kind, list recall (rows that are, or are near,
   an entry of a bundled whole-name list: `listed.near_list_entry`) and rules-only recall (every other row).
   The goal counts the joke, vulgar, pun and placeholder kinds; fictional, celebrity and stand-in names are
   list territory and reported apart.
2. Real names the model never saw (`real_names.csv`): false positives, a name counted once whether it is
   flagged as FIRST_NAME + LAST_NAME or as FULL_NAME.
3. The bundled whole-name lists' own entries: list recall, per list.

Run: `.venv/bin/python tests/lead_rules/eval/spoof_eval.py [dev|dev2|test] [--show-real]`. Row-level misses are
printed for the tuning sets only (`dev`, and `dev2`: the second development set `spoof_dev2.csv`, scored exactly as
`dev`): the test split reports aggregates, so no rule is tuned on it. The real-name set
has no development split: its flagged names are printed only with --show-real, for the final report.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import math
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from listed import WHOLE_NAME_LISTS, _entries, near_list_entry  # noqa: E402

from dqkit.contract.lead import LeadRequest  # noqa: E402
from dqkit.engines.lead import spoof, spoof_model  # noqa: E402
from dqkit.engines.lead.spoof import WORDLISTS, SpoofHit, explain_spoof  # noqa: E402

FRESH = HERE / "spoof_fresh.csv"
DEV2 = HERE / "spoof_dev2.csv"
TUNING_SPLITS = ("dev", "dev2")
REAL = HERE / "real_names.csv"
DEV_REAL = HERE / "dev_real_names.csv"
GOAL_KINDS = ("joke", "vulgar", "pun", "placeholder")
APART_KINDS = ("fictional", "celebrity", "standin")
Detector = Callable[[LeadRequest], SpoofHit | None]


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of k successes in n trials (95% by default)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Figure:
    label: str
    hit: int
    n: int

    @property
    def rate(self) -> float:
        return self.hit / self.n if self.n else 0.0

    def line(self) -> str:
        lo, hi = wilson(self.hit, self.n)
        return f"  {self.label:<44} {self.hit:>5}/{self.n:<5} {self.rate:7.1%}  [{lo:6.1%}, {hi:6.1%}]"

    def line_per_1000(self) -> str:
        lo, hi = wilson(self.hit, self.n)
        return (f"  {self.label:<44} {self.hit:>5}/{self.n:<5} {1000 * self.rate:6.2f}/1000  "
                f"[{1000 * lo:5.2f}, {1000 * hi:5.2f}]/1000")


def read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def lead_of(row: dict[str, str]) -> LeadRequest:
    return LeadRequest(first_name=row.get("first_name", ""), last_name=row.get("last_name", ""),
                       full_name=row.get("full_name", ""), zip="20500")


def fresh_rows(split: str) -> list[dict[str, str]]:
    """The rows of one split: `dev`/`test` of the fresh set, or `dev2`, the second development set."""
    return [r for r in read(DEV2 if split == "dev2" else FRESH) if r["split"] == split]


def fresh_figures(split: str, detect: Detector = explain_spoof) -> tuple[list[Figure], list[tuple[str, str]]]:
    """Figures of one split of the fresh set, and (kind, name) of its rules-only misses."""
    rows = fresh_rows(split)
    near = {id(r): near_list_entry(r) is not None for r in rows}
    flagged = {id(r): detect(lead_of(r)) is not None for r in rows}
    figs: list[Figure] = []
    misses: list[tuple[str, str]] = []

    def add(label: str, chosen: Iterable[dict[str, str]]) -> None:
        rs = list(chosen)
        figs.append(Figure(label, sum(flagged[id(r)] for r in rs), len(rs)))

    for kinds, label in ((GOAL_KINDS, "goal kinds"), *(((k,), k) for k in GOAL_KINDS + APART_KINDS)):
        in_kind = [r for r in rows if r["kind"] in kinds]
        add(f"{label}: rules (on no list)", (r for r in in_kind if not near[id(r)]))
        add(f"{label}: lists (near an entry)", (r for r in in_kind if near[id(r)]))
    for r in rows:
        if not near[id(r)] and not flagged[id(r)]:
            misses.append((r["kind"], r["full_name"] or f"{r['first_name']} {r['last_name']}"))
    return figs, misses


def real_flags(detect: Detector = explain_spoof) -> list[tuple[dict[str, str], SpoofHit]]:
    out = []
    for r in read(REAL):
        for lead in (LeadRequest(first_name=r["first_name"], last_name=r["last_name"], zip="20500"),
                     LeadRequest(full_name=f"{r['first_name']} {r['last_name']}", zip="20500")):
            hit = detect(lead)
            if hit is not None:
                out.append((r, hit))
                break
    return out


def real_figures(detect: Detector = explain_spoof) -> tuple[list[Figure], list[tuple[dict[str, str], SpoofHit]]]:
    rows = read(REAL)
    flags = real_flags(detect)
    english = [r for r in rows if r["english_word"]]
    figs = [Figure("real names, all (false positives)", len(flags), len(rows)),
            Figure("  of them by the name model", sum(1 for _, h in flags if h.why), len(rows)),
            Figure("  of them with an English-word token", sum(1 for r, _ in flags if r["english_word"]),
                   len(english))]
    return figs, flags


@contextlib.contextmanager
def hidden_model(rows: list[dict[str, str]]) -> Iterator[None]:
    """The detector with the rare words of `rows` (under 1,000 US bearers in either role) hidden from the name
    model, so that real names of the model's own sources stand for the rare names it never saw."""
    m = spoof_model.model()
    surnames = spoof_model.known_surnames()
    hide = {w for r in rows for v in (r["first_name"], r["last_name"]) for w in spoof._tokens(v)[0]
            if max(m.weight(w), surnames.get(w, 0)) < 30}
    masked = dataclasses.replace(m, given={k: v for k, v in m.given.items() if k not in hide},
                                 surname={k: v for k, v in m.surname.items() if k not in hide},
                                 cultures={k: v for k, v in m.cultures.items() if k not in hide})
    known = {k: v for k, v in spoof_model.known_surnames().items() if k not in hide}
    saved = spoof_model.model, spoof_model.known_surnames, spoof_model.is_known
    real_known = spoof_model.is_known
    caches = (spoof._judge_person, spoof._judge_full)
    for c in caches:
        c.cache_clear()
    spoof_model.model, spoof_model.known_surnames = (lambda: masked), (lambda: known)  # type: ignore[assignment]
    spoof_model.is_known = lambda w: w not in hide and real_known(w)  # type: ignore[assignment]
    try:
        yield
    finally:
        spoof_model.model, spoof_model.known_surnames, spoof_model.is_known = saved  # type: ignore[assignment]
        for c in caches:
            c.cache_clear()


def dev_precision() -> tuple[list[Figure], list[tuple[dict[str, str], SpoofHit]]]:
    """False positives on the precision development set (dev_real_names.csv), its words hidden from the model."""
    rows = read(DEV_REAL)
    with hidden_model(rows):
        flags = []
        for r in rows:
            lead = LeadRequest(first_name=r["first_name"], last_name=r["last_name"], zip="20500")
            hit = explain_spoof(lead)
            if hit is not None:
                flags.append((r, hit))
    figs = [Figure("dev real names, words hidden (false positives)", len(flags), len(rows))]
    for src in sorted({r["source"] for r in rows}):
        figs.append(Figure(f"  {src}", sum(1 for r, _ in flags if r["source"] == src),
                           sum(1 for r in rows if r["source"] == src)))
    return figs, flags


def list_entries() -> dict[str, list[str]]:
    return {file: _entries(WORDLISTS / file) for file in WHOLE_NAME_LISTS}


def list_figures(detect: Detector = explain_spoof) -> list[Figure]:
    figs = []
    total_hit = total = 0
    for file, entries in list_entries().items():
        hit = sum(1 for e in entries if detect(LeadRequest(full_name=e, zip="20500")) is not None)
        figs.append(Figure(file, hit, len(entries)))
        total_hit += hit
        total += len(entries)
    return [Figure("all whole-name list entries", total_hit, total), *figs]


def report(split: str = "test", *, show_real: bool = False) -> str:
    out = [f"fresh spoof set, split {split} (Wilson 95%):"]
    figs, misses = fresh_figures(split)
    out += [f.line() for f in figs]
    if split in TUNING_SPLITS:  # precision is tuned on the dev set, never on the real-name evaluation set
        dev, dev_flags = dev_precision()
        out.append("dev real names, words hidden from the model (false positives, Wilson 95%):")
        out += [f.line_per_1000() for f in dev]
        out += [f"    flagged: {r['first_name']} {r['last_name']} ({r['source']}): {h.reason}" for r, h in dev_flags]
    else:
        real, flags = real_figures()
        out.append("real names the model never saw (false positives, Wilson 95%):")
        out += [f.line_per_1000() for f in real]
        if show_real:  # the real-name set has no development split: its names are shown for the final report
            out += [f"    flagged: {r['first_name']} {r['last_name']} ({r['culture']}): {h.reason}"
                    for r, h in flags]
    out.append("bundled lists' own entries (list recall, Wilson 95%):")
    out += [f.line() for f in list_figures()]
    if split in TUNING_SPLITS:
        out.append(f"{split} split, rules-only misses:")
        out += [f"    {k}: {n}" for k, n in misses]
    return "\n".join(out)


if __name__ == "__main__":
    args = sys.argv[1:]
    print(report(next((a for a in args if not a.startswith("-")), "test"), show_real="--show-real" in args))
