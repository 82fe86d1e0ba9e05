"""The whole country on one machine (issue 33): build, serve and grow a national SYNTHETIC reference, beside 10M.

    .venv/bin/python benchmarks/bench_national.py --rows 10000000 100000000 --dir /path/with/disk
    .venv/bin/python benchmarks/bench_national.py --rows 1000000 3000000          # a quick look

For each size, in fresh processes:
- data: `demo_reference.write_national` (one gzip CSV per state, 50 states and DC, the points shared by the
  states' ZIP counts; real ZIP / city / state triples, ~100k made-up street names; SYNTHETIC), reused when there.
- build: `build_index(files, memory=--memory, workers=--workers)`; a sampler sums the resident (RSS) and
  proportional (PSS) memory of the build process and its workers every 0.25 s (the peak sum is the figure: shared
  pages counted once per process in RSS, split in PSS), and the temporary disk (runs + the index being written).
  At the first size also "today's way": the same rows as one file, one pass, one core (`--memory` ample).
- serve: open, type-down (every prefix of 3-30 characters of ~300 addresses, a tenth with a typo) and validate
  (clean, made-up street, one swap in the street) in one process (bench_scale's measuring child): per core; each
  kind both cycling over ~300 addresses (repeats reuse the process's caches) and on other addresses each once.
- `dqkit serve --workers 2 --index` on it: validations over fresh connections until both workers answered, then
  each process's PSS from /proc/PID/smaps, split into the index file's pages (shared by all) and the rest.
- slice (largest size): the states adding up to ~--slice-rows points indexed alone; the national index's points of
  those states (digest of every field, in order) and the validate answers for --slice-validate of their addresses
  compared with the slice's own index.
- grow (each size): one state replaced (the same state written again with another seed), one removed, one
  county-sized part (--county-rows points) added: the new part read and built, the installed index merged (`grow`).
  At the smallest size the grown indexes are compared array by array with full rebuilds.

Every figure is printed with the load average beside it: on a shared 2-core machine wall times are pessimistic.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

CHILD_TIMEOUT = 7200


def load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


# -- memory and disk sampling ---------------------------------------------------------------------------------
def _tree(pid: int) -> list[int]:
    out = [pid]
    for p in list(out):
        try:
            for t in Path(f"/proc/{p}/task").iterdir():
                out += [int(k) for k in (t / "children").read_text().split()]
        except OSError:
            continue
    seen: list[int] = []
    for p in out:
        if p not in seen:
            seen.append(p)
    return seen


def _kb(pid: int, field: str, rollup: bool = False) -> int:
    path = f"/proc/{pid}/smaps_rollup" if rollup else f"/proc/{pid}/status"
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return 0
    return 0


class Sampler:
    """Peak sums of RSS and PSS over a process and its descendants, and peak bytes under some paths."""

    def __init__(self, pid: int, disk: list[tuple[Path, str]]) -> None:
        self.pid, self.disk = pid, disk
        self.rss = self.pss = self.disk_peak = 0
        self.procs = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def _run(self) -> None:
        k = 0
        while not self._stop.is_set():
            pids = _tree(self.pid)
            self.procs = max(self.procs, len(pids))
            self.rss = max(self.rss, sum(_kb(p, "VmRSS") for p in pids))
            if k % 4 == 0:
                self.pss = max(self.pss, sum(_kb(p, "Pss", rollup=True) for p in pids))
                self.disk_peak = max(self.disk_peak, sum(_du(d, prefix) for d, prefix in self.disk))
            k += 1
            self._stop.wait(0.25)

    def stop(self) -> None:
        self._stop.set()
        self._t.join()


def _du(path: Path, prefix: str = "") -> int:
    """Bytes on disk of the files under `path` whose name starts with `prefix`."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for f in files:
            if f.startswith(prefix):
                with contextlib.suppress(OSError):
                    total += os.stat(os.path.join(root, f)).st_blocks * 512
        if prefix:
            break
    return total


