"""The per-lead and first-run costs of a whole `dqkit verify` (issue 21, part 1), checked by what the code does,
not by timing: the struct fields read once per class, the ZIP tables shipped (no `zipcodes` parse and no cache
file on a first run), the collector paused while tables are built. `benchmarks/bench_verify.py` has the figures."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dqkit._gcpause import gc_paused
from dqkit.backends.local import LocalBackend
from dqkit.contract import lead_flat
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.engines import zipdata


def _leads(n: int) -> list[LeadRequest]:
    return [LeadRequest(first_name="Maria", last_name=f"Garcia{i % 7}", street1=f"{100 + i} Main St",
                        city="Springfield", state="IL", zip="62701",
                        phones=(Phone(phone_number="217-555-0142"),)) for i in range(n)]


def test_flatten_reads_struct_fields_once_per_class() -> None:
    msgs = LocalBackend().verify_leads(_leads(30))
    assert all(m.result is not None and m.result.standardized_address is not None for m in msgs)
    lead_flat.flatten_message(msgs[0].result)  # type: ignore[arg-type]
    misses = lead_flat._fields.cache_info().misses
    rows = [lead_flat.flatten_message(m.result) for m in msgs]  # type: ignore[arg-type]
    assert lead_flat._fields.cache_info().misses == misses  # no class read again
    assert {r["std_zip"] for r in rows} == {"62701"} and all(r["result_code"] for r in rows)


@pytest.mark.parametrize("enabled", [True, False])
def test_gc_paused_restores_the_collector(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        with gc_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(ValueError), gc_paused():
            raise ValueError("a failed build still restores it")
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_shipped_zip_rows_are_what_zipcodes_gives() -> None:
    key = zipdata._source_key()
    shipped = zipdata._shipped_rows(key)
    if shipped is None:
        pytest.skip(f"the shipped ZIP rows were made from other data than installed here ({key}); regenerate "
                    "them with `python -m dqkit.engines.zipdata`")
    with gc_paused():
        assert shipped == zipdata._source_rows()


def test_first_run_reads_the_shipped_zip_tables(tmp_path: Path) -> None:
    """A fresh user cache folder: the tables come from the package, `zipcodes` is never parsed, nothing is
    written (before, the first run parsed zipcodes' data and wrote a cache file: about 0.4 s more)."""
    if zipdata._shipped_rows(zipdata._source_key()) is None:
        pytest.skip("the shipped ZIP rows do not match the installed zipcodes (see the test above)")
    code = ("import sys; from dqkit.engines import zipdata; t = zipdata.tables(); "
            "print(len(t.by_zip), 'zipcodes' in sys.modules)")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    count, imported = out.stdout.split()
    assert int(count) > 40_000 and imported == "False"
    assert not (tmp_path / "cache").exists()
