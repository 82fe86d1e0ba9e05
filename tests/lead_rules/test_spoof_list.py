"""An analyst's own spoof list (`SpoofList`, `--spoof-list`): whole names answered E100 beside the bundled lists,
matched in every way a whole name is written, never as a part of a name; through the engine, `dqkit verify` and a
real `dqkit serve`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pandas as pd
import pytest

from dqkit import InputError, LeadEngine, LeadProfile, LeadRequest, SpoofList

LIST = "# known fakes of the fair leads\nHingle McCringleberry\n\nDr. Zed Zebulon\n  Quatro Quatro  \n"


def _lead(**kw: str) -> LeadRequest:
    return LeadRequest(zip="20500", **kw)


@pytest.fixture
def names(tmp_path: Path) -> SpoofList:
    path = tmp_path / "fakes.txt"
    path.write_text("\ufeff" + LIST, encoding="utf-8")  # a byte-order mark, as Windows editors write
    return SpoofList.from_file(path)


@pytest.mark.parametrize("fields", [
    {"first_name": "Hingle", "last_name": "McCringleberry"},
    {"first_name": "HINGLE", "last_name": "mccringleberry"},
    {"first_name": "Hingle", "middle_name": "Q", "last_name": "McCringleberry"},
    {"full_name": "Hingle McCringleberry"},
    {"full_name": "McCringleberry, Hingle"},
    {"first_name": "Hingle", "last_name": "McCringleberryy"},  # a doubled letter
    {"first_name": "Hìngle", "last_name": "Mc Cringleberry"},  # an accent, a space
    {"first_name": "Zed", "last_name": "Zebulon"},  # the list's title is not needed
    {"full_name": "Mr Quatro Quatro"},
])
def test_listed_names_are_matched_in_every_form(names: SpoofList, fields: dict[str, str]) -> None:
    hit = names.match(_lead(**fields))
    assert hit is not None and hit.kind == "on your spoof list" and "fakes.txt" in hit.matched


@pytest.mark.parametrize("fields", [
    {"first_name": "Hingle", "last_name": "Smith"}, {"first_name": "Maria", "last_name": "McCringleberry"},
    {"full_name": "Hingle"}, {"first_name": "Quatro", "last_name": "Quatros Smith"},
])
def test_parts_of_a_listed_name_are_not(names: SpoofList, fields: dict[str, str]) -> None:
    assert names.match(_lead(**fields)) is None


def test_the_engine_answers_e100_and_names_the_list_in_its_identity(names: SpoofList) -> None:
    plain, listed = LeadEngine(LeadProfile(standardize_address=False)), \
        LeadEngine(LeadProfile(standardize_address=False, spoof_list=names))
    lead = _lead(first_name="Hingle", last_name="McCringleberry")
    assert plain.verify(lead).message.result_code == "S100"
    msg = listed.verify(lead).message
    assert msg.result_code == "E100" and "Hingle McCringleberry" in msg.value
    assert listed.verify(_lead(first_name="Mickey", last_name="Mouse")).message.result_code == "E100"  # bundled
    assert "spoof_list=" in listed.name and "spoof_list=" not in plain.name  # cached answers keyed apart
    other = SpoofList.of(["Somebody Else"])
    assert other.fingerprint != names.fingerprint and len(names) == 3


def test_bad_list_files_are_refused_clearly(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"Hingle McCringleberry\nQuatro \xff Quatro\n")
    with pytest.raises(InputError, match=r"bad.txt, line 2: not UTF-8"):
        SpoofList.from_file(bad)
    with pytest.raises(InputError, match="cannot be read"):
        SpoofList.from_file(tmp_path / "missing.txt")


def _dqkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dqkit.cli", *args], capture_output=True, text=True, timeout=120)


def test_verify_takes_a_spoof_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    src, out, fakes = tmp_path / "leads.csv", tmp_path / "out.csv", tmp_path / "fakes.txt"
    fakes.write_text(LIST, encoding="utf-8")
    pd.DataFrame([{"First Name": "Maria", "Last Name": "Garcia", "zipcode": "20500"},
                  {"First Name": "Hingle", "Last Name": "McCringleberry", "zipcode": "20500"}]).to_csv(src, index=False)
    for extra, codes in (((), ["S100", "S100"]), (("--spoof-list", str(fakes)), ["S100", "E100"])):
        proc = _dqkit("verify", str(src), "-o", str(out), "--no-address", *extra)
        assert proc.returncode == 0, proc.stderr
        assert list(pd.read_csv(out, dtype=str)["result_code"]) == codes  # the list is part of the cache key
    missing = _dqkit("verify", str(src), "-o", str(out), "--spoof-list", str(tmp_path / "none.txt"))
    assert missing.returncode != 0 and "none.txt" in missing.stderr and "Traceback" not in missing.stderr


def test_serve_takes_a_spoof_list(tmp_path: Path) -> None:
    from dqkit.server.testing import serve_process

    fakes = tmp_path / "fakes.txt"
    fakes.write_text(LIST, encoding="utf-8")
    with serve_process(extra_args=["--spoof-list", str(fakes)]) as server:
        headers = {"Auth-Token": server.token} if server.token else {}
        reply = httpx.post(f"{server.url}/search", headers=headers, timeout=30,
                           json={"FULL_NAME": "Quatro Quatro", "ZIP": "20500"})
    assert reply.status_code == 200, reply.text
    assert '"E100"' in reply.text and "Quatro Quatro" in reply.text
