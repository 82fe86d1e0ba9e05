"""Local engine against a served one on realistic leads: does a pre-screen settle any lead differently from the
service, and where do local and served answers differ, and why? (issue 27)

    .venv/bin/python benchmarks/bench_service_agreement.py [--shared ../shared] [--leads 600] [--seed 27]
                                                           [--fresh-seeds 2]

Leads: real addresses (OpenAddresses points of Alameda and Santa Clara counties in `shared/data/openaddresses/`)
under names of the bundled sample, written the way CRM exports write them: nicknames in double quotes
(`Robert "Bob"`), companies with ampersands (`Barnes & Associates`), apostrophes, units typed at the end of the
street ("1533 Martin Luther King Jr Way Apt R 3", the street's suffix written out; a fifth of the leads on the
counties' long street names, where the unit overflows STREET1's 35 characters), phones in a dozen formats
(`(510) 555-0142`, `+1 510.555.0142`, `510-555-0142 x12`, `(000) 523-4412`, ...), state names, ZIP+4, and a share
of leads that break a rule (no name, no ZIP, a `%`). The generator is in this file; the data it draws on is not
ours.

One `dqkit serve --reference alameda.csv --reference santa_clara.csv` stands in for the vendor, behind a counting
proxy (tests/http/faultproxy.py). For each seed, as a user runs it (real processes):

  local      dqkit verify LEADS --reference (the same two files)
  served     dqkit verify LEADS --service URL                      (every lead sent)
  screened   dqkit verify LEADS --service URL --prescreen          (settled leads answered at home)

and prints: settled-vs-served agreement on every settled lead (the goal is 100%: a settled answer is the
vendor's), `dqkit compare local served` (RESULT_CODE agreement over rows answered on both sides, goal >= 99.5%,
and every differing row with its reason), and the books of the pre-screened run beside what the proxy counted.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "http"))

TOKEN = "bench-agreement"
COUNTIES = ("alameda.csv", "santa_clara.csv")
_SUFFIX_WORDS = {"AV": "Avenue", "AVE": "Avenue", "ST": "Street", "DR": "Drive", "RD": "Road", "CT": "Court",
                 "LN": "Lane", "BLVD": "Boulevard", "WY": "Way", "WAY": "Way", "PL": "Place", "CIR": "Circle",
                 "TER": "Terrace", "PKWY": "Parkway", "HWY": "Highway"}
_NICKS = {"Robert": "Bob", "William": "Bill", "Elizabeth": "Liz", "Margaret": "Peggy", "James": "Jim",
          "Richard": "Dick", "Katherine": "Kate", "Michael": "Mike", "Jennifer": "Jen", "Thomas": "Tom"}
_AREA = ("510", "408", "415", "925", "650", "669")


def _title(s: str) -> str:
    return " ".join(w.capitalize() if not any(c.isdigit() for c in w) else w for w in s.split())


def _phone(rng: random.Random) -> str:
    area, prefix, line = rng.choice(_AREA), rng.randint(200, 989), rng.randint(0, 9999)
    if prefix in (211, 311, 411, 511, 555, 611, 711, 811, 911, 950, 958, 959):
        prefix = 234
    d = f"{area}{prefix:03d}{line:04d}"
    forms = [f"({d[:3]}) {d[3:6]}-{d[6:]}", f"{d[:3]}-{d[3:6]}-{d[6:]}", f"{d[:3]}.{d[3:6]}.{d[6:]}", d,
             f"+1 {d[:3]} {d[3:6]} {d[6:]}", f"1-{d[:3]}-{d[3:6]}-{d[6:]}", f"+1 ({d[:3]}) {d[3:6]}-{d[6:]}",
             f"{d[:3]}-{d[3:6]}-{d[6:]} x{rng.randint(1, 999)}", f"({d[:3]}){d[3:6]}-{d[6:]} ext. {rng.randint(1, 99)}",
             f"(000) {d[3:6]}-{d[6:]}", f"000-{d[3:6]}-{d[6:]}", f"{d[3:6]}-{d[6:]}", "", "n/a",
             f"{d[:3]} {d[3:6]} {d[6:]}"]
    weights = [14, 14, 8, 8, 6, 5, 4, 5, 3, 2, 2, 3, 12, 1, 4]
    return rng.choices(forms, weights)[0]


def _points(shared: Path) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for name in COUNTIES:
        with (shared / "data" / "openaddresses" / name).open(newline="", encoding="utf-8") as f:
            rows += [r for r in csv.DictReader(f) if r.get("NUMBER") and r.get("STREET") and r.get("POSTCODE")]
    return rows


def _street(p: dict[str, str], rng: random.Random, long: bool = False) -> str:
    words = p["STREET"].split()
    if words and words[-1] in _SUFFIX_WORDS and (long or rng.random() < 0.5):
        words[-1] = _SUFFIX_WORDS[words[-1]]  # written out, as people type it: longer streets
    street = f"{p['NUMBER']} {_title(' '.join(words))}"
    r = rng.random()
    unit = p.get("UNIT", "").strip()
    if unit and r < 0.7:
        street += f" {_title(unit)}"
    elif r < (0.7 if long else 0.3):
        street += rng.choice([f" Apt {rng.randint(1, 40)}", f" Suite {rng.randint(1, 9)}00", f" # {rng.randint(1, 99)}",
                              f" Unit {rng.choice('ABCDR')} {rng.randint(1, 9)}", f", Apt {rng.randint(1, 9)}B"])
    return street


def realistic_leads(n: int, seed: int, shared: Path) -> pd.DataFrame:
    """`n` leads as a CRM exports them (see the module docstring); reproducible by `seed`."""
    rng = random.Random(seed)
    points = _points(shared)
    long_points = [p for p in points if len(f"{p['NUMBER']} {p['STREET']}") >= 20]  # where a typed unit overflows
    sample = pd.read_csv(REPO / "data" / "sample_leads.csv", dtype=str, keep_default_na=False)
    firsts = [f for f in sample["FIRST_NAME"] if f.isalpha()] + list(_NICKS)
    lasts = [x for x in sample["LAST_NAME"] if x.replace("-", "").isalpha()]
    companies = [c for c in sample["BUSINESS_NAME"] if c]
    sources = ["Web", "Trade Show", "Partner Referral", "Purchased List", "Cold Call"]
    out = []
    for i in range(n):
        long = rng.random() < 0.2
        p = rng.choice(long_points if long else points)
        first, last = rng.choice(firsts), rng.choice(lasts)
        r = rng.random()
        if first in _NICKS and r < 0.5:
            first = f'{first} "{_NICKS[first]}"'
        elif r < 0.06:
            last = rng.choice(["O'Brien", "D'Angelo", "O'Neil", "Dell'Acqua"])
        company = ""
        r = rng.random()
        if r < 0.12:
            company = rng.choice([f"{last} & Associates", f"{rng.choice(lasts)} & {rng.choice(lasts)} LLP",
                                  "Barnes & Noble", "AT&T Services", f"{rng.choice(lasts)} & Sons"])
        elif r < 0.3 and companies:
            company = rng.choice(companies)
        state = rng.choice(["CA", "CA", "CA", "California", "ca"])
        zip_ = p["POSTCODE"] + (f"-{rng.randint(1000, 9999)}" if rng.random() < 0.1 else "")
        row = {"First Name": first, "Last Name": last, "Company": company, "Street": _street(p, rng, long),
               "City": _title(p.get("CITY", "")), "State": state, "Zip": zip_, "Phone": _phone(rng),
               "Lead Source": rng.choice(sources), "Lead ID": f"L{seed}-{i:05d}"}
        r = rng.random()
        if r < 0.02:
            row["First Name"] = row["Last Name"] = ""  # E600
        elif r < 0.04:
            row["Zip"] = ""  # E601
        elif r < 0.05:
            row["Company"] = "100% Organic Inc"  # E200
        out.append(row)
    return pd.DataFrame(out)


# ------------------------------------------------------------------ running it as a user does


def dqkit(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k not in ("DQKIT_LEAD_TOKEN", "DQKIT_PARTNER_ID")}
    full.update({"DQKIT_CACHE": "0", "DQKIT_PROGRESS": "0", **(env or {})})
    launch = "import sys; from dqkit.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", launch, *args], capture_output=True, text=True, env=full,
                          stdin=subprocess.DEVNULL, timeout=1800)


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def settled_agreement(screened: pd.DataFrame, served: pd.DataFrame) -> tuple[int, list[str]]:
    """(settled leads, lines naming every settled lead whose answer differs from the service's)."""
    settled = screened["answered_by"].str.startswith("local (settled")
    fields = ["result_code", "result_type", "result_category", "result_value"]
    bad = []
    for i in settled[settled].index:
        a = tuple(screened.at[i, f] for f in fields)
        b = tuple(served.at[i, f] for f in fields)
        if a != b:
            bad.append(f"  row {i}: settled {a[0]} ({a[3][:80]}), served {b[0]} ({b[3][:80]})")
    return int(settled.sum()), bad


def run_seed(seed: int, n: int, shared: Path, url: str, refs: list[Path], proxy: object,
             work: Path) -> dict[str, object]:
    leads = realistic_leads(n, seed, shared)
    src = work / f"leads-{seed}.csv"
    leads.to_csv(src, index=False)
    env = {"DQKIT_LEAD_TOKEN": TOKEN}
    ref_args = [a for r in refs for a in ("--reference", str(r))]
    local = dqkit("verify", str(src), "-o", str(work / f"local-{seed}.csv"), *ref_args, "--quiet")
    served = dqkit("verify", str(src), "-o", str(work / f"served-{seed}.csv"), "--service", url, "--quiet", env=env)
    before = set(proxy.answered)  # type: ignore[attr-defined]
    screened = dqkit("verify", str(src), "-o", str(work / f"screened-{seed}.csv"), "--service", url, "--prescreen",
                     "--price", "0.05", "--quiet", env=env)
    proxy_calls = len(set(proxy.answered) - before)  # type: ignore[attr-defined]
    for done in (local, served, screened):
        if done.returncode != 0:
            raise SystemExit(f"dqkit failed:\n{done.stderr[-3000:]}")
    cmp = dqkit("compare", str(work / f"local-{seed}.csv"), str(work / f"served-{seed}.csv"), "-o",
                str(work / f"diff-{seed}.csv"))
    if cmp.returncode != 0:
        raise SystemExit(f"dqkit compare failed:\n{cmp.stderr[-3000:]}")
    n_settled, bad = settled_agreement(read(work / f"screened-{seed}.csv"), read(work / f"served-{seed}.csv"))
    diff = read(work / f"diff-{seed}.csv") if (work / f"diff-{seed}.csv").stat().st_size else pd.DataFrame()
    books = next((line for line in screened.stdout.splitlines() if line.startswith("calls to")), "")
    return {"seed": seed, "settled": n_settled, "settled_bad": bad, "compare": cmp.stdout.splitlines()[0],
            "diff": diff, "books": books, "proxy_calls": proxy_calls, "sent_notes": int(
                (read(work / f"served-{seed}.csv").get("sent", pd.Series(dtype=str)) != "").sum())}


def report(results: list[dict[str, object]]) -> Iterator[str]:
    for r in results:
        bad = r["settled_bad"]
        assert isinstance(bad, list)
        settled = int(r["settled"])  # type: ignore[call-overload]
        yield (f"seed {r['seed']}: settled leads {settled}, agreeing with the service "
               f"{settled - len(bad)}/{settled} ({100.0 * (settled - len(bad)) / max(settled, 1):.1f}%)")
        yield from bad
        yield f"  compare local vs served: {r['compare']}"
        diff = r["diff"]
        assert isinstance(diff, pd.DataFrame)
        for _, row in diff.iterrows():
            code_cols = [c for c in diff.columns if c.startswith("result_code [")]
            codes = " vs ".join(str(row[c]) for c in code_cols) if code_cols else "same code"
            why = row.get("reason", "(not given)")
            yield f"    row {row['row']}: {codes}; differs in {row['differs']}; reason: {why}"
        yield f"  books of the pre-screened run: {r['books']}"
        yield f"  the counting proxy saw {r['proxy_calls']} distinct requests answered in that run"
        yield f"  leads whose sent form differs from what was read (served run): {r['sent_notes']}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    ap.add_argument("--leads", type=int, default=600)
    ap.add_argument("--seed", type=int, default=27)
    ap.add_argument("--fresh-seeds", type=int, default=2, help="also run this many random seeds")
    args = ap.parse_args()
    from faultproxy import FaultProxy

    from dqkit.server.testing import serve_process

    refs = [args.shared / "data" / "openaddresses" / c for c in COUNTIES]
    seeds = [args.seed] + [random.SystemRandom().randint(1, 10**6) for _ in range(args.fresh_seeds)]
    print(f"load average {os.getloadavg()[0]:.2f}; seeds {seeds}; {args.leads} leads each", flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dqkit-agreement-") as tmp, \
            serve_process(tokens=[TOKEN], references=refs) as served, FaultProxy(served.url) as proxy:
        results = [run_seed(s, args.leads, args.shared, proxy.url, refs, proxy, Path(tmp)) for s in seeds]
    for line in report(results):
        print(line)
    print(f"({time.perf_counter() - started:.0f} s, load average {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
