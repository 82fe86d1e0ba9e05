"""`dqkit verify` as a whole process against the peer pipeline as a whole process, cache off (issues 21 and 31).

`bench_leads.py` times the engine inside one interpreter, so start-up, reading, flattening and writing never
show there. Here each run is a fresh process timed from outside, in the same round, wall clock and CPU seconds
(user + system of the process and every process it started, from the operating system's accounting):

- dqkit: `dqkit verify INPUT -o OUT.csv --quiet [--workers N]` with `DQKIT_CACHE=0` (no result cache): read the
  CSV, normalize, every rule of the local engine with address standardization on (the default profile), flat
  result columns, CSV written with formula escaping;
- peer: this file run as `--peer-child INPUT OUT`: pandas reads the CSV, then per lead bench_leads' peer
  (`nameparser.HumanName`, `phonenumbers` parse / valid / geocoder description, a regex for the invalid
  characters) plus `scourgify.normalize_address_record` for the address (dqkit standardizes it too) and
  `zipcodes.matching` for whether the ZIP exists and agrees with the city and state (dqkit checks that too), and
  pandas writes the CSV. One process, as the peer has no worker option. dqkit does more per lead than this
  (spoof-name lists, the phone's area code against the ZIP, Publication 28 forms), so the peer is a floor.

`--leads N` makes N distinct leads from the input (the rows cycled; every copy after the first gets fresh house
numbers, the last four digits of its phones and its CUST_REF_NO, from a fixed seed), so that nothing is merged
as a duplicate. `--workers 1,2` times dqkit once per value (`default`: no flag, dqkit's own choice).

Runs alternate (peer, dqkit..., peer, dqkit..., ...); medians are reported with the best beside them, and the ratio
peer / dqkit is the median of the ratios of each round (a round's pair saw the same machine). "first run" is dqkit
in a fresh user cache folder (`XDG_CACHE_HOME`). `--interactive` times the notebook case instead: a fresh
`python` importing dqkit and pandas, reading 10 leads and running `df.leads.verify()` (progress bar on, as in a
notebook; cache off), beside the peer's imports alone and the peer's imports with the same 10 leads checked. The
machine may be shared: the load average is printed for every round, and the ratio in one run matters more than
the seconds. Every process keeps its compiled bytecode (see `_with_bytecode`), as an installed package does.

    .venv/bin/python benchmarks/bench_verify.py [--input data/sample_leads.csv] [--leads 50000] [--repeat 5]
                                                 [--workers default,1,2] [--interactive]
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_leads import peer_verifier

REPO = Path(__file__).resolve().parent.parent


def peer_child(src: Path, dst: Path) -> None:
    """The peer pipeline, whole: read, check every lead, write."""
    import pandas as pd
    import zipcodes
    from scourgify import normalize_address_record

    verify = peer_verifier()
    df = pd.read_csv(src, dtype=str, keep_default_na=False)
    out: list[dict[str, Any]] = []
    records: list[dict[str, str]] = df.to_dict("records")  # type: ignore[assignment]  # dtype=str
    for r in records:
        bad, first, last, valid, place = verify(r)
        try:
            addr = normalize_address_record({
                "address_line_1": r.get("STREET1", ""), "address_line_2": r.get("STREET2", ""),
                "city": r.get("CITY", ""), "state": r.get("STATE", ""), "postal_code": r.get("ZIP", "")})
        except Exception as exc:  # scourgify raises on what it cannot read; the row is kept
            addr = {"error": type(exc).__name__}
        zip5 = r.get("ZIP", "").strip()[:5]
        try:
            ok = len(zip5) == 5 and zip5.isdigit()
            known = zipcodes.matching(zip5) if ok else []  # type: ignore[no-untyped-call]
        except (TypeError, ValueError):
            known = []
        zip_ok = any(z["state"] == r.get("STATE", "").strip().upper()
                     and z["city"] == r.get("CITY", "").strip().upper() for z in known)
        out.append({"invalid_chars": bad, "first": first, "last": last, "phone_valid": valid,
                    "phone_place": place, "zip_known": bool(known), "zip_city_state": zip_ok,
                    **{f"std_{k}": v for k, v in (addr or {}).items()}})
    pd.concat([df, pd.DataFrame(out)], axis=1).to_csv(dst, index=False)


_HOUSE = re.compile(r"^\s*\d+")
_LAST4 = re.compile(r"\d{4}(?=\D*$)")


def distinct_leads(src: Path, dst: Path, n: int, seed: int = 31) -> None:
    """`n` leads from `src`: its rows cycled, every copy after the first with a fresh house number, phone
    ending and CUST_REF_NO (see the module docstring)."""
    rnd = random.Random(seed)
    with src.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        fields = list(reader.fieldnames or [])
        rows = list(reader)
    with dst.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for i in range(n):
            row = dict(rows[i % len(rows)])
            if i >= len(rows):
                if _HOUSE.match(row.get("STREET1", "")):
                    row["STREET1"] = _HOUSE.sub(str(rnd.randint(1, 29999)), row["STREET1"], count=1)
                if row.get("PHONE_NUMBER"):
                    row["PHONE_NUMBER"] = _LAST4.sub(f"{rnd.randint(0, 9999):04d}", row["PHONE_NUMBER"], count=1)
                row["CUST_REF_NO"] = f"C{i:08d}"
            w.writerow(row)


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one whole process and everything it started."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _with_bytecode(env: dict[str, str], tmp: Path) -> dict[str, str]:
    """`env` where Python keeps the bytecode it compiles (in `tmp`): an installed wheel has its modules compiled
    at install, while a development checkout run with PYTHONDONTWRITEBYTECODE would compile all of dqkit's
    modules in every timed process (~0.1 s). The untimed first runs write it; the peer's packages have theirs."""
    out = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out["PYTHONPYCACHEPREFIX"] = str(tmp / "bytecode")
    return out


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _dqkit_cmd(src: Path, out: Path, workers: str) -> list[str]:
    dqkit = str(Path(sys.executable).with_name("dqkit"))
    cmd = [dqkit, "verify", str(src), "-o", str(out), "--quiet"]
    return cmd if workers == "default" else [*cmd, "--workers", workers]


