"""`dqkit verify` as a whole process against the peer pipeline as a whole process, cache off (issue 21, part 1).

`bench_leads.py` times the engine inside one interpreter, so start-up, reading, flattening and writing never
show there. Here each run is a fresh process timed by wall clock from outside, in the same round:

- dqkit: `dqkit verify INPUT -o OUT.csv --quiet` with `DQKIT_CACHE=0` (no result cache): read the CSV, normalize,
  every rule of the local engine with address standardization on (the default profile), flat result columns,
  CSV written with formula escaping;
- peer: this file run as `--peer-child INPUT OUT`: pandas reads the CSV, then per lead bench_leads' peer
  (`nameparser.HumanName`, `phonenumbers` parse / valid / geocoder description, a regex for the invalid
  characters) plus `scourgify.normalize_address_record` for the address (dqkit standardizes it too) and
  `zipcodes.matching` for whether the ZIP exists and agrees with the city and state (dqkit checks that too), and
  pandas writes the CSV. dqkit does more per lead than this (spoof-name lists, the phone's area code against the
  ZIP, Publication 28 forms), so the peer is a floor, not its equal.

Runs alternate (peer, dqkit, peer, dqkit, ...) and medians are reported with the best beside them. "first run"
is dqkit in a fresh user cache folder (`XDG_CACHE_HOME`), where the ZIP tables it prepares once per install are
not yet kept; it is compared with the median of the later runs. The machine may be shared: the load average is
printed next to the figures, and the ratio in one run matters more than the seconds.

    .venv/bin/python benchmarks/bench_verify.py [--input data/sample_leads.csv] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
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
    for r in df.to_dict("records"):
        bad, first, last, valid, place = verify(r)
        try:
            addr = normalize_address_record({
                "address_line_1": r.get("STREET1", ""), "address_line_2": r.get("STREET2", ""),
                "city": r.get("CITY", ""), "state": r.get("STATE", ""), "postal_code": r.get("ZIP", "")})
        except Exception as exc:  # scourgify raises on what it cannot read; the row is kept
            addr = {"error": type(exc).__name__}
        zip5 = r.get("ZIP", "").strip()[:5]
        try:
            known = zipcodes.matching(zip5) if len(zip5) == 5 and zip5.isdigit() else []
        except (TypeError, ValueError):
            known = []
        zip_ok = any(z["state"] == r.get("STATE", "").strip().upper()
                     and z["city"] == r.get("CITY", "").strip().upper() for z in known)
        out.append({"invalid_chars": bad, "first": first, "last": last, "phone_valid": valid,
                    "phone_place": place, "zip_known": bool(known), "zip_city_state": zip_ok,
                    **{f"std_{k}": v for k, v in (addr or {}).items()}})
    pd.concat([df, pd.DataFrame(out)], axis=1).to_csv(dst, index=False)


def _timed(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(src: Path, repeat: int) -> dict[str, Any]:
    """Every timing of one round set, in seconds."""
    dqkit = str(Path(sys.executable).with_name("dqkit"))
    base = {**os.environ, "DQKIT_CACHE": "0", "DQKIT_PROGRESS": "0"}
    with tempfile.TemporaryDirectory(prefix="bench-verify-") as tmp:
        out = Path(tmp) / "out.csv"
        first_env = {**base, "XDG_CACHE_HOME": str(Path(tmp) / "fresh-cache")}
        loads = [_load()]
        first = _timed([dqkit, "verify", str(src), "-o", str(out), "--quiet"], first_env)
        times: dict[str, list[float]] = {"peer": [], "dqkit": []}
        for _ in range(repeat):
            times["peer"].append(_timed([sys.executable, __file__, "--peer-child", str(src), str(out)], base))
            times["dqkit"].append(_timed([dqkit, "verify", str(src), "-o", str(out), "--quiet"], first_env))
        loads.append(_load())
    return {"first": first, "times": times, "loads": loads}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", type=Path, default=REPO / "data" / "sample_leads.csv")
    ap.add_argument("--repeat", type=int, default=5, help="rounds; medians are reported")
    ap.add_argument("--peer-child", nargs=2, type=Path, metavar=("INPUT", "OUTPUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.peer_child:
        peer_child(*args.peer_child)
        return 0
    with args.input.open(encoding="utf-8") as fh:
        n = sum(1 for _ in fh) - 1
    res = run(args.input, args.repeat)
    t = res["times"]
    med = {k: statistics.median(v) for k, v in t.items()}
    print(f"Whole process, {n:,} leads from {args.input.name}, cache off, {args.repeat} rounds "
          f"(load average before: {res['loads'][0]}, after: {res['loads'][1]})\n")
    print("| pipeline | wall s (median) | wall s (best) | leads/s (median) |")
    print("|---|---:|---:|---:|")
    labels = {"dqkit": "dqkit verify (local engine, address standardization on)",
              "peer": "peer: pandas + HumanName + phonenumbers + regex + scourgify + zipcodes"}
    for kind in ("dqkit", "peer"):
        print(f"| {labels[kind]} | {med[kind]:.2f} | {min(t[kind]):.2f} | {n / med[kind]:,.0f} |")
    print(f"\nratio peer / dqkit (median wall time): {med['peer'] / med['dqkit']:.2f}x  (goal >= 4, aim 6)")
    print(f"first run (fresh user cache): {res['first']:.2f} s, {res['first'] / med['dqkit'] - 1:+.0%} against the "
          "median later run (goal: at most +20%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
