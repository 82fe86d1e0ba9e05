"""Memory of `dqkit serve --workers 2` over a state-sized SYNTHETIC reference (issue 21, part 5).

Writes the state-sized demo CSV (`demo_reference.write_state`, as bench_scale.py), builds its index in a fresh
process, starts `dqkit serve --workers 2 --index IDX`, validates --requests of the index's own addresses over a
keep-alive connection (so every worker has touched its index pages and tables), then reads
`/proc/PID/smaps_rollup` of the supervising process and of each worker. PSS (proportional set size) counts a page
shared by k processes as 1/k in each, so the PSS sum is the memory the server really holds; the RSS sum counts the
shared index pages once per worker. Goal: under 2 GB in total at 10M points.

    .venv/bin/python benchmarks/bench_serve_memory.py [--rows 10000000] [--dir KEEP] [--requests 2000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_scale import _texts

from dqkit.server.testing import serve_process


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rollup(pid: int) -> dict[str, int]:
    """kB figures of /proc/PID/smaps_rollup (Rss, Pss, Shared_Clean, Private_Dirty, ...)."""
    out: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        out[name.strip()] = int(value.split()[0])
    return out


def children(pid: int) -> list[int]:
    return [int(k) for t in Path(f"/proc/{pid}/task").iterdir() for k in (t / "children").read_text().split()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--dir", type=Path, default=None, help="keep (and reuse) the CSV and index here")
    args = ap.parse_args(argv)
    from dqkit.datagen import demo_reference

    with tempfile.TemporaryDirectory() as tmp:
        d = args.dir or Path(tmp)
        d.mkdir(parents=True, exist_ok=True)
        src, idx = d / f"state_{args.rows}.csv.gz", d / f"state_{args.rows}.dqidx"
        if not idx.exists():
            if not src.exists():
                t = time.perf_counter()
                demo_reference.write_state(src, args.rows)
                print(f"CSV written in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "dqkit.cli", "index", "build", str(src), "-o", str(idx),
                            "--synthetic"], check=True, stdout=subprocess.DEVNULL)
            print(f"index built in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
        texts = _texts(str(idx), args.requests, seed=21)  # the index's own addresses, as bench_scale types them
        with serve_process(workers=2, extra_args=["--index", str(idx), "--no-access-log"],
                           startup_timeout=600) as server:
            workers = children(server.process.pid)
            # Every worker must have answered the whole set (touched its index pages): the kernel hands each new
            # connection to one worker, so passes go over fresh connections until each worker has served one
            # (the worker that served a pass is the one whose CPU time grew; at most 12 passes).
            passes = dict.fromkeys(workers, 0)
            verified = 0
            for _ in range(12):
                before = {w: cpu_seconds(w) for w in workers}
                with httpx.Client(base_url=server.url, timeout=60) as http:
                    verified = 0
                    for text in texts:
                        r = http.post("/address/validate/v1",
                                      json={"country_iso": "USA", "components": {"unspecified": [text]}})
                        r.raise_for_status()
                        verified += r.json()["result"].get("confidence") == "Verified match"
                served_by = max(workers, key=lambda w: cpu_seconds(w) - before[w])
                passes[served_by] += 1
                if all(passes.values()):
                    break
            procs = {"supervisor": server.process.pid, **{f"worker {i}": p for i, p in enumerate(workers)}}
            figures = {name: rollup(pid) for name, pid in procs.items()}
    size_mb = idx.stat().st_size / 1e6 if idx.exists() else float("nan")
    print(f"dqkit serve --workers 2, SYNTHETIC state reference of {args.rows:,} points (index {size_mb:,.0f} MB), "
          f"each worker after at least one pass of {len(texts):,} validations ({verified:,} Verified match; passes "
          f"per worker {sorted(passes.values())}); load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("| process | RSS MB | PSS MB | shared clean MB | private MB |")
    print("|---|---:|---:|---:|---:|")
    for name, f in figures.items():
        private = f.get("Private_Clean", 0) + f.get("Private_Dirty", 0)
        print(f"| {name} | {f['Rss'] / 1024:,.0f} | {f['Pss'] / 1024:,.0f} | {f.get('Shared_Clean', 0) / 1024:,.0f} "
              f"| {private / 1024:,.0f} |")
    rss = sum(f["Rss"] for f in figures.values()) / 1024
    pss = sum(f["Pss"] for f in figures.values()) / 1024
    print(f"\ntotal: PSS {pss:,.0f} MB (goal < 2,048), RSS summed {rss:,.0f} MB (shared pages counted per process)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