def run_child(*args: str, disk: list[tuple[Path, str]] | None = None) -> dict[str, Any]:
    """Run `--child ARGS` in a fresh process, sampling its memory; its last stdout line is a JSON object."""
    t = time.perf_counter()
    before = load()
    proc = subprocess.Popen([sys.executable, __file__, "--child", *args], stdout=subprocess.PIPE, text=True)
    sampler = Sampler(proc.pid, disk or [])
    try:
        out, _ = proc.communicate(timeout=CHILD_TIMEOUT)
    finally:
        sampler.stop()
    if proc.returncode:
        raise SystemExit(f"child {args[0]} failed ({proc.returncode})")
    res = dict(json.loads(out.strip().splitlines()[-1]))
    res.update(wall_s=time.perf_counter() - t, peak_rss_sum_mb=sampler.rss / 1024, peak_pss_sum_mb=sampler.pss / 1024,
               processes=sampler.procs, temp_disk_peak_mb=sampler.disk_peak / 1e6, load_before=before,
               load_after=load())
    return res


# -- children ---------------------------------------------------------------------------------------------------
def _cpu_s() -> float:
    """CPU seconds (user + system) of this process and the workers it waited for: what the work costs on an idle
    machine, whatever the load."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def child_build(files_json: str, out: str, memory: str, workers: str, tmp: str) -> dict[str, Any]:
    from dqkit.engines.address_index import build_index

    files = json.loads(files_json)
    t = time.perf_counter()
    rep = build_index([Path(f) for f in files], out, country_iso2="US", synthetic=True, memory=int(float(memory)),
                      workers=int(workers), tmp_dir=tmp,
                      progress=lambda s: print(f"    {time.perf_counter() - t:7.1f} s  {s}", file=sys.stderr,
                                               flush=True))
    return {"build_s": rep.seconds, "addresses": rep.addresses, "streets": rep.streets, "runs": rep.runs,
            "temp_mb": rep.temp_bytes / 1e6, "index_mb": rep.size_bytes / 1e6, "workers": rep.workers,
            "cpu_s": _cpu_s()}


def child_grow(kind: str, index: str, out: str, arg: str, tmp: str, memory: str) -> dict[str, Any]:
    """One state replaced (`arg`: STATE=FILE), removed (`arg`: STATE) or a part added (`arg`: FILE), timed."""
    from dqkit.engines.address_index.build import records_of_files
    from dqkit.engines.address_index.merge import MergeInput, merge_indexes
    from dqkit.engines.address_index.reader import source_of
    from dqkit.reference import grow

    t = time.perf_counter()
    staging = Path(tmp)
    staging.mkdir(parents=True, exist_ok=True)
    if kind == "remove":
        rep = merge_indexes([MergeInput(Path(index), drop_regions=frozenset({arg}))], out,
                            synthetic=True, names=["national"])
        part_rows = 0
    else:
        file = arg.split("=", 1)[-1]
        src = source_of(file, "US")
        label = str(src.path) + (f"#{src.region}" if src.region else "")
        drop = [label] if kind == "replace" else []

        def reader() -> Any:
            return (r for iso2, r in records_of_files([src], None, None) if not iso2.startswith("\x00"))

        meta = grow.part_meta(str(src.path), "", "", src.region)
        rep, _ = grow.build([(meta, reader)], "US", Path(out), base=Path(index), drop_parts=drop,
                            names=["national"], staging=staging, memory=int(float(memory)), synthetic=True,
                            dedupe=False)
        part_rows = sum(1 for _ in reader()) if kind == "add" else 0
    return {"seconds": time.perf_counter() - t, "addresses": rep.addresses, "part_rows": part_rows,
            "index_mb": rep.size_bytes / 1e6, "cpu_s": _cpu_s()}


def child_slice(national: str, slice_index: str, states_json: str, n_validate: str) -> dict[str, Any]:
    """The slice's points in the national index against the slice's own index; validate answers compared."""
    from dqkit.contract.address import SearchRequest
    from dqkit.engines.address import AddressEngine
    from dqkit.engines.address_index.compare import digest

    states = json.loads(states_json)
    t = time.perf_counter()
    d_nat = digest(national, states)
    d_slice = digest(slice_index)
    dig_s = time.perf_counter() - t
    nat, sl = AddressEngine.open(national), AddressEngine.open(slice_index)
    rng = random.Random(31)
    ix = sl.index
    diffs = []
    n = int(n_validate)
    for a in rng.sample(range(ix.address_count), n):
        r = ix.address(a)
        text = f"{r.line}, {r.street.city}, {r.street.region} {r.street.postcode}"
        for variant in (text, text.replace(r.street.postcode, "").rstrip()):
            x, y = nat.validate(SearchRequest.of(variant)).result, sl.validate(SearchRequest.of(variant)).result
            if _answer(x) != _answer(y):
                diffs.append(variant)
    return {"points_national": d_nat[0], "points_slice": d_slice[0], "same_points": d_nat == d_slice,
            "digest_s": dig_s, "validated": 2 * n, "answers_differ": len(diffs), "examples": diffs[:5]}


def _answer(result: Any) -> Any:
    """A validate result as plain data, less what names the build (keys, format URLs)."""
    import msgspec

    def strip(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in ("global_address_key", "suggestions_key", "format")}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    return strip(msgspec.to_builtins(result))


def child_serve(index: str, n: str) -> dict[str, Any]:
    """`dqkit serve --workers 2` on the index: PSS of each process, the index file's pages apart, after validating
    (until each worker has answered a pass) and again after both workers have typed down (their matcher caches full)."""
    import httpx
    from bench_scale import _queries, _texts

    from dqkit.contract.address import SearchRequest
    from dqkit.server.testing import serve_process

    texts = _texts(index, int(n), 21)
    idx = str(Path(index).resolve())

    def split_pss(pid: int) -> tuple[int, int]:
        total = mapped = 0
        current = ""
        for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
            head = line.split()
            if head and not head[0].endswith(":") and "-" in head[0]:
                current = head[-1] if len(head) >= 6 else ""
            elif line.startswith("Pss:"):
                kb = int(head[1])
                total += kb
                if current == idx:
                    mapped += kb
        return total, mapped

    def cpu(pid: int) -> float:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

    t = time.perf_counter()
    with serve_process(workers=2, extra_args=["--index", index, "--no-access-log"], startup_timeout=900) as server:
        start_s = time.perf_counter() - t
        kids = [int(k) for tt in Path(f"/proc/{server.process.pid}/task").iterdir()
                for k in (tt / "children").read_text().split()]
        served = dict.fromkeys(kids, 0)
        for _ in range(12):
            before = {w: cpu(w) for w in kids}
            with httpx.Client(base_url=server.url, timeout=120) as http:
                for text in texts:
                    http.post("/address/validate/v1",
                              json={"country_iso": "USA", "components": {"unspecified": [text]}}).raise_for_status()
            served[max(kids, key=lambda w: cpu(w) - before[w])] += 1
            if all(served.values()):
                break
        after_validate = {pid: split_pss(pid) for pid in [server.process.pid, *kids]}
        # Then type down from two clients at once, so that both workers fill the matcher's type-down caches.
        keystrokes = _queries(texts, 12)
        before = {w: cpu(w) for w in kids}

        def type_down(part: list[str]) -> None:
            # A new connection every 30 keystrokes (about one address typed), so that both workers take some.
            for at in range(0, len(part), 30):
                with httpx.Client(base_url=server.url, timeout=120) as http:
                    for text in part[at:at + 30]:
                        http.post("/address/search/v1", json=SearchRequest.of(text).wire()).raise_for_status()

        half = (len(keystrokes) // 60 + 1) * 30
        typists = [threading.Thread(target=type_down, args=(part,)) for part in (keystrokes[:half], keystrokes[half:])]
        for th in typists:
            th.start()
        for th in typists:
            th.join()
        typing_cpu = {w: round(cpu(w) - before[w], 2) for w in kids}
        figures = {pid: split_pss(pid) for pid in [server.process.pid, *kids]}

    def sums(f: dict[int, tuple[int, int]]) -> tuple[float, float]:
        return sum(v[0] for v in f.values()) / 1024, sum(v[1] for v in f.values()) / 1024

    total, index_pages = sums(figures)
    total_v, index_v = sums(after_validate)
    return {"start_s": start_s, "pss_total_mb": total, "pss_index_mb": index_pages,
            "pss_beyond_index_mb": total - index_pages, "processes": len(figures),
            "per_process": {str(k): [round(v[0] / 1024), round(v[1] / 1024)] for k, v in figures.items()},
            "passes": sorted(served.values()),
            "after_validate_pss_beyond_index_mb": total_v - index_v, "keystrokes": len(keystrokes),
            "typing_cpu_s_per_worker": list(typing_cpu.values())}


# -- the run ----------------------------------------------------------------------------------------------------
def _data(d: Path, rows: int) -> list[Path]:
    from dqkit.datagen import demo_reference

    folder = d / f"national_{rows}"
    done = folder / "DONE"
    if not done.exists():
        t = time.perf_counter()
        print(f"[{rows:,}] writing the national CSVs (load {load()}) ...", file=sys.stderr, flush=True)
        files = demo_reference.write_national(folder, rows, workers=2)
        done.write_text(json.dumps([str(f) for f in files]))
        print(f"[{rows:,}] written in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    return [Path(f) for f in json.loads(done.read_text())]


def _one_file(d: Path, rows: int, files: list[Path]) -> Path:
    """The same rows as one gzip file (for today's one-pass build)."""
    out = d / f"national_{rows}" / "all.csv.gz"
    if not out.exists():
        import gzip

        with gzip.open(out.with_suffix(".part"), "wb", compresslevel=1) as w:
            for k, f in enumerate(files):
                with gzip.open(f, "rb") as r:
                    head = r.readline()
                    if k == 0:
                        w.write(head)
                    shutil.copyfileobj(r, w, 1 << 20)
        out.with_suffix(".part").replace(out)
    return out


class Swapped:
    """`path` holds `other`'s bytes inside the block (the same state downloaded again), its own after."""

    def __init__(self, path: Path, other: Path | None, tmp: Path) -> None:
        self.path, self.other, self.keep = path, other, tmp / "swapped-original"

    def __enter__(self) -> None:
        if self.other is not None:
            os.replace(self.path, self.keep)
            shutil.copyfile(self.other, self.path)

    def __exit__(self, *exc: object) -> None:
        if self.other is not None:
            os.replace(self.keep, self.path)


def _state_of(f: Path) -> str:
    return f.parent.name.upper()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--rows", type=int, nargs="+", default=[10_000_000, 100_000_000])
    p.add_argument("--dir", type=Path, required=False, help="where the CSVs and indexes go (kept; reused)")
    p.add_argument("--memory", default="2.5e9", help="the build's memory budget in bytes (default 2.5e9)")
    p.add_argument("--workers", default="2")
    p.add_argument("--addresses", type=int, default=300)
    p.add_argument("--validate", type=int, default=2000)
    p.add_argument("--serve-requests", type=int, default=2000)
    p.add_argument("--slice-rows", type=int, default=10_000_000)
    p.add_argument("--slice-validate", type=int, default=500)
    p.add_argument("--county-rows", type=int, default=100_000)
    p.add_argument("--no-today", action="store_true", help="skip today's one-pass build at the first size")
    p.add_argument("--no-serve", action="store_true")
    p.add_argument("--no-grow", action="store_true", help="skip growing (replace, remove, add)")
    p.add_argument("--keep", action="store_true", help="keep the indexes (the CSVs are always kept)")
    p.add_argument("--report-only", action="store_true", help="print the table of the results saved in --dir")
    p.add_argument("--resume", action="store_true",
                   help="keep the steps already saved in --dir's results (the index kept with them) and run the rest")
    p.add_argument("--compare-max", type=int, default=10_000_000,
                   help="grown indexes are compared with full rebuilds at sizes up to this (two more builds each)")
    p.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.report_only:
        d = a.dir or Path("bench-national")
        report({rows: json.loads((d / f"results_{rows}.json").read_text()) for rows in a.rows})
        return
    if a.child:
        kind, *rest = a.child
        fn: dict[str, Callable[..., object]] = {"build": child_build, "grow": child_grow, "slice": child_slice,
                                                "serve": child_serve}
        if kind == "measure":
            from bench_scale import child_measure

            print(json.dumps(child_measure(rest[0], int(rest[1]), int(rest[2]))))
        else:
            print(json.dumps(fn[kind](*rest)))
        return
    from dqkit.datagen import demo_reference

    d = a.dir or Path("bench-national")
    d.mkdir(parents=True, exist_ok=True)
    results: dict[int, dict[str, Any]] = {}
    for n, rows in enumerate(a.rows):
        saved = d / f"results_{rows}.json"
        idx = d / f"national_{rows}.dqidx"
        r: dict[str, Any] = json.loads(saved.read_text()) if a.resume and saved.exists() and idx.exists() else {}

        def save(r: dict[str, Any] = r, saved: Path = saved) -> None:  # after each step: a stopped run keeps it
            saved.write_text(json.dumps(r, indent=1))

        files = _data(d, rows)
        tmp = d / f"tmp_{rows}"
        tmp.mkdir(exist_ok=True)
        if "build" in r:
            print(f"[{rows:,}] build kept from {saved}", file=sys.stderr, flush=True)
        else:
            print(f"[{rows:,}] building (load {load()}) ...", file=sys.stderr, flush=True)
            r["build"] = run_child("build", json.dumps([str(f) for f in files]), str(idx), a.memory, a.workers,
                                   str(tmp), disk=[(tmp, ""), (d, idx.name + ".tmp")])
            save()
        if n == 0 and not a.no_today and "today" not in r:
            one = _one_file(d, rows, files)
            print(f"[{rows:,}] today's way: one file, one pass, one core (load {load()}) ...", file=sys.stderr,
                  flush=True)
            r["today"] = run_child("build", json.dumps([str(one)]), str(d / "today.dqidx"), "1e12", "1", str(tmp))
            from dqkit.engines.address_index.compare import array_differences

            r["today"]["same_as_runs"] = not [x for x in array_differences(d / "today.dqidx", idx,
                                                                           ignore_meta=["sources", "parts"])
                                              if not x.startswith("a.part") and "a.part" not in x]
            (d / "today.dqidx").unlink()
            save()
        if "measure" not in r:
            print(f"[{rows:,}] measuring (load {load()}) ...", file=sys.stderr, flush=True)
            r["measure"] = run_child("measure", str(idx), str(a.addresses), str(a.validate))
            save()
        if not a.no_serve and "serve" not in r:
            print(f"[{rows:,}] dqkit serve --workers 2 (load {load()}) ...", file=sys.stderr, flush=True)
            r["serve"] = run_child("serve", str(idx), str(a.serve_requests))
            save()
        plan = demo_reference.national_plan(rows)
        # the slice, at the largest size (before grow: its answers are a serving goal)
        if n == len(a.rows) - 1 and rows > a.slice_rows and "slice" not in r:
            picked: list[Path] = []
            total = 0
            for f in sorted(files, key=lambda f: -plan[_state_of(f)]):
                if total + plan[_state_of(f)] <= a.slice_rows:
                    picked.append(f)
                    total += plan[_state_of(f)]
            states = [_state_of(f) for f in picked]
            sl = d / f"slice_{rows}.dqidx"
            print(f"[{rows:,}] slice of {total:,} points ({', '.join(states)}) ...", file=sys.stderr, flush=True)
            r["slice_build"] = run_child("build", json.dumps([str(f) for f in picked]), str(sl), a.memory, a.workers,
                                         str(tmp))
            r["slice"] = run_child("slice", str(idx), str(sl), json.dumps(states), str(a.slice_validate))
            r["slice"]["states"] = states
            save()
            if not a.keep:
                sl.unlink()
        # grow: replace, remove, add
        by_size = sorted(files, key=lambda f: f.stat().st_size)
        mid = by_size[len(by_size) // 2]
        st = _state_of(mid)
        again = d / f"regrown_{rows}" / "us" / st.lower() / "statewide.csv.gz"
        if not again.exists():
            demo_reference.write_state(again, plan[st], seed=777, state=st)
        county = d / f"county_{a.county_rows}" / "us" / "wy" / "new_county.csv.gz"
        if not county.exists():
            demo_reference.write_state(county, a.county_rows, seed=778, state="WY")
        r.setdefault("grow", {"state": st, "state_rows": plan[st]})
        for kind, arg in (("replace", f"{st}={mid}"), ("remove", st), ("add", str(county))):
            if kind in r["grow"] or a.no_grow:
                continue
            print(f"[{rows:,}] grow: {kind} {st if kind != 'add' else county.name} (load {load()}) ...",
                  file=sys.stderr, flush=True)
            out = d / f"grown_{kind}_{rows}.dqidx"
            with Swapped(mid, again if kind == "replace" else None, tmp):  # the state's file, downloaded again
                r["grow"][kind] = run_child("grow", kind, str(idx), str(out), arg, str(tmp / "grow"), a.memory)
                if rows <= a.compare_max and kind in ("replace", "remove"):  # the same as a full rebuild? array-wise
                    from dqkit.engines.address_index.compare import array_differences

                    rest = [f for f in files if f != mid] + ([mid] if kind == "replace" else [])  # replaced: last
                    full = d / f"full_{kind}_{rows}.dqidx"
                    print(f"[{rows:,}] full rebuild to compare ({kind}) ...", file=sys.stderr, flush=True)
                    r["grow"][kind]["full_rebuild"] = run_child("build", json.dumps([str(f) for f in rest]),
                                                                str(full), a.memory, a.workers, str(tmp))
                    diffs = array_differences(out, full, ignore_meta=["sources"])
                    r["grow"][kind]["same_as_full_rebuild"] = not diffs
                    r["grow"][kind]["differences"] = diffs[:5]
                    full.unlink()
            if not a.keep:
                out.unlink(missing_ok=True)
            save()
        if not a.keep:
            idx.unlink(missing_ok=True)
        shutil.rmtree(tmp, ignore_errors=True)
        results[rows] = r
        save()
    report(results)


def report(results: dict[int, dict[str, Any]]) -> None:
    sizes = sorted(results)
    print("\nNational reference, SYNTHETIC (demo_reference.write_national: 51 state files, real ZIP/city/state "
          "triples), this machine (2 cores, shared);\nload average (1/5/15 min) beside each figure.\n")
    col = [f"{s:,} points" for s in sizes]
    rows: list[tuple[str, list[str]]] = []

    def add(name: str, fn: Any) -> None:
        vals = []
        for s in sizes:
            try:
                vals.append(fn(results[s]))
            except (KeyError, TypeError, ZeroDivisionError):
                vals.append("")
        rows.append((name, vals))

    add("build s (runs on 2 cores + merge)",
        lambda r: f"{r['build']['build_s']:,.0f} (load {r['build']['load_after']})")
    add("build CPU s, all processes (idle-machine cost)", lambda r: f"{r['build']['cpu_s']:,.0f}")
    add("  today's way: one pass, one core",
        lambda r: f"{r['today']['build_s']:,.0f} (load {r['today']['load_after']})"
        f"{', same index' if r['today']['same_as_runs'] else ', DIFFERENT index'}")
    add("  today's way: CPU s", lambda r: f"{r['today']['cpu_s']:,.0f}")
    add("peak RSS, sum of processes MB", lambda r: f"{r['build']['peak_rss_sum_mb']:,.0f} ({r['build']['processes']} "
        "proc.)")
    add("peak PSS, sum of processes MB", lambda r: f"{r['build']['peak_pss_sum_mb']:,.0f}")
    add("  today's way: peak RSS MB", lambda r: f"{r['today']['peak_rss_sum_mb']:,.0f}")
    add("runs / temporary runs MB", lambda r: f"{r['build']['runs']} / {r['build']['temp_mb']:,.0f}")
    add("temp disk peak MB (runs + index being written)", lambda r: f"{r['build']['temp_disk_peak_mb']:,.0f}")
    add("index MB on disk", lambda r: f"{r['build']['index_mb']:,.0f}")
    add("streets", lambda r: f"{r['build']['streets']:,}")
    add("open ms", lambda r: f"{r['measure']['open_ms']:.2f}")
    add("first query ms", lambda r: f"{r['measure']['first_query_ms']:.0f}")
    add("keystroke p50 / p99 ms wall", lambda r: f"{r['measure']['p50']:.2f} / {r['measure']['p99']:.2f} "
        f"(load {r['measure']['load_after']})")
    add("keystroke p50 / p99 ms CPU", lambda r: f"{r['measure']['cpu_p50']:.2f} / {r['measure']['cpu_p99']:.2f}")
    add("validate/s clean, wall (CPU = per core)", lambda r: f"{r['measure']['validate_per_s']:,.0f} "
        f"({r['measure']['validate_cpu_per_s']:,.0f}), {r['measure']['verified']:.1%} verified")
    add("validate/s made-up street, wall (CPU)", lambda r: f"{r['measure']['made_up_per_s']:,.0f} "
        f"({r['measure']['made_up_cpu_per_s']:,.0f}), {r['measure']['made_up_confident']:.2%} confident")
    add("validate/s one swap in street, wall (CPU)", lambda r: f"{r['measure']['typo_per_s']:,.0f} "
        f"({r['measure']['typo_cpu_per_s']:,.0f}), {r['measure']['typo_verified']:.1%} verified")
    add("validate/s each once, CPU: clean / made-up / one swap", lambda r: " / ".join(
        f"{r['measure'][k]:,.0f}" for k in ("once_cpu_per_s", "made_up_once_cpu_per_s", "typo_once_cpu_per_s")))
    add("serve --workers 2: PSS total MB", lambda r: f"{r['serve']['pss_total_mb']:,.0f} "
        f"(load {r['serve']['load_after']})")
    add("  of it the index file's pages MB", lambda r: f"{r['serve']['pss_index_mb']:,.0f}")
    add("  beyond the index pages MB (after validate only)", lambda r: f"{r['serve']['pss_beyond_index_mb']:,.0f}"
        + (f" ({r['serve']['after_validate_pss_beyond_index_mb']:,.0f})" if "keystrokes" in r["serve"] else ""))
    add("  then typed down by 2 clients: keystrokes (CPU s a worker)", lambda r: f"{r['serve']['keystrokes']:,} "
        f"({' / '.join(str(x) for x in r['serve']['typing_cpu_s_per_worker'])})" if "keystrokes" in r["serve"] else "-")
    add("grow: state replaced s (state points)", lambda r: f"{r['grow']['replace']['seconds']:,.0f} "
        f"({r['grow']['state']}, {r['grow']['state_rows']:,}; load {r['grow']['replace']['load_after']})"
        + ("" if "same_as_full_rebuild" not in r['grow']['replace'] else
           (", = full rebuild" if r['grow']['replace']['same_as_full_rebuild'] else ", DIFFERS from full rebuild")))
    add("grow: state removed s", lambda r: f"{r['grow']['remove']['seconds']:,.0f}"
        + ("" if "same_as_full_rebuild" not in r['grow']['remove'] else
           (", = full rebuild" if r['grow']['remove']['same_as_full_rebuild'] else ", DIFFERS from full rebuild")))
    add("grow: county added s (points)", lambda r: f"{r['grow']['add']['seconds']:,.0f} "
        f"({r['grow']['add']['part_rows']:,})")
    add("grow CPU s: replaced / removed / added", lambda r: " / ".join(
        f"{r['grow'][k]['cpu_s']:,.0f}" for k in ("replace", "remove", "add")))
    add("slice: same points / answers differ", lambda r: f"{r['slice']['same_points']} "
        f"({r['slice']['points_slice']:,} pts, {len(r['slice']['states'])} states) / "
        f"{r['slice']['answers_differ']} of {r['slice']['validated']}")
    w = max(len(n) for n, _ in rows) + 2
    cw = max(24, *(len(v) + 2 for _, vals in rows for v in vals))
    print(f"{'':<{w}}" + "".join(f"{c:>{cw}}" for c in col))
    for name, vals in rows:
        print(f"{name:<{w}}" + "".join(f"{v:>{cw}}" for v in vals))
    big = results[sizes[-1]]
    b = big["build"]
    per_pt = b["index_mb"] * 1e6 / b["addresses"]
    print(f"\nper point at {sizes[-1]:,}: index {per_pt:.0f} bytes, build {b['build_s'] / b['addresses'] * 1e6:.1f} "
          f"us (2 cores), temporary runs {b['temp_mb'] * 1e6 / b['addresses']:.0f} bytes")
    print("goals at 100M: build <= 1,200 s, peak RSS <= 3,000 MB, index <= 9,000 MB, open <= 50 ms, keystroke p99 <= "
          "5 ms, validate >= 2,000/s per core, serve PSS beyond the index <= 1,024 MB")


if __name__ == "__main__":
    main()
