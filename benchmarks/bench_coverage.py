"""How often does the wholeness test of `dqkit.reference.coverage` declare a partial file complete for a ZIP?
(issue 28, part 2: the thresholds measured, not reasoned)

    .venv/bin/python benchmarks/bench_coverage.py [--shared ../shared] [--seeds 10,11,13,99] [--fresh 16]

A ZIP of a county file is declared complete (without `--complete`) when the file is a whole-county kind, the ZIP
lies in that county, and its rows in the ZIP are at least `MIN_ADDRESSES` and `MIN_PER_STREET` per street. Every
file measured here is partial: the three county samples of `shared/data/openaddresses/` (about 1% of a county,
per the ZIP counts) and random subsamples of them. Each is read as `dqkit reference add` reads it (`read_records`,
then `Density` and `complete_zips` as `reference.install` calls them, the file taken as an OpenAddresses county
source named after its county). Printed, per file and per sampling rate over all seeds:

* ZIPs held and ZIPs declared complete (each one a partial ZIP declared complete: a false "not found" waiting);
* the densest ZIP's addresses per street and its address count, how many ZIPs pass each threshold alone, and,
  per ZIP the county check lets through, how much denser the sample would have to be to pass both (the margin);
* the same file with every row written twice and three times (a file merged from sources holding the same points,
  or a building's units each a row): rows per street grow with the copies, distinct addresses do not.

No whole ZIP is available here, so the other error (a whole ZIP declared partial) is not measured.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

from dqkit.engines.address_index.reader import Record, read_records, source_of
from dqkit.reference.coverage import MIN_ADDRESSES, MIN_PER_STREET, Density, complete_zips

REPO = Path(__file__).resolve().parent.parent
COUNTIES = {"alameda": "alameda", "santa_clara": "santa-clara", "portland_metro": "portland-metro"}
RATES = (1.0, 0.8, 0.5, 0.2)
FIXED_SEEDS = (10, 11, 13, 99)


@dataclass
class Outcome:
    zips: int = 0
    declared: int = 0
    pass_n: int = 0  # ZIPs with at least MIN_ADDRESSES rows
    pass_density: int = 0  # ZIPs with at least MIN_PER_STREET rows per street
    densest: float = 0.0
    densest_n: int = 0
    examples: tuple[str, ...] = ()

    def add(self, o: Outcome) -> None:
        self.zips += o.zips
        self.declared += o.declared
        self.pass_n += o.pass_n
        self.pass_density += o.pass_density
        if o.densest > self.densest:
            self.densest, self.densest_n = o.densest, o.densest_n
        self.examples = (*self.examples, *o.examples)[:6]


def measure(records: list[Record], place: str) -> Outcome:
    """Density and `complete_zips` over `records`, as `reference add` computes them for one file."""
    density = Density()
    postcodes = set()
    for r in density.count(records):
        postcodes.add((r.region, r.postcode))
    declared = complete_zips(place, postcodes, density, kind="openaddresses")
    out = Outcome(zips=len(density.addresses), declared=len(declared), examples=tuple(declared[:6]))
    for z, n in density.addresses.items():
        per = n / max(len(density.streets.get(z, ())), 1)
        out.pass_n += n >= MIN_ADDRESSES
        out.pass_density += per >= MIN_PER_STREET
        if per > out.densest:
            out.densest, out.densest_n = per, n
    return out


FACTORS = (1.5, 2, 3, 5, 10)


def needed_factors(records: list[Record], place: str) -> list[float]:
    """Per ZIP that the county check would let through (in the county, no city over its line): the factor by
    which its addresses must grow, streets held fixed, to pass both thresholds."""
    density = Density()
    postcodes = set()
    for r in density.count(records):
        postcodes.add((r.region, r.postcode))
    eligible = set(complete_zips(place, postcodes, _Everything(density), kind="openaddresses"))
    out = []
    for z, n in density.addresses.items():
        if z in eligible and n:
            streets = len(density.streets.get(z, ()))
            out.append(max(MIN_ADDRESSES / n, MIN_PER_STREET * streets / n))
    return out


class _Everything(Density):
    """A density that finds every ZIP whole: `complete_zips` then applies only its county checks."""

    def __init__(self, inner: Density) -> None:
        super().__init__()
        self.streets = inner.streets

    def whole(self, zip5: str) -> bool:
        return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shared", default=os.environ.get("DQKIT_SHARED_DIR", str(REPO.parent / "shared")))
    ap.add_argument("--seeds", default=",".join(map(str, FIXED_SEEDS)))
    ap.add_argument("--fresh", type=int, default=16, help="seeds drawn afresh (printed)")
    args = ap.parse_args()
    sysrand = random.SystemRandom()
    seeds = [int(s) for s in args.seeds.split(",") if s] + [sysrand.randrange(100, 10**6) for _ in range(args.fresh)]
    print(f"seeds: {', '.join(map(str, seeds))}; thresholds: {MIN_ADDRESSES} addresses and {MIN_PER_STREET:g} "
          "per street")
    t0 = time.perf_counter()
    head = (f"{'file':<16}{'sample':<22}{'runs':>5}{'ZIPs':>7}{'declared':>10}{'>=addr.':>8}{'>=/street':>10}"
            f"{'densest /street':>17}{'its addr.':>10}")
    print(head)
    total = Outcome()
    for name, place in COUNTIES.items():
        path = Path(args.shared) / "data" / "openaddresses" / f"{name}.csv"
        records = list(read_records(source_of(path, "US")))
        for rate in RATES:
            agg = Outcome()
            runs = [records] if rate == 1.0 else \
                [random.Random(sd).sample(records, int(len(records) * rate)) for sd in seeds]
            for rs in runs:
                agg.add(measure(rs, place))
            total.add(agg)
            label = "whole sample" if rate == 1.0 else f"{rate:.0%} subsample"
            print(f"{name:<16}{label:<22}{len(runs):>5}{agg.zips:>7}{agg.declared:>10}{agg.pass_n:>8}"
                  f"{agg.pass_density:>10}{agg.densest:>17.2f}{agg.densest_n:>10}")
        for copies in (2, 3):
            o = measure(records * copies, place)
            total.add(o)
            print(f"{name:<16}{f'rows x{copies} (same points)':<22}{1:>5}{o.zips:>7}{o.declared:>10}{o.pass_n:>8}"
                  f"{o.pass_density:>10}{o.densest:>17.2f}{o.densest_n:>10}"
                  + (f"  declared: {', '.join(o.examples)}" if o.declared else ""))
    print(f"\nall partial files: {total.declared} of {total.zips} ZIP readings declared complete")
    print("\nthe margin: how much denser than the shared sample a sample of the same kind must be before a ZIP of "
          "it is declared complete (its addresses scaled, its streets held: a denser sample also shows more "
          "streets, so these count the most ZIPs that could pass)")
    print(f"{'file':<16}{'ZIPs':>6}" + "".join(f"{f'<= {k}x':>8}" for k in FACTORS) + f"{'least':>8}")
    for name, place in COUNTIES.items():
        path = Path(args.shared) / "data" / "openaddresses" / f"{name}.csv"
        factors = needed_factors(list(read_records(source_of(path, "US"))), place)
        print(f"{name:<16}{len(factors):>6}" + "".join(f"{sum(f <= k for f in factors):>8}" for k in FACTORS)
              + f"{min(factors, default=0):>8.2f}")
    print(f"{time.perf_counter() - t0:.0f} s, {time.process_time():.0f} s CPU; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
