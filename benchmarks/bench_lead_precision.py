"""Precision of the LEAD engine's address check on real OpenAddresses points: does S100 ever name a street the
person did not write? (issue 12, part 2)

    .venv/bin/python benchmarks/bench_lead_precision.py [--shared ../shared] [--seed 10] [--typos 1000]
                                                        [--limit N] [--examples]

The corpora, the reference and the 80 / 20 held-out split are those of `bench_precision.py` (imported from it, so
the two benchmarks cannot drift apart): per county of `shared/data/openaddresses/`, 80% of the rows build a real
`dqkit` index, whose store is the lead engine's `LeadProfile(points=...)`, exactly as an installed reference
serves it. (a) held-out real rows, (b) held-out rows on a made-up street, (c) reference rows with 1-2 typos,
(d) reference rows (real number, city and ZIP) on a made-up street, (e) reference rows with one typo in any word of
the street part (suffix, direction, ordinal, unit designator or name: `bench_precision.typo_any_word`).

Each query becomes a lead (STREET1 "NUMBER STREET UNIT", CITY, STATE, ZIP from the query text) and is verified.
The truth T of a query is (street, house number, ZIP): the row's street as the reference normalizes it in (a) and
(c), the typed made-up street (Publication 28 parts) in (b) and (d). Per corpus:

* S100 right: S100 whose StandardizedAddress holds T's street, number and ZIP;
* S100 WRONG: S100 whose StandardizedAddress names another street, number or ZIP: a CONFIDENT WRONG answer;
* S102 by ADDRESS_CODE (and by ELSResidentialAddressVerificationResult): the address was judged not valid;
* other: any other result code.

Peer, same queries and reference, same run: the address engine's `validate` (through the precision layer of
`dqkit/engines/address/evidence.py`), judged by `bench_precision.judge`: its confident wrong answers (Verified
match or Interaction required with another street, number or ZIP than T) and its right answers.
"us/q": mean microseconds per query in `LeadEngine.verify` (the whole lead) and in `validate` (noisy on a shared
machine; one pass, no warm-up beyond the first query).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_precision as bp  # the sibling benchmark: its corpora and judge

from dqkit.contract.lead import ELSGenericMessage, LeadRequest
from dqkit.engines.address import AddressEngine
from dqkit.engines.lead.engine import LeadEngine, LeadProfile
from dqkit.engines.usaddr.parser import parse_street

REPO = Path(__file__).resolve().parent.parent


CORPORA = ("a", "b", "c", "d", "e")  # (e): one typo in any word of the street part (issue 18, part 7)


@dataclass(slots=True)
class LeadTally:
    """Per corpus: lead outcomes and the address engine's (peer) confident wrong answers."""

    n: int = 0
    s100_right: int = 0
    s100_wrong: int = 0
    s102: Counter[str] = field(default_factory=Counter)  # ADDRESS_CODE -> count
    s102_els: Counter[str] = field(default_factory=Counter)  # ELSResidentialAddressVerificationResult -> count
    other: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    peer_right: int = 0
    peer_confident_wrong: int = 0
    peer_examples: list[str] = field(default_factory=list)
    lead_s: float = 0.0  # time in LeadEngine.verify
    peer_s: float = 0.0  # time in validate

    def add(self, o: LeadTally) -> None:
        self.n += o.n
        self.s100_right += o.s100_right
        self.s100_wrong += o.s100_wrong
        self.s102.update(o.s102)
        self.s102_els.update(o.s102_els)
        self.other.update(o.other)
        self.examples += o.examples[: max(0, 8 - len(self.examples))]
        self.peer_right += o.peer_right
        self.peer_confident_wrong += o.peer_confident_wrong
        self.peer_examples += o.peer_examples[: max(0, 8 - len(self.peer_examples))]
        self.lead_s += o.lead_s
        self.peer_s += o.peer_s


def lead_of(q: bp.Query) -> LeadRequest:
    """The query as a lead's fields: "NUMBER STREET UNIT, CITY, ST ZIP" split at its last two commas."""
    street, city, st_zip = q.text.rsplit(", ", 2)
    state, _, zip5 = st_zip.partition(" ")
    return LeadRequest(first_name="Maria", last_name="Garcia", street1=street, city=city, state=state, zip=zip5)


def truth_of(q: bp.Query) -> tuple[str, str, str]:
    """(street, number, ZIP) the lead's answer should hold (see the module docstring)."""
    if q.corpus in ("b", "d"):
        s = parse_street(q.text.rsplit(", ", 2)[0])
        return s.street, q.row.number, q.row.zip5
    return q.row.truth


def answered(msg: ELSGenericMessage) -> tuple[str, str, str]:
    sa = msg.standardized_address
    if sa is None:
        return "", "", ""
    return " ".join(p for p in (sa.predir, sa.prim_name, sa.suffix, sa.postdir) if p), sa.prim_range, sa.zip


def judge_lead(leads: LeadEngine, q: bp.Query, t: LeadTally) -> None:
    lead = lead_of(q)
    t0 = time.perf_counter()
    msg = leads.verify(lead)
    t.lead_s += time.perf_counter() - t0
    code = msg.message.result_code
    t.n += 1
    if code == "S100":
        got = answered(msg)
        if got == truth_of(q):
            t.s100_right += 1
        else:
            t.s100_wrong += 1
            if len(t.examples) < 8:
                t.examples.append(f"{q.text!r} -> S100 {' '.join(got)}")
    elif code == "S102":
        sa = msg.standardized_address
        t.s102[sa.address_code if sa is not None else "?"] += 1
        s1 = msg.stage1_data
        t.s102_els[s1.residential_address_verification_result if s1 is not None else "?"] += 1
    else:
        t.other[code] += 1