def run(src: Path, repeat: int, workers: list[str]) -> dict[str, Any]:
    """Every timing of one round set."""
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        base = _with_bytecode({**os.environ, "DQKIT_CACHE": "0", "DQKIT_PROGRESS": "0"}, Path(tmp))
        out = Path(tmp) / "out.csv"
        env = {**base, "XDG_CACHE_HOME": str(Path(tmp) / "fresh-cache")}
        first = _timed(_dqkit_cmd(src, out, workers[0]), env)
        times: dict[str, list[tuple[float, float]]] = {"peer": [], **{f"dqkit:{w}": [] for w in workers}}
        loads: list[str] = []
        for _ in range(repeat):
            loads.append(_load())
            times["peer"].append(_timed([sys.executable, __file__, "--peer-child", str(src), str(out)], base))
            for w in workers:
                times[f"dqkit:{w}"].append(_timed(_dqkit_cmd(src, out, w), env))
        loads.append(_load())
    return {"first": first, "times": times, "loads": loads}


_INTERACTIVE_DQKIT = """
import dqkit, pandas as pd
df = pd.read_csv({src!r}, dtype=str, keep_default_na=False)
out = df.leads.verify()
assert len(out) == len(df)
"""
_PEER_IMPORTS = "import pandas, nameparser, phonenumbers, phonenumbers.geocoder, scourgify, zipcodes"
_INTERACTIVE_PEER = """
import sys
sys.path.insert(0, {bench!r})
import pandas as pd
import zipcodes
from scourgify import normalize_address_record
from bench_leads import peer_verifier
df = pd.read_csv({src!r}, dtype=str, keep_default_na=False)
verify = peer_verifier()
for r in df.to_dict("records"):
    verify(r)
    try:
        normalize_address_record({{"address_line_1": r["STREET1"], "city": r["CITY"], "state": r["STATE"],
                                  "postal_code": r["ZIP"]}})
    except Exception:
        pass
    zipcodes.matching(r["ZIP"][:5]) if r["ZIP"][:5].isdigit() and len(r["ZIP"][:5]) == 5 else None
"""


