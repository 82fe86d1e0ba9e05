"""Stage 1 lead verification speed: dqkit's local engine against the plain peer pipeline (issue 2, Speed).

Both verify the same leads, one at a time, in one process each (a fresh interpreter per pipeline, so each
one's peak memory is its own):

- engine: `normalize_lead` (phones as written, ZIP+4, state names, blanks: the accessors' input step, timed)
  then `LeadEngine(LeadProfile(standardize_address=False)).verify(lead)`: apostrophes, E200 syntax and hidden
  characters, E6xx required fields, E100 spoof (sound-alike names, name collisions), name parsing, PHONE_STATUS,
  the ELS phone and address codes, the reverse phone append, the full ELSGenericMessage;
- peer: `nameparser.HumanName` + `phonenumbers.parse` + `is_valid_number` + the geocoder's description + a
  regex for the invalid characters, the pipeline a notebook user would write without dqkit.

Leads are read from `data/sample_leads.csv` (or --input) before the clock starts. "start" is the time to
import and build tables (first lead included); "pass s" is one pass over all the leads after that, started after
a full garbage collection in both pipelines (a collection left over from start-up otherwise falls inside the pass
or not by chance: about 0.1 s, 15% of the engine's pass), so per-value
caches only help where values repeat inside the data, as they would in real use; each pipeline runs --repeat
times, each time in a fresh process, and the best pass is reported (with the median beside it). "peak MB" is
the process's peak resident memory. The machine may be shared: numbers are noisy, the ratio less so.

    .venv/bin/python benchmarks/bench_leads.py [--input data/sample_leads.csv] [--rows N] [--repeat 3]
"""

from __future__ import annotations

import argparse
import csv
import gc
import json
import multiprocessing as mp
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
INVALID = "^%$?*><=&"


def _rows(path: Path, limit: int | None) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return rows[:limit] if limit else rows


def _peak_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024


def _engine(rows: list[dict[str, str]]) -> dict[str, Any]:
    t0 = time.perf_counter()
    from dqkit.contract.lead import LeadRequest, Phone
    from dqkit.contract.lead_input import normalize_lead
    from dqkit.engines.lead.engine import LeadEngine, LeadProfile

    fields = set(LeadRequest.__struct_fields__) - {"phones", "attributes"}

    def lead(r: dict[str, str]) -> LeadRequest:
        kw: dict[str, Any] = {k.lower(): v for k, v in r.items() if k.lower() in fields and v}
        phones = (Phone(phone_type=r.get("PHONE_TYPE", ""), phone_number=r["PHONE_NUMBER"]),) \
            if r.get("PHONE_NUMBER") else ()
        return LeadRequest(phones=phones, **kw)

    leads = [lead(r) for r in rows]
    engine = LeadEngine(LeadProfile(standardize_address=False))
    engine.verify(normalize_lead(leads[0]))  # the first lead as the pass will see it: tables load here
    start = time.perf_counter() - t0
    gc.collect()  # the pass starts from a clean heap (see the module docstring)
    t = time.perf_counter()
    out = [engine.verify(normalize_lead(x)) for x in leads]
    seconds = time.perf_counter() - t
    codes: dict[str, int] = {}
    for m in out:
        codes[m.message.result_code] = codes.get(m.message.result_code, 0) + 1
    return {"start": start, "seconds": seconds, "peak_mb": _peak_mb(), "codes": codes}


def peer_verifier() -> Callable[[dict[str, str]], tuple[bool, str, str, bool, str]]:
    """The peer's check of one lead (a CSV row): invalid characters, the name parsed, the phone parsed, valid,
    and placed. `bench_verify.py` runs the same check inside its whole-process peer."""
    import re

    import phonenumbers
    from nameparser import HumanName
    from phonenumbers import geocoder

    invalid = re.compile("[" + re.escape(INVALID) + "]")

    def verify(r: dict[str, str]) -> tuple[bool, str, str, bool, str]:
        bad = any(invalid.search(v) for v in r.values() if v)
        text = r.get("FULL_NAME") or " ".join(v for v in (r.get("PREFIX"), r.get("FIRST_NAME"),
                                                          r.get("MIDDLE_NAME"), r.get("LAST_NAME"),
                                                          r.get("SUFFIX")) if v)
        name = HumanName(text)
        valid, place = False, ""
        try:
            num = phonenumbers.parse(r.get("PHONE_NUMBER", ""), "US")
            valid = phonenumbers.is_valid_number(num)
            place = geocoder.description_for_number(num, "en")
        except phonenumbers.NumberParseException:
            pass
        return bad, name.first, name.last, valid, place

    return verify


def _peer(rows: list[dict[str, str]]) -> dict[str, Any]:
    t0 = time.perf_counter()
    verify = peer_verifier()
    verify(rows[0])
    start = time.perf_counter() - t0
    gc.collect()  # the pass starts from a clean heap (see the module docstring)
    t = time.perf_counter()
    for r in rows:
        verify(r)
    seconds = time.perf_counter() - t
    return {"start": start, "seconds": seconds, "peak_mb": _peak_mb()}


def _child(kind: str, path: str, limit: int | None, queue: Any) -> None:
    rows = _rows(Path(path), limit)
    queue.put(json.dumps((_engine if kind == "engine" else _peer)(rows)))


def run(path: Path, limit: int | None, repeat: int) -> dict[str, list[dict[str, Any]]]:
    """Each pipeline `repeat` times, alternating, each run in a fresh interpreter."""
    ctx = mp.get_context("spawn")
    results: dict[str, list[dict[str, Any]]] = {"peer": [], "engine": []}
    for _ in range(repeat):
        for kind in ("peer", "engine"):
            q = ctx.Queue()
            p = ctx.Process(target=_child, args=(kind, str(path), limit, q))
            p.start()
            results[kind].append(json.loads(q.get()))
            p.join()
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", type=Path, default=REPO / "data" / "sample_leads.csv")
    ap.add_argument("--rows", type=int, default=None, help="use the first N leads only")
    ap.add_argument("--repeat", type=int, default=3, help="warm passes; the best is reported")
    args = ap.parse_args(argv)
    n = len(_rows(args.input, args.rows))
    res = run(args.input, args.rows, args.repeat)
    print(f"Stage 1 lead verification, {n:,} leads from {args.input.name}, one lead at a time, one core\n")
    print("| pipeline | start s | pass s (best) | leads/s (best) | leads/s (median) | peak MB |")
    print("|---|---:|---:|---:|---:|---:|")
    labels = {"engine": "dqkit normalize_lead + LeadEngine (Stage 1, no address)",
              "peer": "peer: HumanName + phonenumbers parse/valid/geocode + regex"}
    best: dict[str, float] = {}
    for kind in ("engine", "peer"):
        runs = res[kind]
        secs = sorted(r["seconds"] for r in runs)
        best[kind] = secs[0]
        median = statistics.median(secs)
        print(f"| {labels[kind]} | {min(r['start'] for r in runs):.2f} | {secs[0]:.2f} | {n / secs[0]:,.0f} | "
              f"{n / median:,.0f} | {max(r['peak_mb'] for r in runs):.0f} |")
    ratio = best["peer"] / best["engine"]
    print(f"\nratio engine / peer (leads/s, best passes): {ratio:.2f}x  (required >= 1.0, aim 2.0)")
    codes = res["engine"][0]["codes"]
    print("engine result codes:", ", ".join(f"{k} {v}" for k, v in sorted(codes.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