def run_county(name: str, state: str, shared: Path, work: Path, *, seed: int, n_typos: int,
               limit: int | None = None, peer: bool = True) -> dict[str, LeadTally]:
    """One county: the reference of bench_precision, its corpora, the lead engine and (peer) validate."""
    rows, raw, header = bp.load_rows(shared / "data" / "openaddresses" / f"{name}.csv", state, work)
    ref, queries = bp.make_queries(rows, seed, n_typos)
    queries += [q for q in bp.make_new_queries(ref, seed, n_typos, [], state) if q.corpus == "e"]
    ref_ids = {r.id for r in ref}
    ref_csv = work / f"{name}-ref.csv"
    bp.write_csv(ref_csv, header, (r for r in raw if r["ID"] in ref_ids))
    # taken as complete (`--complete`): (b) and (d) ask whether a made-up street is S102, which only a reference
    # vouched for may say (a sample is "not checked" by default, issue 28)
    engine = AddressEngine.from_files([ref_csv], out=work / f"{name}.dqidx", country_iso2="US", complete=True)
    leads = LeadEngine(LeadProfile(points=engine.points()))
    truth = bp.Truth(ref)
    if limit is not None:
        queries = sample(queries, limit, seed)
    tallies = {c: LeadTally() for c in CORPORA}
    for q in queries:
        t = tallies[q.corpus]
        judge_lead(leads, q, t)
        if peer:
            t0 = time.perf_counter()
            j = bp.judge(engine, truth, q)
            conf, right, cwrong, got = j.confidence, j.right, j.confident_wrong, j.got
            t.peer_s += time.perf_counter() - t0
            t.peer_right += right
            t.peer_confident_wrong += cwrong
            if cwrong and len(t.peer_examples) < 8:
                t.peer_examples.append(f"{q.text!r} -> {conf}: {got}")
    return tallies


def sample(queries: list[bp.Query], limit: int, seed: int) -> list[bp.Query]:
    """At most `limit` queries per corpus (seeded)."""
    by: dict[str, list[bp.Query]] = {}
    for q in queries:
        by.setdefault(q.corpus, []).append(q)
    return [q for c in CORPORA for q in random.Random(seed).sample(by.get(c, []), min(limit, len(by.get(c, []))))]


def run(shared: Path, *, seed: int = 10, n_typos: int = 1000, limit: int | None = None, peer: bool = True,
        counties: Iterable[str] = tuple(bp.COUNTIES)) -> dict[str, LeadTally]:
    """All counties, tallies summed per corpus."""
    total = {c: LeadTally() for c in CORPORA}
    with tempfile.TemporaryDirectory(prefix="dqkit-lead-precision-") as d:
        for name in counties:
            got = run_county(name, bp.COUNTIES[name], shared, Path(d), seed=seed, n_typos=n_typos, limit=limit,
                             peer=peer)
            for c in CORPORA:
                total[c].add(got[c])
    return total


def _top(c: Counter[str]) -> str:
    return " ".join(f"{k}:{v}" for k, v in c.most_common(4)) or "-"


def table(total: dict[str, LeadTally], peer: bool = True) -> str:
    head = f"{'corpus':<26}{'n':>6}{'S100 right':>12}{'S100 WRONG':>12}{'S102':>7}  {'S102 by ADDRESS_CODE':<22}" \
           f"{'S102 by ELS addr':<24}{'other':<12}{'lead us/q':>10}"
    if peer:
        head += f"{'validate right':>16}{'validate conf. wrong':>22}{'validate us/q':>15}"
    lines = [head]
    for c in CORPORA:
        t = total[c]
        n = max(t.n, 1)
        row = f"{bp.CORPUS_NAMES[c]:<26}{t.n:>6}{t.s100_right:>12}{t.s100_wrong:>12}{sum(t.s102.values()):>7}  " \
              f"{_top(t.s102):<22}{_top(t.s102_els):<24}{_top(t.other):<12}{1e6 * t.lead_s / n:>10.0f}"
        if peer:
            row += f"{t.peer_right:>16}{t.peer_confident_wrong:>22}{1e6 * t.peer_s / n:>15.0f}"
        lines.append(row)
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--shared", default=os.environ.get("DQKIT_SHARED_DIR", str(REPO.parent / "shared")))
    ap.add_argument("--seed", type=int, default=10)
    ap.add_argument("--typos", type=int, default=1000, help="typo queries per county")
    ap.add_argument("--limit", type=int, default=None, help="at most this many queries per corpus and county")
    ap.add_argument("--no-peer", action="store_true", help="skip the address engine's validate")
    ap.add_argument("--examples", action="store_true", help="print confident wrong answers")
    args = ap.parse_args()
    shared = Path(args.shared)
    if not (shared / "data" / "openaddresses").is_dir():
        sys.exit(f"no OpenAddresses samples under {shared}/data/openaddresses (use --shared)")
    t0 = time.perf_counter()
    total = run(shared, seed=args.seed, n_typos=args.typos, limit=args.limit, peer=not args.no_peer)
    print(f"lead engine address check on {', '.join(bp.COUNTIES)} (80% reference / 20% held out, seed {args.seed}); "
          "S100 WRONG = confident wrong; peer: the address engine's validate on the same queries")
    print(table(total, not args.no_peer))
    if args.examples:
        for c in CORPORA:
            for label, ex in (("lead S100 WRONG", total[c].examples), ("validate confident wrong",
                                                                     total[c].peer_examples)):
                if ex:
                    print(f"\n{label} in {bp.CORPUS_NAMES[c]}:")
                    for e in ex:
                        print("  " + e)
    print(f"\n{time.perf_counter() - t0:.0f} s; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
