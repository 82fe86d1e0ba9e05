"""The per-lead and first-run costs of a whole `dqkit verify` (issue 21, part 1), checked by what the code does,
not by timing: the struct fields read once per class, the ZIP tables shipped (no `zipcodes` parse and no cache
file on a first run), the collector paused while tables are built. `benchmarks/bench_verify.py` has the figures."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from dqkit._gcpause import gc_paused
from dqkit.backends.local import LocalBackend
from dqkit.contract import lead_flat
from dqkit.contract.lead import LeadRequest, Phone
from dqkit.engines import zipdata
from dqkit.engines.lead import phones


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


def _shipped_fits() -> None:
    if zipdata._shipped(zipdata._source_key()) is None:
        pytest.skip(f"the shipped ZIP tables were made from other data than installed here "
                    f"({zipdata._source_key()}); regenerate them with `python -m dqkit.engines.zipdata`")


def test_shipped_zip_tables_are_what_zipcodes_gives() -> None:
    """The shipped file is, byte for byte, what the packer makes from zipcodes as installed."""
    _shipped_fits()
    with gc_paused():
        assert zipdata.SHIPPED_TABLES_FILE.read_bytes() == zipdata.prepare(zipdata._source_rows(),
                                                                            zipdata._source_key())


def test_lazy_zip_answers_equal_the_tables_built_from_the_rows() -> None:
    """Every ZIP, every city and state, every area code: the lazily read answers are those of the index-building
    rule run on the rows (and `tables()`, read from the prepared file, equals it too)."""
    _shipped_fits()
    with gc_paused():
        built = zipdata.build_tables(zipdata._source_rows())
    lazy = zipdata._Lazy(zipdata._prepared())
    assert len(built.by_zip) > 40_000
    for z, info in built.by_zip.items():
        assert lazy.zip_info(z) == info
    assert lazy.zip_info("00000") is None and lazy.zip_info("") is None
    for key, zips in built.by_city_state.items():
        assert lazy.zips_for_city(key) == zips
        assert lazy.counties_for_city(key) == built.counties_by_city.get(key, frozenset())
    assert lazy.zips_for_city(("NOWHERE", "CA")) == () and lazy.counties_for_city(("NOWHERE", "CA")) == frozenset()
    for state, cities in built.cities_by_state.items():
        assert zipdata.cities_of_state(state) == cities
    assert zipdata.city_names() == {c for c, _ in built.by_city_state}
    for code, states in built.states_by_area_code.items():
        assert zipdata.states_of_area_code(code) == states
    assert zipdata.states_of_area_code("000") == frozenset()
    assert zipdata.zip_info("95834") == built.by_zip["95834"]
    assert zipdata.zips_for_city("san jose", "ca") == built.by_city_state[("SAN JOSE", "CA")]
    full = zipdata.tables()
    assert dict(full.by_zip) == dict(built.by_zip) and list(full.by_zip) == list(built.by_zip)
    for name in ("by_city_state", "area_codes_by_state", "states_by_area_code", "cities_by_state",
                 "counties_by_city"):
        assert dict(getattr(full, name)) == dict(getattr(built, name)), name


def test_first_run_reads_the_shipped_zip_tables(tmp_path: Path) -> None:
    """A fresh user cache folder: the tables come from the package, `zipcodes` is never parsed, nothing is
    written (before, the first run parsed zipcodes' data and wrote a cache file: about 0.4 s more)."""
    _shipped_fits()
    code = ("import sys; from dqkit.engines import zipdata; t = zipdata.tables(); "
            "print(len(t.by_zip), 'zipcodes' in sys.modules)")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    count, imported = out.stdout.split()
    assert int(count) > 40_000 and imported == "False"
    assert not (tmp_path / "cache").exists()


def test_zip_tables_not_shipped_for_this_zipcodes_are_prepared_once_and_cached(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another zipcodes version than the shipped file was made from: the tables are prepared from zipcodes, kept
    in the user cache (owner-only), and read from there by the next process; the answers are the same."""
    monkeypatch.setattr(zipdata, "SHIPPED_TABLES_FILE", tmp_path / "absent.msgpack")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    zipdata._prepared.cache_clear()
    try:
        lazy = zipdata._Lazy(zipdata._prepared())
        cached = list((tmp_path / "cache").rglob("zipdata-*.msgpack"))
        assert len(cached) == 1 and (cached[0].stat().st_mode & 0o777) == 0o600
        assert lazy.zip_info("95834") == zipdata.build_tables(zipdata._source_rows()).by_zip["95834"]
        zipdata._prepared.cache_clear()
        monkeypatch.setattr(zipdata, "_source_rows", lambda: pytest.fail("the cache was not read"))
        assert zipdata._Lazy(zipdata._prepared()).zip_info("95834") == lazy.zip_info("95834")
    finally:
        zipdata._prepared.cache_clear()


def test_shipped_numbering_is_what_phonenumbers_gives() -> None:
    key = phones._source_key()
    shipped = phones._read(phones.PREPARED_FILE, key)
    if shipped is None:
        pytest.skip(f"the shipped numbering tables were made from another phonenumbers ({key}); regenerate them "
                    "with `python -m dqkit.engines.lead.phones`")
    assert shipped == phones._build()
    assert phones.PREPARED_FILE.read_bytes() == msgspec.msgpack.encode(phones._build(), order="sorted")


def test_numbering_for_another_phonenumbers_is_built_and_cached(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(phones, "PREPARED_FILE", tmp_path / "absent.msgpack")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    phones._numbering.cache_clear()
    phones._place_status.cache_clear()
    try:
        n = phones._numbering()
        assert "650" in n.npa_regions and "123" not in n.npa_regions and n.places
        assert list((tmp_path / "cache").rglob("nanp-*.msgpack"))
        assert phones.check_phone("650-253-0000", "94043").status == "E801"
    finally:
        phones._numbering.cache_clear()
        phones._place_status.cache_clear()


def test_a_few_leads_in_a_fresh_process_load_no_table_they_do_not_need(tmp_path: Path) -> None:
    """Verifying leads reads the prepared tables, not their sources, and imports nothing it does not use: no
    zipcodes, no phonenumbers (a '+1' number included), no full ZIP table, no address matcher (no reference
    given), no urllib.request, no importlib.metadata, no reference-install machinery."""
    code = """
import sys
import pandas as pd
import dqkit
from dqkit.engines import zipdata
df = pd.DataFrame([
    {"first_name": "Ann", "last_name": "Lee", "street1": "1646 Pleasant Rd", "city": "Sacramento", "state": "CA",
     "zip": "95834", "phone": "+1 (279) 210-0912"},
    {"first_name": "Bo", "last_name": "Chan", "street1": "12 Main St", "city": "Springfield", "state": "IL",
     "zip": "62701", "phone": "217-555-0142"}])
out = df.leads.verify(progress=False, cache=False)
print(",".join(out["lead_result_code"].astype(str)), out["lead_phone_status"].iloc[0])
heavy = ["zipcodes", "phonenumbers", "dqkit.engines.address.query", "urllib.request", "importlib.metadata",
         "dqkit.reference.install"]
print(" ".join(m for m in heavy if m in sys.modules) or "-", zipdata.tables.cache_info().currsize)
"""
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "DQKIT_REFERENCE_DIR": str(tmp_path / "refs")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    answers, loaded = out.stdout.strip().splitlines()
    assert answers == "S100,S100 E801"
    assert loaded == "- 0"


@pytest.mark.parametrize("order", ["dqkit first", "pandas first"])
def test_import_dqkit_leaves_pandas_for_later_and_the_accessors_still_register(order: str) -> None:
    """`import dqkit` alone no longer imports pandas (0.3 s); the accessors exist as soon as both are imported."""
    first, second = ("dqkit", "pandas") if order == "dqkit first" else ("pandas", "dqkit")
    code = (f"import sys; import {first}; print('pandas' in sys.modules); import {second}; import pandas as pd; "
            "print(hasattr(pd.DataFrame, 'leads'), hasattr(pd.DataFrame, 'addr'), hasattr(pd.Series, 'addr')); "
            "import dqkit.cli, dqkit.server.app")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == ("False" if order == "dqkit first" else "True")
    assert out[1] == "True True True"


def test_the_cli_and_the_server_need_no_pandas_to_start() -> None:
    code = "import sys, dqkit.cli, dqkit.server.app; print('pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_progress_bar_outside_a_notebook_imports_no_notebook_machinery() -> None:
    """Outside a notebook the text bar tqdm.auto would pick (a batch's bar, `reference add`'s): ipywidgets and
    IPython (0.1 s) stay unimported, and so does asyncio (tqdm.auto's async bar, issue 31)."""
    code = ("import sys\nfrom dqkit.notebook.progress import Progress\n"
            "from dqkit.reference.progress import Progress as Added\n"
            "bar = Progress(10, 'verify leads', enabled=True)\nbar.update(10)\nbar.close()\n"
            "added = Added('county.csv', 1000, enabled=True)\nadded.update(1000)\nadded.close()\n"
            "heavy = ('ipywidgets', 'IPython', 'tqdm.notebook', 'asyncio')\n"
            "print(' '.join(m for m in heavy if m in sys.modules) or '-')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "-" and "verify leads" in out.stderr and "county.csv" in out.stderr