def interactive(src: Path, repeat: int) -> dict[str, Any]:
    """The notebook case: a fresh interpreter, imports, 10 leads."""
    env = {**os.environ, "DQKIT_CACHE": "0"}
    env.pop("DQKIT_PROGRESS", None)
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        env = _with_bytecode(env, Path(tmp))
        ten = Path(tmp) / "ten.csv"
        with src.open(encoding="utf-8") as fh:
            ten.write_text("".join(line for _, line in zip(range(11), fh, strict=False)), encoding="utf-8")
        cmds = {
            "dqkit: import dqkit + df.leads.verify() of 10 leads": [
                sys.executable, "-c", _INTERACTIVE_DQKIT.format(src=str(ten))],
            "peer: imports only": [sys.executable, "-c", _PEER_IMPORTS],
            "peer: imports + the same 10 leads": [
                sys.executable, "-c", _INTERACTIVE_PEER.format(src=str(ten), bench=str(Path(__file__).parent))],
            "python -c 'import pandas' (the floor both pay)": [sys.executable, "-c", "import pandas"],
        }
        env["XDG_CACHE_HOME"] = str(Path(tmp) / "cache")
        times: dict[str, list[tuple[float, float]]] = {k: [] for k in cmds}
        loads = []
        for cmd in cmds.values():  # one warm-up each: the page cache, not dqkit, is what a first run pays
            _timed(cmd, env)
        for _ in range(repeat):
            loads.append(_load())
            for k, cmd in cmds.items():
                times[k].append(_timed(cmd, env))
        loads.append(_load())
    return {"times": times, "loads": loads}


def _median(xs: list[tuple[float, float]], k: int) -> float:
    return statistics.median(x[k] for x in xs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", type=Path, default=REPO / "data" / "sample_leads.csv")
    ap.add_argument("--leads", type=int, help="distinct leads made from the input (default: the input as is)")
    ap.add_argument("--repeat", type=int, default=5, help="rounds; medians are reported")
    ap.add_argument("--workers", default="default",
                    help="comma-separated --workers values to time dqkit with ('default': no flag)")
    ap.add_argument("--interactive", action="store_true",
                    help="time import + df.leads.verify() of 10 leads in a fresh process instead")
    ap.add_argument("--peer-child", nargs=2, type=Path, metavar=("INPUT", "OUTPUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.peer_child:
        peer_child(*args.peer_child)
        return 0
    print(f"{os.cpu_count()} cores; os.sched_getaffinity: {len(os.sched_getaffinity(0))}")
    if args.interactive:
        res = interactive(args.input, args.repeat)
        print(f"Fresh process, 10 leads, cache off, {args.repeat} rounds (load average per round: "
              f"{' | '.join(res['loads'])})\n")
        print("| process | wall s (median) | wall s (best) | CPU s (median) |")
        print("|---|---:|---:|---:|")
        for k, v in res["times"].items():
            print(f"| {k} | {_median(v, 0):.3f} | {min(x[0] for x in v):.3f} | {_median(v, 1):.3f} |")
        return 0
    with tempfile.TemporaryDirectory(prefix="bench-verify-input-") as tmp:
        src = args.input
        if args.leads:
            src = Path(tmp) / f"leads_{args.leads}.csv"
            distinct_leads(args.input, src, args.leads)
        with src.open(encoding="utf-8") as fh:
            n = sum(1 for _ in fh) - 1
        workers = [w.strip() for w in args.workers.split(",") if w.strip()]
        res = run(src, args.repeat, workers)
    t = res["times"]
    print(f"Whole process, {n:,} leads ({'distinct, from ' if args.leads else ''}{args.input.name}), cache off, "
          f"{args.repeat} rounds (load average per round: {' | '.join(res['loads'])})\n")
    print("| pipeline | wall s (median) | wall s (best) | CPU s (median) | leads/s (median) | peer / this, wall "
          "(median of rounds) |")
    print("|---|---:|---:|---:|---:|---:|")
    peer = t["peer"]
    for kind, v in t.items():
        label = ("peer: pandas + HumanName + phonenumbers + regex + scourgify + zipcodes, one process"
                 if kind == "peer" else f"dqkit verify{'' if kind.endswith(':default') else ' --workers ' + kind[6:]}")
        ratio = statistics.median(p[0] / d[0] for p, d in zip(peer, v, strict=True))
        print(f"| {label} | {_median(v, 0):.2f} | {min(x[0] for x in v):.2f} | {_median(v, 1):.2f} | "
              f"{n / _median(v, 0):,.0f} | {ratio:.2f}x |")
    first_kind = f"dqkit:{workers[0]}"
    print(f"\nfirst run (fresh user cache, {first_kind[6:]}): {res['first'][0]:.2f} s wall, {res['first'][1]:.2f} s "
          f"CPU, {res['first'][0] / _median(t[first_kind], 0) - 1:+.0%} against the median later run")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
